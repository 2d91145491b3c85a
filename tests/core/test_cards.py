"""Cards, suits, ranks and card sets: notation in and out, ids, bad input."""

from __future__ import annotations

import pytest

from king.cards import DECK, Card, CardParseError, CardSet, Rank, Suit, card_ids


def test_every_card_has_a_stable_id_and_round_trips() -> None:
    assert len(DECK) == 52
    for card_id, card in enumerate(DECK):
        assert card.id == card_id
        assert Card.from_id(card_id) is card
        assert Card.parse(str(card)) == card
        assert Card.parse(card.symbol) == card


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("QS", "QS"),
        ("qs", "QS"),
        ("10h", "TH"),
        ("10H", "TH"),
        ("Th", "TH"),
        ("Q♠", "QS"),
        ("a♥", "AH"),
        ("2♦", "2D"),
        ("k♣", "KC"),
        (" 7c ", "7C"),
    ],
)
def test_parse_accepts_the_notations_of_the_rules(text: str, expected: str) -> None:
    assert str(Card.parse(text)) == expected


def test_ids_follow_suit_then_rank() -> None:
    assert Card.parse("2S").id == 0
    assert Card.parse("AS").id == 12
    assert Card.parse("2H").id == 13
    assert Card.parse("AC").id == 51
    assert Card.parse("QS").label == "queen of spades"


@pytest.mark.parametrize("text", ["", "Q", "1S", "11H", "QX", "ZS", "QSS", "♠Q", "10", "S"])
def test_bad_card_strings_raise_a_clear_value_error(text: str) -> None:
    with pytest.raises(CardParseError) as info:
        Card.parse(text)
    assert isinstance(info.value, ValueError)
    assert f"{text!r} is not a card" in str(info.value)


def test_parse_rejects_non_strings() -> None:
    with pytest.raises(CardParseError, match="string"):
        Card.parse(12)  # type: ignore[arg-type]


def test_from_id_range_is_checked() -> None:
    with pytest.raises(ValueError, match="0 to 51"):
        Card.from_id(52)
    with pytest.raises(TypeError):
        Card.from_id("3")  # type: ignore[arg-type]


def test_cards_order_by_suit_then_rank_and_hash() -> None:
    assert Card.parse("2S") < Card.parse("AS") < Card.parse("2H")
    assert len({Card.parse("QS"), Card.parse("qs"), Card.parse("Q♠")}) == 1


def test_cardset_reads_and_prints_a_hand() -> None:
    hand = CardSet.parse("2h AS ks 10d")
    assert str(hand) == "AS KS 2H TD"
    assert len(hand) == 4
    assert "KS" in hand
    assert Card.parse("QS") not in hand
    assert hand.suit(Suit.SPADES) == CardSet.parse("AS KS")
    assert (hand - CardSet.parse("AS")) | CardSet.parse("AS") == hand
    assert hand & CardSet.parse("AS QS") == CardSet.parse("AS")
    assert card_ids(hand.mask) == sorted(c.id for c in hand)


def test_cardset_rejects_duplicates_and_bad_masks() -> None:
    with pytest.raises(CardParseError, match="twice"):
        CardSet.parse("AS KS as")
    with pytest.raises(ValueError, match="52-bit"):
        CardSet(1 << 52)
    with pytest.raises(ValueError, match="52-bit"):
        CardSet(-1)
    with pytest.raises(CardParseError, match=r"not a card|not a rank|not a suit"):
        CardSet.parse("AS XX")


def test_suit_and_rank_parse() -> None:
    assert Suit.parse("♥") is Suit.HEARTS
    assert Rank.parse("10") is Rank.TEN
    with pytest.raises(CardParseError, match="not a suit"):
        Suit.parse("X")
    with pytest.raises(CardParseError, match="not a rank"):
        Rank.parse("1")
