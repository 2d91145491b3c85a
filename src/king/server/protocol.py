"""pydantic over the table protocol, and the HTTP API's models.

The table protocol is defined once, in the standard library: what a client sends in
:mod:`king.table.protocol` (frozen dataclasses, checked here by :func:`parse_client_message`),
what a table answers in :mod:`king.table.answers` (``TypedDict``s, whose models
:func:`model_of` derives).  Both JSON Schemas are written from here
(:func:`client_schema`, :func:`server_schema`).  A message a client sends is refused with
an ``error`` message that names what was wrong, and nothing changes at the table.
docs/web-protocol.md describes them for people.
"""

from __future__ import annotations

import functools
import operator
import types
import typing
from collections.abc import Iterable
from typing import Annotated, Any, Literal, TypedDict, cast

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model

from king.cards import Seat
from king.table.answers import SERVER_MESSAGES, TableInfo
from king.table.protocol import (
    CLIENT_MESSAGES,
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    SPEED_FACTORS,
    ClientMessage,
)
from king.table.reading import MessageError, read_envelope

__all__ = [
    "ProtocolModel",
    "PROTOCOL_VERSION",
    "MAX_BOT_SPEC",
    "MAX_MESSAGE_BYTES",
    "ClientMessage",
    "SPEED_FACTORS",
    "SeatRequest",
    "CreateTableRequest",
    "JoinRequest",
    "AgainRequest",
    "SeatClaim",
    "LobbyInfo",
    "TableInfo",
    "BotInfoModel",
    "Health",
    "Ready",
    "Preparing",
    "SiteInfo",
    "PageStrings",
    "client_schema",
    "check_server_message",
    "model_of",
    "read_table_info",
    "server_schema",
    "parse_client_message",
    "describe_validation_error",
]

#: A suit letter in a message the server writes.
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


# -- server -> client -------------------------------------------------------------------


def _typed(annotation: Any) -> Any:
    """``annotation`` with each ``TypedDict`` in it replaced by its model."""
    if typing.is_typeddict(annotation):
        return model_of(annotation)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is None or origin is Literal or not args:
        return annotation
    converted = tuple(_typed(arg) for arg in args)
    if origin in (typing.Union, types.UnionType):
        return typing.Union[converted]  # noqa: UP007 - built from a tuple of types
    return origin[converted if len(converted) > 1 else converted[0]]


_MODELS: dict[type[Any], type[BaseModel]] = {}


def model_of(definition: type[Any]) -> type[BaseModel]:
    """The pydantic model of a message (or a part of one) defined as a ``TypedDict`` in
    :mod:`king.table.answers`: the same fields in the same order, every one required, no
    other field; what the server checks its answers with and writes their schema from
    (pydantic reads ``typing.TypedDict`` itself only from Python 3.12 on)."""
    found = _MODELS.get(definition)
    if found is None:
        hints = typing.get_type_hints(definition)
        fields: dict[str, Any] = {name: (_typed(hint), ...) for name, hint in hints.items()}
        found = _MODELS[definition] = create_model(
            definition.__name__,
            __config__=ConfigDict(extra="forbid", frozen=True, strict=True),
            __doc__=definition.__doc__,
            **fields,
        )
    return found


def _one_of(definitions: Iterable[type[Any]]) -> Any:
    """The models of ``definitions`` as one type, told apart by their ``type``."""
    models = [model_of(definition) for definition in definitions]
    either: Any = functools.reduce(operator.or_, models)
    return Annotated[either, Field(discriminator="type")]


#: Any message a table sends.
_server_adapter: TypeAdapter[Any] = TypeAdapter(_one_of(SERVER_MESSAGES.values()))


def read_table_info(text: str | bytes) -> TableInfo:
    """A table's info as another process (or a message) wrote it, checked by its
    definition; pydantic's ``ValidationError`` (a ``ValueError``) when it is not."""
    return cast(TableInfo, model_of(TableInfo).model_validate_json(text).model_dump())


def check_server_message(text: str | bytes) -> BaseModel:
    """A message a table sent, read by its definition; pydantic's ``ValidationError``
    says what in it is not what the definition says."""
    message: BaseModel = _server_adapter.validate_json(text)
    return message


def server_schema() -> dict[str, Any]:
    """The JSON Schema of every message a server (or the offline table) sends
    (docs/protocol/server.schema.json), generated from :mod:`king.table.answers`."""
    schema: dict[str, Any] = _server_adapter.json_schema()
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


class LobbyInfo(TypedDict):
    """``GET /api/tables``: tables open or in play, and recently finished ones (its
    model: ``model_of(LobbyInfo)``)."""

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
