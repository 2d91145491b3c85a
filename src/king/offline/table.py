"""A table for one person and computer players, run where the person is: in the page's
Web Worker under Pyodide, with no server.  It speaks the server's table protocol
(docs/web-protocol.md) through the same core as the server's table (:mod:`king.table`:
its session, moves, refusals and messages), so the page plays it as a server's table.

The worker hands it the person's messages (:meth:`OfflineTable.receive`), asks when the
next bot moves (:meth:`OfflineTable.bot_delay`) and has it move then
(:meth:`OfflineTable.advance`); each returns the messages for the page, as JSON text.
After every change the worker keeps :meth:`OfflineTable.saved` in the browser.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from king.board import board_document
from king.bots import Bot, bot_player_name, bot_seed, make_bot
from king.bots.levels import OFFLINE_BOTS
from king.cards import Seat
from king.game import Action, Game
from king.offline.saved import (
    OfflineSettings,
    SavedGame,
    SavedGameError,
    read_saved,
    write_saved,
)
from king.phase import Phase
from king.record import RecordError, distinct_names, dump, replay, to_record
from king.rules import Rules, RulesError
from king.table import messages
from king.table.answers import PublicEvent, TableInfo
from king.table.moves import make_move, verify_move
from king.table.protocol import SPEED_FACTORS, SpeedChoice
from king.table.reading import read_message
from king.table.rules import RefusedError, bot_pause_before
from king.table.session import Client, Session

if TYPE_CHECKING:
    from king.bots.search.bot import SearchBot

__all__ = [
    "OFFLINE_BOTS",
    "OfflineTable",
    "TABLE_ID",
    "analysis_of",
    "board_of_saved",
    "resume",
]

#: The id the offline table goes by in messages.
TABLE_ID = "offline"
#: Seconds after which a server's bot stands in for an absent person (said in welcome).
AWAY_AFTER = 45.0
#: The engine of the offline table's hints, and its time per hint: the server's, on the
#: one thread a page's worker has.
HINT_ENGINE = "search:threads=1&worlds=4000"
HINT_SECONDS = 0.2
Message = dict[str, Any]


class OfflineTable:
    """One person's game against bots; deterministic given the seed, as the server's is."""

    def __init__(
        self,
        rules: Rules,
        seed: int,
        settings: OfflineSettings = OfflineSettings(),  # noqa: B008 - frozen
        game: Game | None = None,
    ) -> None:
        seat = settings.seat
        specs = tuple(None if n == seat else settings.bots[n] for n in range(4))
        for spec in specs:
            if spec is not None and spec not in OFFLINE_BOTS:
                raise ValueError(
                    f"{spec!r} does not play offline: use one of {', '.join(OFFLINE_BOTS)}"
                )
        self.rules = rules
        self.seed = seed
        #: The table's settings (the speed changes as the person asks).
        self.settings = dataclasses.replace(settings, bots=specs)
        self.seat = seat
        self.name = settings.name
        self.specs = specs
        self.hints = settings.hints
        #: The engine that gives hints (made on the first one asked for).
        self._adviser: SearchBot | None = None
        self.attached = False
        #: The page, the table's one connection, and its side of the protocol.
        self._page = _Page()
        self._session = Session(self, self._page, read_message)
        self.bots: dict[int, Bot] = {
            n: make_bot(spec, seed=bot_seed(seed, n)) for n, spec in enumerate(specs) if spec
        }
        if game is None:
            game = Game(rules, seed, auto_deal=False)
            game.deal_cards()
        elif game.phase is Phase.DEALING and not game.is_over:
            game.deal_cards()
        self.game = game

    # -- building -----------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        rules: str = "classic",
        seed: int = 0,
        *,
        name: str = "You",
        bots: Sequence[str] = ("rule", "rule", "rule"),
        bot_pause: float = 0.7,
        created: float = 0.0,
        hints: bool = False,
    ) -> OfflineTable:
        """A new game for a person in seat 0 against ``bots`` (seats 1-3); with ``hints``
        the person may ask the engine what each choice is worth."""
        try:
            chosen = Rules.from_spec(rules)
        except RulesError as error:
            raise ValueError(str(error)) from None
        settings = OfflineSettings(
            name=name, bots=(None, *bots), bot_pause=bot_pause, created=created, hints=hints
        )
        return cls(chosen, seed, settings)

    @classmethod
    def restore(cls, text: str) -> OfflineTable:
        """The game kept by :meth:`saved`, or :class:`~king.offline.saved.SavedGameError`
        with a sentence saying why it cannot be resumed."""
        saved: SavedGame = read_saved(text)
        game = saved.loaded.game
        return cls(game.rules, game.seed, saved.settings, game)

    def saved(self) -> str:
        """The game as the browser keeps it (see :mod:`king.offline.saved`)."""
        return write_saved(to_record(self.game), self.settings)

    def record_text(self) -> str:
        """The game's ``king-record/1`` record, as the server's record download has it."""
        return dump(self.game, self.player_names())

    def player_names(self) -> list[str]:
        """The players as the record names them (as the server's table does)."""
        names = [
            self.name if spec is None else bot_player_name(spec, n)
            for n, spec in enumerate(self.specs)
        ]
        return distinct_names(names)

    # -- what the table says --------------------------------------------------------------

    @property
    def seq(self) -> int:
        """The number of events a server's log would hold for this game (its header, the
        person's join, the start, then every deal, declaration and card)."""
        game = self.game
        events = 3 + sum(2 + len(deal.plays) for deal in game.deals)
        return events + (1 if game.phase is Phase.DECLARING else 0)

    @property
    def status(self) -> Literal["playing", "over"]:
        return "over" if self.game.is_over else "playing"

    @property
    def bot_pause(self) -> float:
        return self.settings.bot_pause * SPEED_FACTORS[self.settings.speed]

    def info(self) -> TableInfo:
        """The table as the lobby and its player see it."""
        seats = [
            messages.seat_info(n, "human", self.name, connected=self.attached, guest=True)
            if spec is None
            else messages.seat_info(n, "bot", None, bot=spec)
            for n, spec in enumerate(self.specs)
        ]
        return messages.table_info(
            TABLE_ID,
            status=self.status,
            rules=self.rules.to_spec(),
            toggles=self.rules.toggles_on,
            seats=seats,
            deal=self.game.deal_number,
            created=self.settings.created,
            by=self.name,
            by_guest=True,
            hints=self.hints,
        )

    def _state(self, event: PublicEvent) -> str:
        return messages.dumps(messages.state(self.game, self.seat, self.seq, event))

    # -- the person ---------------------------------------------------------------------

    def receive(self, text: str) -> list[str]:
        """The answers to one message of the person's page."""
        self._session.receive(text)
        return self._page.take()

    def detach(self, client: Client | None = None) -> None:
        """The page went away (it reopens with a new ``hello``); with ``client``, its
        session's own word that it is gone."""
        if client is not None:
            self.attached = False
            return
        self._session.close()
        self._session = Session(self, self._page, read_message)

    # What the person's connection asks of the table (:class:`king.table.session.SeatingTable`).

    def authenticate(self, token: str) -> Seat | None:
        """The person's seat: the page holds the one table, whatever token it says."""
        return self.seat

    def attach(self, client: Client, seat: Seat | None) -> None:
        if seat is None:
            raise RefusedError("spectator", "an offline table has no spectators")
        self.attached = True
        welcome = messages.welcome(
            "player",
            self.seat,
            self.info(),
            round(self.bot_pause * 1000),
            AWAY_AFTER,
            self.settings.speed,
        )
        client.send(messages.dumps(welcome))
        client.send(self._state(messages.event("resume")))
        client.send(messages.dumps(messages.table(self.info())))

    def is_attached(self, client: Client) -> bool:
        return self.attached

    def set_speed(self, client: Client, speed: SpeedChoice) -> None:
        self.settings = dataclasses.replace(self.settings, speed=speed)
        client.send(messages.dumps(messages.pace(speed, round(self.bot_pause * 1000))))

    def ask_hint(self, client: Client, seat: Seat) -> None:
        """What each legal choice of the person is worth, as the engine sees it from their
        view (the server's hints, at the same settings but on one thread)."""
        if not self.hints:
            raise RefusedError(
                "hints_off", "this table plays without hints: they are chosen when it is created"
            )
        if self.status != "playing":
            raise RefusedError("not_playing", "hints are given while the game is played")
        if self.game.to_act != seat:
            raise RefusedError("not_your_turn", "a hint is for the seat to act")
        from king.bots.analysis import AnalysisOptions, engine, hint

        if self._adviser is None:
            self._adviser = engine(AnalysisOptions(bot=HINT_ENGINE, seconds=HINT_SECONDS))
        deal = self.game.deal
        plays = 0 if deal is None else len(deal.plays)
        found = hint(self._adviser, self.game.view(seat))
        client.send(messages.dumps(messages.hint(self.game.deal_number, plays, found.to_json())))

    def react(self, seat: Seat, phrase: str) -> None:
        raise RefusedError("no_friends", "reactions are for a table of friends")

    def act(self, seat: Seat, action: Action) -> None:
        """Make a verified move and tell the page, if it is there (it hears where the
        game stands on its next ``hello`` otherwise)."""
        verify_move(self.game, seat, action)
        happened = make_move(self.game, seat, action, lambda: self._make(action))
        if not self.attached:
            return
        self._page.send(self._state(happened))
        if self.game.is_over:
            self._page.send(messages.dumps(messages.table(self.info())))

    def answered(self, seconds: float) -> None:
        """Nothing counts the offline table's answers."""

    def _make(self, action: Action) -> None:
        self.game.act(action)
        if self.game.phase is Phase.DEALING and not self.game.is_over:
            self.game.deal_cards()

    # -- the bots -------------------------------------------------------------------------

    def bot_delay(self) -> float | None:
        """Seconds before the next bot moves, or ``None`` when no bot is to act."""
        to_act = self.game.to_act
        if to_act is None or to_act not in self.bots:
            return None
        return bot_pause_before(self.game, self.bot_pause if self.attached else 0.0)

    def advance(self) -> list[str]:
        """The bot to act moves; its messages (none when no bot is to act)."""
        seat = self.game.to_act
        bot = None if seat is None else self.bots.get(seat)
        if seat is None or bot is None:
            return []
        self.act(seat, bot.act(self.game.view(seat)))
        return self._page.take()


class _Page:
    """The person's page as the table's one connection: what it is told, kept until the
    worker takes it."""

    def __init__(self) -> None:
        self._outbox: list[str] = []

    def send(self, text: str) -> None:
        self._outbox.append(text)

    def drop(self) -> None:
        """Never asked: the offline table does not move."""

    def take(self) -> list[str]:
        taken, self._outbox = self._outbox, []
        return taken


def resume(text: str) -> tuple[OfflineTable | None, str | None, str | None]:
    """The saved game as a table, or why it cannot be resumed: ``(table, None, None)``
    or ``(None, code, sentence)`` (the page says the code in the person's language)."""
    try:
        return OfflineTable.restore(text), None, None
    except SavedGameError as error:
        return None, error.code, str(error)


def board_of_saved(text: str) -> tuple[str | None, str | None]:
    """The analysis board's document of the saved finished game (as ``/api/board``
    answers it) and its record, as JSON texts; ``(None, code)`` when the save cannot be
    read or its game is still in play (the board shows every hand)."""
    found, code, _ = resume(text)
    if found is None:
        return None, code
    if not found.game.is_over:
        return None, "not_over"  # the board shows every hand: not while they are in play
    record = found.record_text()
    return messages.dumps({"board": board_document(replay(record)), "analysis": None}), record


def board_of_record(text: str) -> tuple[str | None, str]:
    """A record a person opened on the device (a static site has no server to read it),
    laid out for the analysis board as ``POST /api/board`` lays it out: the board's
    document and the record to analyse (as JSON texts; its own analysis section is set
    aside, the device analyses it afresh), or ``None`` and why it cannot be shown, in the
    server's words."""
    try:
        report = replay(text)
    except RecordError as error:
        return None, f"not a game record: {error}"
    if report.fault is not None:
        return None, f"the record is not valid: {report.fault}"
    if not report.game.deals:
        return None, "the record has no declared deal to show"
    board = messages.dumps({"board": board_document(report), "analysis": None})
    return board, dump(report.game, players=report.players)


#: The offline analysis board's engine and its time per decision: the server's engine on
#: the page's one thread, a quarter of the server's time per decision, so that a whole
#: game (some 800 decisions) is analysed on a phone in well under a minute.
ANALYSIS_ENGINE = "search:threads=1&worlds=4000"
ANALYSIS_SECONDS = 0.05


def analysis_of(record: str, progress: Callable[[int, int], None]) -> str:
    """The finished game's record (``record``, JSON text) with its ``analysis`` section,
    every decision evaluated on this device; ``progress(done, total)`` after each."""
    from king.bots.analysis import AnalysisOptions, analyze

    options = AnalysisOptions(bot=ANALYSIS_ENGINE, seconds=ANALYSIS_SECONDS)
    return messages.dumps(analyze(record, options, progress))
