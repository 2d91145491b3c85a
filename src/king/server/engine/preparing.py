"""The computer players getting ready in the background, so that the local game's page
opens at once: the engine's module is compiled by wasmtime (about a tenth of a second)
and each bot built once, while the person already looks at the table, which says what
is happening (``GET /api/preparing``) should it ever take long.  Until a bot is ready
its seat waits; nothing blocks the server's event loop meanwhile.  A bot first asked
for later (the person chooses Hard in the level box, a visitor seats the search bot, a
hint) is prepared the same way, in the same thread.

One preparation per process (:data:`PREPARING`): the engine's module is the process's
too."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

from king.bots import BotSpecError, make_bot, parse_spec
from king.bots.levels import level_of

__all__ = ["PREPARING", "Preparation", "PreparationState"]

log = logging.getLogger("king.server")

#: Bots built in a blink: nothing to prepare for them.
_QUICK_BOTS = frozenset({"random", "rule"})


@dataclass(frozen=True, slots=True)
class PreparationState:
    """Where the preparation stands: ``step`` of ``steps`` done, ``seconds`` since it
    began."""

    ready: bool
    step: int
    steps: int
    seconds: float


class Preparation:
    """Builds bots once each, in one thread, in the order they are asked for; says which
    are ready.  A bot is ready once one of its spec was built in this process (the
    engine ready): another is then built in a blink."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._done.set()
        self._queue: list[str] = []
        self._prepared: set[str] = set()
        self._engine = False
        self._step = 0
        self._steps = 0
        self._started = 0.0

    def start(self, specs: Iterable[str]) -> None:
        """Prepare ``specs`` in the background (those built in a blink need nothing;
        those prepared or waiting already are not asked for twice)."""
        with self._lock:
            wanted = sorted({spec for spec in specs if not self._known(spec)})
            if not wanted:
                return
            self._queue.extend(wanted)
            self._steps += len(wanted)
            if not self._done.is_set():
                return  # the running thread takes them too
            self._step, self._steps = 0, len(wanted)
            self._started = time.monotonic()
            self._done.clear()
        threading.Thread(target=self._prepare, name="king-preparing", daemon=True).start()

    def _known(self, spec: str) -> bool:
        return _quick(spec) or spec in self._prepared or spec in self._queue

    def ready_for(self, spec: str) -> bool:
        """Whether a bot of ``spec`` can be built now without a long wait (on the event
        loop): a quick bot, or one prepared in this process."""
        with self._lock:
            return _quick(spec) or spec in self._prepared

    async def ready(self, spec: str) -> None:
        """Return once a bot of ``spec`` can be built in a blink: prepared now, in the
        background, if nobody asked for it yet (polling: no thread is held meanwhile)."""
        self.start([spec])
        while not self.ready_for(spec) and not self._done.is_set():
            await asyncio.sleep(0.2)

    def state(self) -> PreparationState:
        with self._lock:
            ready = self._done.is_set()
            seconds = 0.0 if ready or not self._started else time.monotonic() - self._started
            return PreparationState(ready, self._step, self._steps, seconds)

    def _prepare(self) -> None:
        while (spec := self._next()) is not None:
            try:
                self._load_engine()
                make_bot(spec).close()
            except Exception:  # it is then built on first use, off the event loop
                log.exception("preparing the computer player %s failed", spec)
            with self._lock:
                self._prepared.add(spec)
                self._step = min(self._steps, self._step + 1)

    def _next(self) -> str | None:
        """The next bot to prepare, or None once there is none (and all is ready)."""
        with self._lock:
            if self._queue:
                return self._queue.pop(0)
            self._step = self._steps
            self._done.set()
            return None

    def _load_engine(self) -> None:
        """The engine's module, compiled once a process (a tenth of a second)."""
        if self._engine:
            return
        from king.bots import engine

        engine.instance()
        self._engine = True


def _quick(spec: str) -> bool:
    """Whether a bot of ``spec`` is built in a blink (a quick bot, or a level of one)."""
    try:
        name = parse_spec(spec)[0]
    except BotSpecError:
        return False
    level = level_of(name)
    return not level.engine if level is not None else name in _QUICK_BOTS


#: The process's preparation (the local game starts it; a server with none is ready).
PREPARING = Preparation()
