"""How the ``rule`` bot declares: value the hand for every contract, then plan the game.

Each contract's value is a linear model on a few hand features (high cards, guards,
short suits, trump length…).  The weights were fitted by least squares on 16,000
random deals that four rule bots played out under every declaration, so a value is the
declarer's expected points with this very play policy (``BEST_NEGATIVE`` and the means
and spreads below come from the same deals).

Over the game every player owes two Trumps and three negative contracts, each negative
at most twice in all.  A choice is therefore worth its value now plus what the rest of
the player's declarations are expected to bring once it is made: the same kind of slot
later is worth the average of that kind plus the selection bonus of picking the best of
the hands still to come (the expected top ``k`` of ``r`` normal draws), and the negative
slots are worth more when more contracts are still open to choose from.  So a middling
hand early keeps its options, a scarce contract is kept for the hand that suits it, and
the last declarations simply take the best allowed value.
"""

from __future__ import annotations

from king.cards import SUIT_MASKS
from king.rules import Declaration
from king.view import SeatView

__all__ = ["choose_declaration", "declaration_values", "negative_features", "trump_features"]

_HEARTS = SUIT_MASKS[1]


def _rank_bit(suit: int, rank: int) -> int:
    """The mask of one card given as suit and rank (2-14)."""
    return 1 << (13 * suit + rank - 2)


def _count_ranks(hand: int, low: int, high: int) -> int:
    """How many cards of ranks ``low``..``high`` (inclusive) the hand holds."""
    field = ((1 << (high - 1)) - 1) ^ ((1 << (low - 2)) - 1)
    mask = field | field << 13 | field << 26 | field << 39
    return (hand & mask).bit_count()


def _suit_lengths(hand: int) -> list[int]:
    """The hand's length in each suit."""
    return [(hand & SUIT_MASKS[s]).bit_count() for s in range(4)]


def trump_features(hand: int, trump: int) -> tuple[float, ...]:
    """Features of a hand for Trumps in ``trump``: length and honours of the trump suit,
    side winners, and short side suits that let the trumps ruff."""
    lengths = _suit_lengths(hand)
    length = lengths[trump]
    honours = [float(bool(hand & _rank_bit(trump, r))) for r in (14, 13, 12, 11, 10)]
    aces = kings_with_ace = kings = queens = voids = singles = 0
    for suit in range(4):
        if suit == trump:
            continue
        ace = hand & _rank_bit(suit, 14)
        king = hand & _rank_bit(suit, 13)
        queen = hand & _rank_bit(suit, 12)
        aces += bool(ace)
        if king and ace:
            kings_with_ace += 1
        elif king and lengths[suit] >= 2:
            kings += 1
        if queen and (ace or king) and lengths[suit] >= 3:
            queens += 1
        voids += lengths[suit] == 0
        singles += lengths[suit] == 1
    ruffer = min(1.0, max(0, length - 2) / 3)
    return (
        1.0,
        float(length),
        float(max(0, length - 4)),
        *honours,
        float(aces),
        float(kings_with_ace),
        float(kings),
        float(queens),
        voids * ruffer,
        singles * ruffer,
    )


def negative_features(hand: int, code: int) -> tuple[float, ...]:
    """Features of a hand for the negative contract with this code: high and low cards,
    short suits to discard on, and the guards of the penalty cards."""
    lengths = _suit_lengths(hand)
    common = (
        1.0,
        float(_count_ranks(hand, 14, 14)),
        float(_count_ranks(hand, 13, 13)),
        float(_count_ranks(hand, 12, 12)),
        float(_count_ranks(hand, 11, 11)),
        float(_count_ranks(hand, 9, 10)),
        float(_count_ranks(hand, 2, 4)),
        float(sum(1 for n in lengths if n == 0)),
        float(sum(1 for n in lengths if n == 1)),
        float(max(lengths)),
    )
    return common + _specific(hand, code, lengths)


def _guard(hand: int, suit: int, rank: int) -> int:
    """How many cards of ``suit`` below ``rank`` the hand holds."""
    return (hand & SUIT_MASKS[suit] & (_rank_bit(suit, rank) - 1)).bit_count()


def _specific(hand: int, code: int, lengths: list[int]) -> tuple[float, ...]:
    """The contract-specific part of :func:`negative_features`."""
    if code == 1:
        return _no_tricks_features(hand)
    if code == 2:
        return _no_hearts_features(hand, lengths)
    if code == 3:
        return _no_queens_features(hand, lengths)
    if code == 4:
        return _no_boys_features(hand, lengths)
    if code == 5:
        return _no_king_features(hand, lengths)
    return _no_last_two_features(hand)


def _no_tricks_features(hand: int) -> tuple[float, ...]:
    """No Tricks: high cards not covered by low ones in the same suit."""
    exposed = 0
    for suit in range(4):
        mine = hand & SUIT_MASKS[suit]
        high = _count_ranks(mine, 11, 14)
        low = _count_ranks(mine, 2, 6)
        exposed += max(0, high - low)
    return (float(exposed), float(_count_ranks(hand, 5, 8)))


def _no_hearts_features(hand: int, lengths: list[int]) -> tuple[float, ...]:
    """No Hearts: the hearts, high and low, and the short side suits."""
    hearts = hand & _HEARTS
    low_hearts = _count_ranks(hearts, 2, 5)
    high_hearts = _count_ranks(hearts, 10, 14)
    short = sum(1 for s in (0, 2, 3) if lengths[s] <= 1)
    return (float(lengths[1]), float(high_hearts), float(low_hearts), float(short))


def _no_queens_features(hand: int, lengths: list[int]) -> tuple[float, ...]:
    """No Queens: the queens held, those poorly guarded, and the high cards that may
    catch one in a short suit."""
    held = unguarded = catchers = 0
    for suit in range(4):
        if hand & _rank_bit(suit, 12):
            held += 1
            unguarded += _guard(hand, suit, 12) < 3
        else:
            top = bool(hand & _rank_bit(suit, 14)) + bool(hand & _rank_bit(suit, 13))
            if top and lengths[suit] <= 3:
                catchers += top
    return (float(held), float(unguarded), float(catchers))


def _no_boys_features(hand: int, lengths: list[int]) -> tuple[float, ...]:
    """No Boys: the kings and jacks held, those poorly guarded, and the aces that may
    catch one in a short suit."""
    kings = jacks = bare = catchers = 0
    for suit in range(4):
        king = hand & _rank_bit(suit, 13)
        jack = hand & _rank_bit(suit, 11)
        kings += bool(king)
        jacks += bool(jack)
        if king and _guard(hand, suit, 13) < 3:
            bare += 1
        if jack and _guard(hand, suit, 11) < 2:
            bare += 1
        if hand & _rank_bit(suit, 14) and lengths[suit] <= 3:
            catchers += 1
    return (float(kings), float(jacks), float(bare), float(catchers))


def _no_king_features(hand: int, lengths: list[int]) -> tuple[float, ...]:
    """No King: the king is safe only among many hearts."""
    has_king = float(bool(hand & _rank_bit(1, 13)))
    ace = float(bool(hand & _rank_bit(1, 14)) and not has_king)
    short = sum(1 for s in (0, 2, 3) if lengths[s] <= 1)
    hearts = lengths[1]
    return (
        has_king,
        has_king * max(0, 5 - hearts),
        has_king * short,
        ace * max(0, 4 - hearts),
        float(hearts),
    )


def _no_last_two_features(hand: int) -> tuple[float, ...]:
    """No Last Two: low cards to keep for the end, high ones to shed."""
    low = _count_ranks(hand, 2, 4)
    return (float(min(low, 3)), float(low), float(_count_ranks(hand, 11, 14)))


#: Least-squares weights, one row per contract code (0 is Trumps, in tricks).
# fmt: off
WEIGHTS: dict[int, tuple[float, ...]] = {
    0: (-0.447, 0.48, 0.27, 1.06, 0.799, 0.529, 0.35, 0.197, 0.899, 0.658, 0.61, 0.147, 1.38,
        0.728),
    1: (-310, -15.6, -14.1, -10.2, -2.03, -4.66, 31.4, 15.3, 30.8, 13.2, -19.4, 15.1),
    2: (-209, -11.4, -9.92, -8.77, -6.31, -7.74, 11.9, 30.5, 26.3, 13.3, 19.9, -28.2, 31, -25.9),
    3: (-53.4, -17.6, -14.8, -17.1, -7.26, -5.55, 9.6, 1.73, 8.77, 8.3, -17.1, -31.6, -21.3),
    4: (-61.6, -23.3, -22.3, -23, -14.6, -5.83, 9.14, 16.3, 11.8, 13.3, -22.3, -14.6, -19.5,
        -19.5),
    5: (-118, -8.34, -10.2, -7.19, -7.29, -7, 10.4, -5.55, -0.301, 12.3, -81.5, -33.4, 57.7,
        -8.27, 6.83),
    6: (-173, 3.5, -2.62, -2.77, -2.66, -7.33, 6.84, -63, -12.4, 8.89, 21.6, 6.84, -4.56),
}
# fmt: on


def _dot(weights: tuple[float, ...], features: tuple[float, ...]) -> float:
    """The linear model's value."""
    return sum(w * f for w, f in zip(weights, features, strict=True))


def declaration_values(hand: int) -> list[float]:
    """The declarer's expected points for each of the ten declarations, in
    :attr:`~king.rules.Declaration.action_index` order (six negatives, then Trumps in
    S, H, D, C)."""
    values = [_dot(WEIGHTS[code], negative_features(hand, code)) for code in range(1, 7)]
    values += [50.0 * _dot(WEIGHTS[0], trump_features(hand, s)) for s in range(4)]
    return values


#: Mean and spread of the best Trumps value and of a negative value over random hands.
TRUMP_MEAN, TRUMP_SPREAD = 227.6, 67.7
NEGATIVE_SPREAD = 38.6
#: Expected best negative value for each set of open contracts (bit i = code i + 1).
# fmt: off
BEST_NEGATIVE: tuple[float, ...] = (
    -150, -161.8, -97.2, -95, -100, -98.5, -76.4, -76.2, -121.1, -118.3, -84.6, -84.3, -90.2,
    -90.1, -72.6, -72.5, -79.3, -74.6, -63.1, -62.7, -62.9, -62.8, -56.4, -56.3, -70.9, -70.3,
    -60.8, -60.7, -61.8, -61.7, -55.6, -55.6, -79.1, -77.7, -67.1, -66.7, -67.2, -67, -59.6,
    -59.5, -71.5, -71.4, -63, -62.9, -64.8, -64.7, -58, -58, -57.9, -57.8, -53.5, -53.3, -54.1,
    -54, -50.2, -50.2, -56.5, -56.4, -52.3, -52.2, -53.4, -53.4, -49.7, -49.6
)
# fmt: on
#: The expected mean of the top ``k`` of ``r`` standard normal draws, [r][k].
_TOP_MEAN = (
    (0.0,),
    (0.0, 0.0),
    (0.0, 0.5642, 0.0),
    (0.0, 0.8463, 0.4231, 0.0),
    (0.0, 1.0294, 0.6632, 0.3431, 0.0),
)


def _top_mean(slots: int, picks: int) -> float:
    """The selection bonus of choosing ``picks`` hands among ``slots`` to come."""
    if picks <= 0 or slots <= 0:
        return 0.0
    slots = min(slots, 4)
    return _TOP_MEAN[slots][min(picks, slots)]


def _future(trumps: int, negatives: int, open_now: int, maybe: int) -> float:
    """What the declarations still owed after this one are expected to bring."""
    slots = trumps + negatives
    value = trumps * (TRUMP_MEAN + TRUMP_SPREAD * _top_mean(slots, trumps))
    if negatives:
        sure = BEST_NEGATIVE[open_now] if open_now else BEST_NEGATIVE[maybe]
        hopeful = BEST_NEGATIVE[open_now | maybe]
        best = 0.5 * (sure + hopeful)
        value += negatives * (best + NEGATIVE_SPREAD * _top_mean(slots, negatives))
    return value


def choose_declaration(view: SeatView) -> Declaration:
    """The allowed declaration with the best value now plus expected value later."""
    legal = view.legal_declarations
    if len(legal) == 1:
        return legal[0]
    values = declaration_values(view.hand.mask)
    trumps_owed, negatives_owed = view.obligations(view.seat)
    counts = dict(view.contract_counts)
    best: Declaration = legal[0]
    best_total = float("-inf")
    for declaration in legal:
        open_now = maybe = 0
        for contract, times in counts.items():
            used = times + (declaration.contract is contract)
            bit = 1 << (contract.code - 1)
            if used == 0:
                open_now |= bit
            elif used == 1:
                maybe |= bit
        if declaration.trump is not None:
            future = _future(trumps_owed - 1, negatives_owed, open_now, maybe)
        else:
            future = _future(trumps_owed, negatives_owed - 1, open_now, maybe)
        total = values[declaration.action_index] + future
        if total > best_total:
            best, best_total = declaration, total
    return best
