"""The messages of the table WebSocket and the HTTP API, defined once as pydantic models.

docs/web-protocol.md describes them for people; this module is what the server checks
and writes.  Every WebSocket message is a JSON object with ``v`` (the protocol version)
and ``type``.  A message a client sends is refused with an :class:`ErrorMessage` that
names what was wrong, and nothing changes at the table.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from king.cards import Seat
from king.table.protocol import (
    CLIENT_MESSAGES,
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    SPEED_FACTORS,
    ClientMessage,
    ProtocolVersion,
    SpeedChoice,
)
from king.table.reading import MessageError, read_envelope

__all__ = [
    "ProtocolModel",
    "PROTOCOL_VERSION",
    "MAX_BOT_SPEC",
    "MAX_MESSAGE_BYTES",
    "ClientMessage",
    "HintChoice",
    "HintMessage",
    "SPEED_FACTORS",
    "ServerMessage",
    "PaceMessage",
    "WelcomeMessage",
    "TableMessage",
    "StateMessage",
    "ErrorMessage",
    "PongMessage",
    "SeatInfo",
    "TableInfo",
    "GameView",
    "TrickInfo",
    "TrickCard",
    "ResultInfo",
    "TakenInfo",
    "BoardEntry",
    "BoardLine",
    "PublicEvent",
    "DeclarationChoice",
    "SeatRequest",
    "CreateTableRequest",
    "JoinRequest",
    "AgainRequest",
    "SeatClaim",
    "LobbyInfo",
    "BotInfoModel",
    "Health",
    "Ready",
    "Preparing",
    "ReactionMessage",
    "SiteInfo",
    "PageStrings",
    "client_schema",
    "server_schema",
    "parse_client_message",
    "describe_validation_error",
]

#: A suit letter in a message the server writes.
SuitText = Annotated[str, Field(pattern="^[SHDC]$")]
Name = Annotated[str, Field(min_length=1, max_length=32)]


class ProtocolModel(BaseModel):
    """The base of every message: frozen, no unknown fields, no type coercion."""

    # Strict: a boolean is not a number, a float not an integer, a string not either.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# -- client -> server -------------------------------------------------------------------

#: Each client message's checker: pydantic over its one definition in
#: :mod:`king.table.protocol`.
_CHECKERS: dict[str, TypeAdapter[Any]] = {
    kind: TypeAdapter(cls) for kind, cls in CLIENT_MESSAGES.items()
}
#: pydantic's words for an unknown field of a dataclass, as a model words it (and the
#: offline table, :mod:`king.table.reading`).
_WORDS = {"unexpected_keyword_argument": "Extra inputs are not permitted"}


def describe_validation_error(error: ValidationError) -> str:
    """One line naming each wrong field and what was wrong with it."""
    parts = []
    for item in error.errors(include_url=False):
        where = ".".join(str(p) for p in item["loc"])
        parts.append(f"{where or 'message'}: {_WORDS.get(item['type'], item['msg'])}")
    return "; ".join(parts)


def parse_client_message(data: str | bytes) -> ClientMessage:
    """Read one client message, or raise :class:`~king.table.reading.MessageError`
    saying what is wrong: too large, not JSON, not an object, another protocol version,
    an unknown type, or a missing, extra or ill-typed field."""
    raw, about = read_envelope(data)
    fields = {k: v for k, v in raw.items() if k not in ("v", "type")}
    try:
        message: ClientMessage = _CHECKERS[about].validate_python(fields)
    except ValidationError as error:
        raise MessageError("invalid", describe_validation_error(error), about) from None
    return message


def client_schema() -> dict[str, Any]:
    """The JSON Schema of every message a client may send
    (docs/protocol/client.schema.json):
    generated from :mod:`king.table.protocol`, each with its ``v`` and ``type``."""
    variants = []
    for kind, checker in _CHECKERS.items():
        schema = checker.json_schema()
        schema["properties"] = {
            "v": {"const": PROTOCOL_VERSION},
            "type": {"const": kind},
            **schema.get("properties", {}),
        }
        schema["required"] = ["v", "type", *schema.get("required", [])]
        schema["additionalProperties"] = False
        variants.append(schema)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "King table protocol: client messages",
        "oneOf": variants,
    }


# -- the pieces of server messages ------------------------------------------------------


class SeatInfo(ProtocolModel):
    """Who sits in a seat, as everyone at the table may know it."""

    seat: Seat
    kind: Literal["human", "bot"]
    name: str | None
    bot: str | None = None
    #: A person has joined this seat (always true for a bot seat).
    claimed: bool
    #: A person is connected to this seat now.
    connected: bool = False
    #: A bot is playing for this person, who is away (see ``away_after``).
    stand_in: bool = False
    #: Seconds (from this message) until a bot plays for this person, who is away; null
    #: when they are here, a bot already plays for them, or none will.
    stand_in_in: float | None = None
    #: The person has taken the seat and is on their way to the table (not away).
    joining: bool = False
    #: Where the player's page is (``/players/{player}``): a registered player's
    #: name, or ``bot:<spec>`` for a bot; null for a guest.
    player: str | None = None
    #: The player's (or house bot's) rating, when they have one, and whether it is
    #: still provisional (few rated games).
    rating: int | None = None
    provisional: bool = False
    #: A person seated as a guest (no registered account): pages mark the name, which
    #: is theirs alone only at this table.
    guest: bool = False


class TableInfo(ProtocolModel):
    """A table as the lobby and the players see it."""

    id: str
    #: ``closed``: the game was given up after ``idle_close`` seconds without play.
    status: Literal["waiting", "playing", "over", "closed"]
    rules: str | dict[str, Any]
    #: The optional rules in force, in the order of RULES.md (``rules`` names the
    #: preset; this spells it out, so that a client need not know the presets).
    toggles: list[str] = Field(default_factory=list)
    seats: list[SeatInfo]
    spectators: int = 0
    deal: int = 0
    created: float
    #: For a finished game played again: the new table (same seats, new deals).
    next: str | None = None
    #: Who created the table: their account's name, or a guest's name as they gave it
    #: (``by_guest``); null for an older table.
    by: str | None = None
    by_guest: bool = False
    #: Whether the person to act may ask the engine for a hint (chosen at creation).
    hints: bool = False
    #: Whether the game counts for the ratings (chosen at creation).
    rated: bool = False
    #: A rated table's move clock (its ``left`` and ``due_in`` as of this message).
    clock: ClockInfo | None = None


class TrickCard(ProtocolModel):
    """One card of the trick in progress."""

    seat: Seat
    card: str


class TrickInfo(ProtocolModel):
    """A completed trick: who led, the four cards in playing order, who won it."""

    leader: Seat
    cards: list[str]
    winner: Seat


class ResultInfo(ProtocolModel):
    """A finished deal's contract and each seat's points."""

    declarer: Seat
    contract: str
    trump: SuitText | None
    points: list[int]


class GameView(BaseModel):
    """:meth:`king.view.SeatView.to_json`, field for field: everything one seat may
    see.  A spectator's view has ``seat`` null and an empty ``hand``."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    seat: Seat | None
    rules: str | dict[str, Any]
    phase: Literal["dealing", "declaring", "playing", "over"]
    deal: int
    declarer: Seat
    contract: str | None
    trump: SuitText | None
    hand: list[str]
    to_act: Seat | None
    leader: Seat | None
    trick: list[TrickCard]
    tricks: list[TrickInfo]
    points: list[int]
    tricks_won: list[int]
    totals: list[int]
    trumps_declared: list[int]
    negatives_declared: list[int]
    contract_counts: dict[str, int]
    results: list[ResultInfo]


class PublicEvent(ProtocolModel):
    """What just happened, as everyone saw it (never a hidden card)."""

    kind: Literal["start", "declare", "play", "resume"]
    seat: Seat | None = None
    contract: str | None = None
    trump: SuitText | None = None
    card: str | None = None
    #: Set when this card completed a trick: the trick's winner.
    winner: Seat | None = None
    #: Set when this card ended the deal.
    deal_over: bool = False


class DeclarationChoice(ProtocolModel):
    """One of the ten declarations, for the declarer: allowed or not, and why not.

    ``why`` is a stable word for translations: ``trumps_done`` (two Trumps declared),
    ``negatives_done`` (three negative contracts declared) or ``played_twice``.
    """

    contract: str
    trump: SuitText | None
    title: str
    allowed: bool
    why: Literal["trumps_done", "negatives_done", "played_twice"] | None = None
    reason: str | None = None


# -- server -> client -------------------------------------------------------------------


class WelcomeMessage(ProtocolModel):
    """The answer to ``hello`` or ``watch``: your role, your seat and the table."""

    v: ProtocolVersion = PROTOCOL_VERSION
    type: Literal["welcome"] = "welcome"
    role: Literal["player", "spectator"]
    seat: Seat | None
    table: TableInfo
    #: The pause before each bot move now, so that the page can pace animations.
    bot_pause_ms: int
    #: Seconds after which a bot stands in for an absent person.
    away_after: float
    #: The table's bot speed now (see ``pace``).
    speed: SpeedChoice = "normal"


class PaceMessage(ProtocolModel):
    """The bots' speed at this table: the slowest that a connected person asked for (the
    seated people's, or the spectators' when nobody sits), and the pause it gives."""

    v: ProtocolVersion = PROTOCOL_VERSION
    type: Literal["pace"] = "pace"
    speed: SpeedChoice
    bot_pause_ms: int


class ReactionMessage(ProtocolModel):
    """A person's quick reaction (``react``), for everyone at the table: the seat and
    the phrase's id, which each page shows in its own language."""

    v: ProtocolVersion = PROTOCOL_VERSION
    type: Literal["reaction"] = "reaction"
    seat: Seat
    phrase: str


class HintChoice(ProtocolModel):
    """One legal choice as the engine values it: ``value`` the seat's expected points
    for the deal, ``loss`` what it gives up against the best (over the same worlds)."""

    choice: str
    value: float
    error: float
    loss: float
    loss_error: float


class HintMessage(ProtocolModel):
    """The engine's evaluation for the seat to act, from that seat's view only, at the
    position named by ``deal`` and ``plays`` (cards played in it so far)."""

    v: ProtocolVersion = PROTOCOL_VERSION
    type: Literal["hint"] = "hint"
    deal: int
    plays: int
    kind: Literal["declare", "play"]
    best: str
    choices: list[HintChoice]


class TableMessage(ProtocolModel):
    """The table changed: someone joined, connected, left, or a stand-in took over."""

    v: ProtocolVersion = PROTOCOL_VERSION
    type: Literal["table"] = "table"
    table: TableInfo


class TakenInfo(ProtocolModel):
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


class BoardEntry(ProtocolModel):
    """One declaration on the contract board: in which deal (0-based), by whom."""

    deal: int
    declarer: Seat
    trump: SuitText | None


class BoardLine(ProtocolModel):
    """One contract on the game's board: the deals it was declared in (the one being
    played included) and, for a negative contract, how often it may still be declared
    (``left``; null for Trumps, which each player owes instead: ``obligations``)."""

    contract: str
    declared: list[BoardEntry]
    left: int | None


class ClockInfo(ProtocolModel):
    """A rated table's move clock (docs/players.md): each person's ``reserve`` for the
    game and the ``per_move`` free seconds of every turn; what each seat has ``left``
    of its reserve (null for a bot's seat), and for the seat to act the seconds until
    the stand-in moves for it (``due_in``, null when a bot is to act)."""

    reserve: float
    per_move: float
    left: list[float | None]
    due_in: float | None = None


class StateMessage(ProtocolModel):
    """The game as this connection may see it, after the event in ``event``.

    ``seq`` counts the table's stored events, so a client can tell new from old.
    ``legal`` lists the cards this seat may play now and ``declarations`` the ten
    choices when it must declare (both empty otherwise).
    """

    v: ProtocolVersion = PROTOCOL_VERSION
    type: Literal["state"] = "state"
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
    taken: TakenInfo | None = None
    #: The seven contracts, negative ones first: who declared each, and what is left.
    board: list[BoardLine] = Field(default_factory=list)
    #: The move clock of a rated table (null at other tables).
    clock: ClockInfo | None = None


class ErrorMessage(ProtocolModel):
    """A message was refused; nothing changed.  ``about`` is the refused message's type.

    For a card or declaration the rules forbid (``code`` ``illegal``), ``reason`` names
    the rule (:func:`king.deal.why_illegal`'s codes for a card,
    :meth:`king.game.Game.why_refused`'s for a declaration) and ``params`` its details,
    so that a client words it in its own language; ``message`` is the English sentence.
    """

    v: ProtocolVersion = PROTOCOL_VERSION
    type: Literal["error"] = "error"
    code: str
    message: str
    about: str | None = None
    reason: str | None = None
    params: dict[str, str] | None = None


class PongMessage(ProtocolModel):
    """The answer to ``ping``."""

    v: ProtocolVersion = PROTOCOL_VERSION
    type: Literal["pong"] = "pong"


ServerMessage = Annotated[
    WelcomeMessage
    | TableMessage
    | StateMessage
    | PaceMessage
    | ErrorMessage
    | PongMessage
    | HintMessage
    | ReactionMessage,
    Field(discriminator="type"),
]


def server_schema() -> dict[str, Any]:
    """The JSON Schema of every message a server (or the offline table) sends
    (docs/protocol/server.schema.json), generated from the models above."""
    schema: dict[str, Any] = TypeAdapter(ServerMessage).json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "King table protocol: server messages",
        **schema,
    }


# -- HTTP -------------------------------------------------------------------------------


#: The longest bot spec a seat takes: room for the owner's ``policy:file=PATH`` with a
#: long path (a visitor's spec that names a file is refused whatever its length).
MAX_BOT_SPEC = 512


class SeatRequest(ProtocolModel):
    """A seat of a new table: for a person, or for a bot (by its registered name)."""

    kind: Literal["human", "bot"]
    bot: Annotated[str, Field(min_length=1, max_length=MAX_BOT_SPEC)] | None = None


class CreateTableRequest(ProtocolModel):
    """``POST /api/tables``: the rules, the four seats, and the creator's seat."""

    rules: Annotated[str, Field(max_length=20)] | dict[str, bool | str] = "classic"
    seats: Annotated[list[SeatRequest], Field(min_length=4, max_length=4)]
    #: The creator's seat (a ``human`` one), or null to only watch.
    seat: Annotated[int, Field(ge=0, le=3)] | None = 0
    name: Name = "Player"
    seed: Annotated[int, Field(ge=0, lt=2**63)] | None = None
    #: Let the person to act ask the engine for a hint (shown to everyone at the table).
    hints: bool = False
    #: Count the game for the ratings: a rules preset, house bots at their defaults, no
    #: hints, and every person's seat taken by a registered player.
    rated: bool = False


class AgainRequest(ProtocolModel):
    """``POST /api/tables/{id}/again``: a seat's token at the finished table."""

    token: Annotated[str, Field(min_length=1, max_length=128)]


class JoinRequest(ProtocolModel):
    """``POST /api/tables/{id}/join``: a name, and a seat (the first free one if null)."""

    name: Name
    seat: Annotated[int, Field(ge=0, le=3)] | None = None


class SeatClaim(ProtocolModel):
    """A claimed seat: keep the token secret; it is the only way to act for the seat."""

    table: str
    seat: Seat | None
    token: str | None
    #: The page that joins a free seat of this table.
    invite: str


class LobbyInfo(ProtocolModel):
    """``GET /api/tables``: tables open or in play, and recently finished ones."""

    open: list[TableInfo]
    finished: list[TableInfo]


class BotInfoModel(ProtocolModel):
    """A bot that a seat may be given.  A level (``level`` true) is offered to people
    first, by name, beside what it was measured at (docs/bots.md): ``vs_rule``, its
    points per deal above par against three ``rule`` bots, ± ``interval`` (95%)."""

    name: str
    summary: str
    strength: int
    level: bool = False
    vs_rule: float | None = None
    interval: float | None = None
    #: The offline game can seat it (it needs no engine).
    offline: bool = False
    #: A rated table can seat it (it has a measured rating).
    rated: bool = False


class PageStrings(ProtocolModel):
    """``GET /api/i18n``: the language chosen, the shipped languages (each named in
    itself) and every message the page may show in that language."""

    language: str
    languages: dict[str, str]
    messages: dict[str, str]


class Health(ProtocolModel):
    """``GET /api/live`` (and ``GET /api/health``, its older name): the process answers.
    It says nothing of the database or Redis: :class:`Ready` does."""

    ok: bool
    version: str
    protocol: int


class Ready(ProtocolModel):
    """``GET /api/ready`` (200, or 503 when not ``ready``): whether each part this
    process needs answers (``database``, and ``redis`` when it shares tables), ``ok``
    or a short reason, and which failed."""

    ready: bool
    failed: list[str]
    checks: dict[str, str]


class Preparing(ProtocolModel):
    """``GET /api/preparing``: the computer players getting ready (the local game's
    bots built once each, the engine loaded): ``step`` of ``steps`` done, ``seconds``
    since it began."""

    ready: bool
    step: int
    steps: int
    seconds: float


class SiteInfo(ProtocolModel):
    """``GET /api/site``: where people reach this server.  ``public_url`` (null: the
    address the page was opened at) is the base of invitation links; ``lan_url`` the
    address a phone on the home network opens (``king --lan``); ``phone_url`` the one
    to show a phone (the LAN address, else the public one, else null) with
    ``phone_qr``, its QR code as SVG."""

    public_url: str | None
    lan_url: str | None
    phone_url: str | None
    phone_qr: str | None
