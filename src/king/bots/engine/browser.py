"""The engine in the browser's offline game: the same ``engine.wasm``, instantiated by
the page's own WebAssembly from Pyodide (the worker has unpacked it beside this module
and checked the bundle's hash; here it is checked against its sha256 again), and run
by :mod:`king.bots.engine.steps` as wasmtime runs it in CPython.

Pyodide only (``js`` and ``pyodide.ffi`` exist there alone); one instance, one thread:
the steps' chunks run one after another, and the learned policy, which needs numpy,
does not play here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import js  # type: ignore[import-not-found]
from pyodide.ffi import to_js  # type: ignore[import-not-found]

from king.bots.engine.refusals import EngineError

__all__ = ["BROWSER", "Browser", "BrowserInstance"]

T = TypeVar("T")
R = TypeVar("R")

WASM = Path(__file__).with_name("engine.wasm")
WASM_SHA256 = Path(__file__).with_name("engine.wasm.sha256")


def _compiled(data: bytes) -> Any:
    """The engine's module: compiled by the page beforehand where it registered one
    (``king_engine``: a page's main thread may compile only 4 KB at once itself), else
    here (a worker may)."""
    try:
        import king_engine  # type: ignore[import-not-found]
    except ImportError:
        return js.WebAssembly.Module.new(to_js(data))
    return king_engine.module


class BrowserInstance:
    """The engine's one instance in this worker, and its exchange area."""

    def __init__(self) -> None:
        data = WASM.read_bytes()
        expected = WASM_SHA256.read_text(encoding="utf-8").split()[0]
        if hashlib.sha256(data).hexdigest() != expected:
            raise RuntimeError(f"{WASM} is not the engine this King ships (its sha256 differs)")
        module = _compiled(data)
        self.exports: Any = js.WebAssembly.Instance.new(module, js.Object.new()).exports
        self.exports._initialize()
        self.start = int(self.exports.king_io())
        self.words = int(self.exports.king_io_words())
        self.bytes: Any = js.Uint8Array.new(self.exports.memory.buffer)
        self._next = 0

    def put_bytes(self, data: bytes) -> int:
        """Copy ``data`` (whole int64 words) into the exchange area; its word offset."""
        at = self._next
        count = len(data) // 8
        if at + count > self.words:
            raise EngineError("put", -1)
        self.bytes.set(to_js(data), self.start + 8 * at)
        self._next = at + count
        return at

    def room(self, words: int) -> int:
        at = self._next
        if at + words > self.words:
            raise EngineError("room", -1)
        self._next = at + words
        return at

    def read_bytes(self, at: int, count: int) -> bytes:
        begin = self.start + 8 * at
        return bytes(self.bytes.slice(begin, begin + 8 * count).to_py())

    def call(self, entry: str, *args: int | float) -> int:
        """Run an entry point; its result, or :class:`EngineError` for a refusal.  The
        exchange area is free again afterwards."""
        try:
            result = int(getattr(self.exports, entry)(*args))
        finally:
            self._next = 0
        if result < 0:
            raise EngineError(entry, result)
        return result


class Browser:
    """The platform of :mod:`king.bots.engine.steps` in the offline game."""

    _instance: BrowserInstance | None = None

    def instance(self) -> BrowserInstance:
        if self._instance is None:
            self._instance = BrowserInstance()
        return self._instance

    def each(self, run: Callable[[T], R], items: Sequence[T], threads: int) -> list[R]:
        return [run(item) for item in items]

    def put_net(self, engine: Any, net: object) -> int:
        raise EngineError("the learned policy (it needs numpy, which the offline game has not)", -2)


#: The platform of :mod:`king.bots.engine.steps` in the browser.
BROWSER = Browser()
