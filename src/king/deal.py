"""The play of one deal: hands, tricks, whose turn, legal moves and points.

All the play rules of RULES.md live in one function, :func:`legal_mask` (with its two
parts: the lead, and a seat that cannot follow), which works on 52-bit card masks.  The
checked API (:meth:`Deal.play`) and the unchecked fast path (:meth:`Deal.play_unchecked`,
for search code) both go through it, so there is exactly one place that decides
legality.

>>> from king.cards import CardSet
>>> hands = [CardSet.parse(h) for h in (
...     "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S",
...     "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H",
...     "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
...     "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C")]
>>> deal = Deal(hands, declarer=0, declaration=Declaration(Contract.NO_HEARTS))
>>> deal.play("AS")
>>> deal.play("2D")
Traceback (most recent call last):
...
king.deal.IllegalMoveError: seat 2 does not hold 2D
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from king.cards import DECK, FULL_MASK, SUIT_MASKS, Card, CardId, CardSet, Mask, Seat, Suit
from king.errors import KingError
from king.rules import (
    CONTRACT_TOTALS,
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
    Contract,
    Declaration,
    Rules,
)
from king.texts import quoted, seat_name

__all__ = [
    "Deal",
    "Trick",
    "IllegalMoveError",
    "DealSetupError",
    "legal_mask",
    "winning_card",
    "explain_illegal",
    "why_illegal",
    "TRUMPS",
    "NO_TRICKS",
    "NO_HEARTS",
    "NO_QUEENS",
    "NO_BOYS",
    "NO_KING",
    "NO_LAST_TWO",
]

_HEARTS = SUIT_MASKS[Suit.HEARTS]
_CARD_CONTRACTS = (NO_HEARTS, NO_QUEENS, NO_BOYS, NO_KING)
_FOLLOW_PENALTY_CONTRACTS = (NO_QUEENS, NO_BOYS, NO_KING)


class IllegalMoveError(KingError, ValueError):
    """A card that may not be played now.  The message is an English sentence for a
    person, who counts seats from 1 ("seat 2 must follow clubs" for the seat with index 1);
    :attr:`seat` (the index, 0-3), :attr:`card` and :attr:`reason` are kept for programs,
    with :attr:`code` and :attr:`params` (see :func:`why_illegal`) for interfaces that say
    it in another language."""

    def __init__(
        self,
        reason: str,
        seat: Seat | None = None,
        card: Card | None = None,
        code: str = "deal_over",
        params: dict[str, str] | None = None,
    ):
        super().__init__(reason)
        self.reason = reason
        self.seat = seat
        self.card = card
        self.code = code
        self.params = params or {}


class DealSetupError(KingError, ValueError):
    """The hands or declaration given for a deal are not a valid starting position."""


def winning_card(trick: Mask, led: int, trump: int = -1) -> CardId:
    """The id of the card that wins (or, unfinished, is winning) a trick holding the cards
    of mask ``trick``, suit ``led`` led: the highest trump (``trump``, a suit number; -1:
    none), else the highest card of the suit led.  The one statement of who takes a
    trick, for the engine and for every reader of a trick."""
    winning = trick & SUIT_MASKS[trump] if trump >= 0 else 0
    if not winning:
        winning = trick & SUIT_MASKS[led]
    return winning.bit_length() - 1


def legal_mask(
    hand: Mask, trick: Mask, led: int, played: Mask, contract: int, trump: int, flags: int
) -> Mask:
    """The cards of ``hand`` that may be played now, as a mask.

    ``trick`` is the mask of the cards already in the current trick and ``led`` the suit
    led (``-1`` when the player is on lead); ``played`` is every card played in the deal
    so far; ``contract`` is a contract code, ``trump`` the trump suit (or ``-1``) and
    ``flags`` the rule toggles as bits.  This is the one place that decides legality
    (with its two parts below: the lead, and a seat that cannot follow).
    """
    if led < 0:
        return _lead_mask(hand, played, contract, trump, flags)
    suit = SUIT_MASKS[led]
    follow = hand & suit
    if follow:
        if flags & FLAG_FORCED_PENALTY and contract in _FOLLOW_PENALTY_CONTRACTS:
            below_top = (1 << ((trick & suit).bit_length() - 1)) - 1
            forced = follow & PENALTY_MASKS[contract] & below_top
            if forced:
                return forced
        return follow
    return _void_mask(hand, trick, contract, trump, flags)


def _lead_mask(hand: Mask, played: Mask, contract: int, trump: int, flags: int) -> Mask:
    """The cards a seat on lead may lead: hearts (in No Hearts and No King) and, by a
    rule, trumps only once one has been played, unless it holds nothing else."""
    if contract in (NO_HEARTS, NO_KING):
        if not played & _HEARTS:
            others = hand & ~_HEARTS
            if others:
                return others
    elif contract == TRUMPS and flags & FLAG_TRUMP_LEAD_AFTER_BREAK:
        trumps = SUIT_MASKS[trump]
        if not played & trumps:
            others = hand & ~trumps
            if others:
                return others
    return hand


def _void_mask(hand: Mask, trick: Mask, contract: int, trump: int, flags: int) -> Mask:
    """The cards a seat that cannot follow may play: a trump in Trumps (higher than the
    trick's, by a rule, when it can), by a rule a penalty card in a negative contract,
    else any card."""
    if contract == TRUMPS:
        trump_suit = SUIT_MASKS[trump]
        trumps = hand & trump_suit
        if not trumps:
            return hand
        if flags & FLAG_OVERRUFF:
            top = (trick & trump_suit).bit_length()
            higher = trumps >> top << top
            if higher:
                return higher
        return trumps
    if flags & FLAG_FORCED_PENALTY and contract in _CARD_CONTRACTS:
        penalty = hand & PENALTY_MASKS[contract]
        if penalty:
            return penalty
    return hand


def why_illegal(
    seat: Seat,
    card_id: CardId,
    hand: int,
    trick: int,
    led: int,
    played: int,
    contract: int,
    trump: int,
    flags: int,
) -> tuple[str, dict[str, str]]:
    """Why ``card_id`` is not among the legal cards, as a reason code and its details,
    for programs and for user interfaces that word it in the player's language.

    The codes: ``already_played``, ``not_held``, ``trump_lead``, ``heart_lead``,
    ``must_follow``, ``must_play_penalty_under``, ``must_overruff``, ``must_trump`` and
    ``must_discard_penalty``; the details are strings: ``seat`` (the index, 0-3, which
    the English sentence names counted from 1), ``card`` (a card code),
    ``suit`` and ``trump`` (suit letters) and ``cards`` (the legal cards, codes separated
    by spaces).  Only called after :func:`legal_mask` has refused the card; the branches
    mirror that function's so that the reason names the rule that refused it.
    """
    bit = 1 << card_id
    params = {"seat": str(seat), "card": str(DECK[card_id])}
    if not hand & bit:
        return ("already_played" if played & bit else "not_held"), params
    legal = legal_mask(hand, trick, led, played, contract, trump, flags)
    params["cards"] = " ".join(str(card) for card in CardSet(legal))
    if led < 0:
        if contract == TRUMPS:
            params["trump"] = Suit(trump).letter
            return "trump_lead", params
        return "heart_lead", params
    params["suit"] = Suit(led).letter
    if hand & SUIT_MASKS[led]:
        if not bit & SUIT_MASKS[led]:
            return "must_follow", params
        return "must_play_penalty_under", params
    if contract == TRUMPS:
        params["trump"] = Suit(trump).letter
        if legal & bit == 0 and bit & SUIT_MASKS[trump]:
            return "must_overruff", params
        return "must_trump", params
    return "must_discard_penalty", params


def _names(codes: str) -> str:
    cards = codes.split()
    if len(cards) == 1:
        return cards[0]
    return ", ".join(cards[:-1]) + " or " + cards[-1]


def _suit(letter: str) -> str:
    return Suit.parse(letter).label


#: The English sentence for each reason code of :func:`why_illegal`.
_SENTENCES: dict[str, Callable[[dict[str, str]], str]] = {
    "already_played": lambda p: f"{p['card']} has already been played in this deal",
    "not_held": lambda p: f"{seat_name(p['seat'])} does not hold {p['card']}",
    "trump_lead": lambda p: (
        f"trumps may not be led yet: no trump ({_suit(p['trump'])}) has been played "
        f"and {seat_name(p['seat'])} holds other suits"
    ),
    "heart_lead": lambda p: (
        f"hearts may not be led yet: no heart has been played and {seat_name(p['seat'])} holds "
        "other suits"
    ),
    "must_follow": lambda p: f"{seat_name(p['seat'])} must follow {_suit(p['suit'])}",
    "must_play_penalty_under": lambda p: (
        f"{seat_name(p['seat'])} must play a penalty card under the higher card in the trick: "
        f"{_names(p['cards'])}"
    ),
    "must_overruff": lambda p: (
        f"{seat_name(p['seat'])} must overruff: play a trump higher than those in the trick "
        f"({_names(p['cards'])})"
    ),
    "must_trump": lambda p: (
        f"{seat_name(p['seat'])} cannot follow {_suit(p['suit'])} and must play a trump "
        f"({_suit(p['trump'])})"
    ),
    "must_discard_penalty": lambda p: (
        f"{seat_name(p['seat'])} cannot follow {_suit(p['suit'])} and must discard a penalty card: "
        f"{_names(p['cards'])}"
    ),
}


def explain_illegal(
    seat: Seat,
    card_id: CardId,
    hand: int,
    trick: int,
    led: int,
    played: int,
    contract: int,
    trump: int,
    flags: int,
) -> str:
    """Say in one English sentence why ``card_id`` is not among the legal cards."""
    code, params = why_illegal(seat, card_id, hand, trick, led, played, contract, trump, flags)
    return _SENTENCES[code](params)


@dataclass(frozen=True, slots=True)
class Trick:
    """A completed trick: who led, the four cards in the order played, and the winner."""

    leader: Seat
    cards: tuple[Card, Card, Card, Card]
    winner: Seat

    def seat_of(self, position: int) -> int:
        """The seat that played the card at ``position`` (0 is the leader)."""
        return (self.leader + position) & 3

    def card_of(self, seat: Seat) -> Card:
        """The card that ``seat`` played to this trick."""
        return self.cards[(seat - self.leader) & 3]


class Deal:
    """One deal in play: four hands, the declaration, and the tricks so far.

    :meth:`legal_moves` and :meth:`play` are the checked API.  Search code may use
    :meth:`legal_mask` and :meth:`play_unchecked`, which take and return card ids and
    masks and skip validation; they share the same rule function.
    """

    __slots__ = (
        "rules",
        "declaration",
        "declarer",
        "_code",
        "_trump",
        "_flags",
        "_dealt",
        "_hands",
        "_played",
        "_trick",
        "_trick_mask",
        "_leader",
        "_turn",
        "_plays",
        "_tricks",
        "_taken",
        "_won",
        "_last_two",
        "_over",
    )

    def __init__(
        self,
        hands: Sequence[CardSet | int | str],
        declarer: Seat,
        declaration: Declaration,
        rules: Rules | None = None,
    ) -> None:
        if not isinstance(declarer, int) or isinstance(declarer, bool) or not 0 <= declarer < 4:
            raise DealSetupError(f"the declarer must be a seat 0-3, not {quoted(declarer)}")
        if not isinstance(declaration, Declaration):
            raise DealSetupError("the declaration must be a Declaration")
        masks = hand_masks(hands)
        self.rules = rules if rules is not None else Rules()
        self.declaration = declaration
        self.declarer = declarer
        self._code = declaration.contract.code
        self._trump = -1 if declaration.trump is None else int(declaration.trump)
        self._flags = self.rules.flags
        self._dealt = masks
        self._hands = list(masks)
        self._played = 0
        self._trick: list[int] = []
        self._trick_mask = 0
        self._leader = declarer
        self._turn = declarer
        self._plays: list[int] = []
        self._tricks: list[tuple[int, tuple[int, ...], int]] = []
        self._taken = [0, 0, 0, 0]
        self._won = [0, 0, 0, 0]
        self._last_two = [0, 0, 0, 0]
        self._over = False

    # -- reading the position -------------------------------------------------------

    @property
    def contract(self) -> Contract:
        """The contract being played."""
        return self.declaration.contract

    @property
    def trump(self) -> Suit | None:
        """The trump suit in Trumps, otherwise ``None``."""
        return self.declaration.trump

    @property
    def is_over(self) -> bool:
        """True once all tricks are played, or the deal has ended early."""
        return self._over

    @property
    def to_play(self) -> int | None:
        """The seat to play next, or ``None`` when the deal is over."""
        return None if self._over else self._turn

    @property
    def leader(self) -> int:
        """The seat that led (or will lead) the current trick."""
        return self._leader

    def hand(self, seat: Seat) -> CardSet:
        """The cards ``seat`` still holds."""
        return CardSet(self._hands[_seat(seat)])

    def dealt_hand(self, seat: Seat) -> CardSet:
        """The 13 cards ``seat`` was dealt."""
        return CardSet(self._dealt[_seat(seat)])

    @property
    def dealt_masks(self) -> tuple[int, int, int, int]:
        """The four dealt hands as masks, seat order."""
        a, b, c, d = self._dealt
        return a, b, c, d

    @property
    def plays(self) -> list[Card]:
        """Every card played so far, in order."""
        return [DECK[c] for c in self._plays]

    @property
    def play_ids(self) -> list[int]:
        """Every card played so far, as ids."""
        return list(self._plays)

    @property
    def current_trick(self) -> list[tuple[int, Card]]:
        """The unfinished trick as ``(seat, card)`` pairs in the order played."""
        return [((self._leader + i) & 3, DECK[c]) for i, c in enumerate(self._trick)]

    @property
    def tricks(self) -> list[Trick]:
        """The completed tricks, in order."""
        return [
            Trick(leader, (DECK[c[0]], DECK[c[1]], DECK[c[2]], DECK[c[3]]), winner)
            for leader, c, winner in self._tricks
        ]

    @property
    def trick_count(self) -> int:
        """How many tricks are complete."""
        return len(self._tricks)

    @property
    def played_mask(self) -> int:
        """Every card played so far, as a mask."""
        return self._played

    def taken(self, seat: Seat) -> CardSet:
        """The cards in the tricks ``seat`` has won."""
        return CardSet(self._taken[_seat(seat)])

    def tricks_won(self, seat: Seat) -> int:
        """How many tricks ``seat`` has won."""
        return self._won[_seat(seat)]

    def points(self) -> list[int]:
        """Each seat's points so far, seat order.  Once the deal is over they add up to
        the contract's total."""
        code = self._code
        unit = POINTS_PER_UNIT[code]
        if code in (TRUMPS, NO_TRICKS):
            return [unit * won for won in self._won]
        if code == NO_LAST_TWO:
            return [unit * n for n in self._last_two]
        penalty = PENALTY_MASKS[code]
        return [unit * (taken & penalty).bit_count() for taken in self._taken]

    @property
    def total(self) -> int:
        """The points a finished deal of this contract adds up to."""
        return CONTRACT_TOTALS[self._code]

    # -- the checked API -------------------------------------------------------------

    def legal_moves(self) -> list[Card]:
        """The cards the player to move may play (empty once the deal is over)."""
        if self._over:
            return []
        return list(CardSet(self.legal_mask()))

    def is_legal(self, card: Card | str) -> bool:
        """Whether ``card`` may be played now."""
        if self._over:
            return False
        return bool(self.legal_mask() & Card.parse(card).mask)

    def play(self, card: Card | str) -> None:
        """Play ``card`` for the seat to move.

        Raises :class:`IllegalMoveError` with a sentence that names the seat and the rule,
        and leaves the deal unchanged, when the card may not be played.
        """
        if not isinstance(card, Card):
            card = Card.parse(card)
        card_id = card.id
        if self._over:
            raise IllegalMoveError("the deal is over: no more cards can be played", None, card)
        seat = self._turn
        if not self.legal_mask() & (1 << card_id):
            led = self._trick[0] // 13 if self._trick else -1
            code, params = why_illegal(
                seat,
                card_id,
                self._hands[seat],
                self._trick_mask,
                led,
                self._played,
                self._code,
                self._trump,
                self._flags,
            )
            raise IllegalMoveError(_SENTENCES[code](params), seat, card, code, params)
        self.play_unchecked(card_id)

    # -- the fast path ---------------------------------------------------------------

    def legal_mask(self) -> int:
        """The legal cards of the seat to move as a mask (0 when the deal is over)."""
        if self._over:
            return 0
        trick = self._trick
        return legal_mask(
            self._hands[self._turn],
            self._trick_mask,
            trick[0] // 13 if trick else -1,
            self._played,
            self._code,
            self._trump,
            self._flags,
        )

    def play_unchecked(self, card_id: CardId) -> None:
        """Play the card with this id for the seat to move, without any check.

        For search code that has just taken the card from :meth:`legal_mask`; anything
        else must use :meth:`play`.
        """
        bit = 1 << card_id
        turn = self._turn
        self._hands[turn] ^= bit
        self._played |= bit
        self._plays.append(card_id)
        trick = self._trick
        trick.append(card_id)
        self._trick_mask |= bit
        if len(trick) < 4:
            self._turn = (turn + 1) & 3
            return
        self._finish_trick()

    def _finish_trick(self) -> None:
        trick = self._trick
        mask = self._trick_mask
        top = winning_card(mask, trick[0] // 13, self._trump)
        leader = self._leader
        winner = (leader + trick.index(top)) & 3
        self._tricks.append((leader, tuple(trick), winner))
        self._taken[winner] |= mask
        self._won[winner] += 1
        count = len(self._tricks)
        if count >= 12:
            self._last_two[winner] += 1
        self._trick = []
        self._trick_mask = 0
        self._leader = self._turn = winner
        if count == 13:
            self._over = True
        elif self._flags & FLAG_EARLY_END and self._code in _CARD_CONTRACTS:
            penalty = PENALTY_MASKS[self._code]
            if self._played & penalty == penalty:
                self._over = True

    def copy(self) -> Deal:
        """An independent copy of the position, for search."""
        other = Deal.__new__(Deal)
        other.rules = self.rules
        other.declaration = self.declaration
        other.declarer = self.declarer
        other._code = self._code
        other._trump = self._trump
        other._flags = self._flags
        other._dealt = self._dealt
        other._hands = self._hands[:]
        other._played = self._played
        other._trick = self._trick[:]
        other._trick_mask = self._trick_mask
        other._leader = self._leader
        other._turn = self._turn
        other._plays = self._plays[:]
        other._tricks = self._tricks[:]
        other._taken = self._taken[:]
        other._won = self._won[:]
        other._last_two = self._last_two[:]
        other._over = self._over
        return other

    def __repr__(self) -> str:
        state = "over" if self._over else f"seat {self._turn} to play"
        return (
            f"<Deal {self.declaration} declarer={self.declarer} tricks={len(self._tricks)} {state}>"
        )


def _seat(seat: Seat) -> int:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
        raise ValueError(f"a seat is a number from 0 to 3, not {quoted(seat)}")
    return seat


def hand_masks(
    hands: Sequence[CardSet | int | str], size: int | None = 13
) -> tuple[int, int, int, int]:
    """Check that four hands of ``size`` cards (13: the 52 cards once each; ``None``:
    any, as in a deal in play) hold no card twice; return the masks.

    Each hand may be a :class:`CardSet`, a mask or a string of cards.
    """
    if isinstance(hands, (str, bytes)) or len(hands) != 4:
        raise DealSetupError("a deal needs exactly four hands, one per seat")
    masks: list[int] = []
    for seat, hand in enumerate(hands):
        if isinstance(hand, CardSet):
            mask = hand.mask
        elif isinstance(hand, str):
            try:
                mask = CardSet.parse(hand).mask
            except ValueError as error:
                raise DealSetupError(f"{seat_name(seat)}'s hand: {error}") from None
        elif isinstance(hand, int) and not isinstance(hand, bool) and 0 <= hand <= FULL_MASK:
            mask = hand
        else:
            raise DealSetupError(f"{seat_name(seat)}'s hand must be cards, not {quoted(hand)}")
        count = mask.bit_count()
        if size is not None and count != size:
            raise DealSetupError(f"{seat_name(seat)} holds {count} cards; each hand has {size}")
        for other, earlier in enumerate(masks):
            shared = mask & earlier
            if shared:
                raise DealSetupError(
                    f"{CardSet(shared)} dealt to both {seat_name(other)} and {seat_name(seat)}"
                )
        masks.append(mask)
    return masks[0], masks[1], masks[2], masks[3]
