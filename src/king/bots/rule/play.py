"""The rule bot's card play, written once: the formulas of the ``rule`` bot, read from a
position of :mod:`king.bots.position`.

The ``rule`` bot runs these functions as ordinary Python on its view's position
(:func:`king.bots.position.from_view`), here and in the browser's offline game.  The
search bot runs their port in the engine, ``engine/rule_play.c`` (:mod:`king.bots.engine`),
as the policy of its rollouts (every seat plays the rule card to the end of the deal,
tens of thousands of times per second) and as its model of the other players: function
for function and expression for expression, held by the tests to the same card at every
position, and ``engine/tables.h`` takes its tables from this module.

Negative contracts share one cost model: a card's cost is the chance it wins this trick
times what the trick is expected to hold, minus the *danger* of keeping it (the chance
it wins a trick later times what such a trick would cost).  That one formula ducks under
the current winner with the highest card that still loses, sheds the most dangerous card
when void, wins with the highest card when it must win, and leads low cards that others
must cover; a few contract-specific terms (flushing the holder of a penalty card, the
last two tricks) sit on top.  Trumps is played with the usual rules of thumb: draw
trumps when holding the top one, cash sure winners, ruff with the lowest trump that
wins, never waste a high card on a trick already lost.

Every function takes the seat to move's picture of the deal as plain numbers: its hand,
the cards it has not seen (``unseen``), the suits each seat has shown void (the
position's ``S_VOIDS``, four bits a seat in ``voids``), how many other seats may still
hold each suit (four bits a suit in ``opp_out``) and how many seats are still to play
to this trick (``n_later``, the seats after ``me``): integers, as the C port takes them.
Floating-point expressions are evaluated in one order, so the two give bit-for-bit the
same numbers.
"""

from __future__ import annotations

from typing import Any

from king.bots.arrays import array, float64, int64, zeros
from king.bots.position import (
    S_COUNT,
    S_LED,
    S_OVER,
    S_PLAYED,
    S_POINTS,
    S_TOP,
    S_TRICK,
    S_TRICKS,
    S_TURN,
    S_VOIDS,
    SUITS,
    distinct,
    highest,
    legal_now,
    lowest,
    play,
    popcount,
)
from king.cards import SUIT_MASKS, Mask, Seat
from king.rules import (
    NO_BOYS,
    NO_HEARTS,
    NO_LAST_TWO,
    NO_QUEENS,
    NO_TRICKS,
    PENALTY_MASKS,
    POINTS_PER_UNIT,
    TRUMPS,
)

__all__ = ["best_reply", "rule_card", "rule_playout"]

#: For each card id: the cards of its suit above it, and below it.
ABOVE = array([SUIT_MASKS[c // 13] & ~((2 << c) - 1) for c in range(52)], dtype=int64)
BELOW = array([SUIT_MASKS[c // 13] & ((1 << c) - 1) for c in range(52)], dtype=int64)
HEARTS = SUIT_MASKS[1]
KH = 1 << 24
AH = 1 << 25
#: Queens (rank 12) and boys (kings and jacks) as masks, and per suit.
QUEEN_OF = array([1 << (13 * s + 10) for s in range(4)], dtype=int64)
QUEENS = sum(1 << (13 * s + 10) for s in range(4))
BOYS = sum(1 << (13 * s + 11) for s in range(4)) | sum(1 << (13 * s + 9) for s in range(4))
#: The penalty cards of each contract code, and what one unit of penalty costs.
PENALTY = array(PENALTY_MASKS, dtype=int64)
UNIT = array([abs(points) for points in POINTS_PER_UNIT], dtype=int64)
#: Each low card of mine under a high one makes the high one this much less likely to
#: be forced to win a trick; playing the low card loses that guard.
GUARD = array((1.0, 0.7, 0.7, 0.55, 0.55, 0.7, 0.7), dtype=float64)
KEEP = 0.5
#: How much each unseen higher card lowers the chance that a card wins a trick later.
COVER = array((2.0, 0.8, 2.0, 2.0, 2.0, 2.0, 2.0), dtype=float64)
UNGUARD = array([1.0 / g - 1.0 for g in (1.0, 0.7, 0.7, 0.55, 0.55, 0.7, 0.7)], dtype=float64)
FULL = (1 << 52) - 1
#: Powers the policy takes at every card, computed once with the same operations (so
#: the same bits) as the formulas they stand for: ``pow`` was a quarter of a playout.
#: GUARDED[code, n] = GUARD[code] ** n; UNHELD[holders, n] = (1 - 1 / holders) ** n;
#: FORCED[high, below, holders] = (high / (high + below)) ** ((high + below) / holders).
GUARDED = array([[g ** float(n) for n in range(14)] for g in GUARD], dtype=float64)
UNHELD = array(
    [[(1.0 - 1.0 / h) ** float(n) if h else 1.0 for n in range(14)] for h in range(4)],
    dtype=float64,
)
FORCED = array(
    [
        [
            [(hi / (hi + lo)) ** ((hi + lo) / h) if h and hi + lo else 0.0 for h in range(4)]
            for lo in range(14)
        ]
        for hi in range(14)
    ],
    dtype=float64,
)


# -- what a seat knows ---------------------------------------------------------------


def _seat_voids(voids: int, seat: Seat) -> int:
    """The suits ``seat`` has shown void (a bit per suit) out of the packed ``voids``."""
    return (voids >> (4 * seat)) & 15


def _later_seat(me: int, i: int) -> int:
    """The ``i``-th seat to play after ``me`` in this trick (0: the next one)."""
    return (me + i + 1) & 3


def _holders(opp_out: int, suit: int) -> int:
    """How many other seats may still hold ``suit``, out of the packed ``opp_out``."""
    return (opp_out >> (4 * suit)) & 15


def _void_chance(voids: int, unseen: int, opp_out: int, seat: Seat, suit: int) -> float:
    """How likely ``seat`` holds no card of ``suit`` (1 when it has shown so)."""
    if _seat_voids(voids, seat) >> suit & 1:
        return 1.0
    out = popcount(unseen & SUITS[suit])
    holders = _holders(opp_out, suit)
    if holders <= 1:
        return 0.0 if out else 1.0
    return float(UNHELD[holders, out])


# -- negative contracts ---------------------------------------------------------------


def _p_win(card: int, unseen: int, voids: int, opp_out: int, me: int, n_later: int) -> float:
    """The chance that none of the later seats plays above ``card`` in its suit."""
    above = unseen & ABOVE[card]
    if not above:
        return 1.0
    suit = card // 13
    bit = 1 << suit
    followers = 0
    for i in range(n_later):
        if not _seat_voids(voids, _later_seat(me, i)) & bit:
            followers += 1
    if not followers:
        return 1.0
    below = popcount(unseen & BELOW[card])
    if not below:
        return 0.0
    high = popcount(above)
    forced = float(FORCED[high, below, max(1, _holders(opp_out, suit))])
    return float((1.0 - forced) ** float(followers))


def _stake(code: int, card: int, unseen: int) -> float:
    """What a trick that ``card`` wins is expected to cost, counting ``card`` itself."""
    bit = int64(1) << card
    suit = card // 13
    if code == NO_TRICKS:
        return 50.0
    if code == NO_LAST_TWO:
        return 90.0
    if code == NO_HEARTS:
        out = popcount(unseen & HEARTS)
        if bit & HEARTS:
            return 30.0 + 24.0 * min(3, out)
        return 15.0 if out else 0.0
    if code == NO_QUEENS:
        value = 100.0 if bit & QUEENS else 0.0
        queen = QUEEN_OF[suit]
        if unseen & queen and card > 13 * suit + 10:
            value += 70.0
        return value + 10.0 * popcount(unseen & QUEENS & ~queen)
    if code == NO_BOYS:
        value = 60.0 if bit & BOYS else 0.0
        value += 35.0 * popcount(unseen & BOYS & BELOW[card])
        return value + 5.0 * popcount(unseen & BOYS & ~SUITS[suit])
    if bit == KH:
        return 320.0
    if not unseen & KH:
        return 0.0
    return 240.0 if bit == AH else 30.0


def _danger(code: int, card: int, hand: int, unseen: int) -> float:
    """The expected future cost of keeping ``card``."""
    high = popcount(unseen & ABOVE[card])
    below = popcount(unseen & BELOW[card])
    chance = (below + 1) / (below + COVER[code] * high + 1) if high else 0.95
    chance *= GUARDED[code, popcount(hand & BELOW[card])]
    return float(chance * _stake(code, card, unseen))


def _shed_value(code: int, card: int, hand: int, unseen: int) -> float:
    """How much playing ``card`` lowers the danger of the hand."""
    value = _danger(code, card, hand, unseen)
    unguard = UNGUARD[code]
    higher = hand & ABOVE[card]
    while higher:
        top = highest(higher)
        higher ^= int64(1) << top
        value -= _danger(code, top, hand, unseen) * unguard
    return value


def _trick_cost(
    code: int, card: int, unseen: int, voids: int, opp_out: int, me: int, n_later: int,
    trick_mask: Mask, trick_no: int, led: int,
) -> float:  # fmt: skip
    """What winning the current trick with ``card`` is expected to cost."""
    if code == NO_TRICKS:
        return 50.0
    if code == NO_LAST_TWO:
        if trick_no >= 11:
            return 180.0
        return 70.0 if trick_no == 10 else 0.0
    pen = PENALTY[code]
    unseen_pen = unseen & pen
    count = float(popcount((trick_mask | int64(1) << card) & pen))
    if unseen_pen:
        suit = card // 13 if led < 0 else led
        in_suit = unseen_pen & SUITS[suit]
        elsewhere = popcount(unseen_pen & ~SUITS[suit])
        below = popcount(in_suit & BELOW[card])
        for i in range(n_later):
            void = _void_chance(voids, unseen, opp_out, _later_seat(me, i), suit)
            if code == NO_HEARTS and suit == 1:
                count += 1.0 - void
            elif below:
                count += (1.0 - void) * 1.6 * below / max(1.0, _holders(opp_out, suit) - 0.5)
            if elsewhere:
                count += void * min(1.0, 0.5 * elsewhere)
    return float(UNIT[code] * count)


def _lead_bonus(code: int, card: int, hand: int, unseen: int) -> float:
    """Extra value of leading ``card``: flushing a penalty card, making a void."""
    suit = card // 13
    suit_mask = SUITS[suit]
    pen = PENALTY[code]
    bonus = 0.0
    flush = unseen & pen & suit_mask & ABOVE[card]
    if flush and (code == NO_HEARTS or not hand & pen & suit_mask):
        mine_above = hand & ABOVE[lowest(flush)]
        weight = 0.12 if mine_above else 0.25
        if code == NO_HEARTS:
            weight = 0.3
        bonus += weight * UNIT[code] * min(2, popcount(flush))
    if popcount(hand & suit_mask) == 1 and hand & ~suit_mask:
        bonus += 0.04 * UNIT[code] if unseen & suit_mask else 0.0
    return bonus


def _safest_three(code: int, hand: int, unseen: int) -> tuple[int, int, float, float, float, int]:
    """No Last Two: the three cards of ``hand`` safest to keep, by (danger, card id):
    the first two and the dangers of all three, and how many there are (up to three).
    Scalars: arrays made at every card cost more than the rest of it."""
    card0 = card1 = -1
    danger0 = danger1 = danger2 = 0.0
    n_safe = 0
    rest = hand
    while rest:
        card = lowest(rest)
        rest ^= 1 << card
        danger = _danger(code, card, hand, unseen)
        # Insert in order; ties keep the lower card first (it comes first).
        pos = n_safe
        if pos > 2 and danger < danger2:
            pos = 2
        if pos > 1 and danger < danger1:
            pos = 1
        if pos > 0 and danger < danger0:
            pos = 0
        if pos < 3:
            if pos <= 1 and n_safe >= 2:
                danger2 = danger1
            if pos == 0 and n_safe >= 1:
                danger1 = danger0
                card1 = card0
            if pos == 0:
                danger0 = danger
                card0 = card
            elif pos == 1:
                danger1 = danger
                card1 = card
            else:
                danger2 = danger
            n_safe = min(3, n_safe + 1)
    return card0, card1, danger0, danger1, danger2, n_safe


def _kept_dangers(
    n_safe: int, danger0: float, danger1: float, danger2: float
) -> tuple[float, float]:
    """The danger of the two safest cards kept for the last two tricks, and of the
    three (what is kept when one of the two is played now)."""
    keep = 0.0
    keep_more = 0.0
    if n_safe >= 1:
        keep += danger0
        keep_more += danger0
    if n_safe >= 2:
        keep += danger1
        keep_more += danger1
    if n_safe >= 3:
        keep_more += danger2
    return keep, keep_more


def _win_chance(
    card: int, leading: bool, following: bool, win_card: int, unseen: int, voids: int,
    opp_out: int, me: int, n_later: int,
) -> float:  # fmt: skip
    """The chance that ``card`` wins the current trick (none when it cannot follow
    suit, or follows under the winning card)."""
    if leading or (following and card >= win_card):
        return _p_win(card, unseen, voids, opp_out, me, n_later)
    return 0.0


def _play_negative(
    code: int, legal: int, hand: int, unseen: int, voids: int, opp_out: int, me: int,
    n_later: int, trick_mask: Mask, trick_no: int, led: int, win_card: int,
) -> int:  # fmt: skip
    """The legal card with the lowest expected cost in a negative contract."""
    leading = led < 0
    following = not leading and (legal & SUITS[led]) != 0
    unit = UNIT[code]
    pen = PENALTY[code]
    last_two = code == NO_LAST_TWO
    # No Last Two: the three cards safest to keep.
    card0 = card1 = -1
    danger0 = danger1 = danger2 = 0.0
    n_safe = 0
    if last_two:
        card0, card1, danger0, danger1, danger2, n_safe = _safest_three(code, hand, unseen)
    keep, keep_more = _kept_dangers(n_safe, danger0, danger1, danger2)
    best = -1
    best_cost = 0.0
    rest = legal
    while rest:
        card = lowest(rest)
        bit = 1 << card
        rest ^= bit
        chance = _win_chance(
            card, leading, following, win_card, unseen, voids, opp_out, me, n_later
        )
        if last_two:
            kept = keep
            if n_safe >= 1 and card0 == card:
                kept = keep_more - danger0
            elif n_safe >= 2 and card1 == card:
                kept = keep_more - danger1
            cost = KEEP * (kept - keep) - _shed_value(code, card, hand, unseen)
        else:
            cost = -_shed_value(code, card, hand, unseen)
        if chance > 0.0:
            cost += chance * _trick_cost(
                code, card, unseen, voids, opp_out, me, n_later, trick_mask, trick_no, led
            )
        if not leading and not following and bit & pen:
            cost -= 0.5 * unit
        if leading:
            cost -= _lead_bonus(code, card, hand, unseen)
        if best < 0 or cost < best_cost - 1e-9:
            best = card
            best_cost = cost
    return best


# -- Trumps ---------------------------------------------------------------------------


def _ruff_threat(suit: int, trump: int, unseen: int, voids: int, me: int, n_later: int) -> bool:
    """Whether a seat still to play this trick may trump ``suit``."""
    if suit == trump or not unseen & SUITS[trump]:
        return False
    bit = 1 << suit
    tbit = 1 << trump
    for i in range(n_later):
        shown = _seat_voids(voids, _later_seat(me, i))
        if shown & bit and not shown & tbit:
            return True
    return False


def _trick_chance(card: int, trump: int, unseen: int) -> float:
    """Roughly how likely a side card makes a trick later in Trumps."""
    high = popcount(unseen & ABOVE[card])
    if trump >= 0 and card // 13 == trump:
        return 1.0 / (1 + high)
    return 1.0 / (1 + 2 * high) if high < 3 else 0.0


def _trump_discard(legal: int, hand: int, trump: int, unseen: int) -> int:
    """Throw the card least likely to take a trick, from the shortest suit."""
    best = -1
    best_chance = 0.0
    best_length = 0
    rest = legal
    while rest:
        card = lowest(rest)
        rest ^= 1 << card
        chance = _trick_chance(card, trump, unseen)
        length = popcount(hand & SUITS[card // 13])
        if best < 0 or chance < best_chance or (chance == best_chance and length < best_length):
            best = card
            best_chance = chance
            best_length = length
    return best


def _lead_trumps(
    legal: int, hand: int, me: int, trump: int, unseen: int, voids: int, opp_out: int
) -> int:
    """Lead in Trumps: draw trumps, cash safe winners, lead a singleton, else low."""
    trumps = SUITS[trump]
    mine = legal & trumps
    out = unseen & trumps
    if mine and out and highest(mine) > highest(out) and popcount(mine) * 2 >= popcount(out):
        return highest(mine)
    best, best_safety = _safest_winner(legal, me, trump, unseen, voids, opp_out)
    if best >= 0 and best_safety >= 0.5:
        return best
    if mine and not out:
        return highest(mine)
    side = legal & ~trumps
    if not side:
        return lowest(legal) if not out or highest(legal) < highest(out) else highest(legal)
    if hand & trumps:
        single = _singleton_loser(side, unseen)
        if single >= 0:
            return single
    return _low_from_longest(side)


def _safest_winner(
    legal: int, me: int, trump: int, unseen: int, voids: int, opp_out: int
) -> tuple[int, float]:
    """The side suit top card that no unseen card beats, least likely to be ruffed
    (-1: none), and the chance that nobody ruffs it."""
    out = unseen & SUITS[trump]
    best = -1
    best_safety = 0.0
    for suit in range(4):
        if suit == trump:
            continue
        have = legal & SUITS[suit]
        if not have:
            continue
        top = highest(have)
        if unseen & SUITS[suit] & ABOVE[top]:
            continue
        safety = 1.0
        if out:
            for seat in range(4):
                if seat == me or _seat_voids(voids, seat) >> trump & 1:
                    continue
                safety *= 1.0 - _void_chance(voids, unseen, opp_out, seat, suit)
        if safety > best_safety:
            best = top
            best_safety = safety
    return best, best_safety


def _singleton_loser(side: int, unseen: int) -> int:
    """A side card alone in its suit that an unseen card beats, to lead so as to ruff
    that suit later (-1: none)."""
    for suit in range(4):
        have = side & SUITS[suit]
        if have and popcount(have) == 1 and unseen & SUITS[suit] & ABOVE[highest(have)]:
            return highest(have)
    return -1


def _low_from_longest(side: int) -> int:
    """The lowest card of the longest suit of ``side`` (of equal lengths, the suit with
    the higher top card)."""
    longest = 0
    longest_count = -1
    longest_top = -1
    for suit in range(4):
        have = side & SUITS[suit]
        if not have:
            continue
        count = popcount(have)
        top = highest(have)
        if count > longest_count or (count == longest_count and top > longest_top):
            longest = have
            longest_count = count
            longest_top = top
    return lowest(longest)


def _play_trumps(
    legal: int, hand: int, me: int, trump: int, unseen: int, voids: int, opp_out: int,
    n_later: int, led: int, win: int,
) -> int:  # fmt: skip
    """Play to win tricks: follow cheaply, ruff cheaply, lead winners."""
    if led < 0:
        return _lead_trumps(legal, hand, me, trump, unseen, voids, opp_out)
    if legal & SUITS[led]:
        return _follow_trumps(legal, me, trump, unseen, voids, n_later, led, win)
    if legal & SUITS[trump]:
        return _ruff(legal, me, trump, unseen, voids, n_later, led, win)
    return _trump_discard(legal, hand, trump, unseen)


def _follow_trumps(
    legal: int, me: int, trump: int, unseen: int, voids: int, n_later: int, led: int,
    win: int,
) -> int:  # fmt: skip
    """Follow suit in Trumps: win with the lowest card sure to hold, else play low (or,
    second to last, high)."""
    follow = legal & SUITS[led]
    if led != trump and (int64(1) << win) & SUITS[trump]:
        return lowest(follow)
    beats = follow & ABOVE[win]
    if not beats:
        return lowest(follow)
    if n_later == 0:
        return lowest(beats)
    out = unseen & SUITS[led]
    sure = beats & ~((int64(2) << highest(out)) - 1) if out else beats
    if _ruff_threat(led, trump, unseen, voids, me, n_later):
        return lowest(follow)
    if sure:
        return lowest(sure)
    if n_later == 1:
        return highest(beats)
    return lowest(follow)


def _ruff(
    legal: int, me: int, trump: int, unseen: int, voids: int, n_later: int, led: int,
    win: int,
) -> int:  # fmt: skip
    """Trump a trick led in another suit: the lowest trump that takes it (one sure to
    hold when a later seat may overruff)."""
    trumps = SUITS[trump]
    ruffs = legal & trumps
    over = ruffs & ABOVE[win] if (int64(1) << win) & trumps else ruffs
    if not over:
        return lowest(ruffs)
    if n_later == 0:
        return lowest(over)
    if _ruff_threat(led, trump, unseen, voids, me, n_later):
        out = unseen & trumps
        sure = over & ~((int64(2) << highest(out)) - 1) if out else over
        if sure:
            return lowest(sure)
    return lowest(over)


# -- the entry points -----------------------------------------------------------------


def rule_card(state: Any, contract: int, trump: int, flags: int) -> int:
    """The card the rule bot plays for the seat to move in ``state``."""
    legal = legal_now(state, contract, trump, flags)
    if not legal & (legal - 1):
        return highest(legal)
    me = state[S_TURN]
    hand = state[me]
    unseen = FULL & ~hand & ~state[S_PLAYED]
    count = state[S_COUNT]
    led = state[S_LED] if count else -1
    win = state[S_TOP] if count else -1
    n_later = 3 - count
    voids = 0
    for seat in range(4):
        voids |= state[S_VOIDS + seat] << (4 * seat)
    opp_out = 0
    for suit in range(4):
        for seat in range(4):
            if seat != me and not state[S_VOIDS + seat] >> suit & 1:
                opp_out += 1 << (4 * suit)
    if contract == TRUMPS:
        return _play_trumps(legal, hand, me, trump, unseen, voids, opp_out, n_later, led, win)
    return _play_negative(
        contract, legal, hand, unseen, voids, opp_out, me, n_later, state[S_TRICK],
        state[S_TRICKS], led, win,
    )  # fmt: skip


def rule_playout(state: Any, contract: int, trump: int, flags: int) -> None:
    """Play ``state`` to the end of the deal with the rule policy at every seat."""
    while not state[S_OVER]:
        play(state, rule_card(state, contract, trump, flags), contract, trump, flags)


def _others_play(state: Any, me: int, contract: int, trump: int, flags: int) -> None:
    """Let the other seats play their rule cards until it is ``me``'s turn or the end."""
    while not state[S_OVER] and state[S_TURN] != me:
        play(state, rule_card(state, contract, trump, flags), contract, trump, flags)


def best_reply(state: Any, me: int, contract: int, trump: int, flags: int, stack: Any) -> int:
    """``me``'s best final points from ``state`` when the other seats play the rule
    policy: every line of ``me``'s own cards is tried (equivalent cards once), the
    others' replies are the rule cards.  A search over ``me``'s choices only, so it
    stays small for the last few tricks; ``stack`` holds one position per card of
    ``me`` left (14 rows of ``STATE_SIZE``)."""
    _others_play(state, me, contract, trump, flags)
    if state[S_OVER]:
        return int(state[S_POINTS + me])
    masks = zeros(14, dtype=int64)
    best = zeros(14, dtype=int64)
    penalty = PENALTY[contract]
    stack[0] = state
    masks[0] = _choices(state, contract, trump, flags, penalty)
    best[0] = -(1 << 40)
    depth = 0
    result = best[0]
    while depth >= 0:
        if masks[depth] == 0:
            value = best[depth]
            depth -= 1
            if depth >= 0:
                best[depth] = max(best[depth], value)
            else:
                result = value
            continue
        card = lowest(masks[depth])
        masks[depth] ^= int64(1) << card
        child = stack[depth + 1]
        child[:] = stack[depth]
        play(child, card, contract, trump, flags)
        _others_play(child, me, contract, trump, flags)
        if child[S_OVER]:
            best[depth] = max(best[depth], child[S_POINTS + me])
            continue
        depth += 1
        masks[depth] = _choices(child, contract, trump, flags, penalty)
        best[depth] = -(1 << 40)
    return int(result)


def _choices(state: Any, contract: int, trump: int, flags: int, penalty: int) -> int:
    """The legal cards of the seat to move, equivalent ones counted once."""
    cards = legal_now(state, contract, trump, flags)
    return distinct(cards, state[S_PLAYED] & ~state[S_TRICK], penalty)
