"""One WebSocket connection's side of the protocol: who it is (nobody yet, a seat, or a
spectator) and what it may do.  Kept apart from FastAPI so that the rules of the
conversation read in one place; every refusal is an ``error`` message and the
connection, like the table, goes on."""

from __future__ import annotations

import time

from king import messages
from king.cards import Card, CardParseError, Seat, Suit
from king.game import Action
from king.rules import Contract, Declaration, RulesError
from king.server.protocol import (
    DeclareMessage,
    HelloMessage,
    HintRequestMessage,
    PingMessage,
    PlayMessage,
    ProtocolError,
    ReactMessage,
    SpeedMessage,
    WatchMessage,
    parse_client_message,
)
from king.server.tables.audience import Client
from king.server.tables.errors import ActionError
from king.server.tables.table import Table

__all__ = ["Session"]


class Session:
    """The state of one connection to one table."""

    def __init__(self, table: Table, client: Client) -> None:
        self.table = table
        self.client = client
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
            message = parse_client_message(data)
        except ProtocolError as error:
            self.error(error.code, error.message, error.about)
            return
        try:
            if isinstance(message, PingMessage):
                self.client.send(messages.dumps(messages.pong()))
            elif isinstance(message, HelloMessage | WatchMessage):
                self._join(message)
            elif isinstance(message, SpeedMessage | HintRequestMessage | ReactMessage):
                self._ask(message)
            else:
                self._act(message)
                self._answered(received)
        except ActionError as error:
            self.error(error.code, error.message, message.type, error.reason, error.params)
            if error.code in ("moved", "unavailable"):  # the client comes back (with backoff)
                self.client.drop()

    def _ask(self, message: SpeedMessage | HintRequestMessage | ReactMessage) -> None:
        """What a joined connection asks of the table besides a move."""
        if isinstance(message, SpeedMessage):
            if not self.joined:
                raise ActionError("not_joined", "send hello or watch first")
            self.table.audience.set_speed(self.client, message.speed)
        elif isinstance(message, HintRequestMessage):
            if not self.joined:
                raise ActionError("not_joined", "send hello with your seat's token first")
            if self.seat is None:
                raise ActionError("spectator", "hints are for the player to act")
            self.table.ask_hint(self.client, self.seat)
        else:
            if not self.joined or self.seat is None:
                raise ActionError("spectator", "reactions are for the people seated")
            self.table.react(self.seat, message.phrase)

    def _join(self, message: HelloMessage | WatchMessage) -> None:
        if self.joined:
            raise ActionError("already_joined", "this connection has already joined the table")
        seat: Seat | None = None
        if isinstance(message, HelloMessage):
            seat = self.table.authenticate(message.token)
            if seat is None:
                raise ActionError("bad_token", "this token claims no seat at this table")
        self.table.attach(self.client, seat)
        self.joined = True
        self.seat = seat

    def _act(self, message: DeclareMessage | PlayMessage) -> None:
        if not self.joined:
            raise ActionError("not_joined", "send hello with your seat's token first")
        if self.seat is None:
            raise ActionError("spectator", "a spectator cannot play")
        if not self.table.audience.is_attached(self.client):
            raise ActionError("replaced", "this seat is now played on another device")
        action: Action
        if isinstance(message, DeclareMessage):
            try:
                contract = Contract.parse(message.contract)
                trump = None if message.trump is None else Suit.parse(message.trump)
                action = Declaration(contract, trump)
            except (RulesError, CardParseError) as error:
                raise ActionError("invalid", str(error)) from None
        else:
            try:
                action = Card.parse(message.card)
            except CardParseError as error:
                raise ActionError("invalid", str(error)) from None
        self.table.act(self.seat, action)

    def _answered(self, received: float) -> None:
        """Time a person's move, from its arrival to its state sent to everyone."""
        metrics = self.table.metrics
        if metrics is not None:
            metrics.answered(time.perf_counter() - received)

    def close(self) -> None:
        """The connection is gone."""
        if self.joined:
            self.table.detach(self.client)
