"""The computer players getting ready in the background, so that the local game's page
opens at once: the search bot's kernels compile (20 s to a minute, once after each
install) while the person already looks at the table, which says what is happening
(``GET /api/preparing``).  Until a bot is ready its seat waits; nothing blocks the
server's event loop meanwhile.

One preparation per process (:data:`PREPARING`): the compiled kernels are the process's
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
    began, and whether it compiles (rather than loads what an earlier run compiled)."""

    ready: bool
    step: int
    steps: int
    seconds: float
    compiling: bool


class Preparation:
    """Builds the given bots once in a thread; says which are ready."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._done.set()
        self._step = 0
        self._steps = 0
        self._started = 0.0
        self._compiling = False

    def start(self, specs: Iterable[str]) -> None:
        """Prepare ``specs`` in the background (those built in a blink need nothing)."""
        slow = frozenset(spec for spec in specs if not _quick(spec))
        if not slow:
            return
        with self._lock:
            self._step, self._steps = 0, len(slow)
            self._started = time.monotonic()
            self._done.clear()
        threading.Thread(target=self._prepare, args=(sorted(slow),), daemon=True).start()

    def ready_for(self, spec: str) -> bool:
        """Whether a bot of ``spec`` can be built now without a long wait: any bot but
        the quick ones may need the kernels being compiled."""
        return self._done.is_set() or _quick(spec)

    async def wait(self) -> None:
        """Return once everything is prepared (polling: no thread is held meanwhile)."""
        while not self._done.is_set():
            await asyncio.sleep(0.2)

    def state(self) -> PreparationState:
        with self._lock:
            ready = self._done.is_set()
            seconds = 0.0 if ready or not self._started else time.monotonic() - self._started
            return PreparationState(ready, self._step, self._steps, seconds, self._compiling)

    def _prepare(self, specs: list[str]) -> None:
        try:
            self._compile()
            for spec in specs:
                make_bot(spec).close()
                self._advance(1)
        except Exception:  # the bots then compile on first use, as before
            log.exception("preparing the computer players failed")
        finally:
            with self._lock:
                self._step = self._steps
            self._done.set()

    def _compile(self) -> None:
        """The search kernels, whose steps the page's progress shows."""
        from king.bots import compiled

        with self._lock:
            self._steps += compiled.WARM_UP_STEPS
            self._compiling = compiled.needs_compiling() is not False
        compiled.warm_up(lambda done, steps: self._advance(1))

    def _advance(self, steps: int) -> None:
        with self._lock:
            self._step = min(self._steps, self._step + steps)


def _quick(spec: str) -> bool:
    """Whether a bot of ``spec`` is built in a blink (a quick bot, or a level of one)."""
    try:
        name = parse_spec(spec)[0]
    except BotSpecError:
        return False
    level = level_of(name)
    return not level.compiled if level is not None else name in _QUICK_BOTS


#: The process's preparation (the local game starts it; a server with none is ready).
PREPARING = Preparation()
