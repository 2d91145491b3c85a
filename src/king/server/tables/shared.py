"""Tables shared by many server processes (``king serve --db postgresql://… --redis …``).

Each table has one owner at a time: the process holding its lease in Redis, which plays
it as a lone server would (its log in PostgreSQL, every append fenced by the lease).
A person may be connected to any process.  One connected to a process that does not own
the table is *relayed*: that process forwards each message to the owner over the
:class:`~king.server.relay.bus.Bus`, and the owner answers through a :class:`RemoteClient`
that stands, at the table, for the connection held elsewhere: so the table's own code,
refusals and all, is the same for both.

This process's keeper renews its leases a few times per lease; a lease it fails to keep
(the process froze, or lost Redis) makes it give the table up at once: bots stopped,
every connection dropped, so that the clients reconnect to the new owner.  It also
takes over, from the log, every unfinished table that no live process holds (its owner
died), and drops relayed connections whose owner has changed or gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import random
import secrets
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

from king.cards import Seat
from king.server.access import Access
from king.server.metrics import GiveUp
from king.server.people.accounts import Account
from king.server.protocol import (
    LobbyInfo,
    SeatClaim,
    TableInfo,
    parse_client_message,
    read_table_info,
)
from king.server.relay.bus import Bus, BusTimeoutError
from king.server.relay.lease import LeaseError, LeaseService
from king.server.store.event_log import StoreError
from king.server.tables.calls import Call, answer_call
from king.server.tables.registry import Elsewhere, Registry
from king.server.tables.seats import Origin
from king.server.tables.table import Table
from king.server.tables.tables import Connection, seat_claim
from king.table import messages
from king.table.protocol import PROTOCOL_VERSION, Hello, Ping, Watch
from king.table.reading import MessageError
from king.table.rules import RefusedError
from king.table.session import Client, Session

__all__ = ["RemoteClient", "RelayedConnection", "SharedTables", "process_name"]


def _claim(answer: dict[str, Any]) -> SeatClaim:
    """A seat given by whichever process owns the table."""
    return seat_claim(str(answer["table"]), answer["seat"], answer["token"])


log = logging.getLogger("king.server")

#: Seconds a relayed hello or ping may wait for the owner's answer (which comes at once
#: from a live owner) before the relay is given up.
RELAY_PATIENCE = 0.5
_PONG = messages.dumps(messages.pong())


def _begins(kind: str) -> str:
    """How a message of this type begins (``messages.dumps`` puts the version and the
    type first)."""
    head = json.dumps({"v": PROTOCOL_VERSION, "type": kind}, separators=(",", ":"))
    return head[:-1]


#: The owner's answers to a hello or a watch, and to a ping.
_WELCOMED = (_begins("welcome"), _begins("error"))
_PONGED = (_begins("pong"), *_WELCOMED)


def process_name() -> str:
    """A name for this server process, unique among all that ever share the tables."""
    host = socket.gethostname().replace(":", "-")[:40] or "host"
    return f"{host}-{os.getpid()}-{secrets.token_hex(3)}"


class RemoteClient:
    """At the owner: a connection that another process holds and relays."""

    def __init__(self, bus: Bus, relay: str, conn: str) -> None:
        self.bus = bus
        self.relay = relay
        self.conn = conn

    def send(self, text: str) -> None:
        self.bus.send(self.relay, {"op": "send", "conn": self.conn, "text": text})

    def drop(self) -> None:
        self.bus.send(self.relay, {"op": "drop", "conn": self.conn})


@dataclass(slots=True)
class RelayedConnection:
    """At a process that does not own the table: one connection whose messages go to
    the owner.  It reads like a :class:`~king.table.session.Session` to the socket
    loop (``receive``, ``error``, ``close``)."""

    shared: SharedTables
    client: Client
    table_id: str
    owner: str
    conn: str
    #: Since when a message the owner answers at once (a hello, a ping) has waited
    #: for its answer: a relay that goes unanswered is dropped (the owner froze, or
    #: the bus lost the message), and the client comes back to be routed afresh.
    waiting_since: float | None = None
    #: How the answer waited for begins (a welcome after a hello, a pong after a ping).
    awaiting: tuple[str, ...] = ()

    def error(self, code: str, message: str) -> None:
        self.client.send(messages.dumps(messages.error(code, message)))

    def receive(self, text: str) -> None:
        """Forward one message to the owner, unless it is not a protocol message at all
        (then the refusal is given here, as the owner would give it)."""
        try:
            message = parse_client_message(text)
        except MessageError as error:
            self.client.send(messages.dumps(messages.error(error.code, error.message, error.about)))
            return
        if isinstance(message, Ping):
            # Answered here, as the client asks whether its connection lives, and it
            # does; the owner is asked too, and an owner that does not answer is this
            # process's to notice (the relay is dropped, the client comes back here).
            self.client.send(messages.dumps(messages.pong()))
        if isinstance(message, Hello | Watch):
            self._await(_WELCOMED)
        elif isinstance(message, Ping) and self.waiting_since is None:
            self._await(_PONGED)
        self.shared.bus.send(self.owner, {"op": "text", "conn": self.conn, "text": text})

    def _await(self, answers: tuple[str, ...]) -> None:
        if self.waiting_since is None:
            self.waiting_since = time.monotonic()
        self.awaiting = answers

    def answered(self, text: str) -> None:
        """Pass on what the owner sent the client; the answer to a hello or a ping
        shows that the relay works (a broadcast alone does not: the hello may be lost)."""
        if self.awaiting and text.startswith(self.awaiting):
            self.waiting_since = None
            self.awaiting = ()
        if text == _PONG:
            return  # the client had its pong from this process already
        self.client.send(text)

    def close(self) -> None:
        self.shared.end_relay(self)


class SharedTables:
    """This process's part in the tables that many processes share."""

    def __init__(self, registry: Registry, bus: Bus, leases: LeaseService) -> None:
        self.registry = registry
        self.bus = bus
        self.leases = leases
        self.name = bus.name
        self.lease_seconds = registry.settings.lease_seconds
        #: Connections relayed to this process, by connection id.
        self._sessions: dict[str, tuple[Session, RemoteClient]] = {}
        #: Connections this process relays to others, by connection id.
        self._relayed: dict[str, RelayedConnection] = {}
        self._numbers = itertools.count(1)
        self._keeper: asyncio.Task[None] | None = None
        self._relay_watch: asyncio.Task[None] | None = None
        self._stopping = False
        self._handed_over = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._renewer_stop = threading.Event()
        self._renewer = threading.Thread(
            target=self._renew_forever, name="king-leases", daemon=True
        )
        registry.adopt = self._adopt
        registry.released = self._released

    async def start(self) -> None:
        """Listen to the other processes and start keeping leases."""
        self.bus.on_back = self._show_all
        await self.bus.start(self._on_message)
        self._loop = asyncio.get_running_loop()
        self._keeper = self._loop.create_task(self._keep())
        self._relay_watch = self._loop.create_task(self._watch_relays())
        self._renewer.start()

    # -- this process's tables ---------------------------------------------------------

    def _adopt(self, table: Table) -> None:
        table.on_lost = self._lost
        table.on_change = self._show
        self._show(table)

    def _released(self, table: Table) -> None:
        # The connections relayed here for it go too: dropped, so that their clients
        # find the table's next owner (a relayed ping must not keep them at a table
        # this process has given up).
        for conn, (session, remote) in list(self._sessions.items()):
            if session.table is table:
                self._sessions.pop(conn, None)
                remote.drop()
        if not table.is_open:
            self.bus.show_table(table.id, None)

    def _show(self, table: Table) -> None:
        if table.is_open:
            self.bus.show_table(table.id, messages.dumps(table.info()))
        else:
            self.bus.show_table(table.id, None)

    def _show_all(self) -> None:
        """Show every table this process owns in the lobby again (Redis came back,
        perhaps empty)."""
        for table in self.registry.owned():
            self._show(table)

    def _lost(self, table: Table) -> None:
        log.warning("table %s has another owner now: giving it up", table.id)
        self.registry.forget(table, "another_owner")

    async def _keep(self) -> None:
        """Take over orphaned tables and check the relays, a few times per lease."""
        interval = self.lease_seconds / 4
        while True:
            await asyncio.sleep(interval)
            try:
                # Never stuck on a Redis that does not answer: the next round tries again.
                await asyncio.wait_for(self._keep_once(), timeout=self.lease_seconds * 2)
            except TimeoutError:
                log.error("keeping the shared tables: Redis or the database did not answer")
            except (LeaseError, StoreError) as error:
                log.error("keeping the shared tables: %s", error)
            except Exception:
                log.exception("keeping the shared tables failed")

    async def _keep_once(self) -> None:
        self._drop_passed()
        await self._check_relays()
        if not self._stopping:
            await self._adopt_orphans()

    def _drop_passed(self) -> None:
        """Give up every table whose lease has passed, whether or not Redis answers:
        the renewer's thread may be waiting on a Redis that is cut off, and the people
        at such a table must be sent to its next owner without waiting for it."""
        for table in self.registry.owned():
            if table.lease is not None and not table.lease.valid():
                log.warning("the lease on table %s passed: giving it up", table.id)
                self.registry.forget(table, "lease_passed")

    def _renew_forever(self) -> None:
        """The lease keeper's own thread: a busy event loop (a burst of moves, tables
        being restored) must not cost the process its tables, only a stopped or
        partitioned process should."""
        interval = self.lease_seconds / 4
        last = time.monotonic()
        while not self._renewer_stop.wait(interval):
            now = time.monotonic()
            if now - last > interval + self.lease_seconds / 2:
                # Said, so that a table lost this way is explained in the log.
                log.warning(
                    "renewing the leases ran %.1f s late: this process was starved of CPU",
                    now - last - interval,
                )
            last = now
            try:
                self._renew()
            except LeaseError as error:
                log.error("renewing the leases: %s", error)
            except Exception:
                log.exception("renewing the leases failed")

    def _renew(self) -> None:
        held = [(t, t.lease) for t in self.registry.owned() if t.lease is not None]
        current = [(t, lease) for t, lease in held if lease is not None and lease.valid()]
        for table, lease in held:
            if lease is not None and not lease.valid():
                self._give_up(table, "lease_passed")
        if not current:
            return
        renewed = self.leases.renew_all([lease for _, lease in current], self.lease_seconds)
        for (table, lease), grant in zip(current, renewed, strict=True):
            if grant is None:
                self._give_up(table, "another_owner")
            elif table.lease is lease:
                table.lease = grant

    def _give_up(self, table: Table, reason: GiveUp) -> None:
        """From the keeper's thread: forget the table on the event loop."""
        why = "passed" if reason == "lease_passed" else "is another's now"

        def forget() -> None:
            if table in self.registry.owned():
                log.warning("the lease on table %s %s: giving it up", table.id, why)
                self.registry.forget(table, reason)

        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nothing to do
                loop.call_soon_threadsafe(forget)

    async def _watch_relays(self) -> None:
        """Drop unanswered relays soon (no Redis asked: a look at this process's own)."""
        while True:
            await asyncio.sleep(0.1)
            self._drop_unanswered()

    def _drop_unanswered(self) -> None:
        """Drop the relayed connections whose owner has not answered in time."""
        now = time.monotonic()
        for relay in list(self._relayed.values()):
            waited = relay.waiting_since
            if waited is not None and now - waited > RELAY_PATIENCE:
                log.info("table %s: its owner %s did not answer", relay.table_id, relay.owner)
                self._relayed.pop(relay.conn, None)
                relay.client.drop()

    async def _check_relays(self) -> None:
        # Connections relayed here from processes that have died.  Only those asked
        # about are judged: one opened while Redis was being asked is not in the answer.
        relays = {remote.relay for _, remote in self._sessions.values()}
        if relays:
            running = await self.bus.listening(relays)
            for conn, (session, remote) in list(self._sessions.items()):
                if remote.relay in relays and remote.relay not in running:
                    self._sessions.pop(conn, None)
                    session.close()
        # Connections this process relays to an owner that has died or is not the
        # owner any more: dropped, to reconnect to the table's owner now.
        if self._relayed:
            relayed = list(self._relayed.values())
            holders = self.leases.holders([r.table_id for r in relayed])
            running = await self.bus.listening({r.owner for r in relayed})
            for relay, holder in zip(relayed, holders, strict=True):
                if self._relayed.get(relay.conn) is not relay:
                    continue  # closed meanwhile
                if holder != relay.owner or relay.owner not in running:
                    self._relayed.pop(relay.conn, None)
                    relay.client.drop()

    async def _adopt_orphans(self) -> None:
        """Take unfinished tables whose owner is gone (or that have none): this
        process's share of them, so that a dead process's tables spread over the others
        (those left are taken by the others, or by this one next time)."""
        mine = {t.id for t in self.registry.owned()}
        ids = [
            t
            for status in ("waiting", "playing")
            for t in self.registry.store.table_ids(status)
            if t not in mine
        ]
        holders = self.leases.holders(ids)
        running = await self.bus.listening({h for h in holders if h is not None})
        orphans = [
            table_id
            for table_id, holder in zip(ids, holders, strict=True)
            if holder is None or holder not in running
        ]
        if not orphans:
            return
        share = -(-len(orphans) // max(1, len(await self.bus.processes())))
        for table_id in random.sample(orphans, share):
            if self.registry.local(table_id) is not None:
                continue  # taken meanwhile for a connection
            started = time.monotonic()
            try:
                table = self.registry.take(table_id)
            except StoreError as error:
                log.error("table %s was not taken over: %s", table_id, error)
                continue
            if table is not None:
                log.warning(
                    "took table %s over from the log (%d events, %.0f ms)",
                    table_id,
                    table.seq,
                    (time.monotonic() - started) * 1000,
                )
            await asyncio.sleep(0)  # what waits meanwhile (a relayed message) goes first

    # -- relaying ------------------------------------------------------------------------

    def relay(self, client: Client, table_id: str, owner: str) -> RelayedConnection:
        """Start relaying a new connection to the table's owner."""
        conn = f"{self.name}/{next(self._numbers)}"

        relayed = RelayedConnection(self, client, table_id, owner, conn)
        log.info("table %s: relaying connection %s to its owner %s", table_id, conn, owner)
        self._relayed[conn] = relayed
        self.bus.send(owner, {"op": "open", "conn": conn, "from": self.name, "table": table_id})
        return relayed

    def end_relay(self, relayed: RelayedConnection) -> None:
        if self._relayed.pop(relayed.conn, None) is not None:
            self.bus.send(relayed.owner, {"op": "close", "conn": relayed.conn})

    def _on_message(self, message: dict[str, Any]) -> None:
        op = message.get("op")

        conn = str(message.get("conn"))
        if op == "send":
            relayed = self._relayed.get(conn)
            if relayed is not None:
                relayed.answered(str(message.get("text")))

        elif op == "drop":
            relayed = self._relayed.pop(conn, None)
            if relayed is not None:
                relayed.client.drop()
        elif op == "open":
            self._open(conn, str(message.get("from")), str(message.get("table")))
        elif op == "text":
            held = self._sessions.get(conn)
            if held is None:
                return
            try:
                held[0].receive(str(message.get("text")))
            except Exception:  # a bug must not take the table down
                log.exception("a relayed message could not be handled")
                held[0].error("server", "the server failed to handle this message")
        elif op == "close":
            held = self._sessions.pop(conn, None)
            if held is not None:
                held[0].close()
        elif op == "call":
            self.bus.reply(message, self._answer(message))

    def _open(self, conn: str, relay: str, table_id: str) -> None:
        remote = RemoteClient(self.bus, relay, conn)
        table = self.registry.local(table_id)
        if table is None or self._stopping:
            log.info("table %s: connection %s relayed here, but it is not ours", table_id, conn)
            remote.drop()  # not ours (any more): the client finds the owner again
            return
        self._sessions[conn] = (table.session(remote), remote)

    # -- requests for another process's table ----------------------------------------

    def _answer(self, call: dict[str, Any]) -> dict[str, Any]:
        table = self.registry.local(str(call.get("table")))
        if table is None or self._stopping:
            return {"error": {"code": "moved", "message": "the table is not here"}}
        return answer_call(self.registry, table, call)

    async def _ask(self, table_id: str, method: Call, args: dict[str, Any]) -> dict[str, Any]:
        """Do ``method`` at the table wherever it is owned: here, or at its owner.
        Returns the answer's ``ok`` part; raises :class:`RefusedError` for a refusal."""
        for _ in range(3):
            located = self.registry.locate(table_id)
            if located is None:
                raise RefusedError("not_found", f"there is no table {table_id!r}")
            if isinstance(located, Elsewhere):
                try:
                    answer = await self.bus.call(located.owner, method, {"table": table_id, **args})
                except BusTimeoutError:
                    await asyncio.sleep(self.lease_seconds / 2)
                    continue
            else:
                answer = self._answer({"method": method, "table": table_id, **args})
            error = answer.get("error")
            if isinstance(error, dict):
                if error.get("code") == "moved":
                    await asyncio.sleep(0.05)
                    continue
                raise RefusedError(str(error.get("code")), str(error.get("message")))
            ok = answer.get("ok")
            if isinstance(ok, dict) and "join" in ok:  # the next game, at its owner
                return await self._ask(
                    str(ok["join"]),
                    Call.JOIN,
                    {"name": ok["name"], "seat": ok["seat"], "account": ok.get("account")},
                )
            if isinstance(ok, dict):
                return ok
        raise RefusedError("busy", "the table's server process did not answer: try again")

    # -- the tables, as the routes reach them (:class:`~.tables.Tables`) ---------------

    async def info(self, table_id: str) -> TableInfo:
        return read_table_info(json.dumps(await self._ask(table_id, Call.INFO, {})))

    async def join(
        self,
        table_id: str,
        name: str,
        seat: Seat | None,
        account: Account,
        origin: Origin,
        address: str | None,
    ) -> SeatClaim:
        """A seat at a table any process may own: a guest made for this request is
        written first (the owner reads it from the database), once the table is known."""
        if account.kind == "guest":
            await asyncio.to_thread(self._save_guest, table_id, account, address)
        args = {"name": name, "seat": seat, "account": account.id, "origin": origin.to_json()}
        return _claim(await self._ask(table_id, Call.JOIN, args))

    def _save_guest(self, table_id: str, guest: Account, address: str | None) -> None:
        if not self.registry.store.exists(table_id):
            raise RefusedError("not_found", f"there is no table {table_id!r}")
        self.registry.save_guest(guest, address)

    async def take_back(self, table_id: str, account_id: str) -> SeatClaim:
        return _claim(await self._ask(table_id, Call.TAKE_BACK, {"account": account_id}))

    async def again(self, table_id: str, token: str, address: str | None) -> SeatClaim:
        args = {"token": token, "address": address}
        return _claim(await self._ask(table_id, Call.AGAIN, args))

    def connect(self, client: Client, table_id: str) -> Connection | None:
        located = self.registry.locate(table_id)
        if isinstance(located, Elsewhere):
            return self.relay(client, table_id, located.owner)
        return None if located is None else located.session(client)

    async def lobby(self, access: Access | None = None) -> LobbyInfo:
        """Every process's open tables (each shown as its owner last told) and the
        latest finished ones."""
        info = self.registry.lobby(access=access)
        mine = {t["id"] for t in info["open"]}
        shown = await self.bus.lobby()
        others: list[TableInfo] = []
        for table_id, text in shown.items():
            if table_id in mine:
                continue
            with contextlib.suppress(ValueError):
                entry = read_table_info(text)
                if entry["status"] in ("waiting", "playing"):
                    others.append(entry)
        tables = sorted([*info["open"], *others], key=lambda t: -t["created"])
        return {"open": tables, "finished": info["finished"]}

    # -- stopping --------------------------------------------------------------------------

    async def hand_over(self) -> None:
        """Give every table up cleanly (SIGTERM): connections dropped so that their
        clients reconnect to the next owner, leases released so that it need not wait."""
        if self._handed_over:
            return
        self._handed_over = True
        self._stopping = True
        self.registry.stopping = True
        for task in (self._keeper, self._relay_watch):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        # The tables first, while their leases are still renewed: waiting for the
        # renewer to stop first could let a lease pass on a busy machine, and the table
        # would then be left to pass instead of handed over.
        tables = self.registry.owned()
        for table in tables:
            self.registry.forget(table, "handed_over")
        self._renewer_stop.set()
        if self._renewer.is_alive():
            await asyncio.to_thread(self._renewer.join, 5)
        for conn, (session, _) in list(self._sessions.items()):
            self._sessions.pop(conn, None)
            session.close()
        for relayed in list(self._relayed.values()):
            self._relayed.pop(relayed.conn, None)
            relayed.client.drop()
        if tables:
            log.warning("handed %d tables over to the other processes", len(tables))
        await self.bus.close()
