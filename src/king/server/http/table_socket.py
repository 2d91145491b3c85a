"""Play over one WebSocket per connection: the route that finds the table (here, or at
the process that owns it) and hands each text frame to the connection's session, and
the writer that sends a connection's messages in order without ever making the table
wait."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging

from fastapi import APIRouter, WebSocket

from king.server.http.services import ServicesDep
from king.server.metrics import Route
from king.server.relay.lease import LeaseError
from king.server.store.event_log import StoreError
from king.server.tables.shared import RelayedConnection
from king.server.tables.tables import Connection
from king.table import messages
from king.table.rules import RefusedError

__all__ = ["BINARY_REFUSED", "MAX_QUEUED", "SocketClient", "router"]

log = logging.getLogger("king.server")

#: The answer to a binary frame: the protocol is JSON text.
BINARY_REFUSED = "binary frames are not read here: send each message as a JSON text frame"
#: Messages queued for a client that does not read them before it is dropped.
MAX_QUEUED = 512

router = APIRouter()


class SocketClient:
    """Sends a connection's messages in order from its own task, so that the table
    never waits for a slow reader; one that falls too far behind is disconnected."""

    def __init__(self, websocket: WebSocket) -> None:
        self._ws = websocket
        self._pending: collections.deque[str] = collections.deque()
        self._wake = asyncio.Event()
        self._overflow = False
        self._closing = False
        self._dropping: asyncio.Task[None] | None = None
        self._task = asyncio.get_running_loop().create_task(self._write())

    def send(self, text: str) -> None:
        if self._closing or self._overflow:
            return
        if len(self._pending) >= MAX_QUEUED:
            self._overflow = True
        else:
            self._pending.append(text)
        self._wake.set()

    async def _write(self) -> None:
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._pending:
                    await self._ws.send_text(self._pending.popleft())
                if self._overflow:
                    await self._ws.close(code=1008, reason="too slow: messages piled up")
                    return
                if self._closing:
                    return
        except Exception as error:  # the peer is gone: nothing more to send
            log.debug("a socket stopped: %r", error)

    def drop(self) -> None:
        """Close the socket (1012, "service restart") once what is queued is sent: the
        table has moved to another server process, where the client reconnects."""
        if not self._closing:
            self._dropping = asyncio.get_running_loop().create_task(self.close(code=1012))

    async def close(self, code: int = 1000) -> None:
        """Send what is queued, then close the socket."""
        self._closing = True
        self._wake.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._task, timeout=5)
        with contextlib.suppress(Exception):
            await self._ws.close(code=code)


@router.websocket("/api/tables/{table_id}/ws")
async def table_socket(websocket: WebSocket, table_id: str, parts: ServicesDep) -> None:
    await websocket.accept()
    client = SocketClient(websocket)
    if parts.registry.stopping:
        # Handing its tables over (SIGTERM): the client reconnects, to another process.
        await client.close(code=1012)
        return
    session = await _open_session(parts, client, table_id)
    if session is None:
        return
    route: Route = "relayed" if isinstance(session, RelayedConnection) else "direct"
    parts.metrics.connection_opened(route)
    try:
        await _converse(websocket, session, table_id)
    finally:
        parts.metrics.connection_closed(route)
        session.close()
        await client.close()


async def _open_session(
    parts: ServicesDep, client: SocketClient, table_id: str
) -> Connection | None:
    """The connection's side at the table (relayed to its owner when another process
    holds it), or None once the client is told why there is none."""
    try:
        found = parts.tables.connect(client, table_id)
    except (StoreError, LeaseError, RefusedError) as error:
        # The table may well exist: the client is told to come back, not that it does not.
        log.error("table %s could not be found: %s", table_id, error)
        reason = error.message if isinstance(error, RefusedError) else "try again soon"
        client.send(
            messages.dumps(messages.error("busy", f"the table cannot be reached: {reason}"))
        )
        await client.close(code=1013)
        return None
    if found is None:
        client.send(messages.dumps(messages.error("not_found", f"there is no table {table_id!r}")))
        await client.close(code=4404)
        return None
    return found


async def _converse(websocket: WebSocket, session: Connection, table_id: str) -> None:
    """Hand each text frame to the session until the client goes."""
    while True:
        received = await websocket.receive()
        if received["type"] == "websocket.disconnect":
            return
        text = received.get("text")
        if text is None:
            session.error("invalid", BINARY_REFUSED)
            continue
        try:
            session.receive(text)
        except Exception:  # a bug must not take the connection or the table down
            log.exception("table %s: a message could not be handled", table_id)
            session.error("server", "the server failed to handle this message")
