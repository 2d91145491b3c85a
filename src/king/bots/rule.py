"""``rule``: a heuristic player that counts cards and plays each contract to its purpose.

The bot sees only its :class:`~king.view.SeatView`.  To play, it reads the view into a
position (:func:`king.bots.position.from_view`: its hand, the cards still out, the suits
each seat has shown void) and asks :func:`king.bots.rule_play.rule_card`, the heuristic
written once, which the search bot runs compiled in its playouts; a decision costs a
fraction of a millisecond.  Declaring lives in :mod:`king.bots.rule_declare`.
"""

from __future__ import annotations

from king.bots.base import Bot, BotSpecError
from king.bots.position import from_view
from king.bots.rule_declare import choose_declaration
from king.bots.rule_play import rule_card
from king.cards import DECK, Card
from king.rules import Declaration
from king.view import SeatView

__all__ = ["RuleBot", "choose_card"]


class RuleBot(Bot):
    """A club-strength heuristic player; deterministic given its seed."""

    name = "rule"

    def declare(self, view: SeatView) -> Declaration:
        """Value the hand for each allowed declaration and plan the rest of the game."""
        return choose_declaration(view)

    def play(self, view: SeatView) -> Card:
        """Score the legal cards from the view alone; no randomness is needed."""
        return DECK[choose_card(view)]


def choose_card(view: SeatView) -> int:
    """The id of the card the rule policy plays in this view."""
    legal = view.legal_cards.mask
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    contract = view.contract
    if contract is None:
        raise ValueError("the rule bot was asked to play before the declaration")
    trump = -1 if view.trump is None else int(view.trump)
    return int(rule_card(from_view(view), contract.code, trump, view.rules.flags))


def build(seed: int, options: dict[str, str]) -> RuleBot:
    if options:
        raise BotSpecError(f"the rule bot takes no options, not {', '.join(options)}")
    return RuleBot(seed)
