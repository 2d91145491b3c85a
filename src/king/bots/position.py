"""The engines' copy of the rules: a deal as a small ``int64`` array, the legal cards,
playing a card, and which cards are equivalent.

The rule bot runs these functions as ordinary Python (in the browser's offline game
too), and they are the readable reference of the engine's ``engine/position.c``, which
the search bot runs (:mod:`king.bots.engine`): the tests hold the two to the same
answers.  It mirrors :func:`king.deal.legal_mask` and the trick and scoring rules of
:mod:`king.deal`; ``tests/bots/test_kernel.py`` proves the two agree over thousands of random
positions.  A position is an array (the ``S_`` offsets below) so that it can be copied
and searched without allocating Python objects.
"""

from __future__ import annotations

from typing import Any

from king.bots.arrays import array, int64, uint8, zeros
from king.cards import SUIT_MASKS, CardId, Mask, Seat
from king.rules import (
    FLAG_EARLY_END,
    FLAG_FORCED_PENALTY,
    FLAG_OVERRUFF,
    FLAG_TRUMP_LEAD_AFTER_BREAK,
    NO_BOYS,
    NO_HEARTS,
    NO_KING,
    NO_LAST_TWO,
    NO_QUEENS,
    NO_TRICKS,
    PENALTY_MASKS,
    POINTS_PER_UNIT,
    TRUMPS,
)
from king.view import SeatView

__all__ = [
    "STATE_SIZE",
    "deposited",
    "distinct",
    "from_view",
    "highest",
    "legal",
    "legal_now",
    "lowest",
    "new_state",
    "play",
    "popcount",
    "squeezed",
]


# The layout of a position.
S_PLAYED = 4  # every card played this deal (after the four hands at 0-3)
S_TRICK = 5  # the cards of the current trick
S_LEADER = 6
S_TURN = 7
S_COUNT = 8  # cards in the current trick
S_TRICKS = 9  # tricks completed
S_TOP = 10  # the card winning the current trick
S_TOP_SEAT = 11
S_LED = 12  # the suit led, -1 before the lead
S_OVER = 13
S_POINTS = 14  # 14-17: each seat's points so far
S_VOIDS = 18  # 18-21: the suits each seat has shown it lacks (bit per suit), as the
# rule bot reads them: failing to follow shows a void in the led suit, and in Trumps
# failing to trump as well shows a void in trumps
STATE_SIZE = 22

SUITS = array(SUIT_MASKS, dtype=int64)
PENALTY = array(PENALTY_MASKS, dtype=int64)
UNIT = array(POINTS_PER_UNIT, dtype=int64)
HEARTS = SUIT_MASKS[1]
FIELD = 0x1FFF
POP13 = array([bin(i).count("1") for i in range(1 << 13)], dtype=int64)
HIGH13 = array([i.bit_length() - 1 for i in range(1 << 13)], dtype=int64)
LOW13 = array([(i & -i).bit_length() - 1 for i in range(1 << 13)], dtype=int64)


def _chunk_tables() -> tuple[Any, Any]:
    """SQUEEZE[out << 7 | bits]: the bits of the 7-bit ``bits`` where ``out`` is set,
    packed down; DEPOSIT[out << 7 | bits]: the low bits of ``bits`` spread back over
    the set bits of ``out`` (what bit-extract and bit-deposit instructions do, which
    Python has not)."""
    squeeze = [0] * (1 << 14)
    deposit = [0] * (1 << 14)
    for out in range(1 << 7):
        ranks = [rank for rank in range(7) if out >> rank & 1]
        for bits in range(1 << 7):
            index = out << 7 | bits
            for i, rank in enumerate(ranks):
                squeeze[index] |= (bits >> rank & 1) << i
                deposit[index] |= (bits >> i & 1) << rank
    return array(squeeze, dtype=uint8), array(deposit, dtype=uint8)


#: Read by :func:`squeezed` and :func:`deposited`: 16 KB each, so they stay in the
#: fastest cache.
SQUEEZE, DEPOSIT = _chunk_tables()
F_FORCED = FLAG_FORCED_PENALTY
F_EARLY = FLAG_EARLY_END
F_OVERRUFF = FLAG_OVERRUFF
F_TRUMP_LEAD = FLAG_TRUMP_LEAD_AFTER_BREAK


# -- bits ----------------------------------------------------------------------------


def popcount(mask: Mask) -> int:
    return (
        POP13[mask & FIELD]
        + POP13[(mask >> 13) & FIELD]
        + POP13[(mask >> 26) & FIELD]
        + POP13[(mask >> 39) & FIELD]
    )


def highest(mask: Mask) -> CardId:
    """The highest card id in ``mask`` (-1 when empty)."""
    for suit in range(3, -1, -1):
        field = (mask >> (13 * suit)) & FIELD
        if field:
            return 13 * suit + HIGH13[field]
    return -1


def lowest(mask: Mask) -> CardId:
    """The lowest card id in ``mask`` (-1 when empty)."""
    for suit in range(4):
        field = (mask >> (13 * suit)) & FIELD
        if field:
            return 13 * suit + LOW13[field]
    return -1


# -- the rules -----------------------------------------------------------------------


def legal(
    hand: int, trick: int, led: int, played: int, contract: int, trump: int, flags: int
) -> int:
    """The legal cards of ``hand``: the same rules as :func:`king.deal.legal_mask`."""
    if led < 0:
        return _legal_lead(hand, played, contract, trump, flags)
    suit = SUITS[led]
    follow = hand & suit
    if follow != 0:
        return _legal_follow(follow, trick, suit, contract, flags)
    return _legal_void(hand, trick, contract, trump, flags)


def _legal_lead(hand: int, played: int, contract: int, trump: int, flags: int) -> int:
    """The legal leads: no heart (in No Hearts and No King) or, with that rule, no trump
    (in Trumps) before one has been played, unless the hand holds nothing else."""
    if contract == NO_HEARTS or contract == NO_KING:
        if played & HEARTS == 0:
            others = hand & ~HEARTS
            if others != 0:
                return others
    elif contract == TRUMPS and flags & F_TRUMP_LEAD:
        trumps = SUITS[trump]
        if played & trumps == 0:
            others = hand & ~trumps
            if others != 0:
                return others
    return hand


def _legal_follow(follow: int, trick: int, suit: int, contract: int, flags: int) -> int:
    """The legal cards of ``follow``, the hand's cards of the suit led (``suit``, a
    mask): with forced penalty cards, a penalty card under the trick's top if any."""
    if flags & F_FORCED and (contract == NO_QUEENS or contract == NO_BOYS or contract == NO_KING):
        top = highest(trick & suit)
        forced = follow & PENALTY[contract] & ((int64(1) << top) - 1)
        if forced != 0:
            return forced
    return follow


def _legal_void(hand: int, trick: int, contract: int, trump: int, flags: int) -> int:
    """The legal cards of a hand void in the suit led: a trump in Trumps (one above the
    trick's, with overruffing), a penalty card with forced penalty cards, else any."""
    if contract == TRUMPS:
        trump_suit = SUITS[trump]
        trumps = hand & trump_suit
        if trumps == 0:
            return hand
        if flags & F_OVERRUFF:
            top = highest(trick & trump_suit) + 1
            higher = (trumps >> top) << top
            if higher != 0:
                return higher
        return trumps
    if flags & F_FORCED and contract >= NO_HEARTS and contract <= NO_KING:
        penalty = hand & PENALTY[contract]
        if penalty != 0:
            return penalty
    return hand


def new_state(hands: Any, leader: Seat) -> Any:
    """A position at the start of a deal: four hands (masks) and the leader."""
    state = zeros(STATE_SIZE, dtype=int64)
    for seat in range(4):
        state[seat] = hands[seat]
    state[S_LEADER] = leader
    state[S_TURN] = leader
    state[S_LED] = -1
    state[S_TOP] = -1
    return state


def legal_now(state: Any, contract: int, trump: int, flags: int) -> Mask:
    """The legal cards of the seat to move."""
    if state[S_OVER]:
        return 0
    return legal(
        state[state[S_TURN]],
        state[S_TRICK],
        state[S_LED],
        state[S_PLAYED],
        contract,
        trump,
        flags,
    )


def play(state: Any, card: CardId, contract: int, trump: int, flags: int) -> None:
    """Play ``card`` for the seat to move (unchecked), finishing the trick and scoring
    it when it is the fourth card."""
    bit = int64(1) << card
    turn = state[S_TURN]
    state[turn] ^= bit
    state[S_PLAYED] |= bit
    state[S_TRICK] |= bit
    count = state[S_COUNT]
    if count == 0:
        state[S_LED] = card // 13
        state[S_TOP] = card
        state[S_TOP_SEAT] = turn
    else:
        _follow(state, card, turn, contract, trump)
    if count < 3:
        state[S_COUNT] = count + 1
        state[S_TURN] = (turn + 1) & 3
        return
    _close_trick(state, contract, flags)


def _follow(state: Any, card: CardId, turn: Seat, contract: int, trump: int) -> None:
    """A card played to a trick already led: the voids it shows, and whether it is now
    the trick's top."""
    suit = card // 13
    led = state[S_LED]
    if suit != led:
        state[S_VOIDS + turn] |= 1 << led
        if trump >= 0 and suit != trump:
            state[S_VOIDS + turn] |= 1 << trump
    top = state[S_TOP]
    top_suit = top // 13
    if suit == top_suit:
        if card > top:
            state[S_TOP] = card
            state[S_TOP_SEAT] = turn
    elif contract == TRUMPS and suit == trump:
        state[S_TOP] = card
        state[S_TOP_SEAT] = turn


def _close_trick(state: Any, contract: int, flags: int) -> None:
    """The fourth card is down: score the trick to its winner, who leads the next; the
    deal is over after 13 tricks (or, with the early end, once every penalty card is
    out)."""
    winner = state[S_TOP_SEAT]
    tricks = state[S_TRICKS] + 1
    state[S_TRICKS] = tricks
    if contract == TRUMPS or contract == NO_TRICKS:
        state[S_POINTS + winner] += UNIT[contract]
    elif contract == NO_LAST_TWO:
        if tricks >= 12:
            state[S_POINTS + winner] += UNIT[contract]
    else:
        state[S_POINTS + winner] += UNIT[contract] * popcount(state[S_TRICK] & PENALTY[contract])
    state[S_TRICK] = 0
    state[S_COUNT] = 0
    state[S_LED] = -1
    state[S_TOP] = -1
    state[S_LEADER] = winner
    state[S_TURN] = winner
    if tricks == 13:
        state[S_OVER] = 1
    elif flags & F_EARLY and contract >= NO_HEARTS and contract <= NO_KING:
        penalty = PENALTY[contract]
        if state[S_PLAYED] & penalty == penalty:
            state[S_OVER] = 1


# -- equivalent cards ----------------------------------------------------------------


def squeezed(bits: int, out: int) -> int:
    """The bits of the 13-bit ``bits`` where the 13-bit ``out`` is set, packed down
    (a card's rank among the cards still out), by two 7-bit lookups."""
    low = SQUEEZE[(out & 0x7F) << 7 | (bits & 0x7F)]
    high = SQUEEZE[(out >> 7) << 7 | (bits >> 7)]
    return int64(low) | int64(high) << POP13[out & 0x7F]


def deposited(bits: int, out: int) -> int:
    """The inverse of :func:`squeezed`: the low bits of ``bits`` put back on the set
    bits of the 13-bit ``out``."""
    split = POP13[out & 0x7F]
    low = DEPOSIT[(out & 0x7F) << 7 | (bits & ((int64(1) << split) - 1))]
    high = DEPOSIT[(out >> 7) << 7 | ((bits >> split) & 0x7F)]
    return int64(low) | int64(high) << 7


def distinct(cards: Mask, earlier: Mask, penalty: Mask) -> Mask:
    """Drop cards equivalent to a higher one kept: same suit, same penalty status, and
    every card between them already played in an earlier trick.  Per suit, among the
    cards not played earlier (ranks packed down), a card goes when the card just above
    it is also one of ``cards`` with the same status."""
    kept = int64(0)
    for suit in range(4):
        shift = 13 * suit
        around = ~(earlier >> shift) & FIELD
        mine = squeezed((cards >> shift) & FIELD, around)
        marks = squeezed((penalty >> shift) & FIELD, around)
        dropped = mine & (mine >> 1) & ~(marks ^ (marks >> 1))
        kept |= int64(deposited(mine & ~dropped, around)) << shift
    return kept


def equal_cards(hand: Mask, card: CardId, earlier: Mask, penalty: Mask) -> Mask:
    """The cards of ``hand`` that are the same card to play as ``card``, itself
    included: those :func:`distinct` merges into the card it keeps for ``card`` (the
    hand's cards of the suit above the kept card below it, up to that one)."""
    suit = hand & SUITS[card // 13]
    kept = distinct(suit, earlier, penalty)
    below: Mask = (1 << card) - 1
    top = lowest(kept & ~below)
    lower = kept & below
    same = suit & ((int64(2) << top) - 1)
    if lower != 0:
        same &= ~((int64(2) << highest(lower)) - 1)
    return same


# -- from a seat's view (Python only) ---------------------------------------------------


def from_view(view: SeatView, with_hand: bool = True) -> Any:
    """The position a seat sees in ``view``: its own hand (``with_hand``; the other
    hands empty, for the worlds of a search to fill), the earlier tricks summarised (the
    cards played, the tricks, each seat's points, the voids each seat has shown), and
    the current trick replayed by :func:`play` itself."""
    contract = view.contract
    if contract is None:
        raise ValueError("a position needs a declared contract")
    code = contract.code
    trump = -1 if view.trump is None else int(view.trump)
    leader = view.leader if view.leader is not None else view.seat
    state = new_state(zeros(4, dtype=int64), leader)
    state[S_PLAYED] = sum(card.mask for trick in view.tricks for card in trick.cards)
    state[S_TRICKS] = len(view.tricks)
    for seat in range(4):
        state[S_POINTS + seat] = view.deal_points[seat]
    for seat, suits in enumerate(view.voids()):
        for suit in suits:
            state[S_VOIDS + seat] |= 1 << int(suit)
    if with_hand:
        state[view.seat] = view.hand.mask
    for seat, card in view.current_trick:
        state[seat] |= card.mask  # the card comes from its player's hand
        play(state, card.id, code, trump, view.rules.flags)
    return state
