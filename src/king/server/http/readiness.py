"""Whether this process can serve now (``GET /api/ready``): its database answers a cheap
query, and, when it shares tables, its Redis answers a PING.  A load balancer sends
people only to a ready process; ``GET /api/live`` only says that the process answers.

The database is asked on a worker thread (its driver blocks), one question at a time
however many probes come in; each part has :data:`TIMEOUT` seconds to answer.  What
went wrong is logged when a part fails and when it answers again; the answer itself
only names the part, so that a public probe learns nothing of the network behind it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import Any

from king.server.store.event_log import EventStore, StoreError, StoreLockedError

__all__ = ["TIMEOUT", "Check", "Readiness"]

log = logging.getLogger("king.server.http.readiness")

#: Seconds each part has to answer before it counts as failed.
TIMEOUT = 2.0


@dataclass(frozen=True, slots=True)
class Check:
    """One part's answer: ``ok``, or a short reason (``unreachable``, ``no answer in
    2 s``, ``in use by another server``)."""

    part: str
    state: str

    @property
    def ok(self) -> bool:
        return self.state == "ok"


class Readiness:
    """The checks of one server process (made at its start, closed at its end)."""

    def __init__(self, store: EventStore, address: str | None, timeout: float = TIMEOUT) -> None:
        self._store = store
        self._timeout = timeout
        self._asking: asyncio.Future[Any] | None = None
        self._failing: set[str] = set()
        self._redis: Any = None
        self._redis_errors: tuple[type[Exception], ...] = ()
        if address is not None:  # the Redis of --redis
            import redis.asyncio

            self._redis = redis.asyncio.Redis.from_url(
                address, socket_timeout=timeout, socket_connect_timeout=timeout
            )
            self._redis_errors = (redis.RedisError, OSError)

    async def checks(self) -> list[Check]:
        """Every part's answer, asked at once."""
        asked = [self._database()]
        if self._redis is not None:
            asked.append(self._ping())
        found = list(await asyncio.gather(*asked))
        for check in found:
            self._note(check)
        return found

    async def _database(self) -> Check:
        if self._asking is None or self._asking.done():
            self._asking = asyncio.ensure_future(asyncio.to_thread(self._select))
            self._asking.add_done_callback(_seen)
        try:
            await asyncio.wait_for(asyncio.shield(self._asking), self._timeout)
        except TimeoutError:
            return self._failed("database", f"no answer in {self._timeout:g} s", None)
        except StoreLockedError as error:  # a server of the other kind took it
            return self._failed("database", "in use by another server", error)
        except StoreError as error:
            return self._failed("database", "unreachable", error)
        except Exception as error:  # a probe answers, whatever went wrong
            return self._failed("database", "failed", error)
        return Check("database", "ok")

    def _select(self) -> None:
        self._store.read(lambda sql: sql.rows("SELECT 1"))

    async def _ping(self) -> Check:
        try:
            await asyncio.wait_for(self._redis.ping(), self._timeout)
        except TimeoutError:
            return self._failed("redis", f"no answer in {self._timeout:g} s", None)
        except self._redis_errors as error:
            return self._failed("redis", "unreachable", error)
        return Check("redis", "ok")

    def _failed(self, part: str, state: str, error: Exception | None) -> Check:
        if part not in self._failing:
            log.warning("not ready: the %s failed (%s)", part, error or state)
        return Check(part, state)

    def _note(self, check: Check) -> None:
        """Remember which parts fail, to log each change once, not every probe."""
        if check.ok and check.part in self._failing:
            log.warning("ready again: the %s answers", check.part)
            self._failing.discard(check.part)
        elif not check.ok:
            self._failing.add(check.part)

    async def close(self) -> None:
        """Close the connection to Redis (the store is the server's, closed by it)."""
        if self._redis is not None:
            with contextlib.suppress(*self._redis_errors):
                await self._redis.aclose()


def _seen(asked: asyncio.Future[Any]) -> None:
    """Retrieve a question's failure, so that one nobody waited for is not reported."""
    if not asked.cancelled():
        asked.exception()
