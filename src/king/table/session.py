"""One connection's side of the table protocol, for both tables that seat people: who
it is (nobody yet, a seat, or a spectator), what it may ask, and the answer to each
message.  The server's table (:mod:`king.server.tables.table`) and the page's offline
one (:mod:`king.offline.table`) are each a :class:`SeatingTable` behind it; neither
dispatches, parses an action or checks who may act on its own.

Every refusal is an ``error`` message to the connection (the table's
:class:`~king.table.rules.RefusedError`), and the connection, like the table, goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from king.cards import Card, CardParseError, Seat, Suit
from king.game import Action
from king.rules import Contract, Declaration, RulesError
from king.table import messages
from king.table.protocol import (
    ClientMessage,
    Declare,
    Hello,
    Hint,
    Ping,
    Play,
    React,
    Speed,
    SpeedChoice,
    Watch,
)
from king.table.reading import MessageError
from king.table.rules import RefusedError

__all__ = ["Client", "DROPPING", "SeatingTable", "Session", "action_of"]

#: The refusals after which a connection is closed: the client comes back (with
#: backoff) and finds the table where it is now.
DROPPING = ("moved", "unavailable")


class Client(Protocol):
    """A connection the table can tell things to (without waiting)."""

    def send(self, text: str) -> None:
        """Queue one message for this connection."""

    def drop(self) -> None:
        """Close the connection (the table has moved to another server process, or its
        log cannot be written just now: the client reconnects and finds it)."""


class SeatingTable(Protocol):
    """What a table does for its connections; each raises
    :class:`~king.table.rules.RefusedError` for what it refuses and changes nothing."""

    def authenticate(self, token: str) -> Seat | None:
        """The seat this token was given for, or ``None``."""

    def attach(self, client: Client, seat: Seat | None) -> None:
        """Seat ``client`` (``None``: a spectator) and tell it where the table stands."""

    def detach(self, client: Client) -> None:
        """Forget a connection."""

    def is_attached(self, client: Client) -> bool:
        """Whether the connection is still at the table (not replaced by another)."""

    def set_speed(self, client: Client, speed: SpeedChoice) -> None:
        """Note the bots' speed a connection asks for, and answer with the pace."""

    def ask_hint(self, client: Client, seat: Seat) -> None:
        """Have the engine value ``seat``'s choices, for ``client`` alone."""

    def react(self, seat: Seat, phrase: str) -> None:
        """Show everyone a seated person's quick reaction."""

    def act(self, seat: Seat, action: Action) -> None:
        """Make ``seat``'s declaration or card, and tell everyone."""

    def answered(self, seconds: float) -> None:
        """A person's move took ``seconds`` from its arrival to its answer."""


class Session:
    """The state of one connection to one table; ``read`` checks a message's text
    (the server's pydantic or the standard library's :func:`~king.table.reading.read_message`,
    from the same definitions)."""

    def __init__(
        self,
        table: SeatingTable,
        client: Client,
        read: Callable[[str | bytes], ClientMessage],
    ) -> None:
        self.table = table
        self.client = client
        self.read = read
        self.joined = False
        self.seat: Seat | None = None

    def error(
        self,
        code: str,
        message: str,
        about: str | None = None,
        reason: str | None = None,
        params: dict[str, str] | None = None,
    ) -> None:
        """Tell the client what was refused and why."""
        self.client.send(messages.dumps(messages.error(code, message, about, reason, params)))

    def receive(self, data: str | bytes) -> None:
        """Handle one message from the client."""
        received = time.perf_counter()
        try:
            message = self.read(data)
        except MessageError as error:
            self.error(error.code, error.message, error.about)
            return
        try:
            self._answer(message, received)
        except RefusedError as error:
            self.error(error.code, error.message, message.type, error.reason, error.params)
            if error.code in DROPPING:
                self.client.drop()

    def _answer(self, message: ClientMessage, received: float) -> None:
        if isinstance(message, Ping):
            self.client.send(messages.dumps(messages.pong()))
        elif isinstance(message, Hello | Watch):
            self._join(message)
        elif isinstance(message, Speed):
            self._verify_joined("send hello or watch first")
            self.table.set_speed(self.client, message.speed)
        elif isinstance(message, Hint):
            self.table.ask_hint(self.client, self._verify_seated("hints are for the player to act"))
        elif isinstance(message, React):
            self.table.react(self._verify_reacting(), message.phrase)
        else:
            seat = self._verify_playing()
            self.table.act(seat, action_of(message))
            self.table.answered(time.perf_counter() - received)

    # -- who may do what --------------------------------------------------------------

    def _verify_joined(self, hint: str) -> None:
        if not self.joined:
            raise RefusedError("not_joined", hint)

    def _verify_seated(self, spectator: str) -> Seat:
        self._verify_joined("send hello with your seat's token first")
        if self.seat is None:
            raise RefusedError("spectator", spectator)
        return self.seat

    def _verify_reacting(self) -> Seat:
        if not self.joined or self.seat is None:
            raise RefusedError("spectator", "reactions are for the people seated")
        return self.seat

    def _verify_playing(self) -> Seat:
        seat = self._verify_seated("a spectator cannot play")
        if not self.table.is_attached(self.client):
            raise RefusedError("replaced", "this seat is now played on another device")
        return seat

    def _join(self, message: Hello | Watch) -> None:
        if self.joined:
            raise RefusedError("already_joined", "this connection has already joined the table")
        seat: Seat | None = None
        if isinstance(message, Hello):
            seat = self.table.authenticate(message.token)
            if seat is None:
                raise RefusedError("bad_token", "this token claims no seat at this table")
        self.table.attach(self.client, seat)
        self.joined = True
        self.seat = seat

    def close(self) -> None:
        """The connection is gone."""
        if self.joined:
            self.table.detach(self.client)


def action_of(message: Declare | Play) -> Action:
    """The declaration or card a message names, or the ``invalid`` refusal saying why it
    names none."""
    try:
        if isinstance(message, Declare):
            trump = None if message.trump is None else Suit.parse(message.trump)
            return Declaration(Contract.parse(message.contract), trump)
        return Card.parse(message.card)
    except (RulesError, CardParseError) as error:
        raise RefusedError("invalid", str(error)) from None
