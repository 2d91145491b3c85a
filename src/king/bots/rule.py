"""``rule``: a heuristic player that counts cards and plays each contract to its purpose.

The bot sees only its :class:`~king.view.SeatView`.  Each decision reads the view once
into integer masks (cards still out, suits each seat has shown void, penalty cards taken)
and scores the legal cards with a few cheap formulas, so a decision costs tens of
microseconds: a search bot can run thousands of rule-policy playouts.

Negative contracts share one cost model: a card's cost is the chance it wins this trick
times what the trick is expected to hold, minus the *danger* of keeping it (the chance
it wins a trick later times what such a trick would cost).  That one formula ducks under
the current winner with the highest card that still loses, sheds the most dangerous card
when void, wins with the highest card when it must win, and leads low cards that others
must cover; a few contract-specific terms (flushing the holder of a penalty card, the
last two tricks) sit on top.  Trumps is played with the usual rules of thumb: draw
trumps when holding the top one, cash sure winners, ruff with the lowest trump that
wins, never waste a high card on a trick already lost.  Declaring lives in
:mod:`king.bots.rule_declare`.
"""

from __future__ import annotations

from king.bots.base import Bot, BotSpecError
from king.bots.rule_declare import choose_declaration
from king.cards import DECK, SUIT_MASKS, Card
from king.rules import PENALTY_MASKS, POINTS_PER_UNIT, Declaration
from king.view import SeatView

__all__ = ["RuleBot"]

# Contract codes, as in Contract.code.
_TRUMPS, _NO_TRICKS, _NO_HEARTS, _NO_QUEENS, _NO_BOYS, _NO_KING, _NO_LAST_TWO = range(7)

#: For each card id: the cards of its suit above it, and below it.
_ABOVE: tuple[int, ...] = tuple(SUIT_MASKS[c // 13] & ~((2 << c) - 1) for c in range(52))
_BELOW: tuple[int, ...] = tuple(SUIT_MASKS[c // 13] & ((1 << c) - 1) for c in range(52))
_HEARTS = SUIT_MASKS[1]
_KH = 1 << 24
_AH = 1 << 25
#: Queens (rank 12) and boys (kings and jacks) as masks, and per suit.
_QUEEN_OF = tuple(1 << (13 * s + 10) for s in range(4))
_KING_OF = tuple(1 << (13 * s + 11) for s in range(4))
_JACK_OF = tuple(1 << (13 * s + 9) for s in range(4))
_QUEENS = sum(_QUEEN_OF)
_BOYS = sum(_KING_OF) | sum(_JACK_OF)
#: The penalty cards of each contract code, and what one unit of penalty costs.
_PENALTY = PENALTY_MASKS
_UNIT = tuple(abs(points) for points in POINTS_PER_UNIT)
#: Each low card of mine under a high one makes the high one this much less likely to
#: be forced to win a trick; playing the low card loses that guard.
_GUARD = (1.0, 0.7, 0.7, 0.55, 0.55, 0.7, 0.7)
_KEEP = 0.5
#: How much each unseen higher card lowers the chance that a card wins a trick later.
_COVER = (2.0, 0.8, 2.0, 2.0, 2.0, 2.0, 2.0)
_UNGUARD = tuple(1.0 / g - 1.0 for g in _GUARD)


def _ids(mask: int) -> list[int]:
    """The card ids in a mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _low(mask: int) -> int:
    """The id of the lowest card of a non-empty mask."""
    return (mask & -mask).bit_length() - 1


def _top(mask: int) -> int:
    """The id of the highest card of a non-empty mask."""
    return mask.bit_length() - 1


class _Table:
    """One decision's picture of the deal, read once from the view as masks."""

    __slots__ = (
        "code",
        "hand",
        "later",
        "led",
        "legal",
        "me",
        "opp_out",
        "pen",
        "trick_mask",
        "trick_no",
        "trump",
        "unseen",
        "voids",
        "win_card",
    )

    def __init__(self, view: SeatView) -> None:
        declaration = view.declaration
        assert declaration is not None
        self.code = declaration.contract.code
        trump = -1 if declaration.trump is None else int(declaration.trump)
        self.trump = trump
        self.me = me = view.seat
        self.hand = hand = view.hand.mask
        self.legal = view.legal_cards.mask
        played = 0
        voids = [0, 0, 0, 0]
        for trick in view.tricks:
            ids = [card.id for card in trick.cards]
            played |= (1 << ids[0]) | (1 << ids[1]) | (1 << ids[2]) | (1 << ids[3])
            _note_voids(voids, trick.leader, ids, trump)
        current = view.current_trick
        trick_mask = 0
        self.led = -1
        self.win_card = -1
        if current:
            ids = [card.id for _, card in current]
            for card_id in ids:
                trick_mask |= 1 << card_id
            played |= trick_mask
            _note_voids(voids, current[0][0], ids, trump)
            led = self.led = ids[0] // 13
            winning = trick_mask & SUIT_MASKS[trump] if trump >= 0 else 0
            if not winning:
                winning = trick_mask & SUIT_MASKS[led]
            self.win_card = _top(winning)
        self.trick_mask = trick_mask
        self.later = [(me + k) & 3 for k in range(1, 4 - len(current))]
        self.trick_no = len(view.tricks)
        self.unseen = ((1 << 52) - 1) & ~hand & ~played
        self.voids = voids
        self.pen = _PENALTY[self.code]
        #: Per suit, how many opponents have not shown a void in it.
        self.opp_out = [
            sum(1 for seat in range(4) if seat != me and not voids[seat] >> s & 1) for s in range(4)
        ]


def _note_voids(voids: list[int], leader: int, ids: list[int], trump: int) -> None:
    """Record the suits each seat has shown it lacks in one (possibly partial) trick."""
    led = ids[0] // 13
    for position in range(1, len(ids)):
        suit = ids[position] // 13
        if suit != led:
            seat = (leader + position) & 3
            voids[seat] |= 1 << led
            if trump >= 0 and suit != trump:
                voids[seat] |= 1 << trump


# -- negative contracts ---------------------------------------------------------------


def _p_win(t: _Table, card: int, seats: list[int]) -> float:
    """The chance that none of ``seats`` plays above ``card`` in its suit: they duck when
    they can, so only a seat holding nothing but higher cards is forced over."""
    above = t.unseen & _ABOVE[card]
    if not above:
        return 1.0
    suit = card // 13
    bit = 1 << suit
    followers = sum(1 for seat in seats if not t.voids[seat] & bit)
    if not followers:
        return 1.0
    below = (t.unseen & _BELOW[card]).bit_count()
    if not below:
        return 0.0
    high = above.bit_count()
    share = (high + below) / max(1, t.opp_out[suit])
    forced = float((high / (high + below)) ** share)
    return float((1.0 - forced) ** followers)


def _void_chance(t: _Table, seat: int, suit: int) -> float:
    """How likely ``seat`` holds no card of ``suit`` (1 when it has shown so)."""
    if t.voids[seat] >> suit & 1:
        return 1.0
    out = (t.unseen & SUIT_MASKS[suit]).bit_count()
    holders = t.opp_out[suit]
    if holders <= 1:
        return 0.0 if out else 1.0
    return float((1.0 - 1.0 / holders) ** out)


def _stake(t: _Table, card: int) -> float:
    """What a trick that ``card`` wins is expected to cost, counting ``card`` itself."""
    code = t.code
    bit = 1 << card
    suit = card // 13
    unseen = t.unseen
    if code == _NO_TRICKS:
        return 50.0
    if code == _NO_LAST_TWO:
        return 90.0
    if code == _NO_HEARTS:
        out = (unseen & _HEARTS).bit_count()
        if bit & _HEARTS:
            return 30.0 + 24.0 * min(3, out)
        return 15.0 if out else 0.0
    if code == _NO_QUEENS:
        value = 100.0 if bit & _QUEENS else 0.0
        queen = _QUEEN_OF[suit]
        if unseen & queen and card > _top(queen):
            value += 70.0
        return value + 10.0 * (unseen & _QUEENS & ~queen).bit_count()
    if code == _NO_BOYS:
        value = 60.0 if bit & _BOYS else 0.0
        value += 35.0 * (unseen & _BOYS & _BELOW[card]).bit_count()
        return value + 5.0 * (unseen & _BOYS & ~SUIT_MASKS[suit]).bit_count()
    # No King.
    if bit == _KH:
        return 320.0
    if not unseen & _KH:
        return 0.0
    return 240.0 if bit == _AH else 30.0


def _danger(t: _Table, card: int) -> float:
    """The expected future cost of keeping ``card``: how likely it wins a trick later
    (few unseen cards above it, many below, few low cards of mine to duck with) times
    what that trick would cost."""
    high = (t.unseen & _ABOVE[card]).bit_count()
    below = (t.unseen & _BELOW[card]).bit_count()
    chance = (below + 1) / (below + _COVER[t.code] * high + 1) if high else 0.95
    chance *= _GUARD[t.code] ** (t.hand & _BELOW[card]).bit_count()
    return chance * _stake(t, card)


def _shed_value(t: _Table, card: int) -> float:
    """How much playing ``card`` lowers the danger of my hand: its own danger, less
    what my higher cards of the suit lose when this lower card no longer guards them."""
    value = _danger(t, card)
    unguard = _UNGUARD[t.code]
    higher = t.hand & _ABOVE[card]
    while higher:
        top = _top(higher)
        higher ^= 1 << top
        value -= _danger(t, top) * unguard
    return value


def _trick_cost(t: _Table, card: int) -> float:
    """What winning the current trick with ``card`` is expected to cost: the penalty in
    it and what the seats after me may add (penalty cards ducked under my card or
    discarded on it); in No Last Two, the last two tricks and the lead to them."""
    code = t.code
    if code == _NO_TRICKS:
        return 50.0
    if code == _NO_LAST_TWO:
        if t.trick_no >= 11:
            return 180.0
        return 70.0 if t.trick_no == 10 else 0.0
    pen = t.pen
    unseen_pen = t.unseen & pen
    count = float(((t.trick_mask | 1 << card) & pen).bit_count())
    if unseen_pen:
        suit = card // 13 if t.led < 0 else t.led
        in_suit = unseen_pen & SUIT_MASKS[suit]
        elsewhere = (unseen_pen & ~SUIT_MASKS[suit]).bit_count()
        below = (in_suit & _BELOW[card]).bit_count()
        for seat in t.later:
            void = _void_chance(t, seat, suit)
            if code == _NO_HEARTS and suit == 1:
                count += 1.0 - void
            elif below:
                count += (1.0 - void) * 1.6 * below / max(1.0, t.opp_out[suit] - 0.5)
            if elsewhere:
                count += void * min(1.0, 0.5 * elsewhere)
    return _UNIT[code] * count


def _play_negative(t: _Table) -> int:
    """The legal card with the lowest expected cost in a negative contract."""
    legal = t.legal
    leading = t.led < 0
    following = not leading and bool(legal & SUIT_MASKS[t.led])
    unit = _UNIT[t.code]
    pen = t.pen
    last_two = t.code == _NO_LAST_TWO
    if last_two:
        safest = _safest(t)
        keep = sum(danger for danger, _ in safest[:2])
        keep_more = sum(danger for danger, _ in safest[:3])
    best = -1
    best_cost = 0.0
    for card in _ids(legal):
        bit = 1 << card
        if leading:
            chance = _p_win(t, card, t.later)
        elif following:
            chance = 0.0 if card < t.win_card else _p_win(t, card, t.later)
        else:
            chance = 0.0
        if last_two:
            # Playing one of the two cards safest to keep brings in the third safest.
            kept = keep
            for danger, safe in safest[:2]:
                if safe == card:
                    kept = keep_more - danger
            cost = _KEEP * (kept - keep) - _shed_value(t, card)
        else:
            cost = -_shed_value(t, card)
        if chance > 0.0:
            cost += chance * _trick_cost(t, card)
        if not leading and not following and bit & pen:
            cost -= 0.5 * unit
        if leading:
            cost -= _lead_bonus(t, card)
        if best < 0 or cost < best_cost - 1e-9:
            best, best_cost = card, cost
    return best


def _safest(t: _Table) -> list[tuple[float, int]]:
    """No Last Two: my three cards safest to keep, with their danger.  The two safest
    are the ones to hold for the last two tricks; any other card can be shed before
    then at no cost."""
    return sorted((_danger(t, card), card) for card in _ids(t.hand))[:3]


def _lead_bonus(t: _Table, card: int) -> float:
    """Extra value of leading ``card``: it may flush a penalty card out of another hand,
    and leading the last card of a short suit makes a void to discard on later."""
    code = t.code
    suit = card // 13
    suit_mask = SUIT_MASKS[suit]
    unseen = t.unseen
    bonus = 0.0
    flush = unseen & t.pen & suit_mask & _ABOVE[card]
    if flush and (code == _NO_HEARTS or not t.hand & t.pen & suit_mask):
        # The holder of a penalty card above my card may be forced to play it; worth
        # more when I hold nothing above it that could catch it later.
        mine_above = t.hand & _ABOVE[_low(flush)]
        weight = 0.12 if mine_above else 0.25
        if code == _NO_HEARTS:
            weight = 0.3
        bonus += weight * _UNIT[code] * min(2, flush.bit_count())
    if (t.hand & suit_mask).bit_count() == 1 and t.hand & ~suit_mask:
        bonus += 0.04 * _UNIT[code] if unseen & suit_mask else 0.0
    return bonus


# -- Trumps ---------------------------------------------------------------------------


def _play_trumps(t: _Table) -> int:
    """Play to win tricks: follow cheaply, ruff cheaply, lead winners."""
    legal = t.legal
    if t.led < 0:
        return _lead_trumps(t)
    trumps = SUIT_MASKS[t.trump]
    led_mask = SUIT_MASKS[t.led]
    win = t.win_card
    last = not t.later
    follow = legal & led_mask
    if follow:
        if t.led != t.trump and (1 << win) & trumps:
            return _low(follow)  # already ruffed: keep the high cards
        beats = follow & _ABOVE[win]
        if not beats:
            return _low(follow)
        if last:
            return _low(beats)
        out = t.unseen & led_mask
        sure = beats & ~((2 << _top(out)) - 1) if out else beats
        if _ruff_threat(t, t.led):
            return _low(follow)
        if sure:
            return _low(sure)
        top = _top(beats)
        if len(t.later) == 1:
            return top
        return _low(follow)
    ruffs = legal & trumps
    if ruffs:
        over = ruffs & _ABOVE[win] if (1 << win) & trumps else ruffs
        if not over:
            return _low(ruffs)
        if last:
            return _low(over)
        if _ruff_threat(t, t.led):
            out = t.unseen & trumps
            sure = over & ~((2 << _top(out)) - 1) if out else over
            if sure:
                return _low(sure)
        return _low(over)
    return _trump_discard(t, legal)


def _ruff_threat(t: _Table, suit: int) -> bool:
    """Whether a seat still to play this trick may trump ``suit``: it has shown a void
    in it and not in trumps, while trumps are still out."""
    if suit == t.trump or not t.unseen & SUIT_MASKS[t.trump]:
        return False
    bit = 1 << suit
    tbit = 1 << t.trump
    return any(t.voids[seat] & bit and not t.voids[seat] & tbit for seat in t.later)


def _trick_chance(t: _Table, card: int) -> float:
    """Roughly how likely a side card makes a trick later in Trumps."""
    high = (t.unseen & _ABOVE[card]).bit_count()
    if t.trump >= 0 and card // 13 == t.trump:
        return 1.0 / (1 + high)
    return 1.0 / (1 + 2 * high) if high < 3 else 0.0


def _trump_discard(t: _Table, legal: int) -> int:
    """Throw the card least likely to take a trick, from the shortest suit."""
    best = -1
    best_key = (0.0, 0)
    for card in _ids(legal):
        key = (_trick_chance(t, card), (t.hand & SUIT_MASKS[card // 13]).bit_count())
        if best < 0 or key < best_key:
            best, best_key = card, key
    return best


def _lead_trumps(t: _Table) -> int:
    """Lead in Trumps: draw trumps holding the top one, cash safe winners, lead a
    singleton to ruff later, else a low card of the longest side suit."""
    legal = t.legal
    trump = t.trump
    trumps = SUIT_MASKS[trump]
    mine = legal & trumps
    out = t.unseen & trumps
    if mine and out and _top(mine) > _top(out) and mine.bit_count() * 2 >= out.bit_count():
        return _top(mine)
    best = -1
    best_safety = 0.0
    for suit in range(4):
        if suit == trump:
            continue
        have = legal & SUIT_MASKS[suit]
        if not have:
            continue
        top = _top(have)
        suit_out = t.unseen & SUIT_MASKS[suit]
        if suit_out & _ABOVE[top]:
            continue
        safety = 1.0
        if out:
            for seat in range(4):
                if seat == t.me or t.voids[seat] >> trump & 1:
                    continue
                safety *= 1.0 - _void_chance(t, seat, suit)
        if safety > best_safety:
            best, best_safety = top, safety
    if best >= 0 and best_safety >= 0.5:
        return best
    if mine and not out:
        return _top(mine)
    side = legal & ~trumps
    if not side:
        return _low(legal) if not out or _top(legal) < _top(out) else _top(legal)
    if t.hand & trumps:
        for suit in range(4):
            have = side & SUIT_MASKS[suit]
            if have and have.bit_count() == 1 and t.unseen & SUIT_MASKS[suit] & _ABOVE[_top(have)]:
                return _top(have)
    longest = max(
        (side & SUIT_MASKS[s] for s in range(4) if side & SUIT_MASKS[s]),
        key=lambda m: (m.bit_count(), _top(m)),
    )
    return _low(longest)


# -- the bot --------------------------------------------------------------------------


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
    """The id of the card the rule policy plays in this view (the fast entry point
    for search playouts)."""
    legal = view.legal_cards.mask
    if not legal & (legal - 1):
        return _top(legal)
    table = _Table(view)
    if table.code == _TRUMPS:
        return _play_trumps(table)
    return _play_negative(table)


def build(seed: int, options: dict[str, str]) -> RuleBot:
    if options:
        raise BotSpecError(f"the rule bot takes no options, not {', '.join(options)}")
    return RuleBot(seed)
