"""An exact solver for the end of a deal: paranoid alpha-beta (one seat against the
other three) with a transposition table, over :mod:`king.bots.position`; quick rules
order its moves (the seat's high cards first, what hurts the seat most for the
others).

The readable reference of the engine's ``engine/solver.c`` (:mod:`king.bots.engine`),
which is what runs (no bot plays with it by default: the search bot's endgame is the
best reply to rule play).
``tests/bots/test_kernel.py`` checks its values against brute force.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from king.bots.position import (
    F_FORCED,
    PENALTY,
    POP13,
    S_COUNT,
    S_LEADER,
    S_LED,
    S_OVER,
    S_PLAYED,
    S_POINTS,
    S_TOP,
    S_TOP_SEAT,
    S_TRICK,
    S_TRICKS,
    S_TURN,
    STATE_SIZE,
    SUITS,
    UNIT,
    distinct,
    highest,
    legal,
    legal_now,
    lowest,
    play,
    popcount,
    squeezed,
)
from king.rules import NO_BOYS, NO_KING, NO_LAST_TWO, NO_QUEENS, NO_TRICKS, TRUMPS

__all__ = [
    "enumerate_value",
    "policy_move",
    "solve",
    "solve_in",
    "solve_moves",
    "solve_sized",
]

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
    the trick and the cards played.  It makes the solver's first guess of the value
    (and the benchmark's positions); it no longer orders the search (see
    :func:`seat_move`)."""
    if popcount(legal_cards) == 1:
        return lowest(legal_cards)
    gone = played | hand
    if contract == TRUMPS:
        return _policy_trumps(hand, legal_cards, led, top, count, gone, trump)
    penalty = PENALTY[contract]
    if led < 0:
        return _policy_lead_negative(hand, legal_cards, gone, contract, penalty, tricks_done)
    if (legal_cards & SUITS[led]) != 0:
        return _policy_follow_negative(
            legal_cards, trick, led, top, count, contract, penalty, tricks_done
        )
    return _policy_discard_negative(hand, legal_cards, gone, contract, penalty)


def _policy_follow_negative(
    legal_cards: int, trick: int, led: int, top: int, count: int, contract: int, penalty: int,
    tricks_done: int,
) -> int:  # fmt: skip
    """Following suit in a negative contract: duck under the top as high as possible,
    else take the trick with the highest card."""
    follow = legal_cards & SUITS[led]
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


def _policy_discard_negative(
    hand: int, legal_cards: int, gone: int, contract: int, penalty: int
) -> int:
    """Void in the led suit in a negative contract: shed the most dangerous card."""
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
        return _policy_lead_trumps(legal_cards, gone, trump)
    top_is_trump = top // 13 == trump and led != trump
    if (legal_cards & SUITS[led]) != 0:
        return _policy_follow_trumps(legal_cards, led, top, count, gone, top_is_trump)
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


def _policy_lead_trumps(legal_cards: int, gone: int, trump: int) -> int:
    """Leading in Trumps: cash a sure winner (trumps first while others may hold
    trumps), else lead low from the longest side suit."""
    trump_suit = SUITS[trump]
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


def _policy_follow_trumps(
    legal_cards: int, led: int, top: int, count: int, gone: int, top_is_trump: bool
) -> int:
    """Following suit in Trumps: win as cheaply as is sure, else play low."""
    follow = legal_cards & SUITS[led]
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


def _lowest_rank(cards: int) -> int:
    """The card of lowest rank, whatever its suit."""
    best = -1
    while cards != 0:
        card = lowest(cards)
        cards &= ~(np.int64(1) << card)
        if best < 0 or card % 13 < best % 13:
            best = card
    return best


def _highest_rank(cards: int) -> int:
    """The card of highest rank, whatever its suit (of equal ranks, the later suit)."""
    best = -1
    while cards != 0:
        card = lowest(cards)
        cards &= ~(np.int64(1) << card)
        if best < 0 or card % 13 >= best % 13:
            best = card
    return best


def _highest_of_shortest(cards: int, hand: int) -> int:
    """The highest of ``cards`` in the suit where ``hand`` is shortest (of equal
    lengths, the suit whose highest card ranks higher)."""
    best = -1
    best_length = 99
    for suit in range(4):
        field = cards & SUITS[suit]
        if field != 0:
            length = popcount(hand & SUITS[suit])
            if length < best_length or (length == best_length and highest(field) % 13 > best % 13):
                best_length = length
                best = highest(field)
    return best


def seat_move(stack: Any, depth: int, moves: int, contract: int) -> int:
    """The next card to try for the seat the solver plays for: its highest card (in
    a negative contract, leading its highest rank, following its highest of the suit,
    discarding a penalty card, else the highest of its shortest suit; in Trumps its
    highest rank, but its lowest when it cannot follow).  Not what a player would
    choose, but the hardest searches are the seat proving that it can hold a score
    against every defence, and its high cards first make those proofs far smaller than
    its quick policy's ducking (0.77x the nodes over 1,000 endings of 8 cards, 0.70x at
    the 99th percentile; in Trumps 0.85x)."""
    leading = stack[depth, S_COUNT] == 0
    following = not leading and moves & SUITS[stack[depth, S_LED]] != 0
    if contract == TRUMPS:
        return _highest_rank(moves) if leading or following else _lowest_rank(moves)
    if leading:
        return _highest_rank(moves)
    if following:
        return highest(moves)
    danger = moves & PENALTY[contract]
    if danger != 0:
        return highest(danger)
    return _highest_of_shortest(moves, stack[depth, stack[depth, S_TURN]])


def coalition_move(stack: Any, depth: int, moves: int, me: int, contract: int, trump: int) -> int:
    """The first card to try for one of the three who play against ``me`` in the
    solver's search: what hurts ``me`` most at a glance (in a negative contract, let
    ``me`` win the trick and feed it penalty cards; in Trumps, take the trick from it)."""
    count = stack[depth, S_COUNT]
    top = stack[depth, S_TOP]
    me_played = (me - stack[depth, S_LEADER]) % 4 < count
    winning_me = me_played and stack[depth, S_TOP_SEAT] == me
    penalty = PENALTY[contract]
    if count == 0:
        return highest(moves) if contract == TRUMPS else _lowest_rank(moves)
    # The cards that would not take the trick from the card on top: all but its suit's
    # higher ones and, unless it is a trump itself, the trumps.
    top_suit = top // 13
    beating = SUITS[top_suit] & ~((np.int64(2) << top) - 1)
    if trump >= 0 and trump != top_suit:
        beating |= SUITS[trump]
    under = moves & ~beating
    if contract == TRUMPS:
        if winning_me and under != moves:
            return lowest(moves & ~under)  # the cheapest card that takes it from me
        return lowest(moves) if me_played else highest(moves)
    if winning_me:
        if under & penalty:
            return highest(under & penalty)  # a penalty card on my trick
        return highest(under) if under else highest(moves)
    if me_played:
        return highest(moves)  # one of us takes it: shed a high card
    if under:
        if highest(under) // 13 != stack[depth, S_LED]:  # not following: shed a safe high card
            safe = under & ~penalty
            return highest(safe) if safe else highest(under)
        return highest(under)  # duck as high as still ducks, so that I may take it
    return lowest(moves)


# -- the exact solver ----------------------------------------------------------------


def _mix(value: int) -> int:
    value ^= (value >> 33) & 0x7FFFFFFF
    value *= -49064778989728563  # 0xff51afd7ed558ccd as int64
    value ^= (value >> 29) & 0x7FFFFFFFF
    value *= -4265267296055464877  # 0xc4ceb9fe1a85ec53 as int64
    value ^= (value >> 32) & 0xFFFFFFFF
    return value


def _key(stack: Any, depth: int, contract: int) -> int:
    """A position up to equivalent ranks: for each suit, where each card still in play
    is (which hand, or on the table), in rank order, and which of them are penalty
    cards; the trick's leader, its cards so far, the suit led and who is winning it.
    Which seat put a losing card on the table, and which low cards are gone, change
    nothing to come, so positions that differ only in those share one entry (as a
    bridge solver keys on relative ranks)."""
    penalty = PENALTY[contract]
    trick = stack[depth, S_TRICK]
    out = stack[depth, 0] | stack[depth, 1] | stack[depth, 2] | stack[depth, 3] | trick
    key = _mix(stack[depth, S_LEADER] + 0x9E3779B97F4A7C1)
    if trick != 0:
        key = _mix(
            key ^ (stack[depth, S_COUNT] + 8 * stack[depth, S_LED] + 64 * stack[depth, S_TOP_SEAT])
        )
    for suit in range(4):
        shift = 13 * suit
        field = (out >> shift) & 0x1FFF
        # How many cards of the suit are out, and which of them (in rank order) seats
        # 1-3 hold and which are penalty cards; seat 0 holds the rest.
        code = (
            POP13[field]
            | squeezed((stack[depth, 1] >> shift) & 0x1FFF, field) << 4
            | squeezed((stack[depth, 2] >> shift) & 0x1FFF, field) << 17
            | squeezed((stack[depth, 3] >> shift) & 0x1FFF, field) << 30
            | squeezed((penalty >> shift) & 0x1FFF, field) << 43
        )
        key = _mix(key ^ (code + (suit + 1) * 0x9E3779B1))
        if trick != 0:  # which of them are on the table
            key = _mix(key ^ squeezed((trick >> shift) & 0x1FFF, field) + 0x5851F42D)
    return key if key != 0 else 1  # 0 marks an empty row


# Per-depth frame of the iterative search, kept in the same row as the position at
# that depth, after it (one array for both: every array a helper is given costs two
# atomic reference counts).
F_ALPHA, F_BETA, F_ALPHA0, F_BETA0 = STATE_SIZE, STATE_SIZE + 1, STATE_SIZE + 2, STATE_SIZE + 3
F_BEST, F_MOVES, F_FIRST, F_KEY = STATE_SIZE + 4, STATE_SIZE + 5, STATE_SIZE + 6, STATE_SIZE + 7
F_NODES, F_START, F_MAX, F_SO_FAR = STATE_SIZE + 8, STATE_SIZE + 9, STATE_SIZE + 10, STATE_SIZE + 11
F_LAST, F_BEST_CARD = STATE_SIZE + 12, STATE_SIZE + 13
ROW = STATE_SIZE + 14
#: Rows of the search's stack: a position and its frame for each card still to play.
STACK_ROWS = 60
# A row of the transposition table is two words: the position's key, and T_DATA
# packing the bounds on its future points (16 bits each, offset by BOUND_ZERO; the
# ends of the range mean no bound), its best card last time (as its suit and its rank
# among the cards left, plus one; 7 bits) and above them the nodes spent on it
# (saturating).  A key lives in the bucket of BUCKET rows its low bits name (64
# bytes: one cache line); a full bucket gives up its cheapest row (the one whose loss
# costs least to search again).
T_KEY, T_DATA = 0, 1
TABLE_ROW = 2
BOUND_ZERO = 1 << 15
BOUND_MASK = (1 << 16) - 1
NO_LOW = 0
NO_HIGH = BOUND_MASK
HIGH_SHIFT = 16
MOVE_SHIFT = 32
MOVE_BITS = 7
MOVE_MASK = (1 << MOVE_BITS) - 1
WORK_SHIFT = MOVE_SHIFT + MOVE_BITS
MOST_WORK = (1 << 24) - 1
EMPTY_DATA = NO_HIGH << HIGH_SHIFT
BUCKET = 4
# The table starts small (an easy ending touches little memory and zeroes none) and
# doubles whenever the search has spent GROW_AFTER nodes per row, up to MOST_ROWS
# (8 MB; twice as many rows saved 0.1% of the nodes on the hardest endings and no
# time), so that a hard ending keeps what it learnt.
FIRST_ROWS = 1 << 9
MOST_ROWS = 1 << 19
GROW_AFTER = 4


def _relative(stack: Any, depth: int, card: int) -> int:
    """A card as its suit and its rank among that suit's cards still out (16 apart)."""
    out = stack[depth, 0] | stack[depth, 1] | stack[depth, 2] | stack[depth, 3]
    suit = card // 13
    below = out & SUITS[suit] & ((np.int64(1) << card) - 1)
    return suit * 16 + popcount(below)


def _card_of(stack: Any, depth: int, code: int) -> int:
    """The card that :func:`_relative` wrote as ``code`` in this position (-1: none)."""
    out = stack[depth, 0] | stack[depth, 1] | stack[depth, 2] | stack[depth, 3]
    field = out & SUITS[code // 16]
    rank = code % 16
    while field != 0:
        card = lowest(field)
        if rank == 0:
            return card
        rank -= 1
        field &= ~(np.int64(1) << card)
    return -1


def _find(table: Any, key: int) -> int:
    """The row holding ``key`` (-1: none); a key lives in the bucket of ``BUCKET`` rows
    its low bits name."""
    base = key & (table.shape[0] - BUCKET)
    for slot in range(base, base + BUCKET):
        if table[slot, T_KEY] == key:
            return slot
    return -1


def _place(table: Any, key: int) -> int:
    """The row for ``key``: its own, else an empty one of its bucket, else the one of
    its bucket that cost the fewest nodes, emptied for it."""
    base = key & (table.shape[0] - BUCKET)
    victim = base
    for slot in range(base, base + BUCKET):
        row_key = table[slot, T_KEY]
        if row_key == key:
            return slot
        if row_key == 0:
            victim = slot
            break
        if table[slot, T_DATA] < table[victim, T_DATA]:
            victim = slot
    table[victim, T_KEY] = key
    table[victim, T_DATA] = EMPTY_DATA
    return victim


def _grow(space: Any, rows: int) -> int:
    """Double the table in the first ``rows`` rows of ``space``, every row moved to its
    bucket in the larger one; its new size."""
    old = space[:rows].copy()
    bigger = space[: 2 * rows]
    bigger[:] = 0
    for slot in range(rows):
        key = old[slot, T_KEY]
        if key != 0:
            bigger[_place(bigger, key)] = old[slot]
    return 2 * rows


def _enter(
    stack: Any, depth: int, me: int, contract: int, trump: int, flags: int,
    table: Any,
) -> tuple[bool, int]:  # fmt: skip
    """Open the node at ``depth``: settle it at once from bounds or the table (``True,
    value``), or set up its frame for the move loop (``False, 0``)."""
    if stack[depth, S_OVER]:
        return True, stack[depth, S_POINTS + me]
    if stack[depth, S_TRICKS] == 12:  # the last trick: every card is forced
        return True, _last_trick(stack, depth, me, contract, trump, flags)
    alpha = stack[depth, F_ALPHA]
    beta = stack[depth, F_BETA]
    so_far = stack[depth, S_POINTS + me]
    low_bound, high_bound = _bounds(stack, depth, so_far, contract)
    if low_bound == high_bound:  # nothing left to win or lose
        return True, so_far
    if low_bound >= beta:
        return True, low_bound
    if high_bound <= alpha:
        return True, high_bound
    at_start = stack[depth, S_COUNT] == 0
    stack[depth, F_START] = 1 if at_start else 0
    stack[depth, F_SO_FAR] = so_far
    hinted = -1
    # The table first: most trick starts the search comes back to are settled there.
    if at_start:
        settled, value, alpha, beta, hinted = _probe(
            stack, depth, contract, table, so_far, alpha, beta
        )
        if settled:
            return True, value
    if contract != TRUMPS and _takes_no_more(stack, depth, me, contract, flags):
        return True, so_far
    stack[depth, F_ALPHA] = alpha
    stack[depth, F_BETA] = beta
    stack[depth, F_ALPHA0] = alpha
    stack[depth, F_BETA0] = beta
    _open_moves(stack, depth, me, contract, trump, flags, hinted)
    return False, 0


def _last_trick(stack: Any, depth: int, me: int, contract: int, trump: int, flags: int) -> int:
    """The value of a position in the last trick, where every card is forced: played
    out in the row after ``depth``."""
    last = _copied(stack, depth)
    while not last[S_OVER]:
        play(last, lowest(last[last[S_TURN]]), contract, trump, flags)
    return last[S_POINTS + me]


def _bounds(stack: Any, depth: int, so_far: int, contract: int) -> tuple[int, int]:
    """Quick bounds on the value at ``depth`` (``me`` has ``so_far``): what is still to
    be won or lost caps it either way.  Equal when nothing is left to lose."""
    left = 13 - stack[depth, S_TRICKS]
    if contract == TRUMPS:
        return so_far, so_far + 50 * left
    if contract == NO_TRICKS:
        return so_far - 50 * left, so_far
    if contract == NO_LAST_TWO:
        return so_far - 180 * min(left, 2), so_far
    remaining = PENALTY[contract] & ~(stack[depth, S_PLAYED] & ~stack[depth, S_TRICK])
    return so_far + UNIT[contract] * popcount(remaining), so_far


def _probe(
    stack: Any, depth: int, contract: int, table: Any, so_far: int, alpha: int, beta: int
) -> tuple[bool, int, int, int, int]:
    """Look the trick start at ``depth`` up in the table (its key kept in the frame):
    settled by its bounds (``True, value``), or the window narrowed by them and the card
    that was best here last time (-1: none) as ``False, 0, alpha, beta, hinted``."""
    key = _key(stack, depth, contract)
    stack[depth, F_KEY] = key
    slot = _find(table, key)
    if slot < 0:
        return False, 0, alpha, beta, -1
    data = table[slot, T_DATA]
    low = NEG_INF
    if data & BOUND_MASK != NO_LOW:
        low = (data & BOUND_MASK) - BOUND_ZERO + so_far
    high = POS_INF
    if (data >> HIGH_SHIFT) & BOUND_MASK != NO_HIGH:
        high = ((data >> HIGH_SHIFT) & BOUND_MASK) - BOUND_ZERO + so_far
    if low >= beta:
        return True, low, alpha, beta, -1
    if high <= alpha:
        return True, high, alpha, beta, -1
    if low > alpha:
        alpha = low
    if high < beta:
        beta = high
    if alpha >= beta:
        return True, alpha, alpha, beta, -1
    move = ((data >> MOVE_SHIFT) & MOVE_MASK) - 1
    hinted = _card_of(stack, depth, move) if move >= 0 else -1
    return False, 0, alpha, beta, hinted


def _open_moves(
    stack: Any, depth: int, me: int, contract: int, trump: int, flags: int, hinted: int
) -> None:
    """Set up the move loop of the node at ``depth``: its moves (equivalent cards once),
    whose side it is, and the card to try first."""
    turn = stack[depth, S_TURN]
    trick = stack[depth, S_TRICK]
    played = stack[depth, S_PLAYED]
    legal_cards = legal(
        stack[depth, turn], trick, stack[depth, S_LED], played, contract, trump, flags
    )
    earlier = played & ~trick
    moves = legal_cards
    if legal_cards & (legal_cards - 1) != 0:  # more than one card
        moves = distinct(legal_cards, earlier, PENALTY[contract])
    maximizing = turn == me
    stack[depth, F_MAX] = 1 if maximizing else 0
    stack[depth, F_BEST] = NEG_INF if maximizing else POS_INF
    stack[depth, F_BEST_CARD] = -1
    # The card that was best here last time goes first; else the quick policy's for me,
    # and for the others what hurts me most.
    if moves & (moves - 1) == 0:  # one card to play
        first = lowest(moves)
    elif hinted >= 0 and moves >> hinted & 1:
        first = hinted
    elif maximizing:
        first = seat_move(stack, depth, moves, contract)
    else:
        first = coalition_move(stack, depth, moves, me, contract, trump)
    if moves >> first & 1:
        moves &= ~(np.int64(1) << first)
    else:
        first = -1
    stack[depth, F_FIRST] = first
    stack[depth, F_MOVES] = moves


def _takes_no_more(stack: Any, depth: int, me: int, contract: int, flags: int) -> bool:
    """Whether ``me`` can be made to take no more tricks in a negative contract (no
    trumps, so only a higher card of the suit led beats a card).

    In every suit, the others hold only cards above the ``k`` lowest of ``me``'s, ``k``
    the fewer of the two sides' cards there (all of ``me``'s when a forced penalty card
    may take its choice of discard away): a trick they lead in it is theirs, ``me``
    following with its lowest card, and they run out of the suit before those cards do,
    whatever they discard; ``me`` discards its highest cards.  And ``me`` does not take
    this trick: it may lead into a suit they hold, or the trick is led and ``me`` has
    already lost it or has a card of the suit led under its top (its lowest, which it
    plays: the rest are judged without it), or none."""
    mine = stack[depth, me]
    others = (stack[depth, 0] | stack[depth, 1] | stack[depth, 2] | stack[depth, 3]) & ~mine
    count = stack[depth, S_COUNT]
    strict = flags & F_FORCED
    played = (me - stack[depth, S_LEADER]) % 4 < count  # already, to this trick
    following = 0
    if count > 0:
        if stack[depth, S_TOP_SEAT] == me:
            return False
        if not played:
            following = mine & SUITS[stack[depth, S_LED]]
            if following != 0 and not strict:
                mine &= ~(np.int64(1) << lowest(following))  # what it follows with
    both = 0  # the suits both sides hold
    for suit in range(4):
        held = mine & SUITS[suit]
        against = others & SUITS[suit]
        if held != 0 and against != 0:
            both |= SUITS[suit]
            if not _stays_under(held, against, strict):
                return False
    if count == 0:
        if stack[depth, S_LEADER] != me:
            return True
        leads = legal(mine, 0, -1, stack[depth, S_PLAYED], contract, -1, flags)
        return leads & both != 0
    if played:
        return True  # not on top: it only sinks as the trick goes on
    return following == 0 or lowest(following) < stack[depth, S_TOP]


def _stays_under(held: int, against: int, strict: int) -> bool:
    """Whether ``me``'s cards of a suit (``held``) never win a trick the others lead in
    it (``against``, theirs): all of them below the others' lowest when ``strict``, else
    the ``k`` lowest, ``k`` the fewer of the two sides' cards."""
    if highest(held) <= lowest(against):
        return True
    if strict:
        return False
    guarded = held
    for _ in range(popcount(held) - popcount(against)):
        guarded &= ~(np.int64(1) << highest(guarded))
    return highest(guarded) <= lowest(against)


def _leave(stack: Any, depth: int, table: Any, nodes: int) -> int:
    """Close the node at ``depth``, its moves done: store its bound and best card in the
    table, adding the nodes spent under it (``nodes`` is the count so far); its value."""
    best = stack[depth, F_BEST]
    if stack[depth, F_START]:
        key = stack[depth, F_KEY]
        slot = _place(table, key)
        data = table[slot, T_DATA]
        work = min((data >> WORK_SHIFT) + nodes - stack[depth, F_NODES], MOST_WORK)
        data = (data & ((np.int64(1) << WORK_SHIFT) - 1)) | (work << WORK_SHIFT)
        bound = best - stack[depth, F_SO_FAR] + BOUND_ZERO  # inside the 16 bits
        if best <= stack[depth, F_ALPHA0]:
            data = (data & ~(np.int64(BOUND_MASK) << HIGH_SHIFT)) | (bound << HIGH_SHIFT)
        elif best >= stack[depth, F_BETA0]:
            data = (data & ~np.int64(BOUND_MASK)) | bound
        else:
            both = np.int64(BOUND_MASK) | np.int64(BOUND_MASK) << HIGH_SHIFT
            data = (data & ~both) | bound | (bound << HIGH_SHIFT)
        card = stack[depth, F_BEST_CARD]
        if card >= 0:
            move = _relative(stack, depth, card) + 1
            data = (data & ~(np.int64(MOVE_MASK) << MOVE_SHIFT)) | (move << MOVE_SHIFT)
        table[slot, T_DATA] = data
    return best


def _absorb(stack: Any, depth: int, value: int) -> None:
    """Take a child's value into the frame at ``depth``: the best so far and the
    window."""
    if stack[depth, F_MAX]:
        if value > stack[depth, F_BEST]:
            stack[depth, F_BEST] = value
            stack[depth, F_BEST_CARD] = stack[depth, F_LAST]
        if stack[depth, F_BEST] > stack[depth, F_ALPHA]:
            stack[depth, F_ALPHA] = stack[depth, F_BEST]
    else:
        if value < stack[depth, F_BEST]:
            stack[depth, F_BEST] = value
            stack[depth, F_BEST_CARD] = stack[depth, F_LAST]
        if stack[depth, F_BEST] < stack[depth, F_BETA]:
            stack[depth, F_BETA] = stack[depth, F_BEST]


def _copied(stack: Any, depth: int) -> Any:
    """The position at ``depth`` copied into the row after it, that row returned (copied
    field by field: a whole-row copy would make views of the stack, and every view
    costs two atomic reference counts)."""
    for field in range(STATE_SIZE):
        stack[depth + 1, field] = stack[depth, field]
    return stack[depth + 1]


def _search(
    stack: Any,
    me: int,
    contract: int,
    trump: int,
    flags: int,
    alpha: int,
    beta: int,
    space: Any,
    rows: int,
    counter: Any,
) -> tuple[int, int]:
    """Alpha-beta from ``stack[0]`` for ``me`` (maximising) against the other three
    (minimising), with a transposition table at trick starts (the first ``rows`` rows
    of ``space``): the value and the table's size (larger when it grew).  Iterative,
    with an explicit stack of positions and their frames, so that it compiles and
    caches cleanly."""
    table = space[:rows]
    depth = 0
    # The card that last cut the search off at each depth, tried early there (killers).
    killers = np.full(64, -1, dtype=np.int64)
    stack[0, F_ALPHA] = alpha
    stack[0, F_BETA] = beta
    value = 0
    entering = True
    while True:
        # A node is settled on entering it, or closed once its moves are done; either
        # way its value goes back to its parent, whose moves go on.
        settled = False
        if entering:
            counter[0] += 1
            settled, value = _enter(stack, depth, me, contract, trump, flags, table)
            if not settled:
                stack[depth, F_NODES] = counter[0]
        if not settled:
            # The frame is read and written in place (stack[depth, ...]): a view of its
            # row would cost two atomic reference counts a node.
            card = -1
            if stack[depth, F_ALPHA] < stack[depth, F_BETA]:
                if stack[depth, F_FIRST] >= 0:
                    card = stack[depth, F_FIRST]
                    stack[depth, F_FIRST] = -1
                elif stack[depth, F_MOVES] != 0:
                    card = _later_card(stack, depth, killers[depth], contract)
            if card >= 0:
                stack[depth, F_LAST] = card
                play(_copied(stack, depth), card, contract, trump, flags)
                stack[depth + 1, F_ALPHA] = stack[depth, F_ALPHA]
                stack[depth + 1, F_BETA] = stack[depth, F_BETA]
                depth += 1
                entering = True
                continue
            value = _leave(stack, depth, table, counter[0])
            if counter[0] > GROW_AFTER * rows and rows < space.shape[0]:
                rows = _grow(space, rows)
                table = space[:rows]
        if depth == 0:
            return value, rows
        depth -= 1
        _absorb(stack, depth, value)
        if stack[depth, F_ALPHA] >= stack[depth, F_BETA]:
            killers[depth] = stack[depth, F_LAST]
        entering = False


def _later_card(stack: Any, depth: int, killer: int, contract: int) -> int:
    """The next of the moves left at ``depth`` (after the first), taken out of them:
    ``killer`` (the card that last cut the search off at this depth; -1: none) while it
    is one of them, else for ``me`` :func:`seat_move`, for the others the lowest (the
    coalition's later cards in card order: cheaper, and no more nodes).  The killer
    comes as a number: an array given to a helper, even inlined, costs two atomic
    reference counts a node."""
    moves = stack[depth, F_MOVES]
    if killer >= 0 and moves >> killer & 1:
        card = killer
    elif stack[depth, F_MAX]:
        card = seat_move(stack, depth, moves, contract)
    else:
        card = lowest(moves)
    stack[depth, F_MOVES] = moves & ~(np.int64(1) << card)
    return card


def _guess(state: Any, me: int, contract: int, trump: int, flags: int) -> int:
    """A first guess of the value: ``me`` playing the quick policy to the end, the
    others what hurts ``me`` most at a glance."""
    rows = np.empty((1, STATE_SIZE), dtype=np.int64)
    rows[0] = state
    child = rows[0]
    while not child[S_OVER]:
        if child[S_TURN] == me:
            card = policy_move(child, contract, trump, flags)
        else:
            legal_cards = legal_now(child, contract, trump, flags)
            card = coalition_move(rows, 0, legal_cards, me, contract, trump)
        play(child, card, contract, trump, flags)
    return child[S_POINTS + me]


def _mtdf(
    stack: Any, me: int, contract: int, trump: int, flags: int, guess: int,
    space: Any, rows: int, counter: Any,
) -> tuple[int, int]:  # fmt: skip
    """The exact value of ``stack[0]`` by zero-window searches that close in on it from
    ``guess`` (MTD(f)): each window is one point wide, so most of the tree is cut, and
    the table keeps what each search learnt for the next.  The value and the table's
    size."""
    lower = NEG_INF
    upper = POS_INF
    value = guess
    while lower < upper:
        beta = value + 1 if value == lower else value
        value, rows = _search(
            stack, me, contract, trump, flags, beta - 1, beta, space, rows, counter
        )
        if value < beta:
            upper = value
        else:
            lower = value
    return value, rows


def solve(state: Any, me: int, contract: int, trump: int, flags: int) -> tuple[int, int]:
    """The exact value of ``state`` for seat ``me`` (its final points in this deal) when
    it plays its best and the three others play as one side to minimise it (paranoid:
    the others as a coalition), and the nodes searched."""
    return solve_sized(state, me, contract, trump, flags, FIRST_ROWS, MOST_ROWS)


def solve_sized(
    state: Any, me: int, contract: int, trump: int, flags: int, first_rows: int,
    most_rows: int,
) -> tuple[int, int]:  # fmt: skip
    """As :func:`solve`, with a table of ``first_rows`` rows that may grow to
    ``most_rows`` (powers of two, at least ``BUCKET``): the value does not depend on
    them, only the nodes searched."""
    stack = np.empty((STACK_ROWS, ROW), dtype=np.int64)
    space = np.empty((most_rows, TABLE_ROW), dtype=np.int64)
    return solve_in(stack, space, state, me, contract, trump, flags, first_rows)


def solve_in(
    stack: Any, space: Any, state: Any, me: int, contract: int, trump: int, flags: int,
    first_rows: int,
) -> tuple[int, int]:  # fmt: skip
    """As :func:`solve_sized`, in memory the caller gives: ``stack`` (``STACK_ROWS`` ×
    ``ROW``) and ``space``, as many table rows as the table may grow to (neither need
    be cleared)."""
    stack[0, :STATE_SIZE] = state
    space[:first_rows] = 0
    counter = np.zeros(1, dtype=np.int64)
    guess = _guess(state, me, contract, trump, flags)
    value, _ = _mtdf(stack, me, contract, trump, flags, guess, space, first_rows, counter)
    return value, counter[0]


def solve_moves(state: Any, me: int, contract: int, trump: int, flags: int, out: Any) -> int:
    """Solve every legal card of ``me`` (to move in ``state``): ``out[card]`` gets the
    exact value after playing it.  Returns the nodes searched."""
    stack = np.empty((STACK_ROWS, ROW), dtype=np.int64)
    space = np.empty((MOST_ROWS, TABLE_ROW), dtype=np.int64)
    rows = FIRST_ROWS
    space[:rows] = 0
    counter = np.zeros(1, dtype=np.int64)
    cards = legal_now(state, contract, trump, flags)
    while cards != 0:
        card = lowest(cards)
        cards &= ~(np.int64(1) << card)
        stack[0, :STATE_SIZE] = state
        play(stack[0], card, contract, trump, flags)
        guess = _guess(stack[0, :STATE_SIZE], me, contract, trump, flags)
        out[card], rows = _mtdf(stack, me, contract, trump, flags, guess, space, rows, counter)
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
        over = here[S_OVER] != 0
        if fresh and not over:
            moves[depth] = legal_now(here, contract, trump, flags)
            best[depth] = NEG_INF if here[S_TURN] == me else POS_INF
        fresh = False
        if not over and moves[depth] != 0:
            card = lowest(moves[depth])
            moves[depth] &= ~(np.int64(1) << card)
            stack[depth + 1] = here
            play(stack[depth + 1], card, contract, trump, flags)
            depth += 1
            fresh = True
            continue
        value = here[S_POINTS + me] if over else best[depth]
        if depth == 0:
            return value
        depth -= 1
        if stack[depth][S_TURN] == me:
            best[depth] = max(best[depth], value)
        else:
            best[depth] = min(best[depth], value)
