"""The search bot's steps in the engine (``engine/search.c``), over plain Python values:
the same calls in CPython (wasmtime) and in the browser's offline game (the page's own
WebAssembly), so that a search there is the search here, bit for bit.

Standard library only.  Each function takes the platform's :class:`Platform`: where an
instance of the engine comes from, and how chunks of work spread over threads (in the
browser, one after another).  Arrays cross as the bytes of :mod:`array`'s int64 and
double, whole words.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

__all__ = [
    "SETUP_FIELDS",
    "Chunk",
    "Engine",
    "Platform",
    "Summary",
    "choose",
    "declare_values",
    "rule_card",
    "search_chunks",
    "setup_words",
    "summary",
]

T = TypeVar("T")
R = TypeVar("R")

#: What a search step reads, word by word (``engine/tables.h``'s ``K_`` offsets are
#: generated from this): each field's name and width.  What the seat knows (itself,
#: the unseen cards, its hand, the cards each seat holds and cannot hold, the cards
#: each seat played this deal), the game, and how the bot searches.
SETUP_FIELDS: tuple[tuple[str, int], ...] = (
    ("me", 1), ("unseen", 1), ("my_hand", 1), ("counts", 4), ("forbidden", 4),
    ("played_by", 4), ("contract", 1), ("trump", 1), ("flags", 1), ("tail", 1),
    ("lookahead", 1), ("inner", 1), ("everyone", 1), ("alike", 1), ("model", 1),
    ("rollout", 1), ("plays", 1), ("leader", 1), ("candidates", 1),
)  # fmt: skip


def setup_words(**fields: int | Sequence[int]) -> list[int]:
    """The words of a search step's setup, from every field of :data:`SETUP_FIELDS`."""
    words: list[int] = []
    for name, width in SETUP_FIELDS:
        value = fields.pop(name)
        part = [value] if isinstance(value, int) else list(value)
        if len(part) != width:
            raise ValueError(f"setup field {name} takes {width} words, not {len(part)}")
        words += part
    if fields:
        raise ValueError(f"no setup field {sorted(fields)[0]}")
    return words


class Engine(Protocol):
    """One instance of the engine, as the steps use it."""

    def put_bytes(self, data: bytes) -> int: ...

    def room(self, words: int) -> int: ...

    def read_bytes(self, at: int, count: int) -> bytes: ...

    def call(self, entry: str, *args: int | float) -> int: ...


class Platform(Protocol):
    """Where instances come from, and how work spreads over threads."""

    def instance(self) -> Engine: ...

    def each(self, run: Callable[[T], R], items: Sequence[T], threads: int) -> list[R]: ...

    def put_net(self, engine: Engine, net: object) -> int: ...


@dataclass(frozen=True, slots=True)
class Chunk:
    """One chunk of a search: its worlds dealt from ``seed`` and resampled at ``u``."""

    seed: int
    u: float
    count: int


@dataclass(frozen=True, slots=True)
class Summary:
    """What each choice is worth: the best one, and for each choice the mean over the
    worlds, its standard error, and the mean and standard error of what it gives up
    against the best over the same worlds."""

    best: int
    means: tuple[float, ...]
    errors: tuple[float, ...]
    losses: tuple[float, ...]
    loss_errors: tuple[float, ...]


def _words(values: Sequence[int]) -> bytes:
    return array("q", values).tobytes()


def _ints(data: bytes) -> array[int]:
    return array("q", data)


def rule_card(
    platform: Platform, state: Sequence[int], contract: int, trump: int, flags: int
) -> int:
    """The rule policy's card for the seat to move in ``state`` (a position of
    :mod:`king.bots.position`; the other hands may be unseen, empty): ``king_rule_card``."""
    engine = platform.instance()
    at = engine.put_bytes(_words([int(word) for word in state]))
    return engine.call("king_rule_card", at, contract, trump, flags)


def search_chunks(
    platform: Platform, setup: Sequence[int], base: Sequence[int], plays: Sequence[int],
    candidates: Sequence[int], net: object | None, noise: float, chunks: Sequence[Chunk],
    threads: int,
) -> array[int]:  # fmt: skip
    """The values of ``candidates`` in the worlds of each chunk (``king_search_chunk``),
    one row a world, the chunks' rows in order."""

    def run(chunk: Chunk) -> bytes:
        engine = platform.instance()
        at_setup = engine.put_bytes(_words(setup))
        at_base = engine.put_bytes(_words(base))
        at_plays = engine.put_bytes(_words(plays) or _words([0]))
        at_cards = engine.put_bytes(_words(candidates))
        at_net = platform.put_net(engine, net) if net is not None else -1
        at_seed = engine.put_bytes(_words([chunk.seed]))
        at_values = engine.room(chunk.count * len(candidates))
        engine.call(
            "king_search_chunk", at_setup, at_base, at_plays, at_cards, at_net, float(noise),
            float(chunk.u), at_seed, chunk.count, at_values
        )  # fmt: skip
        return engine.read_bytes(at_values, chunk.count * len(candidates))

    table = array("q")
    for rows in platform.each(run, chunks, threads):
        table.frombytes(rows)
    return table


def choose(platform: Platform, table: array[int], columns: int, prior: int, margin: float) -> int:
    """The column the search bot plays (``king_choose``): ``prior`` unless the best
    column beats it by more than ``margin`` standard errors."""
    engine = platform.instance()
    at = engine.put_bytes(table.tobytes())
    rows = len(table) // columns if columns > 0 else 0
    return engine.call("king_choose", at, rows, columns, prior, float(margin))


def summary(
    platform: Platform, table: array[int], columns: int, offsets: Sequence[float] | None = None
) -> Summary:
    """What each column is worth (``king_summary``), ``offsets`` added to its values."""
    engine = platform.instance()
    at = engine.put_bytes(table.tobytes())
    at_offsets = engine.put_bytes(array("d", offsets).tobytes()) if offsets else -1
    at_out = engine.room(1 + 4 * columns)
    rows = len(table) // columns if columns > 0 else 0
    engine.call("king_summary", at, rows, columns, at_offsets, at_out)
    out = array("d", engine.read_bytes(at_out, 1 + 4 * columns))
    parts = [tuple(out[1 + k * columns : 1 + (k + 1) * columns]) for k in range(4)]
    return Summary(int(out[0]), *parts)


def declare_values(
    platform: Platform, setup: Sequence[int], choices: Sequence[tuple[int, int]], seed: int,
    count: int,
) -> array[int]:  # fmt: skip
    """Each declaration's points in ``count`` deals of the others' hands, one row a deal
    (``king_declare_values``)."""
    engine = platform.instance()
    at_setup = engine.put_bytes(_words(setup))
    at_choices = engine.put_bytes(_words([word for choice in choices for word in choice]))
    at_seed = engine.put_bytes(_words([seed]))
    at_values = engine.room(count * len(choices))
    engine.call(
        "king_declare_values", at_setup, at_choices, len(choices), at_seed, count, at_values
    )
    return _ints(engine.read_bytes(at_values, count * len(choices)))
