"""The compiled kernel of the search bot: legal moves, tricks, a fast playout policy and
an exact endgame solver, all on 52-bit masks, compiled with numba.

It mirrors :func:`king.deal.legal_mask` and the trick and scoring rules of
:mod:`king.deal`; ``tests/test_kernel.py`` proves the two agree over thousands of random
positions.  A position is a small ``int64`` array (the ``S_`` offsets below) so that it
can be copied and searched without allocating Python objects.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from king.cards import SUIT_MASKS
from king.rules import (
    FLAG_EARLY_END,
    FLAG_FORCED_PENALTY,
    FLAG_OVERRUFF,
    FLAG_TRUMP_LEAD_AFTER_BREAK,
    PENALTY_MASKS,
    POINTS_PER_UNIT,
)

__all__ = [
    "STATE_SIZE",
    "evaluate_worlds",
    "legal",
    "new_state",
    "play",
    "playout",
    "policy",
    "solve",
]

# Contract codes (Contract.code).
TRUMPS, NO_TRICKS, NO_HEARTS, NO_QUEENS, NO_BOYS, NO_KING, NO_LAST_TWO = range(7)

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

SUITS = np.array(SUIT_MASKS, dtype=np.int64)
PENALTY = np.array(PENALTY_MASKS, dtype=np.int64)
UNIT = np.array(POINTS_PER_UNIT, dtype=np.int64)
HEARTS = SUIT_MASKS[1]
FIELD = 0x1FFF
POP13 = np.array([bin(i).count("1") for i in range(1 << 13)], dtype=np.int64)
HIGH13 = np.array([i.bit_length() - 1 for i in range(1 << 13)], dtype=np.int64)
LOW13 = np.array([(i & -i).bit_length() - 1 for i in range(1 << 13)], dtype=np.int64)
F_FORCED = FLAG_FORCED_PENALTY
F_EARLY = FLAG_EARLY_END
F_OVERRUFF = FLAG_OVERRUFF
F_TRUMP_LEAD = FLAG_TRUMP_LEAD_AFTER_BREAK
NEG_INF = -(1 << 40)
POS_INF = 1 << 40

jit = njit(cache=True, nogil=True)


# -- bits ----------------------------------------------------------------------------


@jit
def popcount(mask: int) -> int:
    return (
        POP13[mask & FIELD]
        + POP13[(mask >> 13) & FIELD]
        + POP13[(mask >> 26) & FIELD]
        + POP13[(mask >> 39) & FIELD]
    )


@jit
def highest(mask: int) -> int:
    """The highest card id in ``mask`` (-1 when empty)."""
    for suit in range(3, -1, -1):
        field = (mask >> (13 * suit)) & FIELD
        if field:
            return 13 * suit + HIGH13[field]
    return -1


@jit
def lowest(mask: int) -> int:
    """The lowest card id in ``mask`` (-1 when empty)."""
    for suit in range(4):
        field = (mask >> (13 * suit)) & FIELD
        if field:
            return 13 * suit + LOW13[field]
    return -1


# -- the rules -----------------------------------------------------------------------


@jit
def legal(
    hand: int, trick: int, led: int, played: int, contract: int, trump: int, flags: int
) -> int:
    """The legal cards of ``hand``: the same rules as :func:`king.deal.legal_mask`."""
    if led < 0:
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
    suit = SUITS[led]
    follow = hand & suit
    if follow != 0:
        if flags & F_FORCED and (
            contract == NO_QUEENS or contract == NO_BOYS or contract == NO_KING
        ):
            top = highest(trick & suit)
            forced = follow & PENALTY[contract] & ((np.int64(1) << top) - 1)
            if forced != 0:
                return forced
        return follow
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


@jit
def new_state(hands: Any, leader: int) -> Any:
    """A position at the start of a deal: four hands (masks) and the leader."""
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    for seat in range(4):
        state[seat] = hands[seat]
    state[S_LEADER] = leader
    state[S_TURN] = leader
    state[S_LED] = -1
    state[S_TOP] = -1
    return state


@jit
def legal_now(state: Any, contract: int, trump: int, flags: int) -> int:
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


@jit
def play(state: Any, card: int, contract: int, trump: int, flags: int) -> None:
    """Play ``card`` for the seat to move (unchecked), finishing the trick and scoring
    it when it is the fourth card."""
    bit = np.int64(1) << card
    turn = state[S_TURN]
    state[turn] ^= bit
    state[S_PLAYED] |= bit
    state[S_TRICK] |= bit
    count = state[S_COUNT]
    suit = card // 13
    if count == 0:
        state[S_LED] = suit
        state[S_TOP] = card
        state[S_TOP_SEAT] = turn
    else:
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
    if count < 3:
        state[S_COUNT] = count + 1
        state[S_TURN] = (turn + 1) & 3
        return
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


# -- a fast policy -------------------------------------------------------------------


@jit
def _rank(card: int) -> int:
    return card % 13


@jit
def _outstanding_above(card: int, gone: int) -> int:
    """The cards of ``card``'s suit above it that have not been seen (``gone`` holds
    the cards played and in one's own hand)."""
    suit = card // 13
    above = SUITS[suit] & ~((np.int64(2) << card) - 1)
    return above & ~gone


@jit
def policy(
    hand: int,
    legal_cards: int,
    trick: int,
    led: int,
    top: int,
    count: int,
    played: int,
    tricks_done: int,
    contract: int,
    trump: int,
) -> int:
    """A quick heuristic card choice that uses only what the player knows: its own hand,
    the trick and the cards played.  Used for playouts and as the opponents' model."""
    if popcount(legal_cards) == 1:
        return lowest(legal_cards)
    gone = played | hand
    if contract == TRUMPS:
        return _policy_trumps(hand, legal_cards, led, top, count, gone, trump)
    penalty = PENALTY[contract]
    if led < 0:
        return _policy_lead_negative(hand, legal_cards, gone, contract, penalty, tricks_done)
    follow = legal_cards & SUITS[led]
    if follow != 0:
        if top // 13 == led:
            below = follow & ((np.int64(1) << top) - 1)
        else:
            below = follow
        last_tricks = contract == NO_LAST_TWO and tricks_done >= 11
        clean = penalty == 0 or (trick & penalty) == 0
        if (
            count == 3
            and contract != NO_TRICKS
            and not last_tricks
            and clean
            and (contract == NO_LAST_TWO or follow & penalty == 0)
        ):
            # Last to play to a trick with nothing in it: take it with the highest card.
            return highest(follow)
        if below != 0:
            return highest(below)  # duck as high as possible
        if count == 3:
            return highest(follow)  # taking it anyway: shed the highest
        # Cannot duck and others still to play: play the highest unless it is a
        # penalty card that someone else might still be forced to take.
        high = highest(follow)
        spare = follow & ~penalty
        if (np.int64(1) << high) & penalty and spare != 0:
            return highest(spare)
        return high
    # Void in the led suit: shed the most dangerous card.
    danger = legal_cards & penalty
    if danger != 0:
        return highest(danger)
    best = -1
    best_score = -1000
    for suit in range(4):
        field = legal_cards & SUITS[suit]
        if field == 0:
            continue
        card = highest(field)
        length = popcount(hand & SUITS[suit])
        score = _rank(card) * 4 - length * 3
        if contract == NO_BOYS or contract == NO_QUEENS or contract == NO_KING:
            # Protect against being forced to take a penalty card of this suit later.
            if SUITS[suit] & penalty & ~gone:
                score += 6
        if score > best_score:
            best_score = score
            best = card
    return best


@jit
def _policy_lead_negative(
    hand: int, legal_cards: int, gone: int, contract: int, penalty: int, tricks_done: int
) -> int:
    best = -1
    best_score = 1 << 30
    for suit in range(4):
        field = legal_cards & SUITS[suit]
        if field == 0:
            continue
        card = lowest(field)
        others_above = popcount(_outstanding_above(card, gone))
        others_below = popcount(SUITS[suit] & ~gone & ((np.int64(1) << card) - 1))
        # Prefer a low card that many unseen cards beat and few unseen cards duck under.
        score = others_below * 10 - others_above * 3
        if others_above == 0:
            score += 100  # everything else is below: this lead wins the trick
        if penalty != 0:
            if (np.int64(1) << card) & penalty:
                score += 60
            elif SUITS[suit] & penalty & ~gone and popcount(SUITS[suit] & penalty & hand) == 0:
                score -= 8  # flush out a penalty card someone else holds
        if score < best_score:
            best_score = score
            best = card
    return best


@jit
def _policy_trumps(
    hand: int, legal_cards: int, led: int, top: int, count: int, gone: int, trump: int
) -> int:
    trump_suit = SUITS[trump]
    if led < 0:
        # Cash a sure winner (trumps first while others may hold trumps), else lead low
        # from the longest side suit.
        trumps = legal_cards & trump_suit
        if trumps != 0:
            high = highest(trumps)
            if _outstanding_above(high, gone) == 0 and (trump_suit & ~gone) != 0:
                return high
        for suit in range(4):
            field = legal_cards & SUITS[suit]
            if field != 0 and suit != trump:
                high = highest(field)
                if _outstanding_above(high, gone) == 0:
                    return high
        best = -1
        best_len = -1
        for suit in range(4):
            field = legal_cards & SUITS[suit]
            if field != 0 and suit != trump:
                length = popcount(field)
                if length > best_len:
                    best_len = length
                    best = lowest(field)
        if best >= 0:
            return best
        return lowest(legal_cards)
    top_is_trump = top // 13 == trump and led != trump
    follow = legal_cards & SUITS[led]
    if follow != 0:
        if top_is_trump:
            return lowest(follow)
        winners = follow & ~((np.int64(2) << top) - 1)
        if winners == 0:
            return lowest(follow)
        if count == 3:
            return lowest(winners)
        high = highest(winners)
        if _outstanding_above(high, gone) == 0:
            return high
        return lowest(follow)
    trumps = legal_cards & trump_suit
    if trumps != 0:
        if top_is_trump:
            over = trumps & ~((np.int64(2) << top) - 1)
            if over != 0:
                return lowest(over)
        else:
            return lowest(trumps)
        return lowest(trumps)
    # Discard: the lowest card of the shortest side suit.
    best = -1
    best_len = 99
    for suit in range(4):
        field = legal_cards & SUITS[suit]
        if field != 0:
            length = popcount(hand & SUITS[suit])
            if length < best_len:
                best_len = length
                best = lowest(field)
    return best


@jit
def policy_move(state: Any, contract: int, trump: int, flags: int) -> int:
    """The policy's card for the seat to move in ``state``."""
    turn = state[S_TURN]
    legal_cards = legal_now(state, contract, trump, flags)
    return policy(
        state[turn],
        legal_cards,
        state[S_TRICK],
        state[S_LED],
        state[S_TOP],
        state[S_COUNT],
        state[S_PLAYED],
        state[S_TRICKS],
        contract,
        trump,
    )


@jit
def playout(state: Any, contract: int, trump: int, flags: int) -> None:
    """Play ``state`` to the end with the policy for every seat (in place)."""
    while not state[S_OVER]:
        play(state, policy_move(state, contract, trump, flags), contract, trump, flags)


# -- the exact solver ----------------------------------------------------------------


@jit
def _mix(value: int) -> int:
    value ^= (value >> 33) & 0x7FFFFFFF
    value *= -49064778989728563  # 0xff51afd7ed558ccd as int64
    value ^= (value >> 29) & 0x7FFFFFFFF
    value *= -4265267296055464877  # 0xc4ceb9fe1a85ec53 as int64
    value ^= (value >> 32) & 0xFFFFFFFF
    return value


@jit
def _key(state: Any) -> int:
    key = _mix(state[0] + 0x9E3779B97F4A7C1)
    key = _mix(key ^ state[1] * 3)
    key = _mix(key ^ state[2] * 5)
    key = _mix(key ^ state[3] * 7 ^ state[S_LEADER])
    return key


@jit
def _reduce(cards: int, earlier: int, penalty: int) -> int:
    """Drop cards equivalent to a higher one kept: same suit, same penalty status, and
    every card between them already played in an earlier trick."""
    kept = np.int64(0)
    for suit in range(4):
        field = cards & SUITS[suit]
        previous = -1
        while field != 0:
            card = highest(field)
            bit = np.int64(1) << card
            field ^= bit
            if previous >= 0:
                between = ((np.int64(1) << previous) - 1) & ~((np.int64(2) << card) - 1)
                same_status = ((penalty >> card) & 1) == ((penalty >> previous) & 1)
                if between & ~earlier == 0 and same_status:
                    previous = card
                    continue
            kept |= bit
            previous = card
    return kept


# Per-depth frame of the iterative search.
F_ALPHA, F_BETA, F_ALPHA0, F_BETA0, F_BEST, F_MOVES, F_FIRST = 0, 1, 2, 3, 4, 5, 6
F_KEY, F_SLOT, F_START, F_MAX, F_SO_FAR = 7, 8, 9, 10, 11
FRAME_SIZE = 12


@jit
def _enter(
    frame: Any, state: Any, me: int, contract: int, trump: int, flags: int,
    tt_key: Any, tt_low: Any, tt_high: Any,
) -> tuple[bool, int]:  # fmt: skip
    """Open a node: settle it at once from bounds or the table (``True, value``), or set
    up its frame for the move loop (``False, 0``)."""
    if state[S_OVER]:
        return True, state[S_POINTS + me]
    alpha = frame[F_ALPHA]
    beta = frame[F_BETA]
    so_far = state[S_POINTS + me]
    # Quick bounds: what is still to be won or lost caps the value either way.
    left = 13 - state[S_TRICKS]
    if contract == TRUMPS:
        low_bound = so_far
        high_bound = so_far + 50 * left
    elif contract == NO_TRICKS:
        low_bound = so_far - 50 * left
        high_bound = so_far
    elif contract == NO_LAST_TWO:
        low_bound = so_far - 180 * min(left, 2)
        high_bound = so_far
    else:
        remaining = PENALTY[contract] & ~(state[S_PLAYED] & ~state[S_TRICK])
        if remaining == 0:
            return True, so_far
        low_bound = so_far + UNIT[contract] * popcount(remaining)
        high_bound = so_far
    if low_bound >= beta:
        return True, low_bound
    if high_bound <= alpha:
        return True, high_bound
    at_start = state[S_COUNT] == 0
    frame[F_START] = 1 if at_start else 0
    frame[F_SO_FAR] = so_far
    if at_start:
        key = _key(state)
        slot = key & (tt_key.shape[0] - 1)
        frame[F_KEY] = key
        frame[F_SLOT] = slot
        if tt_key[slot] == key:
            low = tt_low[slot] + so_far
            high = tt_high[slot] + so_far
            if low >= beta:
                return True, low
            if high <= alpha:
                return True, high
            if low > alpha:
                alpha = low
            if high < beta:
                beta = high
            if alpha >= beta:
                return True, alpha
    frame[F_ALPHA] = alpha
    frame[F_BETA] = beta
    frame[F_ALPHA0] = alpha
    frame[F_BETA0] = beta
    legal_cards = legal_now(state, contract, trump, flags)
    earlier = state[S_PLAYED] & ~state[S_TRICK]
    moves = _reduce(legal_cards, earlier, PENALTY[contract])
    maximizing = state[S_TURN] == me
    frame[F_MAX] = 1 if maximizing else 0
    frame[F_BEST] = NEG_INF if maximizing else POS_INF
    first = policy_move(state, contract, trump, flags)
    if moves >> first & 1:
        moves &= ~(np.int64(1) << first)
    else:
        first = -1
    frame[F_FIRST] = first
    frame[F_MOVES] = moves
    return False, 0


@jit
def _leave(frame: Any, tt_key: Any, tt_low: Any, tt_high: Any) -> int:
    """Close a node whose moves are done: store its bound in the table; its value."""
    best = frame[F_BEST]
    if frame[F_START]:
        key = frame[F_KEY]
        slot = frame[F_SLOT]
        future = best - frame[F_SO_FAR]
        if tt_key[slot] != key:
            tt_key[slot] = key
            tt_low[slot] = NEG_INF
            tt_high[slot] = POS_INF
        if best <= frame[F_ALPHA0]:
            tt_high[slot] = future
        elif best >= frame[F_BETA0]:
            tt_low[slot] = future
        else:
            tt_low[slot] = future
            tt_high[slot] = future
    return best


@jit
def _absorb(frame: Any, value: int) -> None:
    """Take a child's value into its parent's frame: the best so far and the window."""
    if frame[F_MAX]:
        if value > frame[F_BEST]:
            frame[F_BEST] = value
        if frame[F_BEST] > frame[F_ALPHA]:
            frame[F_ALPHA] = frame[F_BEST]
    else:
        if value < frame[F_BEST]:
            frame[F_BEST] = value
        if frame[F_BEST] < frame[F_BETA]:
            frame[F_BETA] = frame[F_BEST]


@jit
def _search(
    stack: Any,
    frames: Any,
    me: int,
    contract: int,
    trump: int,
    flags: int,
    alpha: int,
    beta: int,
    tt_key: Any,
    tt_low: Any,
    tt_high: Any,
    counter: Any,
) -> int:
    """Alpha-beta from ``stack[0]`` for ``me`` (maximising) against the other three
    (minimising), with a transposition table at trick starts.  Iterative, with explicit
    stacks of positions and frames, so that it compiles and caches cleanly."""
    depth = 0
    frames[0, F_ALPHA] = alpha
    frames[0, F_BETA] = beta
    value = 0
    entering = True
    while True:
        if entering:
            counter[0] += 1
            settled, value = _enter(
                frames[depth], stack[depth], me, contract, trump, flags, tt_key, tt_low, tt_high
            )
            if settled:
                if depth == 0:
                    return value
                depth -= 1
                entering = False
                _absorb(frames[depth], value)
        frame = frames[depth]
        card = -1
        if frame[F_ALPHA] < frame[F_BETA]:
            if frame[F_FIRST] >= 0:
                card = frame[F_FIRST]
                frame[F_FIRST] = -1
            elif frame[F_MOVES] != 0:
                moves = frame[F_MOVES]
                card = highest(moves) if contract == TRUMPS else lowest(moves)
                frame[F_MOVES] = moves & ~(np.int64(1) << card)
        if card >= 0:
            child = stack[depth + 1]
            child[:] = stack[depth]
            play(child, card, contract, trump, flags)
            frames[depth + 1, F_ALPHA] = frame[F_ALPHA]
            frames[depth + 1, F_BETA] = frame[F_BETA]
            depth += 1
            entering = True
            continue
        value = _leave(frame, tt_key, tt_low, tt_high)
        if depth == 0:
            return value
        depth -= 1
        _absorb(frames[depth], value)
        entering = False


@jit
def _table_bits(state: Any) -> int:
    """A transposition table big enough for the tricks left, and no bigger."""
    return min(18, 8 + 13 - state[S_TRICKS])


@jit
def solve(state: Any, me: int, contract: int, trump: int, flags: int) -> tuple[int, int]:
    """The exact value of ``state`` for seat ``me`` (its final points in this deal) when
    it plays its best and the three others play to minimise it, and the nodes searched."""
    stack = np.empty((60, STATE_SIZE), dtype=np.int64)
    frames = np.empty((60, FRAME_SIZE), dtype=np.int64)
    stack[0] = state
    size = 1 << _table_bits(state)
    tt_key = np.zeros(size, dtype=np.int64)
    tt_low = np.zeros(size, dtype=np.int64)
    tt_high = np.zeros(size, dtype=np.int64)
    counter = np.zeros(1, dtype=np.int64)
    value = _search(
        stack, frames, me, contract, trump, flags, NEG_INF, POS_INF, tt_key, tt_low, tt_high,
        counter,
    )  # fmt: skip
    return value, counter[0]


@jit
def solve_moves(state: Any, me: int, contract: int, trump: int, flags: int, out: Any) -> int:
    """Solve every legal card of ``me`` (to move in ``state``): ``out[card]`` gets the
    exact value after playing it.  Returns the nodes searched."""
    stack = np.empty((60, STATE_SIZE), dtype=np.int64)
    frames = np.empty((60, FRAME_SIZE), dtype=np.int64)
    size = 1 << _table_bits(state)
    tt_key = np.zeros(size, dtype=np.int64)
    tt_low = np.zeros(size, dtype=np.int64)
    tt_high = np.zeros(size, dtype=np.int64)
    counter = np.zeros(1, dtype=np.int64)
    cards = legal_now(state, contract, trump, flags)
    while cards != 0:
        card = lowest(cards)
        cards &= ~(np.int64(1) << card)
        stack[0] = state
        play(stack[0], card, contract, trump, flags)
        out[card] = _search(
            stack, frames, me, contract, trump, flags, NEG_INF, POS_INF, tt_key, tt_low,
            tt_high, counter,
        )  # fmt: skip
    return counter[0]


# -- evaluating candidate cards over sampled worlds ----------------------------------


@jit
def _next_random(seed: Any) -> int:
    """xorshift64*: a tiny deterministic generator whose state lives in ``seed[0]``."""
    x = seed[0]
    x ^= (x >> 12) & 0xFFFFFFFFFFFFF
    x ^= x << 25
    x ^= (x >> 27) & 0x1FFFFFFFFF
    seed[0] = x
    return (x * 2685821657736338717) & 0x7FFFFFFFFFFFFFFF


@jit
def _tail_value(
    state: Any, me: int, contract: int, trump: int, flags: int, tail: int, stack: Any,
    frames: Any, tt_key: Any, tt_low: Any, tt_high: Any, counter: Any,
) -> int:  # fmt: skip
    """Play the policy until ``tail`` tricks are left, then solve the rest exactly."""
    while not state[S_OVER] and (13 - state[S_TRICKS] > tail or state[S_COUNT] != 0):
        play(state, policy_move(state, contract, trump, flags), contract, trump, flags)
        counter[0] += 1
    stack[0] = state
    return _search(
        stack, frames, me, contract, trump, flags, NEG_INF, POS_INF, tt_key, tt_low, tt_high,
        counter,
    )  # fmt: skip


@njit(cache=True, nogil=True, parallel=True)
def evaluate_worlds(
    worlds: Any,
    base: Any,
    candidates: Any,
    me: int,
    contract: int,
    trump: int,
    flags: int,
    solve_limit: int,
    tail: int,
    values: Any,
    nodes: Any,
) -> None:
    """For each world (the four current hands completing ``base``) and each candidate
    card of ``me``, the value for ``me`` after playing it: solved exactly when at most
    ``solve_limit`` tricks are left, otherwise played out by the policy until ``tail``
    tricks are left and solved from there.  Worlds run in parallel threads."""
    for w in prange(worlds.shape[0]):
        state = base.copy()
        for seat in range(4):
            state[seat] = worlds[w, seat]
        left = 13 - state[S_TRICKS]
        exact = left <= solve_limit
        depth_left = left if exact else tail
        size = 1 << min(18, 8 + depth_left)
        tt_key = np.zeros(size, dtype=np.int64)
        tt_low = np.zeros(size, dtype=np.int64)
        tt_high = np.zeros(size, dtype=np.int64)
        stack = np.empty((60, STATE_SIZE), dtype=np.int64)
        frames = np.empty((60, FRAME_SIZE), dtype=np.int64)
        counter = np.zeros(1, dtype=np.int64)
        for i in range(candidates.shape[0]):
            child = state.copy()
            play(child, candidates[i], contract, trump, flags)
            if exact:
                stack[0] = child
                values[w, i] = _search(
                    stack, frames, me, contract, trump, flags, NEG_INF, POS_INF, tt_key,
                    tt_low, tt_high, counter,
                )  # fmt: skip
            else:
                values[w, i] = _tail_value(
                    child, me, contract, trump, flags, tail, stack, frames, tt_key, tt_low,
                    tt_high, counter,
                )  # fmt: skip
        nodes[w] = counter[0]


# -- inference and declarations ------------------------------------------------------


@njit(cache=True, nogil=True, parallel=True)
def log_likelihoods(
    dealt: Any,
    plays: Any,
    leader: int,
    me: int,
    contract: int,
    trump: int,
    flags: int,
    noise: float,
    out: Any,
) -> None:
    """For each world (the four hands as dealt), the log-probability of the other seats'
    plays so far under the policy as a model of their play: a player makes the policy's
    choice with probability ``1 - noise`` and otherwise any legal card at random."""
    for w in prange(dealt.shape[0]):
        state = np.zeros(STATE_SIZE, dtype=np.int64)
        for seat in range(4):
            state[seat] = dealt[w, seat]
        state[S_LEADER] = leader
        state[S_TURN] = leader
        state[S_LED] = -1
        state[S_TOP] = -1
        total = 0.0
        for i in range(plays.shape[0]):
            card = plays[i]
            turn = state[S_TURN]
            if turn != me:
                cards = legal_now(state, contract, trump, flags)
                choices = popcount(cards)
                if choices > 1:
                    chosen = policy_move(state, contract, trump, flags)
                    p = noise / choices
                    if chosen == card:
                        p += 1.0 - noise
                    total += np.log(p)
            play(state, card, contract, trump, flags)
        out[w] = total


@njit(cache=True, nogil=True, parallel=True)
def declaration_values(
    worlds: Any, declarer: int, contract: int, trump: int, flags: int, out: Any
) -> None:
    """The declarer's points in each world (four dealt hands) when everybody plays the
    policy: a quick estimate of what a contract is worth with this hand."""
    for w in prange(worlds.shape[0]):
        state = np.zeros(STATE_SIZE, dtype=np.int64)
        for seat in range(4):
            state[seat] = worlds[w, seat]
        state[S_LEADER] = declarer
        state[S_TURN] = declarer
        state[S_LED] = -1
        state[S_TOP] = -1
        playout(state, contract, trump, flags)
        out[w] = state[S_POINTS + declarer]


def warm_up() -> None:
    """Compile (or load from the cache) every kernel entry point now, so that the first
    move is not charged with it."""
    hands = np.array([SUITS[0], SUITS[1], SUITS[2], SUITS[3]], dtype=np.int64)
    state = new_state(hands, 0)
    worlds = hands.reshape(1, 4).copy()
    out = np.zeros(1, dtype=np.int64)
    declaration_values(worlds, 0, NO_TRICKS, -1, 0, out)
    logs = np.zeros(1, dtype=np.float64)
    log_likelihoods(worlds, np.array([0], dtype=np.int64), 0, 0, NO_TRICKS, -1, 0, 0.3, logs)
    values = np.zeros((1, 1), dtype=np.int64)
    nodes = np.zeros(1, dtype=np.int64)
    candidates = np.array([12], dtype=np.int64)
    evaluate_worlds(worlds, state, candidates, 0, NO_TRICKS, -1, 0, 13, 4, values, nodes)
    evaluate_worlds(worlds, state, candidates, 0, NO_TRICKS, -1, 0, 5, 4, values, nodes)
    solve(state, 0, NO_TRICKS, -1, 0)
    seed = np.ones(1, dtype=np.int64)
    counts = np.zeros(4, dtype=np.int64)
    sample_worlds(0, counts, counts, 0, SUITS[0], seed, worlds)


# -- sampling worlds -----------------------------------------------------------------


@jit
def _random_below(seed: Any, bound: int) -> int:
    return _next_random(seed) % bound


@jit
def sample_worlds(
    unseen: int,
    counts: Any,
    forbidden: Any,
    me: int,
    my_hand: int,
    seed: Any,
    out: Any,
) -> int:
    """Fill ``out[w]`` with the current hands of a world for every ``w``: ``me`` keeps its
    hand and the unseen cards go to the others, ``counts[s]`` each, none to a seat that
    cannot hold it (``forbidden[s]``), the most constrained cards placed first and each
    card to a seat drawn in proportion to the room it has left.  A world that runs into a
    dead end is dealt again; after 200 tries its row is left at zero and counted in the
    returned number of failures (the caller deals those by exhaustive search)."""
    cards = np.empty(52, dtype=np.int64)
    n = 0
    bits = unseen
    while bits != 0:
        card = lowest(bits)
        bits &= ~(np.int64(1) << card)
        cards[n] = card
        n += 1
    order = np.empty(52, dtype=np.int64)
    room = np.zeros(4, dtype=np.int64)
    failures = 0
    for w in range(out.shape[0]):
        done = False
        for _attempt in range(200):
            # Shuffle, then stable-partition by how many seats may take each card.
            for i in range(n - 1, 0, -1):
                j = _random_below(seed, i + 1)
                cards[i], cards[j] = cards[j], cards[i]
            k = 0
            for allowed_seats in range(0, 4):
                for i in range(n):
                    card = cards[i]
                    choices = 0
                    for seat in range(4):
                        if seat != me and not (forbidden[seat] >> card) & 1:
                            choices += 1
                    if choices == allowed_seats:
                        order[k] = card
                        k += 1
            for seat in range(4):
                room[seat] = 0 if seat == me else counts[seat]
                out[w, seat] = 0
            out[w, me] = my_hand
            ok = True
            for i in range(n):
                card = order[i]
                total = 0
                for seat in range(4):
                    if room[seat] > 0 and not (forbidden[seat] >> card) & 1:
                        total += room[seat]
                if total == 0:
                    ok = False
                    break
                pick = _random_below(seed, total)
                for seat in range(4):
                    if room[seat] > 0 and not (forbidden[seat] >> card) & 1:
                        pick -= room[seat]
                        if pick < 0:
                            out[w, seat] |= np.int64(1) << card
                            room[seat] -= 1
                            break
            if ok:
                done = True
                break
        if not done:
            for seat in range(4):
                out[w, seat] = 0
            failures += 1
    return failures


#: The compiled functions :func:`warm_up` prepares (the others compile inside them).
ENTRY_POINTS = (
    declaration_values,
    log_likelihoods,
    evaluate_worlds,
    solve,
    sample_worlds,
)
