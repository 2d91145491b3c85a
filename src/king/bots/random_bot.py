"""``random``: a uniformly random legal choice.  The floor every other bot must beat."""

from __future__ import annotations

from king.bots.protocol import Bot, BotSpecError
from king.cards import Card
from king.rules import Declaration
from king.view import SeatView


class RandomBot(Bot):
    """Chooses uniformly among the legal declarations and cards."""

    name = "random"

    def declare(self, view: SeatView) -> Declaration:
        return self.rng.choice(view.legal_declarations)

    def play(self, view: SeatView) -> Card:
        return self.rng.choice(list(view.legal_cards))


def build(seed: int, options: dict[str, str]) -> RandomBot:
    if options:
        raise BotSpecError(f"the random bot takes no options, not {', '.join(options)}")
    return RandomBot(seed)
