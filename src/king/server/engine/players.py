"""Computer players at a server's tables: which bots a table may ask for, and running
them off the event loop so that a thinking bot never stalls another table."""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from king.bots import (
    Bot,
    BotDemand,
    BotInfo,
    BotSpecError,
    available_bots,
    bot_seed,
    make_bot,
    parse_spec,
)
from king.cards import Card
from king.game import Action
from king.rules import Declaration
from king.server.access import Access
from king.server.config import ServerSettings
from king.view import SeatView

if TYPE_CHECKING:
    from king.server.metrics import Metrics

__all__ = [
    "BotLimitError",
    "BotRunner",
    "check_bot_spec",
    "table_bots",
    "fallback_choice",
    "bot_seed",
]

log = logging.getLogger("king.server")

T = TypeVar("T")


def table_bots() -> list[BotInfo]:
    """The bots a table may seat, strongest first (none that reads files or runs
    programs)."""
    return [info for info in available_bots() if info.tables]


class BotLimitError(BotSpecError):
    """A bot that asks for more than this server allows; ``limit`` names the setting."""

    def __init__(self, message: str, limit: str) -> None:
        super().__init__(message)
        self.limit = limit


def check_bot_spec(spec: str, access: Access | None = None) -> str:
    """The bot spec, checked: a registered bot (with its options), asking for no more
    than ``access`` allows (:class:`BotLimitError` names the limit).  A visitor may seat
    only the bots that read no file, refused before anything looks at the disk; with no
    ``access`` the owner asks (the command line).  External programs (``cmd:…``) are
    always refused: a table never starts a process."""
    name, options = parse_spec(spec)
    if isinstance(options, str):
        raise BotSpecError("a table cannot run external programs ('cmd:' bots)")
    visitor = access is not None and not access.reads_files
    if visitor and "file" in options:
        raise BotSpecError(f"a table cannot seat a bot that reads a file: {spec.strip()!r}")
    known = [info.name for info in (table_bots() if visitor else available_bots())]
    if name not in known:
        if name in {info.name for info in available_bots()}:
            raise BotSpecError(f"the {name!r} bot reads files, so a table cannot seat it")
        raise BotSpecError(f"no bot is called {name!r}: choose from {', '.join(known)}")
    bot = make_bot(spec)
    try:
        demand = bot.demand()
    finally:
        bot.close()
    if access is not None:
        _check_demand(spec.strip(), demand, access.limits)
    return spec.strip()


def _check_demand(spec: str, demand: BotDemand, settings: ServerSettings) -> None:
    checks = (
        ("max_bot_seconds", "--max-bot-time", demand.seconds, "seconds of thinking a move"),
        ("max_bot_threads", "--max-bot-threads", demand.threads, "threads"),
        ("max_bot_worlds", "--max-bot-worlds", demand.worlds, "sampled worlds a move"),
        ("max_bot_exact", "--max-bot-exact", demand.exact_tricks, "tricks searched exactly"),
    )
    for setting, flag, asked, what in checks:
        limit = getattr(settings, setting)
        if limit is not None and asked > limit:
            raise BotLimitError(
                f"{spec} asks for {asked:g} {what}; this server allows at most {limit:g} ({flag})",
                setting,
            )


def fallback_choice(view: SeatView, rng: random.Random) -> Action:
    """A random legal choice, for a bot that failed to answer."""
    if view.legal_declarations:
        return rng.choice(view.legal_declarations)
    return rng.choice(list(view.legal_cards))


class BotRunner:
    """The bot threads shared by every table, handed out fairly: when threads are
    scarce, the waiting move of the table that has used the least thinking time so far
    runs first.  Each table asks for one move at a time (:class:`Autoplay`), so a table
    of slow bots delays another table by at most one move's thinking, never by a queue
    of them.  With ``metrics``, each move's thinking time is recorded there."""

    def __init__(self, threads: int, metrics: Metrics | None = None) -> None:
        self._metrics = metrics
        self._waiting: list[_Job] = []
        self._used: dict[str, float] = {}
        self._arrivals = itertools.count()
        self._ready = threading.Condition()
        self._closed = False
        self._threads = [
            threading.Thread(target=self._work, name=f"king-bot-{n}", daemon=True)
            for n in range(threads)
        ]
        for thread in self._threads:
            thread.start()

    async def choose(self, bot: Bot, view: SeatView, owner: str = "") -> Action:
        """The bot's choice for ``view``, computed in the pool on behalf of table
        ``owner``.  A bot that raises or answers something illegal is replaced for this
        move by a random legal choice."""
        try:
            thinking = self._submit(owner, lambda: bot.act(view), move=True)
            action: Action = await asyncio.wrap_future(thinking)
        except Exception:
            log.exception("bot %s failed at seat %d; playing a random legal move", bot, view.seat)
            return fallback_choice(view, random.Random(view.seat))
        legal = (
            action in view.legal_declarations
            if isinstance(action, Declaration)
            else isinstance(action, Card) and action in view.legal_cards
        )
        if not legal:
            log.error("bot %s answered %r, which is not legal; playing a random move", bot, action)
            return fallback_choice(view, random.Random(view.seat))
        return action

    async def run(self, owner: str, work: Callable[[], T]) -> T:
        """Any other bot work (an evaluation for an analysis) in the same threads, on the
        same fair terms, on ``owner``'s account."""
        result: T = await asyncio.wrap_future(self._submit(owner, work))
        return result

    def used(self, owner: str) -> float:
        """Seconds of bot thinking spent for ``owner`` so far."""
        with self._ready:
            return self._used.get(owner, 0.0)

    def forget(self, owner: str) -> None:
        """Drop a table's account (it is closed or over)."""
        with self._ready:
            self._used.pop(owner, None)

    def waiting(self) -> int:
        """How many jobs wait for a thread now (a bot move, an analysis, a hint)."""
        with self._ready:
            return len(self._waiting)

    def _submit(self, owner: str, work: Callable[[], Any], *, move: bool = False) -> Future[Any]:
        future: Future[Any] = Future()
        with self._ready:
            if self._closed:
                future.set_exception(RuntimeError("the bot threads have stopped"))
                return future
            self._waiting.append(_Job(owner, next(self._arrivals), work, future, move))
            self._ready.notify()
        return future

    def _next(self) -> _Job | None:
        """The waiting job whose table has used the least time (the earliest first)."""
        with self._ready:
            while not self._waiting and not self._closed:
                self._ready.wait()
            if self._closed:
                return None
            job = min(self._waiting, key=lambda j: (self._used.get(j.owner, 0.0), j.arrival))
            self._waiting.remove(job)
            return job

    def _work(self) -> None:
        while (job := self._next()) is not None:
            if not job.future.set_running_or_notify_cancel():
                continue
            start = time.perf_counter()
            failure: BaseException | None = None
            try:
                action = job.work()
            except BaseException as error:
                failure = error
            # The time is on the table's account before anyone hears the answer.
            spent = time.perf_counter() - start
            with self._ready:
                self._used[job.owner] = self._used.get(job.owner, 0.0) + spent
            if job.move and self._metrics is not None:
                self._metrics.bot_thought(spent)
            if failure is None:
                job.future.set_result(action)
            else:
                job.future.set_exception(failure)

    def close(self) -> None:
        """Stop the threads (a bot still thinking finishes in the background)."""
        with self._ready:
            self._closed = True
            waiting, self._waiting = self._waiting, []
            self._ready.notify_all()
        for job in waiting:
            job.future.cancel()


@dataclass(frozen=True, slots=True)
class _Job:
    owner: str
    arrival: int
    work: Callable[[], Any]
    future: Future[Any]
    #: A bot's move (timed for the metrics), not other work (an analysis, a hint).
    move: bool = False
