"""Analyses of finished games at a server: each game's decisions evaluated one at a time
in the bot threads, on the account of that analysis, so that an analysis waits behind
every table's bots instead of starving them; each result kept by the digest of the
record and the engine, so a game is analysed once however often it is asked for."""

from __future__ import annotations

import asyncio
import collections
import hashlib
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from king.bots.analysis import (
    AnalysisOptions,
    Decision,
    annotate,
    decision_points,
    engine,
    evaluate,
)
from king.errors import KingError
from king.server.config import ServerSettings
from king.server.engine.players import BotRunner
from king.server.engine.preparing import PREPARING

__all__ = ["Analyses", "AnalysisBusyError", "AnalysisJob", "engine_options"]

log = logging.getLogger("king.server")

#: Seconds of effort per decision, and threads, unless the server allows less.
DEFAULT_SECONDS = 0.2
DEFAULT_THREADS = 2
#: Seconds after which an analysis nobody has asked about stops (the page asks every
#: second while it waits): nothing is worked out for somebody who has gone.
ABANDONED_AFTER = 30.0


class AnalysisBusyError(KingError, RuntimeError):
    """As many analyses run as the server allows: ask again later."""


@dataclass(slots=True)
class AnalysisJob:
    """One analysis: running (``done`` of ``total`` decisions) or done (``record``, the
    annotated record) or failed (``error``)."""

    key: str
    total: int
    done: int = 0
    state: Literal["running", "done", "failed"] = "running"
    record: dict[str, Any] | None = None
    error: str | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)
    #: When someone last asked for it (``time.monotonic``).
    asked: float = field(default_factory=time.monotonic, repr=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "key": self.key,
            "state": self.state,
            "done": self.done,
            "total": self.total,
        }
        if self.record is not None:
            out["record"] = self.record
        if self.error is not None:
            out["error"] = self.error
        return out


class Analyses:
    """The server's analyses: started on demand, at most ``concurrent`` at a time, the
    last ``kept`` results remembered; one nobody asked about for ``abandoned_after``
    seconds stops (a later request starts it again)."""

    def __init__(
        self,
        runner: BotRunner,
        settings: ServerSettings,
        *,
        concurrent: int = 2,
        kept: int = 64,
        abandoned_after: float = ABANDONED_AFTER,
    ) -> None:
        self.runner = runner
        self.concurrent = concurrent
        self.kept = kept
        self.abandoned_after = abandoned_after
        self.options = engine_options(settings)
        self._jobs: collections.OrderedDict[str, AnalysisJob] = collections.OrderedDict()

    def key(self, record: dict[str, Any]) -> str:
        """The digest that names an analysis: the record (its names included, which the
        result carries) and the engine."""
        game = {k: v for k, v in record.items() if k != "analysis"}
        text = json.dumps([game, self.options.spec(), self.options.seed], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def get(self, key: str) -> AnalysisJob | None:
        """The analysis called ``key``, if this server has it."""
        job = self._jobs.get(key)
        if job is not None:
            self._jobs.move_to_end(key)
            job.asked = time.monotonic()
        return job

    def start(self, record: dict[str, Any]) -> AnalysisJob:
        """The analysis of a valid record: the one already done or running, or a new one
        (raises :class:`AnalysisBusyError` when as many run as allowed)."""
        key = self.key(record)
        job = self.get(key)
        if job is not None and job.state != "failed":
            return job
        if sum(1 for j in self._jobs.values() if j.state == "running") >= self.concurrent:
            raise AnalysisBusyError(
                f"{self.concurrent} games are being analysed already: try again in a minute"
            )
        points = decision_points(record)
        job = AnalysisJob(key, len(points))
        self._jobs[key] = job
        job.task = asyncio.get_running_loop().create_task(self._run(job, record, points))
        while len(self._jobs) > self.kept:
            oldest = next(iter(self._jobs))
            if self._jobs[oldest].state == "running":
                break
            del self._jobs[oldest]
        return job

    async def _run(self, job: AnalysisJob, record: dict[str, Any], points: list[Any]) -> None:
        owner = f"analysis:{job.key}"
        bot: Any = None
        decisions: list[Decision] = []
        try:
            await PREPARING.ready(self.options.bot)  # else it would compile on the loop
            bot = await self.runner.run(owner, lambda: engine(self.options))
            for point in points:
                if time.monotonic() - job.asked > self.abandoned_after:
                    job.state, job.error = "failed", "nobody waited for it: ask again"
                    return
                decisions.append(await self.runner.run(owner, _evaluator(bot, point)))
                job.done = len(decisions)
            job.record = annotate(record, decisions, self.options)
            job.state = "done"
        except asyncio.CancelledError:
            job.state, job.error = "failed", "the server stopped"
            raise
        except Exception as error:  # a bug: logged with its traceback, told in one line
            log.exception("analysis %s failed", job.key)
            job.state, job.error = "failed", f"the analysis failed: {error}"
        finally:
            if bot is not None:
                bot.close()
            self.runner.forget(owner)

    def close(self) -> None:
        """Stop the analyses still running."""
        for job in self._jobs.values():
            if job.task is not None and not job.task.done():
                job.task.cancel()


def _evaluator(bot: Any, point: Any) -> Any:
    return lambda: evaluate(bot, point)


def engine_options(settings: ServerSettings) -> AnalysisOptions:
    """The engine within the server's limits on bots (a visitor's server) or at the
    defaults (the local game)."""
    seconds = DEFAULT_SECONDS
    if settings.max_bot_seconds is not None:
        seconds = min(seconds, settings.max_bot_seconds)
    threads = DEFAULT_THREADS
    if settings.max_bot_threads is not None:
        threads = min(threads, settings.max_bot_threads)
    worlds = 4000 if settings.max_bot_worlds is None else min(4000, settings.max_bot_worlds)
    return AnalysisOptions(bot=f"search:threads={threads}&worlds={worlds}", seconds=seconds, seed=0)
