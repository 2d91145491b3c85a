"""The compiled engine: the C sources of ``engine/`` built once to WebAssembly
(``engine.wasm`` beside this module, checked against its sha256), run here by wasmtime.

The same file runs in the browser's worker for the offline game, so there is one engine
wherever King plays.  Each thread has its own instance (its own memory), which wasmtime
runs without the GIL: an entry point over many worlds is split across ``threads``
threads, each on its own instance, and its answers do not depend on how it was split.

The host and an instance exchange arrays through the instance's own exchange area
(``king_io``, int64 words): arrays are copied in, named by their offset there, and
copied out.  An entry point checks what it is given and returns a negative code for what
it refuses, raised here as :class:`EngineError`; it never grows its memory.
"""

from __future__ import annotations

import ctypes
import hashlib
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import wasmtime
from numpy.typing import NDArray

__all__ = [
    "WASM",
    "EngineError",
    "Instance",
    "enumerate_value",
    "instance",
    "lookahead_card",
    "lookahead_rollouts",
    "net_card",
    "net_declaration_values",
    "net_likelihoods",
    "net_rollouts",
    "rule_card",
    "rule_declaration_values",
    "rule_likelihoods",
    "rule_rollouts",
    "sample_worlds",
    "solve",
    "solve_moves",
    "solve_sized",
]

#: The built engine, and the sha256 it must have (``engine/build.py`` writes both).
WASM = Path(__file__).with_name("engine.wasm")
WASM_SHA256 = Path(__file__).with_name("engine.wasm.sha256")

#: What each refusal code of ``engine/api.h`` means.
REFUSALS = {
    -1: "an array does not fit the engine's exchange area",
    -2: "a contract, trump, rule flag, seat or setting is out of range",
    -3: "a position or deal the rules cannot reach",
    -4: "a card that is not legal where it is played",
    -5: "too many or too few of something",
}

#: Worlds per call: what fits the exchange area with room to spare.
CHUNK = 4096


class EngineError(ValueError):
    """The engine refused its input (or its file is not the one this King ships)."""

    def __init__(self, entry: str, code: int) -> None:
        self.entry = entry
        self.code = code
        super().__init__(f"{entry}: {REFUSALS.get(code, f'refused ({code})')}")


@cache
def _compiled() -> tuple[wasmtime.Engine, wasmtime.Module]:
    """The engine's module, compiled once per process (Cranelift, ~0.1 s)."""
    data = WASM.read_bytes()
    expected = WASM_SHA256.read_text(encoding="utf-8").split()[0]
    if hashlib.sha256(data).hexdigest() != expected:
        raise RuntimeError(f"{WASM} is not the engine this King ships (its sha256 differs)")
    engine = wasmtime.Engine()
    return engine, wasmtime.Module(engine, data)


@dataclass
class Instance:
    """One instance of the engine, for one thread at a time."""

    store: wasmtime.Store = field(init=False)
    exports: dict[str, Any] = field(init=False)
    io: NDArray[np.int64] = field(init=False)
    _next: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        engine, module = _compiled()
        self.store = wasmtime.Store(engine)
        made = wasmtime.Instance(self.store, module, [])
        self.exports = {name: made.exports(self.store)[name] for name in _names(module)}
        self.exports["_initialize"](self.store)
        memory = self.exports["memory"]
        base = ctypes.addressof(memory.data_ptr(self.store).contents)
        start = int(self.exports["king_io"](self.store))
        words = int(self.exports["king_io_words"](self.store))
        buffer = (ctypes.c_int64 * words).from_address(base + start)
        self.io = np.ctypeslib.as_array(buffer)

    def put(self, values: Any) -> int:
        """Copy ``values`` (int64, or float64 bit for bit) into the exchange area; its
        word offset there."""
        array = np.ascontiguousarray(values)
        words = array.view(np.int64).reshape(-1) if array.size else array.astype(np.int64)
        at = self._next
        if at + words.size > self.io.size:
            raise EngineError("put", -1)
        self.io[at : at + words.size] = words
        self._next = at + words.size
        return at

    def put_float32(self, values: Any) -> int:
        """Copy ``values`` as float32 (two to a word, the last word padded with zero)
        into the exchange area; its word offset there."""
        array = np.ascontiguousarray(values, dtype=np.float32).reshape(-1)
        padded = np.zeros(array.size + array.size % 2, dtype=np.float32)
        padded[: array.size] = array
        return self.put(padded.view(np.int64))

    def room(self, words: int) -> int:
        """``words`` words of the exchange area for an answer; their offset."""
        at = self._next
        if at + words > self.io.size:
            raise EngineError("room", -1)
        self._next = at + words
        return at

    def words(self, at: int, count: int) -> NDArray[np.int64]:
        return self.io[at : at + count]

    def call(self, entry: str, *args: int | float) -> int:
        """Run an entry point; its result, or :class:`EngineError` for a refusal.  The
        exchange area is free again afterwards."""
        try:
            result = int(self.exports[entry](self.store, *args))
        finally:
            self._next = 0
        if result < 0:
            raise EngineError(entry, result)
        return result

    def reset(self) -> None:
        self._next = 0


def _names(module: wasmtime.Module) -> list[str]:
    return [export.name for export in module.exports]


_local = threading.local()


def instance() -> Instance:
    """This thread's instance of the engine (made on first use)."""
    mine: Instance | None = getattr(_local, "instance", None)
    if mine is None:
        mine = Instance()
        _local.instance = mine
    return mine


_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _pool  # noqa: PLW0603 (one pool per process, made on first use)
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=64, thread_name_prefix="king-engine")
        return _pool


def _split(count: int, threads: int, run: Callable[[int, int], None]) -> None:
    """Run ``run(start, stop)`` over ``range(count)`` in chunks, on up to ``threads``
    threads at once (each chunk on the running thread's own instance)."""
    size = max(1, min(CHUNK, -(-count // max(1, threads))))
    spans = [(start, min(count, start + size)) for start in range(0, count, size)]
    if threads <= 1 or len(spans) <= 1:
        for start, stop in spans:
            run(start, stop)
        return
    lanes = [spans[i::threads] for i in range(min(threads, len(spans)))]

    def lane(chunks: Sequence[tuple[int, int]]) -> None:
        for start, stop in chunks:
            run(start, stop)

    for future in [_executor().submit(lane, chunks) for chunks in lanes]:
        future.result()


# -- the entry points ------------------------------------------------------------------


def rule_card(state: Any, contract: int, trump: int, flags: int) -> int:
    """The rule bot's card for the seat to move (:func:`king.bots.rule_play.rule_card`)."""
    engine = instance()
    at = engine.put(np.asarray(state, dtype=np.int64))
    return engine.call("king_rule_card", at, contract, trump, flags)


def rule_rollouts(
    worlds: NDArray[np.int64], base: NDArray[np.int64], candidates: NDArray[np.int64],
    me: int, contract: int, trump: int, flags: int, tail: int, values: NDArray[np.int64],
    threads: int = 1,
) -> None:  # fmt: skip
    """``values[w, i]``: ``me``'s points in world ``w`` after candidate ``i``, every seat
    then playing the rule policy until ``tail`` tricks are left, and ``me`` its best
    reply to them from there (:func:`king.bots.compiled.rule_rollouts`)."""
    count = len(candidates)

    def run(start: int, stop: int) -> None:
        engine = instance()
        at_worlds = engine.put(worlds[start:stop])
        at_base = engine.put(base)
        at_cards = engine.put(np.asarray(candidates, dtype=np.int64))
        at_values = engine.room((stop - start) * count)
        out = engine.words(at_values, (stop - start) * count)
        engine.call(
            "king_rule_rollouts", at_worlds, stop - start, at_base, at_cards, count, me,
            contract, trump, flags, tail, at_values,
        )  # fmt: skip
        values[start:stop] = out.reshape(stop - start, count)

    _split(len(worlds), threads, run)


def rule_likelihoods(
    dealt: NDArray[np.int64], plays: NDArray[np.int64], leader: int, me: int, contract: int,
    trump: int, flags: int, noise: float, alike: bool, out: NDArray[np.float64],
    threads: int = 1,
) -> None:  # fmt: skip
    """``out[w]``: the log-probability of the others' ``plays`` in dealt world ``w`` under
    the rule policy with ``noise`` (:func:`king.bots.compiled.rule_likelihoods`)."""

    def run(start: int, stop: int) -> None:
        engine = instance()
        at_dealt = engine.put(dealt[start:stop])
        at_plays = engine.put(np.asarray(plays, dtype=np.int64))
        at_out = engine.room(stop - start)
        answer = engine.words(at_out, stop - start)
        engine.call(
            "king_rule_likelihoods", at_dealt, stop - start, at_plays, len(plays), leader,
            me, contract, trump, flags, float(noise), int(alike), at_out,
        )  # fmt: skip
        out[start:stop] = answer.view(np.float64)

    _split(len(dealt), threads, run)


def rule_declaration_values(
    worlds: NDArray[np.int64], declarer: int, contract: int, trump: int, flags: int,
    out: NDArray[np.int64], threads: int = 1,
) -> None:  # fmt: skip
    """``out[w]``: the declarer's points in dealt world ``w`` when every seat plays the
    rule policy (:func:`king.bots.compiled.rule_declaration_values`)."""

    def run(start: int, stop: int) -> None:
        engine = instance()
        at_worlds = engine.put(worlds[start:stop])
        at_out = engine.room(stop - start)
        answer = engine.words(at_out, stop - start)
        engine.call(
            "king_rule_declaration_values", at_worlds, stop - start, declarer, contract,
            trump, flags, at_out,
        )  # fmt: skip
        out[start:stop] = answer

    _split(len(worlds), threads, run)


def sample_worlds(
    unseen: int, counts: NDArray[np.int64], forbidden: NDArray[np.int64], me: int,
    my_hand: int, seed: NDArray[np.int64], out: NDArray[np.int64],
) -> int:  # fmt: skip
    """Deal ``out``'s worlds (:func:`king.bots.worlds.sample_worlds`), drawing from and
    advancing ``seed[0]``; how many it gave up on (left at zero)."""
    engine = instance()
    failures = 0
    for start in range(0, len(out), CHUNK):
        stop = min(len(out), start + CHUNK)
        at_counts = engine.put(np.asarray(counts, dtype=np.int64))
        at_forbidden = engine.put(np.asarray(forbidden, dtype=np.int64))
        at_seed = engine.put(np.asarray(seed[:1], dtype=np.int64))
        at_out = engine.room(4 * (stop - start))
        dealt = engine.words(at_out, 4 * (stop - start))
        kept_seed = engine.words(at_seed, 1)
        failures += engine.call(
            "king_sample_worlds", int(unseen), at_counts, at_forbidden, me, int(my_hand),
            at_seed, at_out, stop - start,
        )  # fmt: skip
        out[start:stop] = dealt.reshape(stop - start, 4)
        seed[0] = kept_seed[0]
    return failures


# -- the learned policy and the lookahead ----------------------------------------------


def _put_net(engine: Instance, weights: Sequence[Any]) -> int:
    """Put the learned policy's seven arrays (w0, w1, b1, w2, b2, w3, b3) as float32,
    and their description for the engine to check (for each its offset, rows and
    columns; a vector is one column); the description's offset."""
    about: list[int] = []
    for array in weights:
        shape = np.shape(array)
        rows, cols = (shape[0], 1) if len(shape) == 1 else shape if len(shape) == 2 else (-1, -1)
        about += [engine.put_float32(array), int(rows), int(cols)]
    return engine.put(np.array(about, dtype=np.int64))


def _net_spans(start: int, stop: int, per_world: int, weights: Sequence[Any]) -> list[range]:
    """``range(start, stop)`` in calls whose worlds (``per_world`` words each) fit the
    exchange area beside the weights."""
    weight_words = sum((np.size(array) + 1) // 2 + 3 for array in weights)
    size = max(1, (instance().io.size - weight_words - STATE_WORDS) // max(1, per_world))
    return [range(at, min(stop, at + size)) for at in range(start, stop, size)]


#: Room kept beside the worlds for a position and the candidates.
STATE_WORDS = 64


def net_card(
    state: Any, contract: int, trump: int, flags: int, w0: Any, w1: Any, b1: Any, w2: Any,
    b2: Any, w3: Any, b3: Any,
) -> int:  # fmt: skip
    """The learned policy's card for the seat to move
    (:func:`king.bots.net_play.net_card`), the weights taken as float32."""
    engine = instance()
    at = engine.put(np.asarray(state, dtype=np.int64))
    at_net = _put_net(engine, (w0, w1, b1, w2, b2, w3, b3))
    return engine.call("king_net_card", at, contract, trump, flags, at_net)


def net_rollouts(
    worlds: NDArray[np.int64], base: NDArray[np.int64], candidates: NDArray[np.int64],
    me: int, contract: int, trump: int, flags: int, w0: Any, w1: Any, b1: Any, w2: Any,
    b2: Any, w3: Any, b3: Any, values: NDArray[np.int64], threads: int = 1,
) -> None:  # fmt: skip
    """``values[w, i]``: ``me``'s points in world ``w`` after candidate ``i``, the learned
    policy playing every seat after it (:func:`king.bots.compiled.net_rollouts`)."""
    count = len(candidates)
    weights = (w0, w1, b1, w2, b2, w3, b3)

    def run(start: int, stop: int) -> None:
        for span in _net_spans(start, stop, 4 + count, weights):
            engine = instance()
            n = len(span)
            at_worlds = engine.put(worlds[span.start : span.stop])
            at_base = engine.put(base)
            at_cards = engine.put(np.asarray(candidates, dtype=np.int64))
            at_net = _put_net(engine, weights)
            at_values = engine.room(n * count)
            out = engine.words(at_values, n * count)
            engine.call(
                "king_net_rollouts", at_worlds, n, at_base, at_cards, count, me, contract,
                trump, flags, at_net, at_values,
            )  # fmt: skip
            values[span.start : span.stop] = out.reshape(n, count)

    _split(len(worlds), threads, run)


def net_likelihoods(
    dealt: NDArray[np.int64], plays: NDArray[np.int64], leader: int, me: int, contract: int,
    trump: int, flags: int, noise: float, w0: Any, w1: Any, b1: Any, w2: Any, b2: Any,
    w3: Any, b3: Any, out: NDArray[np.float64], threads: int = 1,
) -> None:  # fmt: skip
    """``out[w]``: the log-probability of the others' ``plays`` in dealt world ``w`` under
    the learned policy mixed with ``noise`` of a uniform legal card
    (:func:`king.bots.compiled.net_likelihoods`)."""
    weights = (w0, w1, b1, w2, b2, w3, b3)

    def run(start: int, stop: int) -> None:
        for span in _net_spans(start, stop, 5, weights):
            engine = instance()
            n = len(span)
            at_dealt = engine.put(dealt[span.start : span.stop])
            at_plays = engine.put(np.asarray(plays, dtype=np.int64))
            at_net = _put_net(engine, weights)
            at_out = engine.room(n)
            answer = engine.words(at_out, n)
            engine.call(
                "king_net_likelihoods", at_dealt, n, at_plays, len(plays), leader, me,
                contract, trump, flags, float(noise), at_net, at_out,
            )  # fmt: skip
            out[span.start : span.stop] = answer.view(np.float64)

    _split(len(dealt), threads, run)


def net_declaration_values(
    worlds: NDArray[np.int64], declarer: int, contract: int, trump: int, flags: int,
    w0: Any, w1: Any, b1: Any, w2: Any, b2: Any, w3: Any, b3: Any, out: NDArray[np.int64],
    threads: int = 1,
) -> None:  # fmt: skip
    """``out[w]``: the declarer's points in dealt world ``w`` when every seat plays the
    learned policy (:func:`king.bots.compiled.net_declaration_values`)."""
    weights = (w0, w1, b1, w2, b2, w3, b3)

    def run(start: int, stop: int) -> None:
        for span in _net_spans(start, stop, 5, weights):
            engine = instance()
            n = len(span)
            at_worlds = engine.put(worlds[span.start : span.stop])
            at_net = _put_net(engine, weights)
            at_out = engine.room(n)
            answer = engine.words(at_out, n)
            engine.call(
                "king_net_declaration_values", at_worlds, n, declarer, contract, trump,
                flags, at_net, at_out,
            )  # fmt: skip
            out[span.start : span.stop] = answer

    _split(len(worlds), threads, run)


def lookahead_card(
    state: Any, contract: int, trump: int, flags: int, tricks: int, worlds: int,
    seed: NDArray[np.int64],
) -> int:  # fmt: skip
    """The rule card, or with at most ``tricks`` cards in hand the best of the seat's
    distinct legal cards over ``worlds`` deals of what it has not seen
    (:func:`king.bots.lookahead.lookahead_card`), drawing from and advancing
    ``seed[0]``."""
    engine = instance()
    at = engine.put(np.asarray(state, dtype=np.int64))
    at_seed = engine.put(np.asarray(seed[:1], dtype=np.int64))
    kept_seed = engine.words(at_seed, 1)
    card = engine.call("king_lookahead_card", at, contract, trump, flags, tricks, worlds, at_seed)
    seed[0] = kept_seed[0]
    return card


def lookahead_rollouts(
    worlds: NDArray[np.int64], base: NDArray[np.int64], candidates: NDArray[np.int64],
    me: int, contract: int, trump: int, flags: int, tricks: int, inner: int, everyone: bool,
    values: NDArray[np.int64], threads: int = 1,
) -> None:  # fmt: skip
    """``values[w, i]``: ``me``'s points in world ``w`` after candidate ``i``, the rule
    policy playing on with ``me`` (with ``everyone``, every seat) playing
    :func:`lookahead_card` in the last ``tricks`` tricks over ``inner`` deals, seeded by
    the world and the candidate (:func:`king.bots.compiled.lookahead_rollouts`)."""
    count = len(candidates)

    def run(start: int, stop: int) -> None:
        engine = instance()
        at_worlds = engine.put(worlds[start:stop])
        at_base = engine.put(base)
        at_cards = engine.put(np.asarray(candidates, dtype=np.int64))
        at_values = engine.room((stop - start) * count)
        out = engine.words(at_values, (stop - start) * count)
        engine.call(
            "king_lookahead_rollouts", at_worlds, stop - start, at_base, at_cards, count, me,
            contract, trump, flags, tricks, inner, int(everyone), at_values,
        )  # fmt: skip
        values[start:stop] = out.reshape(stop - start, count)

    _split(len(worlds), threads, run)


# -- the exact solver (engine/solver.c) ------------------------------------------------

#: The words of a position (:data:`king.bots.position.STATE_SIZE`).
_POSITION_WORDS = 22


def _put_position(engine: Instance, state: Any, entry: str) -> int:
    """Copy a position into the exchange area (its offset there); a refusal unless it is
    the 22 words of one position, since the engine reads exactly that many."""
    words = np.asarray(state, dtype=np.int64).reshape(-1)
    if words.size != _POSITION_WORDS:
        raise EngineError(entry, -3)
    return engine.put(words)


def solve_sized(
    state: Any, me: int, contract: int, trump: int, flags: int, first_rows: int,
    most_rows: int,
) -> tuple[int, int]:  # fmt: skip
    """:func:`king.bots.solver.solve_sized`: the exact value of ``state`` for ``me`` and
    the nodes searched, the table starting at ``first_rows`` rows and growing to at most
    ``most_rows`` (powers of two, from 4 to the engine's 2**19)."""
    engine = instance()
    at_state = _put_position(engine, state, "king_solve_sized")
    at_out = engine.room(2)
    answer = engine.words(at_out, 2)
    engine.call(
        "king_solve_sized", at_state, int(me), int(contract), int(trump), int(flags),
        int(first_rows), int(most_rows), at_out,
    )  # fmt: skip
    return int(answer[0]), int(answer[1])


def solve(state: Any, me: int, contract: int, trump: int, flags: int) -> tuple[int, int]:
    """:func:`king.bots.solver.solve`: the exact value of ``state`` for ``me`` (its final
    points, the three others playing as one side against it) and the nodes searched."""
    engine = instance()
    at_state = _put_position(engine, state, "king_solve")
    at_out = engine.room(2)
    answer = engine.words(at_out, 2)
    engine.call("king_solve", at_state, int(me), int(contract), int(trump), int(flags), at_out)
    return int(answer[0]), int(answer[1])


def solve_moves(
    state: Any, me: int, contract: int, trump: int, flags: int, out: NDArray[np.int64]
) -> int:
    """:func:`king.bots.solver.solve_moves`: ``out[card]`` gets the exact value for ``me``
    after each legal card of the seat to move (``out``'s other words are left as they
    were); the nodes searched."""
    engine = instance()
    at_state = _put_position(engine, state, "king_solve_moves")
    at_out = engine.put(np.append(np.asarray(out[:52], dtype=np.int64), 0))
    answer = engine.words(at_out, 53)
    engine.call(
        "king_solve_moves", at_state, int(me), int(contract), int(trump), int(flags), at_out
    )
    out[:52] = answer[:52]
    return int(answer[52])


def enumerate_value(state: Any, me: int, contract: int, trump: int, flags: int) -> int:
    """:func:`king.bots.solver.enumerate_value`: the solver's value by plain enumeration
    of every card at every node (the reference it is checked against; small endings
    only)."""
    engine = instance()
    at_state = _put_position(engine, state, "king_enumerate_value")
    at_out = engine.room(1)
    answer = engine.words(at_out, 1)
    engine.call(
        "king_enumerate_value", at_state, int(me), int(contract), int(trump), int(flags), at_out
    )
    return int(answer[0])
