"""One table: its game, the moves made at it, its deals, its clock and its status, and
the parts it is made of: its seats (:mod:`.seats`), who is connected (:mod:`.audience`)
and the log it is folded from (:mod:`.table_log`).

A table is the fold of its stored events.  A live action is checked by the core first,
then appended to the event log, then applied with the very code that replays the log
after a restart, and only then announced: so what the players were told is always what
the log holds.  Everything here runs on the event loop; only bots think elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from king.cards import CardSet, Seat
from king.events import Dealt, apply, event_of, from_json, to_json
from king.game import Action, Game, Phase
from king.record import distinct_names, to_record
from king.rules import Declaration, Rules
from king.server.clock import Clock, ClockRules
from king.server.config import ServerSettings
from king.server.engine.analysis import engine_options
from king.server.engine.autoplay import Autoplay
from king.server.engine.hints import HintClient, TableHints
from king.server.engine.players import BotRunner
from king.server.protocol import parse_client_message
from king.server.store.event_log import EventStore, StoredEvent, StoreError, StoreFencedError
from king.server.tables.audience import Audience
from king.server.tables.messages import state_message
from king.server.tables.seats import NOWHERE, Kind, Origin, Seats, new_token
from king.server.tables.table_log import TableLog
from king.table import messages
from king.table.answers import ClockInfo, PublicEvent, SeatInfo, TableInfo
from king.table.moves import make_move, verify_move
from king.table.protocol import SpeedChoice
from king.table.rules import RefusedError
from king.table.session import Client, Session
from king.texts import seat_name

if TYPE_CHECKING:
    from king.server.metrics import By, Metrics
    from king.server.people.accounts import Account
    from king.server.people.service import Profile
    from king.server.relay.lease import Lease

__all__ = ["GAME_EVENTS", "Status", "Table"]

log = logging.getLogger("king.server")

Status = Literal["waiting", "playing", "over", "closed"]

#: The kinds of the log's events that are the game's own (:mod:`king.events`); the
#: others are the table's: ``join``, ``token``, ``start``, ``again``, ``resume``,
#: ``close``.
GAME_EVENTS = ("deal", "declare", "play")


class Table:
    """A table and its game, rebuilt from (and appended to) its event log."""

    def __init__(
        self,
        table_id: str,
        header: dict[str, Any],
        created: float,
        *,
        store: EventStore,
        settings: ServerSettings,
        runner: BotRunner,
    ) -> None:
        self.id = table_id
        self.created = created
        self.settings = settings
        self.runner = runner
        self.rules = Rules.from_spec(header["rules"])
        self.seed = int(header["seed"])
        now = time.monotonic()
        self.seats = Seats(header["seats"], now)
        #: Who created the table: a hash of the client's address (None: not known).
        self.host: str | None = header.get("host")
        #: The creator's name, as they gave it (shown to invitees).
        self.by: str | None = header.get("by")
        self.by_guest = header.get("by_guest") is True
        #: Whether the person to act may ask the engine for a hint (set at creation).
        self.hints = header.get("hints") is True
        #: Whether the game counts for the ratings (set at creation).
        self.rated = header.get("rated") is True
        #: Made by a visitor (:mod:`king.server.access`): at ``king serve`` every table,
        #: at the local game one made from elsewhere than the owner's machine, which is
        #: closed when idle as a server for many closes it.
        self.by_visitor = header.get("visitor") is True or settings.local_player is None
        #: A rated table's move clock (its rules set at creation, in the header).
        self.clock = (
            Clock(ClockRules.from_json(header["clock"]), [s.kind == "human" for s in self.seats])
            if "clock" in header
            else None
        )
        #: What each seat shows beside its name (its page, its rating), kept fresh by
        #: the registry.
        self.profiles: dict[int, Profile] = {}
        #: Called when the game has just ended, before the table says it is over (to
        #: write its results).
        self.on_over: Callable[[Table], None] | None = None
        self._hints = (
            TableHints(f"{table_id}:hints", runner, engine_options(settings))
            if self.hints
            else None
        )
        self.game = Game(self.rules, self.seed, auto_deal=False)
        self.status: Status = "waiting"
        #: When the table last saw a move, a join or a connection (``time.monotonic``).
        self.last_active = now
        #: The table where this finished game is played again (same seats, new deals).
        self.next: str | None = None
        #: The log this table is folded from and written to.
        self.log = TableLog(table_id, store, self._fold, self._lost)
        #: The connections to the table.
        self.audience = Audience(settings)
        self.autoplay = Autoplay(self)
        self._broken: str | None = None
        self._closed = False
        #: Called (on the event loop, soon after) when the log refused a write because
        #: another process has taken the table over.
        self.on_lost: Callable[[Table], None] | None = None
        #: Called when what :meth:`info` shows may have changed (to keep the shared
        #: lobby up to date).
        self.on_change: Callable[[Table], None] | None = None
        #: The process's metrics, which count the moves made here (None: not counted).
        self.metrics: Metrics | None = None

    # -- building ---------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        table_id: str,
        *,
        rules: Rules,
        seed: int,
        seats: Sequence[tuple[Kind, str | None]],
        store: EventStore,
        settings: ServerSettings,
        runner: BotRunner,
        host: str | None = None,
        by: str | None = None,
        by_guest: bool = False,
        hints: bool = False,
        rated: bool = False,
        lease: Lease | None = None,
        visitor: bool = False,
    ) -> Table:
        """A new table, written to the log (it starts once every seat is claimed).
        ``host`` is the creator's :func:`~king.server.tables.seats.hash_address`, to
        count their open tables; ``lease`` this process's on it, when processes share
        tables; ``visitor``: a visitor made it at the local game."""
        header: dict[str, Any] = {
            "rules": rules.to_spec(),
            "seed": seed,
            "seats": [{"kind": kind, "bot": bot} for kind, bot in seats],
        }
        if host is not None:
            header["host"] = host
        if by is not None:
            header["by"] = by
        if by_guest:
            header["by_guest"] = True
        if hints:
            header["hints"] = True
        if rated:
            header["rated"] = True
        if visitor:
            header["visitor"] = True
        if rated and settings.local_player is None:
            rules_of_clock = ClockRules(settings.clock_reserve, settings.clock_per_move)
            header["clock"] = rules_of_clock.to_json()
        created = store.create_table(table_id, header)
        if lease is not None:
            store.claim(table_id, lease.fence)
        table = cls(table_id, header, created, store=store, settings=settings, runner=runner)
        table.lease = lease
        if table.seats.all_claimed:
            table._start()
        return table

    @classmethod
    def restore(
        cls,
        table_id: str,
        events: Sequence[StoredEvent],
        *,
        store: EventStore,
        settings: ServerSettings,
        runner: BotRunner,
        lease: Lease | None = None,
    ) -> Table:
        """The table as its events left it.  Raises :class:`StoreError` for a log that
        does not replay (which is then left untouched for a person to look at).  With
        ``lease``, its fencing number must already be the table's claim (taken before
        the events were read, so that the previous owner can add none after them)."""
        if not events or events[0].kind != "table":
            raise StoreError(f"table {table_id}: the log does not start with the table")
        try:
            table = cls(
                table_id,
                events[0].data,
                events[0].at,
                store=store,
                settings=settings,
                runner=runner,
            )
        except (KeyError, TypeError, ValueError) as error:
            raise StoreError(f"table {table_id}: event 0 is not a table: {error}") from None
        table.lease = lease
        table.log.replay(events[1:])
        if table.status == "playing" and table.game.phase is Phase.DEALING:
            # The server stopped between the last card of a deal and the next deal.
            table._deal_next()
        if table.game.is_over and table.writable:
            store.set_status(table_id, "over")
        return table

    # -- the fold of the events -------------------------------------------------------

    def _fold(self, kind: str, data: dict[str, Any], at: float | None) -> None:
        """Take in one event of the log, written ``at`` (seconds since the epoch; None:
        just now): the table applies it and its clock hears of it."""
        self._apply(kind, data)
        self._time(kind, data, time.time() if at is None else at)

    def _apply(self, kind: str, data: dict[str, Any]) -> None:
        """Fold one event into the table: the only place where state changes."""
        game = self.game
        if kind in ("join", "token"):
            self.seats.fold(kind, data)
        elif kind == "start":
            self.status = "playing"
        elif kind in GAME_EVENTS:
            # The game's own events: folded by the core, as a record's are.
            apply(game, from_json(kind, data))
            if game.is_over:
                self.status = "over"
        elif kind == "again":
            if self.status != "over":
                raise ValueError("only a finished game is played again")
            self.next = str(data["table"])
        elif kind == "resume":
            pass  # a server brought the table back: only the clock hears of it
        elif kind == "close":
            if self.status in ("over", "closed"):
                raise ValueError(f"a table that is {self.status} cannot be closed")
            self.status = "closed"
        else:
            raise ValueError(f"unknown event kind {kind!r}")

    def _time(self, kind: str, data: dict[str, Any], at: float) -> None:
        """Tell the clock of an event ``at`` (seconds since the epoch)."""
        clock = self.clock
        if clock is None:
            return
        if kind in ("declare", "play"):
            clock.moved(int(data["seat"]), at)
        elif kind in ("start", "deal", "resume"):
            clock.turn_began(at)

    # -- the log ----------------------------------------------------------------------

    @property
    def seq(self) -> int:
        """The number of the next event (event 0 is the header)."""
        return self.log.seq

    @property
    def lease(self) -> Lease | None:
        """This process's lease on the table, when server processes share tables: every
        write carries its fencing number and none is made once it has passed."""
        return self.log.lease

    @lease.setter
    def lease(self, lease: Lease | None) -> None:
        self.log.lease = lease

    @property
    def writable(self) -> bool:
        """Whether this process may write the table's log now: always, unless processes
        share tables and this one's lease has passed."""
        return self.log.writable

    def _append(self, kind: str, data: dict[str, Any], status: Status | None = None) -> None:
        """Append an event to the log, then apply it; a failed write changes nothing
        (:meth:`TableLog.append`)."""
        self.log.append(kind, data, status)
        self.last_active = time.monotonic()

    def _lost(self) -> None:
        """The log refused a write: another process has taken the table over."""
        if self.on_lost is not None:
            asyncio.get_running_loop().call_soon(self.on_lost, self)

    def _set_status(self, status: Status) -> None:
        self.status = status
        self.log.note_status(status)

    # -- the move clock ---------------------------------------------------------------

    def resume_clock(self) -> None:
        """Start the turn in progress afresh (a server has just brought the table back:
        the time it was away counts against nobody)."""
        if self.clock is not None and self.status == "playing" and self.writable:
            self._append("resume", {})

    def clock_info(self) -> ClockInfo | None:
        """The clock as a message shows it now."""
        clock = self.clock
        if clock is None:
            return None
        to_act = self.game.to_act if self.status == "playing" else None
        due = None if to_act is None else clock.deadline(to_act)
        return {
            "reserve": clock.rules.reserve,
            "per_move": clock.rules.per_move,
            "left": [
                round(left, 1) if timed else None
                for left, timed in zip(clock.left, clock.timed, strict=True)
            ],
            "due_in": None if due is None else round(max(0.0, due - time.time()), 1),
        }

    def clock_due(self) -> float | None:
        """When the stand-in moves for the person to act (seconds since the epoch), or
        None (no clock, or a bot to act)."""
        if self.clock is None or self.status != "playing":
            return None
        to_act = self.game.to_act
        return None if to_act is None else self.clock.deadline(to_act)

    def out_of_time(self, seat: Seat) -> bool:
        """Whether ``seat`` is to act and its clock has run out (the stand-in moves)."""
        if self.game.to_act != seat:
            return False
        due = self.clock_due()
        return due is not None and time.time() >= due

    @property
    def always_finished(self) -> bool:
        """A rated game at a server for many people (not the local ``king``, whose one
        person may leave their game and come back to it another day): it has a clock,
        its stand-ins play for the absent whether or not anyone is there, and it is
        never closed as idle, so that leaving a game does not spare a rating."""
        return self.rated and self.settings.local_player is None

    # -- dealing ----------------------------------------------------------------------

    def _deal_next(self) -> None:
        """Deal the next deal from the game's seed and log its hands."""
        self.game.deal_cards()
        try:
            self.log.write_applied("deal", self._dealt())
        except StoreError as error:
            # The game has dealt but the log has not: refuse moves until the deal is
            # logged (tried again every second: the database may be restarting).
            self._broken = str(error)
            log.error("table %s waits for its log: %s", self.id, error)
            with contextlib.suppress(RuntimeError):  # no loop: a restart mends it
                asyncio.get_running_loop().call_later(1.0, self._retry_deal)
            return
        if self.on_change is not None:
            self.on_change(self)

    def _dealt(self) -> dict[str, Any]:
        """The log's record of the deal the game has just dealt."""
        game = self.game
        masks = game.dealt_masks
        assert masks is not None
        hands = tuple(CardSet(m) for m in masks)
        return to_json(Dealt(game.declarer, (hands[0], hands[1], hands[2], hands[3])))

    def _retry_deal(self) -> None:
        """Log the deal that could not be logged, if the log can be written now (and
        had not kept it after all), then let play go on."""
        if self._broken is None or self._closed:
            return
        try:
            self.log.write_unless_kept("deal", self._dealt())
        except StoreError:
            asyncio.get_running_loop().call_later(1.0, self._retry_deal)
            return
        log.warning("table %s: its deal is logged now; play goes on", self.id)
        self._broken = None
        if self.on_change is not None:
            self.on_change(self)
        self._broadcast_state(messages.event("resume"))
        self.autoplay.kick()

    # -- taking seats -----------------------------------------------------------------

    def seat_for(
        self, name: str, seat: Seat | None, account: Account | None = None, origin: Origin = NOWHERE
    ) -> tuple[int, str]:
        """The seat :meth:`claim` would give and the name it would sit under, or the
        :class:`RefusedError` it would raise; changes nothing.  A registered ``account``
        sits under its own name.  A rated table seats only registered players, each
        once, and one person once: not a second seat for a browser (``origin.device``)
        or, with ``rated_seats_per_address``, an address that has that many."""
        name = self.seats.name_for(name, account)
        if self.rated:
            self.seats.one_person_one_seat(account, origin, self.settings.rated_seats_per_address)
        if self.status == "closed":
            raise RefusedError("closed", "this table was closed after a long time without play")
        if self.status != "waiting":
            raise RefusedError("started", "the game has started: every seat is taken")
        return self.seats.free(seat), name

    def claim(
        self, name: str, seat: Seat | None, account: Account | None = None, origin: Origin = NOWHERE
    ) -> tuple[int, str]:
        """Give a free person's seat to ``name`` (see :meth:`seat_for`); returns the
        seat and its secret token."""
        seat, name = self.seat_for(name, seat, account, origin)
        target = self.seats[seat]
        token = new_token()
        # A rated table keeps where the person sat from (as hashes) to seat them once.
        where = origin if self.rated else None
        self._append("join", self.seats.join_event(seat, name, token, account, where))
        target.away_since = time.monotonic()
        target.arrived = False
        if self.seats.all_claimed:
            self._start()
        else:
            self.announce_table()
        return seat, token

    def take_back(self, account: str) -> tuple[int, str]:
        """The seat ``account`` took at this unfinished table, with a new token (for a
        person who comes back on another device); the old token stops working and its
        connections are told so and closed.  Returns the seat and the token."""
        seat = self.seats.taken_by(account)
        if not self.is_open:
            raise RefusedError("game_over", "the game is over: there is no seat to take back")
        token = new_token()
        self._append("token", self.seats.token_event(seat.number, token))
        replaced = messages.dumps(
            messages.error(
                "replaced", "this seat is now played on another device (taken back by its account)"
            )
        )
        for client in self.audience.at_seat(seat.number):
            client.send(replaced)
            self.detach(client)
            client.drop()
        return seat.number, token

    def authenticate(self, token: str) -> int | None:
        """The seat this token was given for, or ``None``."""
        return self.seats.authenticate(token)

    def _start(self) -> None:
        self._append("start", {}, status="playing")
        self._deal_next()
        self.announce_table()
        self._broadcast_state(messages.event("start"))
        self.autoplay.kick()

    # -- connections ------------------------------------------------------------------

    def attach(self, client: Client, seat: Seat | None) -> None:
        """Connect a player (``seat``) or a spectator (``None``) and tell them where
        the table stands.  A returning person takes their seat back from a stand-in."""
        if self._closed:  # given up meanwhile (its lease passed): to be found elsewhere
            raise RefusedError(
                "moved", "this table has moved to another server process: reconnect to play on"
            )
        audience = self.audience
        audience.check_room(seat)
        speed = audience.speed
        try:
            self.log.catch_up()  # a write's fate unknown: the log says what was made
        except StoreError as error:
            log.error("table %s: %s", self.id, error)
        audience.add(client, seat)
        self.last_active = time.monotonic()
        if seat is not None:
            self.seats[seat].arrived = True
        welcome = messages.welcome(
            "spectator" if seat is None else "player",
            seat,
            self.info(),
            round(audience.bot_pause * 1000),
            self.settings.away_after,
            audience.speed,
        )
        client.send(messages.dumps(welcome))
        if self.status != "waiting":
            event = messages.event("resume")
            client.send(state_message(self.game, seat, self.seq, event, self.clock_info()))
        self.announce_table()
        if audience.speed != speed:
            audience.announce_pace()
        self.autoplay.watch_absences()
        self.autoplay.kick()

    def detach(self, client: Client) -> None:
        """Forget a connection; a person who has no connection left is away from now."""
        audience = self.audience
        if not audience.is_attached(client):
            return
        speed = audience.speed
        seat = audience.remove(client)
        if self._hints is not None:
            self._hints.forget(client)
        self.last_active = time.monotonic()
        if seat is not None and not audience.connected(seat):
            self.seats[seat].away_since = time.monotonic()
        if not self._closed:
            self.announce_table()
            self.autoplay.watch_absences()
            if audience.speed != speed:
                audience.announce_pace()

    def session(self, client: Client) -> Session:
        """A new connection's side of the protocol (:mod:`king.table.session`)."""
        return Session(self, client, parse_client_message)

    def is_attached(self, client: Client) -> bool:
        """Whether this connection is still at the table (a seat taken back from
        another device detaches the old one's connections)."""
        return self.audience.is_attached(client)

    def set_speed(self, client: Client, speed: SpeedChoice) -> None:
        """Note the bots' speed a connection asks for (everyone hears a new pace)."""
        self.audience.set_speed(client, speed)

    def answered(self, seconds: float) -> None:
        """Count the time a person's move took to be answered, for the metrics."""
        if self.metrics is not None:
            self.metrics.answered(seconds)

    def connected(self, seat: Seat) -> bool:
        """Whether a person is connected to ``seat`` now."""
        return self.audience.connected(seat)

    @property
    def has_clients(self) -> bool:
        """Whether anyone is connected (a player or a spectator)."""
        return self.audience.has_clients

    @property
    def bot_pause(self) -> float:
        """Seconds a bot waits before it moves, at the pace the connections ask for."""
        return self.audience.bot_pause

    def react(self, seat: Seat, phrase: str) -> None:
        """Show everyone at a table of friends a person's quick reaction (one of the
        fixed :data:`~king.table.messages.REACTIONS`), at most one a second per seat and per
        person, however many connections they have."""
        person = self.seats[seat].account
        self.audience.react(seat, person, phrase, among_friends=self.seats.people >= 2)

    # -- acting -----------------------------------------------------------------------

    def act(self, seat: Seat, action: Action, by: By = "person") -> None:
        """Declare or play for ``seat``, if it is that seat's turn and the rules allow
        it; otherwise raise :class:`RefusedError` and change nothing.  ``by``: a person
        or a bot, as the metrics count it."""
        if self._broken is not None:
            raise RefusedError(
                "unavailable", "the game's log cannot be written just now: reconnecting"
            )
        if self.status == "waiting":
            raise RefusedError("not_started", "the game has not started: seats are still free")
        if self.status == "closed":
            raise RefusedError("closed", "this table was closed after a long time without play")
        verify_move(self.game, seat, action)
        try:
            event = self._move(seat, action)
        except StoreFencedError:
            raise RefusedError(
                "moved", "this table has moved to another server process: reconnect to play on"
            ) from None
        except StoreError as error:
            log.error("table %s: %s", self.id, error)
            if self.log.unsure:  # the log could not be read back: nobody can say yet
                raise RefusedError(
                    "unavailable", "the server could not confirm the move: reconnecting"
                ) from None
            raise RefusedError(
                "unavailable", "the move could not be saved, so it was not made: reconnecting"
            ) from None
        self._count(action, by)
        self._broadcast_state(event)
        if self.game.is_over:
            self.announce_table()
            self.autoplay.close_bots()
            if self._hints is not None:
                self._hints.close()
        self.autoplay.kick()

    def _count(self, action: Action, by: By) -> None:
        """Count a move made (in the log now) for the metrics."""
        if self.metrics is not None:
            self.metrics.moved("declare" if isinstance(action, Declaration) else "play", by)

    def ask_hint(self, client: HintClient, seat: Seat) -> None:
        """Have the engine value each legal choice of ``seat`` from its view, for
        ``client`` alone; refused unless the table has hints and it is that seat's turn."""
        if self._hints is None:
            raise RefusedError(
                "hints_off", "this table plays without hints: they are chosen when it is created"
            )
        if self.status != "playing" or self._closed:
            raise RefusedError("not_playing", "hints are given while the game is played")
        to_act = self.game.to_act
        if to_act != seat:
            raise RefusedError(
                "not_your_turn", f"a hint is for the seat to act: {seat_name(to_act)}"
            )
        self._hints.ask(self.game, seat, client)

    def _move(self, seat: Seat, action: Action) -> PublicEvent:
        """Log ``seat``'s verified action (the fold applies it, :meth:`Game.act`), go on
        to what follows it (the end, or the next deal) and say what happened."""
        return make_move(self.game, seat, action, lambda: self._log_move(seat, action))

    def _log_move(self, seat: Seat, action: Action) -> None:
        move = event_of(seat, action)
        self._append(move.kind, to_json(move))
        if self.game.is_over:
            if self.on_over is not None:
                self.on_over(self)
            self._set_status("over")
        elif self.game.phase is Phase.DEALING:
            self._deal_next()

    @property
    def accepts_moves(self) -> bool:
        """Whether the game is in play and its log can be written."""
        return self.status == "playing" and self._broken is None and not self._closed

    def act_for_bot(self, seat: Seat, action: Action) -> None:
        """A bot's move: the same checks as a person's; a refusal is only logged."""
        try:
            self.act(seat, action, by="bot")
        except RefusedError as error:
            log.warning("table %s: seat %d's bot was refused: %s", self.id, seat, error)

    # -- the table's life -------------------------------------------------------------

    def note_again(self, table_id: str) -> None:
        """Log that this finished game goes on at ``table_id`` and tell everyone here."""
        self._append("again", {"table": table_id})
        self.announce_table()

    def close_idle(self) -> None:
        """Close the unfinished game for good (it has been idle too long): logged as a
        ``close`` event, so that its record stays and a restart leaves it closed."""
        self._append("close", {"reason": "idle"}, status="closed")
        self.autoplay.close_bots()
        if self._hints is not None:
            self._hints.close()
        self.runner.forget(self.id)
        self.announce_table()

    def idle_for(self, now: float) -> float:
        """Seconds since the last move, join or connection; 0 while someone is here."""
        return 0.0 if self.audience.has_clients else now - self.last_active

    @property
    def is_open(self) -> bool:
        """Waiting for players or in play (not over, not closed)."""
        return self.status in ("waiting", "playing")

    def close(self) -> None:
        """Stop the table's bot and timers (at shutdown); the log keeps everything."""
        self._closed = True
        self.autoplay.close()
        if self._hints is not None:
            self._hints.close()

    # -- telling people ---------------------------------------------------------------

    def info(self) -> TableInfo:
        """The table as the lobby and everyone at it may see it."""
        return messages.table_info(
            self.id,
            status=self.status,
            rules=self.rules.to_spec(),
            toggles=self.rules.toggles_on,
            seats=[self._seat_info(s.number) for s in self.seats],
            spectators=self.audience.spectators,
            deal=self.game.deal_number,
            created=self.created,
            next_table=self.next,
            by=self.by,
            by_guest=self.by_guest,
            hints=self.hints,
            rated=self.rated,
            clock=self.clock_info(),
        )

    def _seat_info(self, number: Seat) -> SeatInfo:
        seat = self.seats[number]
        profile = self.profiles.get(number)
        person = seat.kind == "human"
        return messages.seat_info(
            number,
            seat.kind,
            seat.name,
            bot=seat.bot,
            claimed=seat.claimed,
            connected=person and self.audience.connected(number),
            stand_in=self.autoplay.stands_in(seat),
            stand_in_in=self.autoplay.stand_in_due(seat),
            joining=person and seat.claimed and not seat.arrived,
            player=None if profile is None else profile.player,
            rating=None if profile is None else profile.rating,
            provisional=False if profile is None else profile.provisional,
            guest=person and seat.claimed and (profile is None or profile.player is None),
        )

    def record(self) -> dict[str, Any]:
        """The game as a ``king-record/1`` object."""
        return to_record(self.game, distinct_names([s.player_name for s in self.seats]))

    def announce_table(self) -> None:
        """Tell everyone connected who sits where now."""
        if self.on_change is not None:
            self.on_change(self)
        if not self.audience.has_clients:
            return
        self.audience.tell_all(messages.dumps(messages.table(self.info())))

    def _broadcast_state(self, event: PublicEvent) -> None:
        """Tell each connection the game's state from its seat, after ``event``."""
        self.audience.tell_state(self.game, self.seq, event, self.clock_info())
