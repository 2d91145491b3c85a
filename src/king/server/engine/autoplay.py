"""Who plays a seat when no person does: the seat's own bot, or a stand-in for a
person who has been away longer than ``away_after`` while someone else at the table
waits.  One bot move at a time per table, and only while someone is connected to it;
the thinking happens in the bot threads, shared fairly between tables.

A rated game on a server for many (:attr:`Table.always_finished`) is always finished:
there the stand-in plays for a person who has been away ``away_after`` seconds whether
or not anyone else is there, makes the move of a
person whose clock (:mod:`king.server.clock`) has run out, and the bots play on with
nobody connected (without pauses: nobody is watching)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Protocol

from king.bots import Bot, make_bot
from king.cards import Seat
from king.game import Action, Game
from king.server.config import ServerSettings
from king.server.engine.players import BotRunner, bot_seed
from king.server.engine.preparing import PREPARING
from king.table.rules import bot_pause_before

__all__ = ["Autoplay", "BotSeat", "BotTable"]


class BotSeat(Protocol):
    """What the bots need to know of a seat."""

    @property
    def number(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def bot(self) -> str | None: ...
    @property
    def token_hash(self) -> str | None: ...
    @property
    def away_since(self) -> float: ...


class BotTable(Protocol):
    """What the bots need of their table (:class:`king.server.tables.table.Table` is one):
    named here, so that this module does not import the table that owns it."""

    id: str
    seed: int
    game: Game
    settings: ServerSettings
    runner: BotRunner
    rated: bool

    @property
    def seq(self) -> int: ...
    @property
    def seats(self) -> Sequence[BotSeat]: ...
    @property
    def always_finished(self) -> bool: ...
    @property
    def has_clients(self) -> bool: ...
    @property
    def accepts_moves(self) -> bool: ...
    @property
    def is_open(self) -> bool: ...
    @property
    def bot_pause(self) -> float: ...
    def connected(self, seat: Seat) -> bool: ...
    def clock_due(self) -> float | None: ...
    def out_of_time(self, seat: Seat) -> bool: ...
    def act_for_bot(self, seat: Seat, action: Action) -> None: ...
    def announce_table(self) -> None: ...


log = logging.getLogger("king.server")


class Autoplay:
    """The bots of one table, and the timers that wake them."""

    def __init__(self, table: BotTable) -> None:
        self.table = table
        self._bots: dict[tuple[int, bool], Bot] = {}
        self._task: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._clock_timer: asyncio.TimerHandle | None = None
        self._closed = False

    def bot_for(self, seat: Seat) -> Bot | None:
        """The bot that plays ``seat`` now, if any."""
        chosen = self._spec_for(seat)
        if chosen is None:
            return None
        key, spec = chosen
        bot = self._bots.get(key)
        if bot is None:
            bot = make_bot(spec, seed=bot_seed(self.table.seed, seat, key[1]))
            self._bots[key] = bot
        return bot

    def _spec_for(self, seat: Seat) -> tuple[tuple[int, bool], str] | None:
        """The key and spec of the bot that plays ``seat`` now (its own, or a stand-in)."""
        info = self.table.seats[seat]
        if info.kind == "bot":
            return (seat, False), info.bot or "random"
        if self.stands_in(info):
            return (seat, True), self._stand_in()
        return None

    def _stand_in(self) -> str:
        """The stand-in's bot: the server's, but never one weaker than ``rule`` at a
        rated table (it plays for a person whose result counts)."""
        spec = self.table.settings.stand_in
        return "rule" if self.table.rated and spec == "random" else spec

    def stands_in(self, seat: BotSeat) -> bool:
        """Whether a bot plays for this person now: their clock has run out at a rated
        table, or they have been gone for ``away_after`` seconds and another person at
        the table is connected (at a rated table, whether or not anyone is)."""
        table = self.table
        if seat.kind != "human" or seat.token_hash is None:
            return False
        if table.out_of_time(seat.number):
            return True
        if table.connected(seat.number):
            return False
        if time.monotonic() - seat.away_since < table.settings.away_after:
            return False
        return self._someone_waits(seat)

    def stand_in_due(self, seat: BotSeat) -> float | None:
        """Seconds until a bot plays for this away person (what the others see counting
        down); ``None`` when they are here, one already does, or none will."""
        table = self.table
        if seat.kind != "human" or seat.token_hash is None or table.connected(seat.number):
            return None
        if self.stands_in(seat) or not self._someone_waits(seat):
            return None
        due = seat.away_since + table.settings.away_after - time.monotonic()
        return round(max(0.0, due), 1)

    def _someone_waits(self, seat: BotSeat) -> bool:
        """Whether a stand-in would play for ``seat``: a game always finished, or another
        person at the table, connected, waiting for them."""
        table = self.table
        if table.always_finished:
            return True
        return any(
            s.kind == "human" and s.number != seat.number and table.connected(s.number)
            for s in table.seats
        )

    def kick(self) -> None:
        """Start the bot whose turn it is, if any.  Bots play only while someone is at
        the table (a person or a spectator): a table nobody watches waits for them.  A
        bot whose kernels are not ready is prepared in the background first
        (:mod:`king.server.engine.preparing`): building it here would block everyone."""
        table = self.table
        if self._closed or self._task is not None or not table.accepts_moves:
            return
        self._watch_clock()
        if not table.has_clients and not table.always_finished:
            return
        seat = table.game.to_act
        chosen = None if seat is None else self._spec_for(seat)
        if seat is None or chosen is None:
            return
        loop = asyncio.get_running_loop()
        if not PREPARING.ready_for(chosen[1]):
            self._task = loop.create_task(self._when_prepared(chosen[1]))
            return
        self.bot_for(seat)
        self._task = loop.create_task(self._turn(seat, table.seq))

    def prepare(self) -> None:
        """Have this table's slow bots prepared in the background now (a new game
        against Hard: they compile while the person looks at the table)."""
        PREPARING.start(seat.bot for seat in self.table.seats if seat.bot is not None)

    async def _when_prepared(self, spec: str) -> None:
        """Kick again once ``spec`` is ready (:mod:`king.server.engine.preparing`)."""
        try:
            await PREPARING.ready(spec)
        finally:
            self._task = None
        if not self._closed:
            self.kick()

    async def _turn(self, seat: Seat, seq: int) -> None:
        table = self.table
        try:
            pause = bot_pause_before(table.game, table.bot_pause if table.has_clients else 0.0)
            if pause > 0:
                await asyncio.sleep(pause)
            bot = self.bot_for(seat)
            if bot is None or table.seq != seq:
                return
            if not table.has_clients and not table.always_finished:
                return  # everyone left during the pause: nobody waits for this move
            action = await table.runner.choose(bot, table.game.view(seat), table.id)
            if table.seq != seq or self.bot_for(seat) is not bot:
                return  # the person came back, or the position changed meanwhile
            table.act_for_bot(seat, action)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: seat %d's bot failed", table.id, seat)
        finally:
            self._task = None
            if not self._closed:
                self.kick()

    def _watch_clock(self) -> None:
        """Wake up when the clock of the person to act runs out."""
        if self._clock_timer is not None:
            self._clock_timer.cancel()
            self._clock_timer = None
        due = self.table.clock_due()
        if due is not None:
            delay = max(0.0, due - time.time()) + 0.01
            self._clock_timer = asyncio.get_running_loop().call_later(delay, self._clock_due)

    def _clock_due(self) -> None:
        self._clock_timer = None
        self.table.announce_table()  # the seat now shows its stand-in
        self.kick()

    def watch_absences(self) -> None:
        """Wake up when the next absent person's grace time runs out."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        table = self.table
        if self._closed or not table.is_open:
            return
        now = time.monotonic()
        due = [
            s.away_since + table.settings.away_after
            for s in table.seats
            if s.kind == "human" and s.token_hash is not None and not table.connected(s.number)
        ]
        future = [t for t in due if t > now]
        if future:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(min(future) - now + 0.01, self._absence_due)

    def _absence_due(self) -> None:
        self._timer = None
        self.table.announce_table()
        self.kick()
        self.watch_absences()

    def close_bots(self) -> None:
        """Release the bots (at the end of the game, or at shutdown)."""
        for bot in self._bots.values():
            try:
                bot.close()
            except Exception:
                log.exception("table %s: a bot failed to close", self.table.id)
        self._bots.clear()

    def close(self) -> None:
        """Stop the bot and the timer for good."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()
        for timer in (self._timer, self._clock_timer):
            if timer is not None:
                timer.cancel()
        self.close_bots()
