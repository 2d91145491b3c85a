"""``rule``: a heuristic player that counts cards and plays each contract to its purpose.

The bot sees only its :class:`~king.view.SeatView`. To play, it reads the view into a
position (:func:`king.bots.position.from_view`: its hand, the cards still out, the suits
each seat has shown void) and asks the engine for the rule card (``engine/rule_play.c``,
the port of :mod:`king.bots.rule.play`, the readable reference the tests hold it to;
the search bot runs the same code in its playouts), here through wasmtime and in the
browser's offline game through the page's WebAssembly; a decision costs a fraction of
a millisecond. Declaring lives in :mod:`king.bots.rule.declare`.
"""

from __future__ import annotations

from king.bots import engine
from king.bots.engine.steps import rule_card
from king.bots.position import S_PLAYED, S_VOIDS, from_view
from king.bots.protocol import Bot, BotSpecError
from king.bots.rule.declare import choose_declaration
from king.cards import DECK, Card
from king.deal import winning_card
from king.rules import Declaration
from king.view import SeatView

__all__ = ["RuleBot", "choose_card"]


class RuleBot(Bot):
    """A club-strength heuristic player; deterministic given its seed.

    ``forget`` (0 to 1) makes it a weaker player in a human way: before each card it
    loses track of that share of the cards played in earlier tricks and of the suits
    the others have shown void (a missed count), then plays the rule card for what it
    still remembers.  ``slip`` (0 to 1) is how often it then plays a neighbour of that
    card instead (the next legal card of the same suit, up or down: a less safe card),
    never one that is itself a penalty card of the contract.  ``careless`` (0 to 1) is
    how often it plays any legal card that is not absurd instead: never a penalty card
    that would take the trick as it stands when another card would not, nor a penalty
    card led when another could be.  It never plays a card the rules forbid."""

    name = "rule"

    def __init__(
        self, seed: int = 0, *, forget: float = 0.0, slip: float = 0.0, careless: float = 0.0
    ) -> None:
        super().__init__(seed)
        self.forget = forget
        self.slip = slip
        self.careless = careless

    def declare(self, view: SeatView) -> Declaration:
        """Value the hand for each allowed declaration and plan the rest of the game."""
        return choose_declaration(view)

    def play(self, view: SeatView) -> Card:
        """Score the legal cards from the view alone (as remembered)."""
        if not self.forget and not self.slip and not self.careless:
            return DECK[choose_card(view)]
        if self.careless and self.rng.random() < self.careless:
            return DECK[self.rng.choice(sensible_cards(view))]
        card = choose_card(view, self._forgotten(view))
        if not view.legal_cards.mask >> card & 1:
            card = choose_card(view)  # what it forgot made a card seem allowed
        if self.slip and self.rng.random() < self.slip:
            card = self._neighbour(view, card)
        return DECK[card]

    def _neighbour(self, view: SeatView, card: int) -> int:
        """A legal card of ``card``'s suit next to it in rank, not a penalty card."""
        contract = view.contract
        penalty = contract.penalty_mask if contract is not None else 0
        suit = card // 13
        near = [
            other
            for other in (card - 1, card + 1)
            if other // 13 == suit
            and view.legal_cards.mask >> other & 1
            and not penalty >> other & 1
        ]
        return self.rng.choice(near) if near else card

    def _forgotten(self, view: SeatView) -> tuple[int, int]:
        """The earlier tricks' cards and the seats' voids this card forgets (masks)."""
        cards = 0
        for trick in view.tricks:
            for card in trick.cards:
                if self.rng.random() < self.forget:
                    cards |= card.mask
        voids = sum(1 << seat for seat in range(4) if self.rng.random() < self.forget)
        return cards, voids


def sensible_cards(view: SeatView) -> list[int]:
    """The legal cards a careless person might play: all but a penalty card that would
    take the trick as it stands (or one led) when another card would not."""
    legal = [card.id for card in view.legal_cards]
    contract = view.contract
    penalty = contract.penalty_mask if contract is not None else 0
    if not penalty:
        return legal
    trick = sum(card.mask for _, card in view.current_trick)
    led = view.current_trick[0][1].id // 13 if view.current_trick else -1
    trump = -1 if view.trump is None else int(view.trump)

    def absurd(card: int) -> bool:
        if not penalty >> card & 1:
            return False
        return led < 0 or winning_card(trick | 1 << card, led, trump) == card

    kept = [card for card in legal if not absurd(card)]
    return kept or legal


def choose_card(view: SeatView, forgotten: tuple[int, int] = (0, 0)) -> int:
    """The id of the card the rule policy plays in this view, having forgotten the
    ``forgotten`` cards played and the voids of the seats in its mask."""
    legal = view.legal_cards.mask
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    contract = view.contract
    if contract is None:
        raise ValueError("the rule bot was asked to play before the declaration")
    trump = -1 if view.trump is None else int(view.trump)
    state = from_view(view)
    cards, voids = forgotten
    if cards or voids:
        state[S_PLAYED] &= ~cards
        for seat in range(4):
            if voids >> seat & 1 and seat != view.seat:
                state[S_VOIDS + seat] = 0
    return rule_card(engine.platform(), state, contract.code, trump, view.rules.flags)


def build(seed: int, options: dict[str, str]) -> RuleBot:
    unknown = sorted(set(options) - set(RULE_OPTIONS))
    if unknown:
        known = ", ".join(RULE_OPTIONS)
        raise BotSpecError(f"the rule bot takes {known}, not {', '.join(unknown)}")
    return RuleBot(seed, **{name: _share(options, name) for name in RULE_OPTIONS})


#: The rule bot's options, each a share from 0 to 1 (see :class:`RuleBot`).
RULE_OPTIONS = ("forget", "slip", "careless")


def _share(options: dict[str, str], name: str) -> float:
    text = options.get(name, "0")
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise BotSpecError(f"rule option {name} is a share from 0 to 1, not {text!r}")
    return value
