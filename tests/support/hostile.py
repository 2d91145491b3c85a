"""Hostile JSON documents for the bad-input tests: any shape, nested to 10,000 levels,
huge integers, NaN, booleans where numbers belong, long strings, odd unicode, repeated
keys, bytes that are not UTF-8, and valid documents with one field replaced."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st


class Raw:
    """JSON text written as it is (what :func:`json.dumps` refuses to write)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Raw({self.text[:40]!r})"


def render(value: Any) -> str:
    """``value`` as JSON text: floats may be NaN or infinite, :class:`Raw` is copied."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, list):
        return "[" + ",".join(render(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{render(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


#: The field names of our formats, so that generated objects hit real code paths.
KEYS = [
    "format",
    "v",
    "type",
    "card",
    "contract",
    "trump",
    "token",
    "seats",
    "seat",
    "kind",
    "bot",
    "name",
    "seed",
    "rules",
    "deals",
    "declarer",
    "hands",
    "plays",
    "players",
    "extra",
    "king_play",
    "bots",
    "lang",
    "id",
    "declare",
    "protocol",
    "preset",
    "overruff",
    "view",
    "legal",
    "phase",
    "hand",
]

TEXTS = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "king-record/1",
            "AS",
            "10H",
            "Q♠",
            "trumps",
            "no-tricks",
            "classic",
            "hello",
            "play",
            "declare",
            "human",
            "random",
            "search:time=100000",
            "\u202e\u0000\x7f",
            "😀" * 3,
            "x" * 5000,
        ]
    ),
)

LEAVES: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, 1, 3, -1, 2**63, 2**64]),
    st.builds(lambda n: Raw("9" * n), st.sampled_from([41, 400, 5000, 100_000])),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1.0, 0.5, -0.0, 1e308]),
    TEXTS,
    st.sampled_from([Raw('"\\ud800"'), Raw('"\\udfff x"'), Raw('"\\u0000"')]),
)

TREES: st.SearchStrategy[Any] = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=6)), inner, max_size=5),
    ),
    max_leaves=16,
)


def _deep(levels: int, shape: str) -> str:
    if shape == "array":
        return "[" * levels + "]" * levels
    if shape == "object":
        return '{"a":' * levels + "1" + "}" * levels
    return '{"deals":[' * (levels // 2) + "0" + "]}" * (levels // 2)


DEEP = st.builds(
    _deep, st.sampled_from([33, 100, 2_000, 10_000]), st.sampled_from(["array", "object", "mixed"])
)

ODD_TEXTS = st.sampled_from(
    [
        "",
        " ",
        "{",
        "[1, 2]",
        "null",
        "true",
        "NaN",
        "-Infinity",
        '{"v": 1, "v": 1}',
        '{"format": "king-record/1", "format": "king-record/1", "deals": []}',
        "\ufeff{}",
        '{"a": 1} trailing',
        '{"a": "unterminated',
        "9" * 5000,
        "[" * 10_000,
    ]
)


def _replace(document: Any, path: list[int], value: Any) -> Any:
    """``document`` with the node that ``path`` picks (indices into each level's
    children, taken modulo their number) replaced by ``value``."""
    if not path or not isinstance(document, dict | list) or not document:
        return value
    if isinstance(document, dict):
        keys = list(document)
        key = keys[path[0] % len(keys)]
        return {**document, key: _replace(document[key], path[1:], value)}
    index = path[0] % len(document)
    copy = list(document)
    copy[index] = _replace(copy[index], path[1:], value)
    return copy


def documents(*valid: Any) -> st.SearchStrategy[str | bytes]:
    """JSON text of any shape, and each of ``valid`` with one node replaced."""
    mutated = [
        st.builds(
            lambda doc, path, value: render(_replace(doc, path, value)),
            st.just(doc),
            st.lists(st.integers(0, 50), max_size=5),
            TREES,
        )
        for doc in valid
    ]
    return st.one_of(
        st.builds(render, TREES),
        DEEP,
        ODD_TEXTS,
        st.binary(max_size=64),
        st.sampled_from([b"\xff\xfe{}", b'{"a": "\xc3"}', b"\xed\xa0\x80"]),
        *mutated,
    )
