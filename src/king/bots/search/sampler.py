"""Dealing the unseen cards to the other seats consistently with a seat's view.

Everything the view reveals becomes a constraint: the number of cards each seat still
holds, and for each seat the cards it cannot hold.  The second comes from the rules:
whenever a rule would have forced a player's choice (follow suit, trump when void,
overruff, discard or drop a penalty card, lead hearts or trumps only when holding
nothing else) and the player's card shows it was not forced, the player held none of
the cards that would have forced it, and still holds none.  :func:`sample_world` never
returns a world that contradicts the view.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from king.cards import SUIT_MASKS, Mask
from king.deal import NO_BOYS, NO_HEARTS, NO_KING, NO_QUEENS, TRUMPS
from king.errors import KingError
from king.rules import (
    FLAG_FORCED_PENALTY,
    FLAG_OVERRUFF,
    FLAG_TRUMP_LEAD_AFTER_BREAK,
    PENALTY_MASKS,
)
from king.view import SeatView

__all__ = ["Constraints", "constraints", "not_held", "sample_world", "SamplingError"]

_HEARTS = SUIT_MASKS[1]
_FULL = (1 << 52) - 1


class SamplingError(KingError, RuntimeError):
    """No deal of the unseen cards fits the view (only possible for an inconsistent
    view, which the engine never produces)."""


def not_held(
    card: int, trick: int, led: int, played: int, contract: int, trump: int, flags: int
) -> int:
    """The cards a player cannot have held when it played ``card`` in this situation,
    because holding any of them would have forced another choice.  The branches mirror
    :func:`king.deal.legal_mask`."""
    if led < 0:
        return _not_held_leading(card, played, contract, trump, flags)
    led_mask = SUIT_MASKS[led]
    if (1 << card) & led_mask:
        return _not_held_following(card, trick, led_mask, contract, flags)
    return _not_held_void(card, trick, led_mask, contract, trump, flags)


def _not_held_leading(card: int, played: int, contract: int, trump: int, flags: int) -> int:
    """Leading a heart before hearts are broken (No Hearts, No King), or a trump before
    trumps are (with that rule), shows a hand of nothing else."""
    suit = card // 13
    if contract in (NO_HEARTS, NO_KING) and not played & _HEARTS and suit == 1:
        return _FULL & ~_HEARTS
    if (
        contract == TRUMPS
        and flags & FLAG_TRUMP_LEAD_AFTER_BREAK
        and not played & SUIT_MASKS[trump]
        and suit == trump
    ):
        return _FULL & ~SUIT_MASKS[trump]
    return 0


def _not_held_following(card: int, trick: int, led_mask: Mask, contract: int, flags: int) -> int:
    """Following suit with a card other than a forced penalty card shows none of those
    (the led suit's penalty cards under the trick's top)."""
    bit = 1 << card
    if flags & FLAG_FORCED_PENALTY and contract in (NO_QUEENS, NO_BOYS, NO_KING):
        below_top = (1 << ((trick & led_mask).bit_length() - 1)) - 1
        forced = led_mask & PENALTY_MASKS[contract] & below_top
        if not bit & forced:
            return forced
    return 0


def _not_held_void(
    card: int, trick: int, led_mask: Mask, contract: int, trump: int, flags: int
) -> int:
    """Not following shows a void in the led suit, and what the player would have had
    to play instead: a trump (one above the trick's, with overruffing) in Trumps, a
    penalty card with forced penalty cards."""
    bit = 1 << card
    out = led_mask
    if contract == TRUMPS:
        trump_mask = SUIT_MASKS[trump]
        if not bit & trump_mask:
            return out | trump_mask
        if flags & FLAG_OVERRUFF:
            top = (trick & trump_mask).bit_length()
            if bit >> top == 0:  # a trump no higher than the highest in the trick
                out |= trump_mask >> top << top
        return out
    if flags & FLAG_FORCED_PENALTY and contract in (NO_HEARTS, NO_QUEENS, NO_BOYS, NO_KING):
        penalty = PENALTY_MASKS[contract]
        if not bit & penalty:
            out |= penalty
    return out


@dataclass(frozen=True, slots=True)
class Constraints:
    """What a seat knows about the hidden hands: the unseen cards, how many each seat
    holds, and the cards each seat cannot hold."""

    me: int
    unseen: int
    counts: tuple[int, int, int, int]
    forbidden: tuple[int, int, int, int]
    my_hand: int


def constraints(view: SeatView) -> Constraints:
    """Read the constraints off a view (during play or declaration)."""
    me = view.seat
    contract = view.contract
    my_hand = view.hand.mask
    if contract is None:
        counts = [0 if s == me else 13 for s in range(4)]
        return Constraints(
            me, _FULL & ~my_hand, (counts[0], counts[1], counts[2], counts[3]), (0, 0, 0, 0),
            my_hand,
        )  # fmt: skip
    code = contract.code
    trump = -1 if view.trump is None else int(view.trump)
    flags = view.rules.flags
    forbidden = [0, 0, 0, 0]
    played_count = [0, 0, 0, 0]
    played = 0
    sequences = [[(t.seat_of(i), c.id) for i, c in enumerate(t.cards)] for t in view.tricks]
    if view.current_trick:
        sequences.append([(seat, card.id) for seat, card in view.current_trick])
    for sequence in sequences:
        trick = 0
        led = -1
        for seat, card in sequence:
            forbidden[seat] |= not_held(card, trick, led, played, code, trump, flags)
            if led < 0:
                led = card // 13
            trick |= 1 << card
            played_count[seat] += 1
        played |= trick
    unseen = _FULL & ~my_hand & ~played
    left = [0 if s == me else 13 - played_count[s] for s in range(4)]
    forbidden[me] = 0
    return Constraints(
        me,
        unseen,
        (left[0], left[1], left[2], left[3]),
        (forbidden[0], forbidden[1], forbidden[2], forbidden[3]),
        my_hand,
    )


def sample_world(c: Constraints, rng: random.Random) -> tuple[int, int, int, int]:
    """The current hands of all four seats: the seat's own, and the unseen cards dealt
    to the others at random within the constraints."""
    others = [s for s in range(4) if s != c.me]
    allowed = {s: c.unseen & ~c.forbidden[s] for s in others}
    cards = []
    bits = c.unseen
    while bits:
        low = bits & -bits
        cards.append(low.bit_length() - 1)
        bits ^= low
    for _ in range(200):
        hands = _try_deal(c, others, allowed, cards, rng)
        if hands is not None:
            return hands
    hands = _search_deal(c, others, allowed, cards)
    if hands is None:
        raise SamplingError("no deal of the unseen cards fits the view")
    return hands


def _try_deal(
    c: Constraints,
    others: list[int],
    allowed: dict[int, int],
    cards: list[int],
    rng: random.Random,
) -> tuple[int, int, int, int] | None:
    room = {s: c.counts[s] for s in others}
    hands = [0, 0, 0, 0]
    hands[c.me] = c.my_hand
    order = cards[:]
    rng.shuffle(order)
    # The most constrained cards first, so that a free card never takes the last place
    # a constrained one could go.
    order.sort(key=lambda card: sum(1 for s in others if allowed[s] >> card & 1))
    for card in order:
        choices = [s for s in others if room[s] and allowed[s] >> card & 1]
        if not choices:
            return None
        total = sum(room[s] for s in choices)
        pick = rng.randrange(total)
        for seat in choices:
            pick -= room[seat]
            if pick < 0:
                break
        hands[seat] |= 1 << card
        room[seat] -= 1
    return hands[0], hands[1], hands[2], hands[3]


def _search_deal(
    c: Constraints, others: list[int], allowed: dict[int, int], cards: list[int]
) -> tuple[int, int, int, int] | None:
    """A systematic (backtracking) deal, for the rare constraints the random one misses."""
    room = {s: c.counts[s] for s in others}
    hands = [0, 0, 0, 0]
    hands[c.me] = c.my_hand
    order = sorted(cards, key=lambda card: sum(1 for s in others if allowed[s] >> card & 1))

    def place(index: int) -> bool:
        if index == len(order):
            return True
        card = order[index]
        for seat in others:
            if room[seat] and allowed[seat] >> card & 1:
                room[seat] -= 1
                hands[seat] |= 1 << card
                if place(index + 1):
                    return True
                room[seat] += 1
                hands[seat] ^= 1 << card
        return False

    if not place(0):
        return None
    return hands[0], hands[1], hands[2], hands[3]
