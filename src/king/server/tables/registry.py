"""The tables this process owns: creating them, finding them, and bringing the
unfinished ones back from the event log when the server starts.

When several processes share the tables (``--redis``), a table is this process's only
while it holds the table's lease (:mod:`king.server.relay.lease`): :meth:`Registry.locate`
says which process has it, taking it from the log when nobody does."""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from king.cards import Seat

if TYPE_CHECKING:
    from king.server.people.accounts import Account

from king.bots import BotSpecError
from king.rules import Rules, RulesError
from king.server.access import Access
from king.server.config import ServerSettings
from king.server.engine.players import BotLimitError, BotRunner, check_bot_spec
from king.server.metrics import GiveUp, Metrics
from king.server.people.accounts import AccountError
from king.server.people.names import NameError_, check_shown_name
from king.server.people.service import People, rated_refusal
from king.server.protocol import CreateTableRequest, LobbyInfo, SeatRequest
from king.server.relay.lease import Lease, LeaseError, LeaseService
from king.server.store.event_log import EventStore, StoreError
from king.server.tables.seats import NOWHERE, Kind, Origin, Seats, clean_name, hash_address
from king.server.tables.table import Table
from king.table.rules import RefusedError
from king.texts import seat_name

__all__ = ["Elsewhere", "Registry", "TABLE_ID"]

log = logging.getLogger("king.server")

#: What a table id looks like (ids come from ``secrets.token_urlsafe``).
TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{4,32}$")
_FINISHED_CACHE = 32


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """A table another server process owns now."""

    owner: str


def _seats(request: CreateTableRequest, access: Access) -> list[tuple[Kind, str | None]]:
    """The seats a new table asks for, checked (a bot's spec against what ``access``
    allows)."""
    seats: list[tuple[Kind, str | None]] = []
    for number, wanted in enumerate(request.seats):
        if wanted.kind == "human":
            if wanted.bot is not None:
                raise RefusedError("invalid", f"{seat_name(number)} is for a person: give no bot")
            seats.append(("human", None))
            continue
        if wanted.bot is None:
            raise RefusedError("invalid", f"{seat_name(number)} is a bot's: name the bot")
        try:
            seats.append(("bot", check_bot_spec(wanted.bot, access)))
        except BotLimitError as error:
            raise RefusedError("limit", f"{seat_name(number)}: {error}") from None
        except BotSpecError as error:
            raise RefusedError("invalid", f"{seat_name(number)}: {error}") from None
    if request.seat is not None and seats[request.seat][0] != "human":
        raise RefusedError(
            "invalid", f"{seat_name(request.seat)} is a bot's: sit in a person's seat"
        )
    return seats


class Registry:
    """Every table of one server process, keyed by id.

    With ``leases`` the process shares tables with others: it owns a table only while
    it holds the table's lease, which ``adopt`` hears of (to renew it and to tell the
    other processes) and ``released`` hears the end of."""

    def __init__(
        self,
        store: EventStore,
        settings: ServerSettings,
        leases: LeaseService | None = None,
        people: People | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.store = store
        #: The accounts and the ledger (None: a server that remembers nobody, as in
        #: some tests of the tables alone).
        self.people = people
        self.settings = settings
        self.leases = leases
        #: What this process records for Prometheus (:mod:`king.server.metrics`).
        self.metrics = metrics if metrics is not None else Metrics()
        self.runner = BotRunner(settings.bot_threads, self.metrics)
        self.metrics.watch(lambda: [t.status for t in self.owned()], self.runner.waiting)
        self._tables: dict[str, Table] = {}
        self._finished: OrderedDict[str, Table] = OrderedDict()
        #: Set while the process hands its tables over (it takes none then).
        self.stopping = False
        self.adopt: Callable[[Table], None] = lambda table: None
        self.released: Callable[[Table], None] = lambda table: None

    def restore(self) -> int:
        """Load every unfinished table from the log; returns how many came back.  A
        table whose log does not replay is reported and left alone.  Processes that
        share tables restore none here: each takes the tables nobody owns as it goes."""
        if self.leases is not None:
            return 0
        count = 0
        for status in ("waiting", "playing"):
            for table_id in self.store.table_ids(status):
                try:
                    table = self._load(table_id)
                except StoreError as error:
                    log.error("table %s was not restored: %s", table_id, error)
                    continue
                if not table.is_open:
                    self._remember_finished(table)
                else:
                    self._tables[table_id] = table
                    count += 1
        return count

    def _load(self, table_id: str, lease: Lease | None = None) -> Table:
        if lease is None and self.leases is not None:
            lease = Lease(table_id, "", 0, float("-inf"))  # read only: owned elsewhere
        events = self.store.events(table_id)
        table = Table.restore(
            table_id,
            events,
            store=self.store,
            settings=self.settings,
            runner=self.runner,
            lease=lease,
        )
        self._wire(table)
        if table.writable and table.always_finished and table.status == "playing":
            self._finish_rated(table)
        if table.writable and self.people is not None:
            try:
                self.people.index_seats(table)
                if table.game.is_over and not self.people.ledger.recorded(table.id):
                    self.people.finish(table)  # the results of a game ended by a crash
            except StoreError as error:
                log.error("table %s: its seats or results were not indexed: %s", table_id, error)
        return table

    def _finish_rated(self, table: Table) -> None:
        """A rated game brought back goes on whoever comes: its clock starts the turn
        in progress afresh (the time the table was away counts against nobody), and the
        stand-ins play for the people who do not come back."""
        try:
            table.resume_clock()
        except StoreError as error:
            log.error("table %s: its clock was not resumed: %s", table.id, error)
        table.autoplay.watch_absences()
        table.autoplay.kick()

    def _wire(self, table: Table) -> None:
        """Let the table reach the people (what its seats show, and its results) and
        the metrics."""
        table.metrics = self.metrics
        people = self.people
        if people is None:
            return

        def over(finished: Table) -> None:
            people.finish(finished)
            self.refresh(finished)

        table.on_over = over
        self.refresh(table)

    def refresh(self, table: Table) -> None:
        """Read what the table's seats show (names, ratings) afresh."""
        if self.people is None:
            return
        try:
            table.profiles = self.people.profiles(table)
        except StoreError as error:
            log.error("table %s: %s", table.id, error)

    def _grant(self, table_id: str) -> Lease | None:
        """This process's lease on a new table (when processes share tables)."""
        if self.leases is None:
            return None
        lease = self.leases.acquire(table_id, self.settings.lease_seconds)
        if lease is None:
            raise RefusedError("busy", "the new table's id is taken; try again")
        return lease

    def take(self, table_id: str) -> Table | None:
        """Own the table from now on, if no other process does: its lease first, then
        its fencing number in the log (after which its old owner can write nothing),
        then its events.  None while another process holds it."""
        assert self.leases is not None
        held = self._tables.get(table_id)
        if held is not None:  # taken meanwhile (by a connection, or the keeper)
            if held.writable:
                return held
            self.forget(held, "lease_passed")
        floor = self.store.fence(table_id)
        lease = self.leases.acquire(table_id, self.settings.lease_seconds, floor)
        if lease is None:
            return None
        try:
            if not self.store.claim(table_id, lease.fence):
                # Another took it meanwhile with a higher number: theirs, not ours.
                self.leases.release(lease)
                return None
            table = self._load(table_id, lease)
        except StoreError:
            self.leases.release(lease)
            raise
        self._tables[table_id] = table
        self._finished.pop(table_id, None)
        if table.is_open:  # a finished one is only being looked at
            self.metrics.took_over()
        self.adopt(table)
        return table

    def locate(self, table_id: str) -> Table | Elsewhere | None:
        """The table to play at: this process's own (taken now if nobody owns it), the
        process that owns it, or None when there is no such table."""
        if self.leases is None:
            return self.get(table_id)
        if not TABLE_ID.match(table_id):
            return None
        table = self._tables.get(table_id)
        if table is not None:
            if table.writable:
                return table
            self.forget(table, "lease_passed")  # it may be another's now
        if not self.store.exists(table_id):
            return None
        if self.stopping:
            # Not even relayed: the messages bus of a process handing over is closing.
            raise RefusedError("busy", "this server process is stopping: connect again")
        # Taken unless a running process holds it (a dead holder's lease is broken).
        taken = self.take(table_id)
        if taken is not None:
            return taken
        holder = self.leases.holder(table_id)
        if holder is None:  # released just now: try once more
            taken = self.take(table_id)
            if taken is None:
                raise RefusedError("busy", "the table is changing hands: connect again")
            return taken
        return Elsewhere(holder)

    def local(self, table_id: str) -> Table | None:
        """The table if this process owns it now."""
        table = self._tables.get(table_id)
        return table if table is not None and table.writable else None

    def owned(self) -> list[Table]:
        """The tables this process holds (leased, when processes share tables)."""
        return list(self._tables.values())

    def forget(self, table: Table, reason: GiveUp | None = None) -> None:
        """Stop being the table's owner: its bots stop, its connections are dropped
        (they reconnect to its next owner) and its lease, if still ours, is released.
        ``reason``: why a table still in play is given up, for the metrics."""
        if self._tables.get(table.id) is not table:
            # Not (or no longer) the table this process holds: it must not act either.
            for client in table.audience.connections():
                client.drop()
            table.close()
            return
        del self._tables[table.id]
        if reason is not None and table.is_open:
            self.metrics.gave_up(reason)
        for client in table.audience.connections():
            client.drop()
        table.close()
        self.runner.forget(table.id)
        if self.leases is not None and table.lease is not None and table.lease.valid():
            try:
                self.leases.release(table.lease)
            except LeaseError as error:
                log.error("%s", error)
        self.released(table)

    def create(
        self,
        request: CreateTableRequest,
        address: str | None = None,
        account: Account | None = None,
        origin: Origin = NOWHERE,
        access: Access | None = None,
    ) -> tuple[Table, int | None, str | None]:
        """A new table for the client at ``address`` (signed in as ``account``: a guest
        made for this request is written only once everything is checked); returns it
        with the creator's seat and token (if they sit).  Refused when the server or
        this address already has as many open tables as ``access`` allows (by default
        the access of a request from ``address``), a bot asks for too much, a rated
        table is not one that can be rated, or the name will not do.  The table shows its
        host as the account that made it."""
        access = access if access is not None else Access.of(self.settings, address)
        host = None if address is None else hash_address(address)
        self._check_room(host, access)
        try:
            rules = Rules.from_spec(request.rules)
        except RulesError as error:
            raise RefusedError("invalid", f"rules: {error}") from None
        seats = _seats(request, access)
        if request.rated:
            why = rated_refusal(request.rules, request.hints, [(k, b) for k, b in seats])
            if why is not None:
                raise RefusedError("invalid", why)
            if request.seat is not None and (account is None or not account.registered):
                raise RefusedError(
                    "account_needed", "a rated table seats registered players: log in first"
                )
        if account is not None and account.kind == "player" and account.name is not None:
            by, by_guest = account.name, False
        elif account is not None and account.kind == "local":
            by, by_guest = Seats.name_for(request.name, account), False
        else:
            by, by_guest = self.guest_name(request.name), True
        if request.seat is not None and account is not None and account.kind == "guest":
            self.save_guest(account, address)
        seed = request.seed if request.seed is not None else secrets.randbits(63)
        table_id = self._new_id()
        lease = self._grant(table_id)
        table = Table.create(
            table_id,
            rules=rules,
            seed=seed,
            seats=seats,
            store=self.store,
            settings=self.settings,
            runner=self.runner,
            host=host,
            by=by,
            by_guest=by_guest,
            hints=request.hints,
            rated=request.rated,
            lease=lease,
            visitor=not access.owner and self.settings.local_player is not None,
        )
        self._wire(table)
        self._tables[table_id] = table
        self.adopt(table)
        if request.seat is None:
            return table, None, None
        seat, token = self.claim(table, request.name, request.seat, account, origin, address)
        return table, seat, token

    def _check_room(self, host: str | None, access: Access) -> None:
        """Refuse a new table when the server, or the address ``host``, has as many open
        tables as the settings (and ``access``) allow."""
        self._prune()
        if len(self._tables) >= self.settings.max_tables:
            raise RefusedError("busy", "this server has as many open tables as it can hold")
        per_address = access.limits.tables_per_address
        if host is None or per_address is None:
            return
        mine = sum(1 for t in self._tables.values() if t.host == host and t.is_open)
        if mine >= per_address:
            idle = access.limits.idle_close
            wait = "" if idle is None else f" (one is closed after {idle / 60:g} min without play)"
            raise RefusedError(
                "too_many_tables",
                f"you already have {mine} unfinished tables, the most this server allows "
                f"one address (--tables-per-address): finish one first{wait}",
            )

    def save_guest(self, account: Account, address: str | None) -> None:
        """Write a guest made for a request (nothing if it is written already)."""
        if self.people is None:
            return
        try:
            self.people.accounts.save_guest(account, address)
        except AccountError as error:
            raise RefusedError(error.code, error.message) from None

    def claim(
        self,
        table: Table,
        name: str,
        seat: Seat | None,
        account: Account | None,
        origin: Origin = NOWHERE,
        address: str | None = None,
    ) -> tuple[int, str]:
        """A seat at ``table`` for ``name`` (and ``account``), indexed under the account.
        Checked first, so that a refused claim writes nothing: a guest's name (it must
        show, and may not read like a registered player's), then a guest made for this
        request is written (``address`` counts its new guests)."""
        number, shown = table.seat_for(name, seat, account, origin)
        if self.people is not None and (account is None or not account.registered):
            name = self.guest_name(shown)
        if account is not None and account.kind == "guest":
            self.save_guest(account, address)
        number, token = table.claim(name, number, account, origin)
        if account is not None and self.people is not None:
            try:
                self.people.ledger.note_seat(table.id, number, account.id, table.created)
            except StoreError as error:  # the join event holds it; the next load mends it
                log.error("table %s: seat %d was not indexed: %s", table.id, number, error)
            self.refresh(table)
            table.announce_table()
        return number, token

    def guest_name(self, name: str) -> str:
        """A guest's name, as a table shows it: it must show
        (:func:`~king.server.people.names.check_shown_name`) and may not read like a registered
        player's name (which only that player sits under)."""
        try:
            shown = check_shown_name(clean_name(name))
        except NameError_ as error:
            raise RefusedError("invalid", f"name: {error.message}") from None
        if self.people is not None and self.people.accounts.taken(shown):
            raise RefusedError(
                "name_taken",
                f"{shown!r} is a registered player's name (or reads like one): log in as "
                "that player, or choose another name",
            )
        return shown

    def again(self, table: Table, token: str, address: str | None = None) -> tuple[Table, int, str]:
        """The finished ``table`` played again: the same seats and bots, new deals.  The
        first player who asks creates the new table; each one who asks gets their own
        seat there, under their name.  Returns the new table, the seat and its token."""
        seat = table.authenticate(token)
        if seat is None:
            raise RefusedError("bad_token", "this token claims no seat at this table")
        if table.status != "over":
            raise RefusedError("not_over", "the game is not over yet")
        name = table.seats[seat].name or seat_name(seat)
        account = self.people.account(table.seats[seat].account) if self.people else None
        located = self.locate(table.next) if table.next is not None else None
        if isinstance(located, Elsewhere):
            raise RefusedError("moved", "the next game is at another server process: try again")
        following = located
        if following is None:
            seats = [SeatRequest(kind=kind, bot=bot) for kind, bot in table.seats.requests()]
            rules = table.rules.to_spec()
            request = CreateTableRequest(
                rules=rules if isinstance(rules, str) else dict(rules),
                seats=seats,
                seat=None,
                name=name,
                hints=table.hints,
                rated=table.rated,
            )
            # The next game is the same table's: its bots, checked as they were for
            # whoever made it (a visitor who plays the owner's table again included).
            made = Access.of_maker(self.settings, table.by_visitor)
            following, _, _ = self.create(request, address, account, access=made)
            table.note_again(following.id)
        seat_there, token_there = self.claim(following, name, seat, account)
        return following, seat_there, token_there

    def _new_id(self) -> str:
        while True:
            table_id = secrets.token_urlsafe(6)
            if table_id not in self._tables and not self.store.exists(table_id):
                return table_id

    def get(self, table_id: str) -> Table | None:
        """The table of this id: open, or finished (read back from the log).  When
        processes share tables, an open one another owns comes back read only, as the
        log has it: to look at, not to play (:meth:`locate` is for that)."""
        if not TABLE_ID.match(table_id):
            return None
        table = self._tables.get(table_id) or self._finished.get(table_id)
        if table is not None:
            return table
        if not self.store.exists(table_id):
            return None
        table = self._load(table_id)
        if not table.is_open:
            self._remember_finished(table)
        elif self.leases is None:  # only a table this process failed to restore gets here
            self._tables[table_id] = table
        return table

    def _prune(self) -> None:
        """Move finished and closed tables nobody watches out of the open ones."""
        for table in list(self._tables.values()):
            if not table.is_open and not table.has_clients:
                if self.leases is not None:
                    self.forget(table)
                    continue
                del self._tables[table.id]
                self._remember_finished(table)

    def close_idle(self, now: float | None = None) -> int:
        """Close every unfinished table idle for ``idle_close`` seconds (nobody
        connected, no move); returns how many were closed.  Their events stay."""
        limit = self.settings.idle_close
        if limit is None:
            return 0
        now = time.monotonic() if now is None else now
        closed = 0
        for table in list(self._tables.values()):
            if table.always_finished and table.status == "playing":
                continue  # finished by its stand-ins, never closed unrated
            if not table.by_visitor:
                continue  # the local game's owner's: kept until they close it
            if table.is_open and table.idle_for(now) >= limit:
                try:
                    table.close_idle()
                except StoreError as error:
                    log.error("table %s could not be closed: %s", table.id, error)
                    continue
                closed += 1
        if closed:
            log.warning("closed %d tables idle for %g s", closed, limit)
            self._prune()
        return closed

    async def sweep(self) -> None:
        """Close idle tables now and then, and delete the accounts' old counts and
        expired sessions, for as long as the server runs."""
        limit = self.settings.idle_close
        every = 60.0 if limit is None else min(60.0, max(limit / 4, 0.05))
        last_people = time.monotonic()
        while True:
            await asyncio.sleep(every)
            if limit is not None:
                self.close_idle()
            if self.people is not None and time.monotonic() - last_people >= 60.0:
                last_people = time.monotonic()
                try:
                    await asyncio.to_thread(self.people.accounts.sweep)
                except StoreError as error:
                    log.error("the accounts' old rows were not swept: %s", error)

    def _remember_finished(self, table: Table) -> None:
        self._finished[table.id] = table
        self._finished.move_to_end(table.id)
        while len(self._finished) > _FINISHED_CACHE:
            self._finished.popitem(last=False)

    def lobby(self, finished: int = 10, access: Access | None = None) -> LobbyInfo:
        """Tables waiting for players or in play, and the latest finished ones.  A
        visitor of the local game (``access``) sees the tables visitors made, not the
        owner's: those they reach only by an invitation's link."""
        self._prune()
        hidden = access is not None and not access.owner and self.settings.local_player is not None
        open_tables = sorted(self._tables.values(), key=lambda t: -t.created)
        done: list[Table] = []
        for table_id in self.store.table_ids("over", finished):
            try:
                finished_table = self.get(table_id)
            except StoreError as error:
                log.error("%s", error)
                continue
            if finished_table is not None:
                done.append(finished_table)
        return LobbyInfo(
            open=[t.info() for t in open_tables if t.is_open and (t.by_visitor or not hidden)],
            finished=[t.info() for t in done if t.by_visitor or not hidden],
        )

    def close(self) -> None:
        """Stop every table's bots and timers, and the bot threads."""
        for table in [*self._tables.values(), *self._finished.values()]:
            table.close()
        self.runner.close()
