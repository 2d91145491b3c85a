"""External bots: any program that speaks ``king-bot/1`` or ``king-bot/2``
(docs/bot-protocol.md), one JSON object per line on its standard input and output.

The host is the referee: an answer that is illegal, not JSON, late, or missing because
the program died raises :class:`~king.bots.protocol.BotError` naming the bot and what it
did, and the program is stopped.  The program runs in
:mod:`king.bots.external.engines`, which keeps a ``king-bot/2`` program for the next game.
"""

from __future__ import annotations

import shlex
from typing import NoReturn

from king.bots.external.engines import ENGINES, PROTOCOL, PROTOCOL_MANY, Engine, short
from king.bots.protocol import Bot, BotError, BotSpecError
from king.cards import Card, CardParseError, Seat
from king.deal import explain_illegal
from king.jsontext import is_int
from king.rules import Declaration, RulesError
from king.texts import seat_name
from king.view import SeatView

__all__ = ["PROTOCOL", "PROTOCOL_MANY", "ExternalBot"]


class ExternalBot(Bot):
    """A seat played by another program for one game, started (or taken from the
    programs waiting for a game) on first use."""

    name = "cmd"

    def __init__(self, command: str, seed: int = 0, timeout: float = 5.0) -> None:
        super().__init__(seed)
        try:
            self.argv = shlex.split(command)
        except ValueError as error:
            raise BotSpecError(f"cannot read the bot command {command!r}: {error}") from None
        if not self.argv:
            raise BotSpecError("'cmd:' needs the command that starts the bot")
        self.command = command
        self.timeout = timeout
        self.label = f"cmd:{command}"
        self._engine: Engine | None = None
        self._seat: Seat | None = None

    def _engine_for(self, view: SeatView) -> Engine:
        if self._engine is None:
            game = {"seat": view.seat, "seed": self.seed, "rules": view.rules.to_spec()}
            self._engine = ENGINES.take(self.argv, self.label, self.timeout, game)
            self.label = self._engine.label
            self._seat = view.seat
        elif self._seat != view.seat:
            who = seat_name(view.seat)
            raise BotError(self.label, f"was asked to act for {who}, not its own")
        return self._engine

    def _ask(self, kind: str, view: SeatView, legal: list[str], key: str) -> str:
        engine = self._engine_for(view)
        request_id = engine.next_id()
        try:
            engine.send({"type": kind, "id": request_id, "view": view.to_json(), "legal": legal})
            answer = engine.receive(self.timeout, f"request {request_id} ({kind})")
        except BotError:
            self._engine = None  # stopped by its failure
            raise
        if not is_int(answer.get("id")) or answer.get("id") != request_id:
            self._fail(f"answered id {answer.get('id')!r} to request {request_id}")
        value = answer.get(key)
        if not isinstance(value, str):
            self._fail(f"answered {short(answer)} to a {kind} request: no {key!r} string")
        return str(value)

    def _fail(self, what: str) -> NoReturn:
        engine, self._engine = self._engine, None
        if engine is not None:
            engine.fail(what)  # stops the program and raises, naming it
        raise BotError(self.label, what)

    def declare(self, view: SeatView) -> Declaration:
        legal = [str(d) for d in view.legal_declarations]
        text = self._ask("declare", view, legal, "declare")
        try:
            declaration = Declaration.parse(text)
        except RulesError as error:
            self._fail(f"answered garbage {text!r} to a declare request: {error}")
        if declaration not in view.legal_declarations:
            self._fail(f"answered an illegal declaration {text!r}: not one of {legal}")
        return declaration

    def play(self, view: SeatView) -> Card:
        legal = [str(c) for c in view.legal_cards]
        text = self._ask("play", view, legal, "card")
        try:
            card = Card.parse(text)
        except CardParseError as error:
            self._fail(f"answered garbage {text!r} to a play request: {error}")
        if card not in view.legal_cards:
            self._fail(f"answered an illegal card {card}: {_why(view, card)}")
        return card

    def close(self) -> None:
        """The game is over (or abandoned): the program waits for the next game
        (``king-bot/2``) or is stopped (``king-bot/1``)."""
        engine, self._engine = self._engine, None
        if engine is not None:
            ENGINES.give_back(engine)


def _why(view: SeatView, card: Card) -> str:
    """The engine's sentence for why ``card`` is illegal in this view."""
    trick = view.current_trick
    trick_mask = 0
    for _, played in trick:
        trick_mask |= played.mask
    return explain_illegal(
        view.seat,
        card.id,
        view.hand.mask,
        trick_mask,
        trick[0][1].suit if trick else -1,
        view.played.mask,
        view.contract.code if view.contract is not None else 0,
        -1 if view.trump is None else int(view.trump),
        view.rules.flags,
    )
