"""One instance of the engine per thread, and the exchange of arrays with it.

The engine's module (``engine.wasm`` beside this file, checked against its sha256) is
compiled once per process by wasmtime; each thread gets its own instance (its own
memory), which wasmtime runs without the GIL.  The host copies arrays into an
instance's exchange area (``king_io``, int64 words), names them by their offset there,
and copies answers out; an entry point's negative result is a refusal, raised as
:class:`EngineError`.
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
from typing import Any, TypeVar

import numpy as np
import wasmtime
from numpy.typing import NDArray

from king.bots.engine.refusals import EngineError

__all__ = [
    "CHUNK",
    "WASM",
    "WASMTIME",
    "WASM_SHA256",
    "EngineError",
    "Instance",
    "Wasmtime",
    "each",
    "instance",
    "play_out",
    "split",
]

T = TypeVar("T")
R = TypeVar("R")

#: The built engine, and the sha256 it must have (``engine/build.py`` writes both).
WASM = Path(__file__).with_name("engine.wasm")
WASM_SHA256 = Path(__file__).with_name("engine.wasm.sha256")

#: Worlds per call: what fits the exchange area with room to spare.
CHUNK = 4096


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
    """One instance of the engine, for one thread at a time: of the shipped module, or
    of ``wasm`` (a build of the engine's sources with a variant of its rule policy, for
    ``scripts/policy_duel.py``)."""

    wasm: bytes | None = None
    store: wasmtime.Store = field(init=False)
    exports: dict[str, Any] = field(init=False)
    io: NDArray[np.int64] = field(init=False)
    _next: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        engine, module = _compiled()
        if self.wasm is not None:
            module = wasmtime.Module(engine, self.wasm)
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

    def put_bytes(self, data: bytes) -> int:
        """Copy ``data`` (whole int64 words, as :mod:`array` packs them) into the exchange
        area; its word offset there."""
        return self.put(np.frombuffer(data, dtype=np.int64))

    def read_bytes(self, at: int, count: int) -> bytes:
        """``count`` words of the exchange area from ``at``, as bytes."""
        return self.io[at : at + count].tobytes()

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
        plain = [float(a) if isinstance(a, float | np.floating) else int(a) for a in args]
        try:
            result = int(self.exports[entry](self.store, *plain))
        finally:
            self._next = 0
        if result < 0:
            raise EngineError(entry, result)
        return result


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


def each(run: Callable[[T], R], items: Sequence[T], threads: int) -> list[R]:
    """``run`` on every item, on up to ``threads`` threads at once (each on its own
    instance); the answers in the items' order."""
    if threads <= 1 or len(items) <= 1:
        return [run(item) for item in items]
    answers: dict[int, R] = {}

    def lane(indexes: range) -> None:
        for index in indexes:
            answers[index] = run(items[index])

    lanes = [range(i, len(items), threads) for i in range(min(threads, len(items)))]
    for future in [_executor().submit(lane, indexes) for indexes in lanes]:
        future.result()
    return [answers[index] for index in range(len(items))]


def split(count: int, threads: int, run: Callable[[int, int], None]) -> None:
    """Run ``run(start, stop)`` over ``range(count)`` in chunks, on up to ``threads``
    threads at once (each chunk on the running thread's own instance)."""
    size = max(1, min(CHUNK, -(-count // max(1, threads))))
    spans = [(start, min(count, start + size)) for start in range(0, count, size)]
    each(lambda span: run(*span), spans, threads)


def play_out(
    entry: str, worlds: NDArray[np.int64], base: NDArray[np.int64],
    candidates: NDArray[np.int64], values: NDArray[np.int64], threads: int,
    *settings: int,
) -> None:  # fmt: skip
    """``values[w, i]``: a rollouts entry point's value of candidate ``i`` in world ``w``
    (``king_rule_rollouts``, ``king_lookahead_rollouts``: the worlds, the base position
    and the candidates, then ``settings``, then the values), the worlds split over
    ``threads``."""
    count = len(candidates)

    def run(start: int, stop: int) -> None:
        engine = instance()
        at_worlds = engine.put(worlds[start:stop])
        at_base = engine.put(base)
        at_cards = engine.put(np.asarray(candidates, dtype=np.int64))
        at_values = engine.room((stop - start) * count)
        out = engine.words(at_values, (stop - start) * count)
        engine.call(entry, at_worlds, stop - start, at_base, at_cards, count, *settings, at_values)
        values[start:stop] = out.reshape(stop - start, count)

    split(len(worlds), threads, run)


class Wasmtime:
    """The engine in CPython (:mod:`king.bots.engine.steps`' platform): an instance per
    thread, work spread over the engine's threads."""

    def instance(self) -> Instance:
        return instance()

    def each(self, run: Callable[[T], R], items: Sequence[T], threads: int) -> list[R]:
        return each(run, items, threads)

    def put_net(self, engine: Any, net: object) -> int:
        from king.bots.engine.weights import put_net

        return put_net(engine, getattr(net, "arrays"))  # noqa: B009 (a NetModel's weights)


#: The platform of :mod:`king.bots.engine.steps` in CPython.
WASMTIME = Wasmtime()
