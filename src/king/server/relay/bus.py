"""Messages between the server processes that share tables, over Redis pub/sub.

Each process listens on its own channel (``king:to:<name>``, its
:func:`~king.server.relay.lease.inbox`) while it runs: a process that died has no connection
to Redis any more, so nobody listens on its channel, and the others can tell it from
one that is only quiet.  A message is one JSON object with an ``op``; the
ones that need an answer (:meth:`Bus.call`) get a ``reply`` on the asker's channel.
Pub/sub keeps the order of one publisher's messages to one subscriber, which is all the
relayed connections need: what a process sends to another arrives in the order sent.

Messages are fire and forget: one lost with a dying process is mended by the client,
which reconnects and is sent the whole state again.  redis-py (``pip install
"king[redis]"``) is imported only when a bus is made.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import random
import secrets
import time
from collections.abc import Callable, Iterable
from typing import Any

from king import __version__
from king.server.relay.lease import LeaseError, inbox, shown_address
from king.server.relay.members import versions_key

__all__ = ["Bus", "BusTimeoutError"]

log = logging.getLogger("king.server")

Handler = Callable[[dict[str, Any]], None]

#: Writes queued while Redis does not take them, past which new ones are dropped (the
#: clients mend what they missed by reconnecting) instead of filling the memory.
MAX_QUEUED = 100_000
#: The longest wait between tries to listen again while Redis is away (doubling from
#: 0.1 s, jittered): short enough that the relays work again soon after it is back.
MAX_BACKOFF = 1.0


class BusTimeoutError(LeaseError):
    """Another process did not answer in time (it may have just died)."""


class Bus:
    """This process's end of the messages between server processes."""

    def __init__(self, address: str, name: str, *, prefix: str = "king"):
        try:
            import redis.asyncio
        except ImportError:
            raise LeaseError('--redis needs redis-py: pip install "king[redis]"') from None
        self.name = name
        self._address = address
        self._prefix = prefix
        self._redis: Any = redis.asyncio.Redis.from_url(
            address, socket_timeout=2.0, socket_connect_timeout=2.0
        )
        self._errors: tuple[type[Exception], ...] = (redis.RedisError, OSError)
        #: Writes waiting for the writer task: (command, key, field or "", value).
        self._outbox: collections.deque[tuple[str, str, str, str]] = collections.deque()
        self._wake = asyncio.Event()
        self._closed = False
        self._overflowing = False
        self._replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._pubsub: Any = None
        self._said_dropped = 0.0
        #: Called when Redis answers again after an outage (it may have restarted
        #: empty: what this process keeps there is to be written again).
        self.on_back: Callable[[], None] = lambda: None

    def channel(self, name: str) -> str:
        """Where the process ``name`` listens."""
        return inbox(self._prefix, name)

    async def start(self, handler: Handler) -> None:
        """Listen for messages (each is given to ``handler`` on the event loop)."""
        try:
            self._pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            await self._pubsub.subscribe(self.channel(self.name))
            await self._announce()
        except self._errors as error:
            raise LeaseError(
                f"cannot reach Redis at {shown_address(self._address)}: {error}"
            ) from None
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._listen(handler)),
            loop.create_task(self._write()),
        ]

    async def _listen(self, handler: Handler) -> None:
        backoff = 0.0
        while True:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except self._errors as error:
                if not backoff:  # said once per outage, not at every try
                    log.error("the bus lost Redis: %s; listening again (backing off)", error)
                backoff = min(MAX_BACKOFF, max(0.1, backoff * 2))
                await asyncio.sleep(backoff * random.uniform(0.5, 1.0))
                continue
            if backoff:
                log.warning("the bus has Redis again")
                backoff = 0.0
                self._queue(("hset", versions_key(self._prefix), self.name, __version__))
                self.on_back()
            if message is None or message.get("type") != "message":
                continue
            try:
                data = json.loads(message["data"])
            except (ValueError, TypeError):
                log.error("the bus got a message that is not JSON: %.80r", message["data"])
                continue
            if not isinstance(data, dict):
                continue
            if data.get("op") == "reply":
                future = self._replies.pop(str(data.get("id")), None)
                if future is not None and not future.done():
                    future.set_result(data)
                continue
            try:
                handler(data)
            except Exception:  # one bad message must not stop the listening
                log.exception("the bus could not handle %.80r", data)

    async def _write(self) -> None:
        while not self._closed:
            await self._wake.wait()
            self._wake.clear()
            while self._outbox:
                batch = [self._outbox.popleft() for _ in range(min(256, len(self._outbox)))]
                try:
                    await self._send_batch(batch)
                except self._errors:
                    # Once more, on a fresh connection: the pool's may have died with a
                    # Redis that restarted (a message sent twice is harmless: a state
                    # is shown again, a move made twice is refused).
                    try:
                        await self._send_batch(batch)
                    except self._errors as error:  # the receivers mend it by reconnecting
                        self._say_dropped(len(batch), error)

    async def _send_batch(self, batch: list[tuple[str, str, str, str]]) -> None:
        async with self._redis.pipeline(transaction=False) as pipe:
            for command, key, field, value in batch:
                if command == "publish":
                    pipe.publish(key, value)
                elif command == "hset":
                    pipe.hset(key, field, value)
                else:
                    pipe.hdel(key, field)
            await pipe.execute()

    async def _announce(self) -> None:
        """Say which version of king this process is (:mod:`king.server.relay.members`)."""
        await self._redis.hset(versions_key(self._prefix), self.name, __version__)

    def _say_dropped(self, count: int, error: Exception) -> None:
        now = time.monotonic()
        if now - self._said_dropped >= 1.0:  # not a line per message
            self._said_dropped = now
            log.error("the bus dropped %d messages: %s", count, error)

    def send(self, to: str, message: dict[str, Any]) -> None:
        """Queue ``message`` for the process ``to`` (sent in order, without waiting)."""
        text = json.dumps(message, separators=(",", ":"))
        self._queue(("publish", self.channel(to), "", text))

    def _queue(self, write: tuple[str, str, str, str]) -> None:
        if len(self._outbox) >= MAX_QUEUED:
            if not self._overflowing:
                log.error("Redis takes no messages: dropping them until it does")
            self._overflowing = True
            return
        self._overflowing = False
        self._outbox.append(write)
        self._wake.set()

    def _lobby_key(self) -> str:
        return f"{self._prefix}:lobby"

    def show_table(self, table_id: str, info: str | None) -> None:
        """Put a table's lobby entry (its ``TableInfo`` as JSON) where every process
        reads the lobby, or take it away (``None``)."""
        if info is None:
            self._queue(("hdel", self._lobby_key(), table_id, ""))
        else:
            self._queue(("hset", self._lobby_key(), table_id, info))

    async def lobby(self) -> dict[str, str]:
        """Every table's lobby entry, by table id."""
        try:
            entries = await self._redis.hgetall(self._lobby_key())
        except self._errors as error:
            raise LeaseError(f"cannot read the lobby from Redis: {error}") from None
        return {key.decode(): value.decode() for key, value in entries.items()}

    async def call(
        self, to: str, method: str, args: dict[str, Any], timeout: float = 5.0
    ) -> dict[str, Any]:
        """Ask the process ``to`` to do ``method`` and wait for its answer."""
        key = secrets.token_hex(8)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[key] = future
        self.send(to, {"op": "call", "id": key, "from": self.name, "method": method, **args})
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise BusTimeoutError(f"the process {to} did not answer {method} in time") from None
        finally:
            self._replies.pop(key, None)

    def reply(self, call: dict[str, Any], answer: dict[str, Any]) -> None:
        """Answer a ``call`` message."""
        asker = call.get("from")
        if isinstance(asker, str):
            self.send(asker, {**answer, "op": "reply", "id": call.get("id")})

    async def processes(self) -> list[str]:
        """The names of every running process (each listens on its channel)."""
        prefix = self.channel("")
        try:
            channels = await self._redis.pubsub_channels(prefix + "*")
        except self._errors as error:
            raise LeaseError(f"cannot ask Redis who listens: {error}") from None
        return sorted(c.decode()[len(prefix) :] for c in channels)

    async def listening(self, names: Iterable[str]) -> set[str]:
        """Which of these processes are running (someone listens on their channel)."""
        wanted = sorted(set(names))
        if not wanted:
            return set()
        try:
            counts = await self._redis.pubsub_numsub(*[self.channel(n) for n in wanted])
        except self._errors as error:
            raise LeaseError(f"cannot ask Redis who listens: {error}") from None
        listening = {channel.decode() for channel, count in counts if count > 0}
        return {name for name in wanted if self.channel(name) in listening}

    async def close(self) -> None:
        """Send what is queued and stop listening (the others then know it is gone)."""
        self._queue(("hdel", versions_key(self._prefix), self.name, ""))
        for _ in range(50):
            if not self._outbox:
                break
            await asyncio.sleep(0.01)
        self._closed = True
        self._wake.set()
        for task in self._tasks:
            task.cancel()
        # Not waited for long: a cancel that lands inside redis-py's pipeline may come
        # out as a connection error (the writer then stops at its flag), and a process
        # handing its tables over must not keep its port open meanwhile (its clients
        # would come back to it, measured: 5 s).
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=0.5)
        if self._pubsub is not None:
            with contextlib.suppress(*self._errors):
                await self._pubsub.aclose()
        with contextlib.suppress(*self._errors):
            await self._redis.aclose()
