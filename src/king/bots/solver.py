"""An exact solver for the end of a deal: paranoid alpha-beta (one seat against the
other three) with a transposition table, over :mod:`king.bots.position`; a quick policy
orders its moves.

Plain Python in numba's subset, compiled by :mod:`king.bots.compiled` when used (no bot
plays with it by default: the search bot's endgame is the best reply to rule play).
``tests/test_kernel.py`` checks its values against brute force.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from king.bots.position import (
    PENALTY,
    S_COUNT,
    S_LEADER,
    S_LED,
    S_OVER,
    S_PLAYED,
    S_POINTS,
    S_TOP,
    S_TRICK,
    S_TRICKS,
    S_TURN,
    STATE_SIZE,
    SUITS,
    UNIT,
    distinct,
    highest,
    legal_now,
    lowest,
    play,
    popcount,
)
from king.rules import NO_BOYS, NO_KING, NO_LAST_TWO, NO_QUEENS, NO_TRICKS, TRUMPS

__all__ = ["KERNEL", "enumerate_value", "policy_move", "solve", "solve_moves"]

NEG_INF = -(1 << 40)
POS_INF = 1 << 40


# -- a fast policy -------------------------------------------------------------------


def _rank(card: int) -> int:
    return card % 13


def _outstanding_above(card: int, gone: int) -> int:
    """The cards of ``card``'s suit above it that have not been seen (``gone`` holds
    the cards played and in one's own hand)."""
    suit = card // 13
    above = SUITS[suit] & ~((np.int64(2) << card) - 1)
    return above & ~gone


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


# -- the exact solver ----------------------------------------------------------------


def _mix(value: int) -> int:
    value ^= (value >> 33) & 0x7FFFFFFF
    value *= -49064778989728563  # 0xff51afd7ed558ccd as int64
    value ^= (value >> 29) & 0x7FFFFFFFF
    value *= -4265267296055464877  # 0xc4ceb9fe1a85ec53 as int64
    value ^= (value >> 32) & 0xFFFFFFFF
    return value


def _key(state: Any, contract: int) -> int:
    """A trick's start up to equivalent ranks: for each suit, who holds each card still
    out, in rank order, and which of them are penalty cards; and the leader.  The cards
    played are gone and only the order of those left decides a trick, so positions that
    differ only in which of the low cards are gone share one entry (as a bridge solver
    keys on relative ranks)."""
    penalty = PENALTY[contract]
    out = state[0] | state[1] | state[2] | state[3]
    key = _mix(state[S_LEADER] + 0x9E3779B97F4A7C1)
    for suit in range(4):
        field = out & SUITS[suit]
        code = 1
        while field != 0:
            card = lowest(field)
            bit = np.int64(1) << card
            field ^= bit
            owner = 0
            for seat in range(1, 4):
                if state[seat] & bit:
                    owner = seat
            code = (code << 3) | (owner << 1) | ((penalty >> card) & 1)
        key = _mix(key ^ (code + (suit + 1) * 0x9E3779B1))
    return key


# Per-depth frame of the iterative search.
F_ALPHA, F_BETA, F_ALPHA0, F_BETA0, F_BEST, F_MOVES, F_FIRST = 0, 1, 2, 3, 4, 5, 6
F_KEY, F_SLOT, F_START, F_MAX, F_SO_FAR = 7, 8, 9, 10, 11
FRAME_SIZE = 12


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
        key = _key(state, contract)
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
    moves = distinct(legal_cards, earlier, PENALTY[contract])
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


def _table_bits(state: Any) -> int:
    """A transposition table big enough for the tricks left, and no bigger."""
    return min(18, 8 + 13 - state[S_TRICKS])


def _guess(state: Any, me: int, contract: int, trump: int, flags: int) -> int:
    """A first guess of the value: the quick policy playing every seat to the end."""
    child = state.copy()
    while not child[S_OVER]:
        play(child, policy_move(child, contract, trump, flags), contract, trump, flags)
    return child[S_POINTS + me]


def _mtdf(
    stack: Any, frames: Any, me: int, contract: int, trump: int, flags: int, guess: int,
    tt_key: Any, tt_low: Any, tt_high: Any, counter: Any,
) -> int:  # fmt: skip
    """The exact value of ``stack[0]`` by zero-window searches that close in on it from
    ``guess`` (MTD(f)): each window is one point wide, so most of the tree is cut, and
    the table keeps what each search learnt for the next."""
    lower = NEG_INF
    upper = POS_INF
    value = guess
    while lower < upper:
        beta = value + 1 if value == lower else value
        value = _search(
            stack, frames, me, contract, trump, flags, beta - 1, beta, tt_key, tt_low,
            tt_high, counter,
        )  # fmt: skip
        if value < beta:
            upper = value
        else:
            lower = value
    return value


def solve(state: Any, me: int, contract: int, trump: int, flags: int) -> tuple[int, int]:
    """The exact value of ``state`` for seat ``me`` (its final points in this deal) when
    it plays its best and the three others play as one side to minimise it (paranoid:
    the others as a coalition), and the nodes searched."""
    stack = np.empty((60, STATE_SIZE), dtype=np.int64)
    frames = np.empty((60, FRAME_SIZE), dtype=np.int64)
    stack[0] = state
    size = 1 << _table_bits(state)
    tt_key = np.zeros(size, dtype=np.int64)
    tt_low = np.zeros(size, dtype=np.int64)
    tt_high = np.zeros(size, dtype=np.int64)
    counter = np.zeros(1, dtype=np.int64)
    guess = _guess(state, me, contract, trump, flags)
    value = _mtdf(
        stack, frames, me, contract, trump, flags, guess, tt_key, tt_low, tt_high, counter
    )
    return value, counter[0]


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
        guess = _guess(stack[0], me, contract, trump, flags)
        out[card] = _mtdf(
            stack, frames, me, contract, trump, flags, guess, tt_key, tt_low, tt_high, counter
        )
    return counter[0]


def enumerate_value(state: Any, me: int, contract: int, trump: int, flags: int) -> int:
    """The same value as :func:`solve` by plain enumeration: every legal card at every
    node, no bounds, no table, no ordering (the reference the solver is checked against;
    only for small endings)."""
    stack = np.empty((60, STATE_SIZE), dtype=np.int64)
    moves = np.zeros(60, dtype=np.int64)
    best = np.zeros(60, dtype=np.int64)
    stack[0] = state
    depth = 0
    fresh = True
    while True:
        here = stack[depth]
        if fresh:
            if here[S_OVER]:
                value = here[S_POINTS + me]
                if depth == 0:
                    return value
                depth -= 1
                fresh = False
                if stack[depth][S_TURN] == me:
                    best[depth] = max(best[depth], value)
                else:
                    best[depth] = min(best[depth], value)
                continue
            moves[depth] = legal_now(here, contract, trump, flags)
            best[depth] = NEG_INF if here[S_TURN] == me else POS_INF
        if moves[depth] != 0:
            card = lowest(moves[depth])
            moves[depth] &= ~(np.int64(1) << card)
            stack[depth + 1] = here
            play(stack[depth + 1], card, contract, trump, flags)
            depth += 1
            fresh = True
            continue
        value = best[depth]
        if depth == 0:
            return value
        depth -= 1
        fresh = False
        if stack[depth][S_TURN] == me:
            best[depth] = max(best[depth], value)
        else:
            best[depth] = min(best[depth], value)


#: The functions :mod:`king.bots.compiled` compiles (in this order).
KERNEL = (
    _rank,
    _outstanding_above,
    policy,
    _policy_lead_negative,
    _policy_trumps,
    policy_move,
    _mix,
    _key,
    _enter,
    _leave,
    _absorb,
    _search,
    _table_bits,
    _guess,
    _mtdf,
    solve,
    solve_moves,
    enumerate_value,
)
