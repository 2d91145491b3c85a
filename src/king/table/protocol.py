"""The table protocol's client messages, each defined once, with the protocol's version.

Every WebSocket message is a JSON object with ``v`` (:data:`PROTOCOL_VERSION`) and
``type``; each type a client may send is a frozen dataclass here, its fields the
message's other fields (docs/web-protocol.md describes them for people).  The server
checks a message against its class with pydantic (:mod:`king.server.protocol`, which
also writes their JSON Schema); the page's offline table, with
the standard library alone (:mod:`king.table.reading`): both from these definitions.

A field's text limits are a :class:`Text` in its ``Annotated`` metadata, which pydantic
reads through its documented ``__get_pydantic_core_schema__`` hook, so this module
needs no pydantic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

__all__ = [
    "CLIENT_MESSAGES",
    "ClientMessage",
    "Declare",
    "Hello",
    "Hint",
    "MAX_MESSAGE_BYTES",
    "PROTOCOL_VERSION",
    "Ping",
    "ProtocolVersion",
    "Play",
    "React",
    "SPEED_FACTORS",
    "Speed",
    "SpeedChoice",
    "Text",
    "Watch",
]

#: The version every message carries in ``v``.  A client speaking another is refused.
ProtocolVersion = Literal[1]
PROTOCOL_VERSION: ProtocolVersion = 1
#: The largest message a client may send, in bytes (a move is about 50).
MAX_MESSAGE_BYTES = 4096

#: How fast the bots move, as a person asks: their pause is the table's bot pause times
#: :data:`SPEED_FACTORS` of the slowest choice of the people at the table.
SpeedChoice = Literal["fast", "normal", "slow"]
SPEED_FACTORS: dict[str, float] = {"fast": 0.3, "normal": 1.0, "slow": 2.0}


@dataclass(frozen=True)
class Text:
    """A text field's limits: at least ``shortest`` characters, at most ``longest``."""

    shortest: int
    longest: int

    def __get_pydantic_core_schema__(self, source: Any, handler: Callable[[Any], Any]) -> Any:
        """pydantic's hook: the text's schema with these limits, strictly a string."""
        schema = handler(source)
        schema.update(min_length=self.shortest, max_length=self.longest, strict=True)
        return schema


class _Message:
    """What every client message shares: its ``type``, and no field beyond its own (the
    setting pydantic reads from ``__pydantic_config__``)."""

    type: ClassVar[str]
    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}


@dataclass(frozen=True)
class Hello(_Message):
    """Claim a seat with the token that joining it gave (first message of a player)."""

    type: ClassVar[str] = "hello"
    token: Annotated[str, Text(1, 128)]


@dataclass(frozen=True)
class Watch(_Message):
    """Watch the table as a spectator: the table's public view, no hand."""

    type: ClassVar[str] = "watch"


@dataclass(frozen=True)
class Declare(_Message):
    """The declarer's choice: a contract id, and the trump suit for ``trumps``."""

    type: ClassVar[str] = "declare"
    contract: Annotated[str, Text(1, 20)]
    trump: Literal["S", "H", "D", "C"] | None = None


@dataclass(frozen=True)
class Play(_Message):
    """Play a card of the seat's hand, written ``QS``, ``TH`` or ``10H``."""

    type: ClassVar[str] = "play"
    card: Annotated[str, Text(2, 3)]


@dataclass(frozen=True)
class Speed(_Message):
    """How fast this person would like the bots to move (answered by ``pace``)."""

    type: ClassVar[str] = "speed"
    speed: SpeedChoice


@dataclass(frozen=True)
class Hint(_Message):
    """Ask the engine what each legal choice is worth now (a table with hints on, the
    seat to act); answered by ``hint``, to this connection only."""

    type: ClassVar[str] = "hint"


@dataclass(frozen=True)
class React(_Message):
    """A quick reaction at a table of friends: one of :data:`king.table.messages.REACTIONS`,
    shown to everyone at the table as ``reaction``."""

    type: ClassVar[str] = "react"
    phrase: Annotated[str, Text(1, 20)]


@dataclass(frozen=True)
class Ping(_Message):
    """Ask for a ``pong`` (keeps proxies from closing an idle socket)."""

    type: ClassVar[str] = "ping"


ClientMessage = Hello | Watch | Declare | Play | Speed | Hint | React | Ping

#: Each message a client may send, by its ``type``.
CLIENT_MESSAGES: dict[str, type[ClientMessage]] = {
    cls.type: cls for cls in (Hello, Watch, Declare, Play, Speed, Hint, React, Ping)
}
