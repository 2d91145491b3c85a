"""Reading JSON that comes from outside: records, saved games, WebSocket messages, HTTP
bodies, an external bot's answers.

Python's :func:`json.loads` accepts more than a careful reader should, and fails in ways
that escape the usual ``ValueError``: a document nested a few thousand levels deep raises
:class:`RecursionError`, an integer of more than 4,300 digits a bare ``ValueError``, and
``NaN``, ``Infinity``, repeated keys and unpaired surrogates pass as if they were data.
:func:`loads` reads the I-JSON profile (RFC 7493) instead and refuses everything else
with one :class:`JSONTextError` that says what was wrong, so that every entry point
answers bad input with its ordinary clean error.

>>> loads('{"v": 1, "type": "ping"}')
{'v': 1, 'type': 'ping'}
>>> loads("[" * 100 + "]" * 100)
Traceback (most recent call last):
...
king.jsontext.JSONTextError: the JSON is nested 100 levels deep; at most 32 are read
>>> loads('{"seed": NaN}')
Traceback (most recent call last):
...
king.jsontext.JSONTextError: NaN is not a JSON number
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeGuard

from king.errors import KingError

__all__ = ["MAX_DEPTH", "MAX_DIGITS", "JSONTextError", "loads", "is_int"]

#: The deepest nesting of arrays and objects read (a record needs 3, a message 2).
MAX_DEPTH = 32
#: The longest integer read, in digits (a 64-bit seed has 20).
MAX_DIGITS = 40

#: A JSON string, escapes included: removed before the brackets are counted.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_DECODER = json.JSONDecoder()


class JSONTextError(KingError, ValueError):
    """The text is not JSON that this program reads; the message says why."""


def is_int(value: object) -> TypeGuard[int]:
    """Whether a parsed JSON value is an integer (``true`` is not, nor is ``1.0``).

    >>> is_int(1), is_int(True), is_int(1.0)
    (True, False, False)
    """
    return type(value) is int


def loads(data: str | bytes | bytearray, *, max_depth: int = MAX_DEPTH) -> Any:
    """The value of one JSON document, or :class:`JSONTextError`.

    Bytes must be UTF-8 (a leading byte-order mark is allowed).  Refused: nesting deeper
    than ``max_depth``, integers longer than :data:`MAX_DIGITS` digits, ``NaN`` and the
    infinities, a key repeated in one object, and unpaired surrogates (``"\\ud800"``).
    """
    if isinstance(data, bytes | bytearray):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as error:
            raise JSONTextError(
                f"the text is not UTF-8: byte 0x{data[error.start]:02x} at offset {error.start}"
            ) from None
    else:
        text = data
    text = text.removeprefix("\ufeff")
    depth = _depth(text)
    if depth > max_depth:
        raise JSONTextError(f"the JSON is nested {depth} levels deep; at most {max_depth} are read")
    try:
        value = json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_int=_bounded_int,
            object_pairs_hook=_unique_keys,
        )
    except JSONTextError:
        raise
    except json.JSONDecodeError as error:
        raise JSONTextError(f"not JSON: {error}") from None
    except (ValueError, RecursionError) as error:  # pragma: no cover - guarded above
        raise JSONTextError(f"not JSON: {error}") from None
    _check_strings(value)
    return value


def _depth(text: str) -> int:
    """How deeply arrays and objects nest in ``text`` (strings do not count)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    deepest = depth = 0
    for char in brackets:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _refuse_constant(name: str) -> Any:
    raise JSONTextError(f"{name} is not a JSON number")


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise JSONTextError(
            f"an integer of {len(digits.lstrip('-'))} digits is too long (at most {MAX_DIGITS})"
        )
    return int(digits)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JSONTextError(f"the key {_short(key)} appears twice in one object")
        out[key] = value
    return out


def _check_strings(value: Any) -> None:
    """Refuse unpaired surrogates, which no UTF-8 output can carry."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            for key, inner in item.items():
                _check_text(key)
                stack.append(inner)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise JSONTextError(
            f"a string holds an unpaired surrogate \\u{ord(text[error.start]):04x}"
        ) from None


def _short(text: str, limit: int = 40) -> str:
    """``text`` quoted for a message, cut to ``limit`` characters."""
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    return json.dumps(shown, ensure_ascii=True)
