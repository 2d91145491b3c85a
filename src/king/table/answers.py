"""What a table tells the people at it, each message and its parts defined once, as
``TypedDict``s: :mod:`king.table.messages` builds them (mypy holds each builder to its
definition), the server derives its pydantic models from them to check them and write
their JSON Schema (:func:`king.server.protocol.model_of`), and the page reads them.

A field's meaning is said once, here, beside it; docs/web-protocol.md tells the story.
"""

from __future__ import annotations

import typing
from typing import Any, Literal, TypedDict

from king.table.protocol import ProtocolVersion, SpeedChoice

__all__ = [
    "BoardEntry",
    "BoardLine",
    "ClockInfo",
    "DeclarationChoice",
    "ErrorMessage",
    "GameView",
    "HintChoice",
    "HintMessage",
    "PaceMessage",
    "PongMessage",
    "PublicEvent",
    "ReactionMessage",
    "ResultInfo",
    "SERVER_MESSAGES",
    "SeatInfo",
    "ServerMessage",
    "StateMessage",
    "SuitLetter",
    "TableInfo",
    "TableMessage",
    "TakenInfo",
    "TrickCard",
    "TrickInfo",
    "WelcomeMessage",
]

#: A suit's letter, as every message writes a trump.
SuitLetter = Literal["S", "H", "D", "C"]


# -- the pieces of the messages -----------------------------------------------------------


class SeatInfo(TypedDict):
    """Who sits in a seat, as everyone at the table may know it."""

    seat: int
    kind: Literal["human", "bot"]
    name: str | None
    bot: str | None
    #: A person has joined this seat (always true for a bot seat).
    claimed: bool
    #: A person is connected to this seat now.
    connected: bool
    #: A bot is playing for this person, who is away (see ``away_after``).
    stand_in: bool
    #: Seconds (from this message) until a bot plays for this person, who is away; null
    #: when they are here, a bot already plays for them, or none will.
    stand_in_in: float | None
    #: The person has taken the seat and is on their way to the table (not away).
    joining: bool
    #: Where the player's page is (``/players/{player}``): a registered player's name,
    #: or ``bot:<spec>`` for a bot; null for a guest.
    player: str | None
    #: The player's (or house bot's) rating, when they have one, and whether it is still
    #: provisional (few rated games).
    rating: int | None
    provisional: bool
    #: A person seated as a guest (no registered account): pages mark the name, which is
    #: theirs alone only at this table.
    guest: bool


class ClockInfo(TypedDict):
    """A rated table's move clock (docs/players.md): each person's ``reserve`` for the
    game and the ``per_move`` free seconds of every turn; what each seat has ``left`` of
    its reserve (null for a bot's seat), and for the seat to act the seconds until the
    stand-in moves for it (``due_in``, null when a bot is to act)."""

    reserve: float
    per_move: float
    left: list[float | None]
    due_in: float | None


class TableInfo(TypedDict):
    """A table as the lobby and the players see it."""

    id: str
    #: ``closed``: the game was given up after ``idle_close`` seconds without play.
    status: Literal["waiting", "playing", "over", "closed"]
    rules: str | dict[str, Any]
    #: The optional rules in force, in the order of RULES.md (``rules`` names the preset;
    #: this spells it out, so that a client need not know the presets).
    toggles: list[str]
    seats: list[SeatInfo]
    spectators: int
    deal: int
    created: float
    #: For a finished game played again: the new table (same seats, new deals).
    next: str | None
    #: Who created the table: their account's name, or a guest's name as they gave it
    #: (``by_guest``); null for an older table.
    by: str | None
    by_guest: bool
    #: Whether the person to act may ask the engine for a hint (chosen at creation).
    hints: bool
    #: Whether the game counts for the ratings (chosen at creation).
    rated: bool
    #: A rated table's move clock (its ``left`` and ``due_in`` as of this message).
    clock: ClockInfo | None


class TrickCard(TypedDict):
    """One card of the trick in progress."""

    seat: int
    card: str


class TrickInfo(TypedDict):
    """A completed trick: who led, the four cards in playing order, who won it."""

    leader: int
    cards: list[str]
    winner: int


class ResultInfo(TypedDict):
    """A finished deal's contract and each seat's points."""

    declarer: int
    contract: str
    trump: SuitLetter | None
    points: list[int]


class GameView(TypedDict):
    """:meth:`king.view.SeatView.to_json`, field for field: everything one seat may see.
    A spectator's view has ``seat`` null and an empty ``hand``."""

    seat: int | None
    rules: str | dict[str, Any]
    phase: Literal["dealing", "declaring", "playing", "over"]
    deal: int
    declarer: int
    contract: str | None
    trump: SuitLetter | None
    hand: list[str]
    to_act: int | None
    leader: int | None
    trick: list[TrickCard]
    tricks: list[TrickInfo]
    points: list[int]
    tricks_won: list[int]
    totals: list[int]
    trumps_declared: list[int]
    negatives_declared: list[int]
    contract_counts: dict[str, int]
    results: list[ResultInfo]


class PublicEvent(TypedDict):
    """What just happened, as everyone saw it (never a hidden card)."""

    kind: Literal["start", "declare", "play", "resume"]
    seat: int | None
    contract: str | None
    trump: SuitLetter | None
    card: str | None
    #: Set when this card completed a trick: the trick's winner.
    winner: int | None
    #: Set when this card ended the deal.
    deal_over: bool


class DeclarationChoice(TypedDict):
    """One of the ten declarations, for the declarer: allowed or not, and why not.
    ``why`` is a stable word for translations: ``trumps_done`` (two Trumps declared),
    ``negatives_done`` (three negative contracts declared) or ``played_twice``."""

    contract: str
    trump: SuitLetter | None
    title: str
    allowed: bool
    why: Literal["trumps_done", "negatives_done", "played_twice"] | None
    reason: str | None


class TakenInfo(TypedDict):
    """What each seat took in one deal: the deal being played or, between deals, the one
    just finished (``deal`` says which, 0-based).  ``cards`` are the contract's penalty
    cards each seat took, in playing order (empty in Trumps, No Tricks and No Last Two,
    whose points come from tricks)."""

    deal: int
    contract: str
    #: What the contract's points count: penalty ``cards`` or ``tricks``.
    counts: Literal["cards", "tricks"]
    tricks: list[int]
    cards: list[list[str]]


class BoardEntry(TypedDict):
    """One declaration on the contract board: in which deal (0-based), by whom."""

    deal: int
    declarer: int
    trump: SuitLetter | None


class BoardLine(TypedDict):
    """One contract on the game's board: the deals it was declared in (the one being
    played included) and, for a negative contract, how often it may still be declared
    (``left``; null for Trumps, which each player owes instead: ``obligations``)."""

    contract: str
    declared: list[BoardEntry]
    left: int | None


class HintChoice(TypedDict):
    """One legal choice as the engine values it: ``value`` the seat's expected points for
    the deal, ``loss`` what it gives up against the best (over the same worlds)."""

    choice: str
    value: float
    error: float
    loss: float
    loss_error: float


# -- the messages -------------------------------------------------------------------------


class WelcomeMessage(TypedDict):
    """The answer to ``hello`` or ``watch``: your role, your seat and the table."""

    v: ProtocolVersion
    type: Literal["welcome"]
    role: Literal["player", "spectator"]
    seat: int | None
    table: TableInfo
    #: The pause before each bot move now, so that the page can pace animations.
    bot_pause_ms: int
    #: Seconds after which a bot stands in for an absent person.
    away_after: float
    #: The table's bot speed now (see ``pace``).
    speed: SpeedChoice


class TableMessage(TypedDict):
    """The table changed: someone joined, connected, left, or a stand-in took over."""

    v: ProtocolVersion
    type: Literal["table"]
    table: TableInfo


class StateMessage(TypedDict):
    """The game as this connection may see it, after the event in ``event``.  ``seq``
    counts the table's stored events, so a client can tell new from old.  ``legal``
    lists the cards this seat may play now and ``declarations`` the ten choices when it
    must declare (both empty otherwise)."""

    v: ProtocolVersion
    type: Literal["state"]
    seq: int
    event: PublicEvent | None
    view: GameView
    legal: list[str]
    declarations: list[DeclarationChoice]
    hand_sizes: list[int]
    last_trick: TrickInfo | None
    #: For each seat: Trumps still owed, negative contracts still owed.
    obligations: list[list[int]]
    #: What each seat has taken in the deal (null before the first declaration).
    taken: TakenInfo | None
    #: The seven contracts, negative ones first: who declared each, and what is left.
    board: list[BoardLine]
    #: The move clock of a rated table (null at other tables).
    clock: ClockInfo | None


class PaceMessage(TypedDict):
    """The bots' speed at this table: the slowest that a connected person asked for (the
    seated people's, or the spectators' when nobody sits), and the pause it gives."""

    v: ProtocolVersion
    type: Literal["pace"]
    speed: SpeedChoice
    bot_pause_ms: int


class ReactionMessage(TypedDict):
    """A person's quick reaction (``react``), for everyone at the table: the seat and the
    phrase's id, which each page shows in its own language."""

    v: ProtocolVersion
    type: Literal["reaction"]
    seat: int
    phrase: str


class HintMessage(TypedDict):
    """The engine's evaluation for the seat to act, from that seat's view only, at the
    position named by ``deal`` and ``plays`` (cards played in it so far)."""

    v: ProtocolVersion
    type: Literal["hint"]
    deal: int
    plays: int
    kind: Literal["declare", "play"]
    best: str
    choices: list[HintChoice]


class ErrorMessage(TypedDict):
    """A message was refused; nothing changed.  ``about`` is the refused message's type.
    For a card or declaration the rules forbid (``code`` ``illegal``), ``reason`` names
    the rule (:func:`king.deal.why_illegal`'s codes for a card,
    :meth:`king.game.Game.why_refused`'s for a declaration) and ``params`` its details, so
    that a client words it in its own language; ``message`` is the English sentence."""

    v: ProtocolVersion
    type: Literal["error"]
    code: str
    message: str
    about: str | None
    reason: str | None
    params: dict[str, str] | None


class PongMessage(TypedDict):
    """The answer to ``ping``."""

    v: ProtocolVersion
    type: Literal["pong"]


ServerMessage = (
    WelcomeMessage
    | TableMessage
    | StateMessage
    | PaceMessage
    | ReactionMessage
    | HintMessage
    | ErrorMessage
    | PongMessage
)

#: Each message a table sends, by its ``type`` (read from its definition).
SERVER_MESSAGES: dict[str, type[Any]] = {
    typing.get_args(typing.get_type_hints(cls)["type"])[0]: cls
    for cls in typing.get_args(ServerMessage)
}
