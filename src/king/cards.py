"""Suits, ranks, cards and sets of cards.

Every card has a stable id from 0 to 51: ``suit * 13 + (rank - 2)``, with the suits in
the order spades, hearts, diamonds, clubs.  Inside one suit a higher id is a higher card,
so a set of cards is a 52-bit integer whose bit ``id`` is set when the card is present
and the highest card of a suit in a set is simply the highest set bit of that suit's
13-bit field.  The id is also the card's action number in the RL environment.

>>> Card.parse("QS")
Card.parse('QS')
>>> str(Card.parse("10h")), str(Card.parse("q♠"))
('TH', 'QS')
>>> hand = CardSet.parse("AS KS 2H")
>>> len(hand), Card.parse("KS") in hand, str(hand)
(3, True, 'AS KS 2H')
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import IntEnum

from king.errors import KingError
from king.texts import quoted

__all__ = [
    "Suit",
    "Rank",
    "Card",
    "CardSet",
    "CardParseError",
    "DECK",
    "FULL_MASK",
    "SUIT_MASKS",
    "card_ids",
    "shuffled_hands",
    "Mask",
    "CardId",
    "Seat",
]

#: A set of cards as a 52-bit integer, bit ``id`` for each card (python-chess's
#: ``Bitboard``); the fast engines and :class:`CardSet` underneath speak it.
Mask = int
#: A card's stable id 0-51: ``13 * suit + rank`` (spades 0-12 … clubs 39-51), also its
#: action number in the RL environment (python-chess's ``Square``).
CardId = int
#: A seat at the table, 0-3, in playing order.
Seat = int


class CardParseError(KingError, ValueError):
    """A card or list of cards could not be read; the message says which text and why."""


class Suit(IntEnum):
    """The four suits, in the order of card ids (spades 0 … clubs 3)."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def letter(self) -> str:
        """The one-letter notation: ``S``, ``H``, ``D`` or ``C``."""
        return "SHDC"[self]

    @property
    def symbol(self) -> str:
        """The suit symbol: ``♠``, ``♥``, ``♦`` or ``♣``."""
        return "♠♥♦♣"[self]

    @property
    def label(self) -> str:
        """The English plural name, as used in sentences ("must follow hearts")."""
        return ("spades", "hearts", "diamonds", "clubs")[self]

    @property
    def mask(self) -> int:
        """The 52-bit mask of this suit's thirteen cards."""
        return SUIT_MASKS[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Read a suit from its letter (either case) or its symbol.

        >>> Suit.parse("h"), Suit.parse("♣")
        (<Suit.HEARTS: 1>, <Suit.CLUBS: 3>)
        """
        if not isinstance(text, str):
            raise CardParseError(f"a suit must be a string, not {type(text).__name__}")
        suit = _SUIT_BY_TEXT.get(text.strip().upper())
        if suit is None:
            raise CardParseError(f"{quoted(text)} is not a suit: use S, H, D, C or ♠ ♥ ♦ ♣")
        return suit

    def __str__(self) -> str:
        return self.letter


class Rank(IntEnum):
    """The thirteen ranks; the value is the usual number (ace high, 14)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def letter(self) -> str:
        """The one-character notation: ``A K Q J T 9 … 2``."""
        return "23456789TJQKA"[self - 2]

    @property
    def label(self) -> str:
        """The English name ("queen"), for sentences and screen readers."""
        return _RANK_LABELS[self - 2]

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Read a rank: ``A K Q J T 9 … 2``, ``10`` for ten, either case."""
        if not isinstance(text, str):
            raise CardParseError(f"a rank must be a string, not {type(text).__name__}")
        rank = _RANK_BY_TEXT.get(text.strip().upper())
        if rank is None:
            raise CardParseError(f"{quoted(text)} is not a rank: use A K Q J T (or 10) 9 8 … 2")
        return rank

    def __str__(self) -> str:
        return self.letter


_RANK_LABELS = (
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
_SUIT_BY_TEXT = {s.letter: s for s in Suit} | {s.symbol: s for s in Suit}
_SUIT_BY_TEXT |= {"\u2664": Suit.SPADES, "\u2661": Suit.HEARTS}
_SUIT_BY_TEXT |= {"\u2662": Suit.DIAMONDS, "\u2667": Suit.CLUBS}
_RANK_BY_TEXT = {r.letter: r for r in Rank} | {"10": Rank.TEN}

#: The mask of each suit, indexed by suit number.
SUIT_MASKS: tuple[int, int, int, int] = (
    0x1FFF,
    0x1FFF << 13,
    0x1FFF << 26,
    0x1FFF << 39,
)
#: All 52 cards.
FULL_MASK = (1 << 52) - 1


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card.  Cards order by suit (spades first) then rank (two first).

    Build them with :meth:`parse` or :meth:`from_id`; ``str(card)`` is the notation
    (``"QS"``) and :attr:`id` is the stable number 0–51.
    """

    suit: Suit
    rank: Rank

    def __post_init__(self) -> None:
        if not isinstance(self.suit, Suit) or not isinstance(self.rank, Rank):
            raise TypeError("Card(suit, rank) takes a Suit and a Rank; use Card.parse('QS')")

    @property
    def id(self) -> int:
        """The stable card number: ``suit * 13 + rank - 2``."""
        return self.suit * 13 + self.rank - 2

    @property
    def mask(self) -> int:
        """This card as a one-bit set."""
        return 1 << (self.suit * 13 + self.rank - 2)

    @property
    def label(self) -> str:
        """The English name, e.g. "queen of spades"."""
        return f"{self.rank.label} of {self.suit.label}"

    @property
    def symbol(self) -> str:
        """The notation with the suit symbol, e.g. ``Q♠``."""
        return f"{self.rank.letter}{self.suit.symbol}"

    @staticmethod
    def from_id(card_id: int) -> Card:
        """The card with this id (0–51)."""
        if not isinstance(card_id, int) or isinstance(card_id, bool):
            raise TypeError(f"a card id must be an int, not {type(card_id).__name__}")
        if not 0 <= card_id < 52:
            raise ValueError(f"card id {card_id} is out of range: ids run from 0 to 51")
        return DECK[card_id]

    @staticmethod
    def parse(text: str | Card) -> Card:
        """Read a card: rank then suit, ``QS``, ``10h``, ``Q♠``, either case.

        Raises :class:`CardParseError` (a ``ValueError``) naming the bad text.
        """
        if isinstance(text, Card):
            return text
        if not isinstance(text, str):
            raise CardParseError(f"a card must be a string like 'QS', not {type(text).__name__}")
        cleaned = text.strip()
        card = _CARD_BY_TEXT.get(cleaned.upper())
        if card is not None:
            return card
        if len(cleaned) < 2:
            raise CardParseError(
                f"{quoted(text)} is not a card: write rank then suit, like QS or 10H"
            )
        try:
            rank = Rank.parse(cleaned[:-1])
            suit = Suit.parse(cleaned[-1])
        except CardParseError as error:
            raise CardParseError(f"{quoted(text)} is not a card: {error}") from None
        return Card(suit, rank)

    def __str__(self) -> str:
        return f"{self.rank.letter}{self.suit.letter}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


#: The 52 cards in id order.
DECK: tuple[Card, ...] = tuple(Card(s, r) for s in Suit for r in Rank)
_CARD_BY_TEXT: dict[str, Card] = {}
for _card in DECK:
    for _r in (_card.rank.letter, "10") if _card.rank is Rank.TEN else (_card.rank.letter,):
        for _s in (_card.suit.letter, _card.suit.symbol):
            _CARD_BY_TEXT[_r + _s] = _card


def card_ids(mask: int) -> list[int]:
    """The ids of the cards in a 52-bit mask, lowest first."""
    ids = []
    while mask:
        low = mask & -mask
        ids.append(low.bit_length() - 1)
        mask ^= low
    return ids


@dataclass(frozen=True, slots=True)
class CardSet:
    """An immutable set of cards, stored as a 52-bit integer (:attr:`mask`).

    Iterates high to low within each suit, suits in the order S H D C, which is also how
    ``str()`` prints it: the way a hand is usually read.
    """

    mask: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.mask, int) or isinstance(self.mask, bool):
            raise TypeError("CardSet(mask) takes an int; use CardSet.parse or CardSet.of")
        if self.mask < 0 or self.mask > FULL_MASK:
            raise ValueError(f"{self.mask:#x} is not a 52-bit card mask")

    @staticmethod
    def parse(text: str) -> CardSet:
        """Read cards separated by white space (or commas); a card may not repeat."""
        if not isinstance(text, str):
            raise CardParseError(f"cards must be given as a string, not {type(text).__name__}")
        mask = 0
        for word in text.replace(",", " ").split():
            bit = Card.parse(word).mask
            if mask & bit:
                raise CardParseError(f"{word} is listed twice in {quoted(text.strip(), 60)}")
            mask |= bit
        return CardSet(mask)

    @staticmethod
    def of(cards: Iterable[Card | str]) -> CardSet:
        """The set of the given cards (or card strings); duplicates are an error."""
        mask = 0
        for item in cards:
            bit = Card.parse(item).mask if isinstance(item, str) else item.mask
            if mask & bit:
                raise CardParseError(f"{item} is listed twice")
            mask |= bit
        return CardSet(mask)

    @staticmethod
    def full() -> CardSet:
        """All 52 cards."""
        return CardSet(FULL_MASK)

    def suit(self, suit: Suit) -> CardSet:
        """The cards of one suit."""
        return CardSet(self.mask & SUIT_MASKS[suit])

    def ids(self) -> list[int]:
        """The card ids, lowest first."""
        return card_ids(self.mask)

    def __iter__(self) -> Iterator[Card]:
        for suit in Suit:
            bits = self.mask & SUIT_MASKS[suit]
            while bits:
                top = bits.bit_length() - 1
                yield DECK[top]
                bits ^= 1 << top

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __contains__(self, card: object) -> bool:
        if isinstance(card, Card):
            return bool(self.mask & card.mask)
        if isinstance(card, str):
            return bool(self.mask & Card.parse(card).mask)
        return False

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def __str__(self) -> str:
        return " ".join(str(c) for c in self)

    def __repr__(self) -> str:
        return f"CardSet.parse({str(self)!r})"


def shuffled_hands(rng: random.Random) -> tuple[int, int, int, int]:
    """Shuffle the deck with ``rng`` and deal four 13-card hands, as masks.

    Seat ``i`` gets the cards at positions ``i, i+4, i+8, …`` of the shuffled deck, the
    way cards are dealt round the table.
    """
    order = list(range(52))
    rng.shuffle(order)
    hands = [0, 0, 0, 0]
    for position, card_id in enumerate(order):
        hands[position & 3] |= 1 << card_id
    return hands[0], hands[1], hands[2], hands[3]
