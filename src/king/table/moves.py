"""A move at a table that seats people: checked once (:func:`verify_move`), made by the
table's own means (the server appends it to its log, the offline table plays it), and
told as the public event everyone sees (:func:`make_move`)."""

from __future__ import annotations

from collections.abc import Callable

from king.cards import Seat
from king.game import Action, Game
from king.rules import Declaration
from king.table import messages
from king.table.answers import PublicEvent
from king.table.rules import RefusedError, refusal

__all__ = ["make_move", "verify_move"]


def verify_move(game: Game, seat: Seat, action: Action) -> None:
    """Refuse (:class:`RefusedError`) what ``seat`` may not do now: any move once the
    game is over, and what :func:`~king.table.rules.refusal` refuses."""
    if game.is_over:
        raise RefusedError("game_over", "the game is over")
    refused = refusal(game, seat, action)
    if refused is not None:
        raise RefusedError.of(refused)


def make_move(game: Game, seat: Seat, action: Action, make: Callable[[], None]) -> PublicEvent:
    """Have ``make`` make ``seat``'s verified ``action`` in ``game`` (and what follows
    it: the next deal), then say what happened as everyone saw it: the declaration, or
    the card with the trick's winner when it ended one and whether it ended the deal."""
    deal = game.deal  # the deal a card is played in (none while declaring)
    tricks = 0 if deal is None else deal.trick_count
    make()
    if isinstance(action, Declaration):
        return messages.event("declare", seat, contract=action.contract.value, trump=action.trump)
    assert deal is not None  # verify_move has checked
    winner = deal.tricks[-1].winner if deal.trick_count > tricks else None
    return messages.event("play", seat, card=str(action), winner=winner, deal_over=deal.is_over)
