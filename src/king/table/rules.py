"""What the two tables that seat people (the server's and the page's offline one) decide
alike, written once: why a move is refused, and how long a bot waits before it moves.

A refusal, what both answer a person's declaration or card with, names a stable
``code`` for programs (``not_your_turn``, ``not_declaring``, ``not_playing``,
``illegal``); for a move the rules forbid, ``reason`` and ``params`` are the core's own
(:func:`king.deal.why_illegal`'s for a card, :meth:`king.game.Game.why_refused`'s for a
declaration), so a page words it in its language.
"""

from __future__ import annotations

from dataclasses import dataclass

from king.cards import Card, Seat
from king.deal import IllegalMoveError
from king.errors import KingError
from king.game import Action, Game
from king.phase import Phase
from king.rules import Declaration
from king.texts import seat_name

__all__ = ["Refusal", "RefusedError", "bot_pause_before", "refusal"]


@dataclass(frozen=True)
class Refusal:
    """A move the table will not make, and why."""

    code: str
    message: str
    reason: str | None = None
    params: dict[str, str] | None = None


class RefusedError(KingError, ValueError):
    """What either table raises when it refuses a person's request: ``code`` is a stable
    word, the message a sentence; a move the rules forbid also has the rule's ``reason``
    code and its ``params`` (the protocol's ``error`` message carries all four)."""

    def __init__(
        self,
        code: str,
        message: str,
        reason: str | None = None,
        params: dict[str, str] | None = None,
    ):
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.params = params

    @classmethod
    def of(cls, refused: Refusal) -> RefusedError:
        """The error of a :func:`refusal`."""
        return cls(refused.code, refused.message, refused.reason, refused.params or None)


def refusal(game: Game, seat: Seat, action: Action) -> Refusal | None:
    """Why ``seat`` may not make ``action`` now, or ``None`` when it may."""
    to_act = game.to_act
    if to_act != seat:
        turn = "no one's turn" if to_act is None else f"{seat_name(to_act)}'s turn"
        return Refusal("not_your_turn", f"it is {turn}, not {seat_name(seat)}'s")
    if isinstance(action, Declaration):
        return _declaration_refusal(game, action)
    return _card_refusal(game, seat, action)


def _declaration_refusal(game: Game, declaration: Declaration) -> Refusal | None:
    if game.phase is not Phase.DECLARING:
        return Refusal("not_declaring", "no declaration is due: cards are being played")
    why = game.why_refused(declaration)
    if why is None:
        return None
    sentence = game.refusal(declaration) or why[0]
    return Refusal("illegal", sentence, why[0], dict(why[1]))


def _card_refusal(game: Game, seat: Seat, card: Card) -> Refusal | None:
    deal = game.deal
    if deal is None:
        return Refusal("not_playing", f"{seat_name(seat)} must first declare the contract")
    if deal.legal_mask() & card.mask:
        return None
    try:
        deal.play(card)  # refuses the card with the rule's sentence, changing nothing
    except IllegalMoveError as error:
        return Refusal("illegal", error.reason, error.code, dict(error.params))
    raise AssertionError("a card outside the legal mask was accepted")


def bot_pause_before(game: Game, pause: float) -> float:
    """Seconds a bot waits before its move when people watch at ``pause`` a move: twice
    as long when a trick or a deal has just ended, so that people see it."""
    deal = game.deal
    if pause > 0 and (deal is None or not deal.current_trick):
        return pause * 2
    return pause
