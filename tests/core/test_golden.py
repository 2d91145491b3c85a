"""Golden tests: small positions whose outcome was worked out by hand from RULES.md.

Every expected trick winner, legal-move set and point total below is a literal that a
person computed from the rules, card by card; the engine only has to agree.  The hands
are written out in full so a reader can check them.  Seats are 0-3 and play passes from
seat p to seat p + 1.

Tricks are written ``(leader, "cards in the order played", winner)``.
"""

from __future__ import annotations

import re

import pytest

from king.cards import Suit
from king.deal import Deal, IllegalMoveError
from king.game import Game, GameStateError, IllegalDeclarationError, Phase
from king.rules import TOGGLES, Contract, Declaration, Rules

# -- hands ---------------------------------------------------------------------------

#: Each seat holds one whole suit: seat 0 spades, 1 hearts, 2 diamonds, 3 clubs.
SUIT_HANDS = (
    "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S",
    "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H",
    "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
    "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
)

#: Each seat holds the top ten of one suit and one low singleton in each other suit:
#:   spades   A-5 seat 0, 4S seat 1, 3S seat 2, 2S seat 3
#:   hearts   A-5 seat 1, 2H seat 0, 3H seat 2, 4H seat 3
#:   diamonds A-5 seat 2, 2D seat 0, 3D seat 1, 4D seat 3
#:   clubs    A-5 seat 3, 2C seat 0, 3C seat 1, 4C seat 2
LONG = (
    "AS KS QS JS TS 9S 8S 7S 6S 5S 2H 2D 2C",
    "AH KH QH JH TH 9H 8H 7H 6H 5H 4S 3D 3C",
    "AD KD QD JD TD 9D 8D 7D 6D 5D 3S 3H 4C",
    "AC KC QC JC TC 9C 8C 7C 6C 5C 2S 4H 4D",
)

#: For Trumps (hearts): seat 0 leads spades, which nobody else holds.  Seat 1 has two
#: trumps (AH, 3H), seat 2 none at all, seat 3 eleven trumps all below the ace.
TRUMP_TEST = (
    "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S",
    "AH 3H AD KD QD JD TD 9D 8D 7D 6D 5D 2C",
    "4D AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C",
    "KH QH JH TH 9H 8H 7H 6H 5H 4H 2H 3D 2D",
)

#: For forced penalty cards while following suit (No Boys, No Queens).
#:   spades   AS QS 4S 3S | KS JS 2S | TS 9S 8S 7S | 6S 5S
#:   hearts   AH QH 4H 2H | KH JH 8H 7H 3H | TH 9H | 6H 5H
#:   diamonds AD 5D 3D 2D | KD 4D | QD JD TD | 9D 8D 7D 6D
#:   clubs    TC | KC 5C 3C | AC JC 9C 2C | QC 8C 7C 6C 4C
FORCED_FOLLOW = (
    "AS QS 4S 3S AH QH 4H 2H AD 5D 3D 2D TC",
    "KS JS 2S KH JH 8H 7H 3H KD 4D KC 5C 3C",
    "TS 9S 8S 7S TH 9H QD JD TD AC JC 9C 2C",
    "6S 5S 6H 5H 9D 8D 7D 6D QC 8C 7C 6C 4C",
)

#: For No King with forced penalty cards: seat 0 has AH QH, seat 1 KH 9H 8H, seat 3 is
#: void in spades and holds hearts but not the king.
NO_KING_FOLLOW = (
    "AS KS QS JS TS 9S 8S AH QH 5D 4D 3D 2D",
    "7S 6S KH 9H 8H AD KD QD JD TD 9D 8D 7D",
    "5S 4S 3S 2S 2H 6D AC KC QC JC TC 9C 8C",
    "JH TH 7H 6H 5H 4H 3H 7C 6C 5C 4C 3C 2C",
)

FORCED = Rules(forced_penalty=True)


# -- helpers -------------------------------------------------------------------------


def cards(text: str) -> set[str]:
    """A set of card strings, for comparing with :func:`legal`."""
    return set(text.split())


def legal(deal: Deal) -> set[str]:
    return {str(card) for card in deal.legal_moves()}


def negative(contract: Contract) -> Declaration:
    return Declaration(contract)


def trumps(suit: Suit) -> Declaration:
    return Declaration(Contract.TRUMPS, suit)


def play_tricks(deal: Deal, tricks: list[tuple[int, str, int]]) -> None:
    """Play whole tricks, checking the hand-computed leader and winner of each."""
    for leader, played, winner in tricks:
        number = deal.trick_count + 1
        assert deal.to_play == leader, f"trick {number}: expected seat {leader} to lead"
        for card in played.split():
            deal.play(card)
        assert deal.trick_count == number
        trick = deal.tricks[-1]
        assert trick.leader == leader
        assert [str(c) for c in trick.cards] == played.split()
        assert trick.winner == winner, f"trick {number} ({played}): expected seat {winner}"


def snapshot(deal: Deal) -> tuple[object, ...]:
    seat = deal.to_play
    assert seat is not None
    return (
        seat,
        [str(deal.hand(s)) for s in range(4)],
        [str(c) for c in deal.plays],
        deal.current_trick,
        deal.trick_count,
        deal.points(),
        legal(deal),
    )


def assert_refused(deal: Deal, card: str, sentence: str) -> None:
    """``card`` is refused with a message containing ``sentence``, which names seats
    counted from 1 as people count them (the seat with index 0 is "seat 1"), while the
    error's ``seat`` and ``params`` keep the index; nothing changes."""
    before = snapshot(deal)
    seat = deal.to_play
    assert seat is not None
    with pytest.raises(IllegalMoveError, match=re.escape(sentence)) as info:
        deal.play(card)
    assert info.value.seat == seat
    assert info.value.params["seat"] == str(seat)
    assert str(info.value.card) == card
    assert f"seat {seat + 1}" in str(info.value)
    assert snapshot(deal) == before
    assert not deal.is_legal(card)


# -- trick winners -------------------------------------------------------------------


def test_trick_goes_to_highest_card_of_led_suit_not_highest_card():
    deal = Deal(SUIT_HANDS, declarer=3, declaration=negative(Contract.NO_TRICKS))
    # Seat 3 leads the two of clubs; the three aces are of other suits and do not count.
    play_tricks(deal, [(3, "2C AS AH AD", 3)])
    # In the long-suit layout the highest heart, held by the second player, wins.
    deal = Deal(LONG, declarer=0, declaration=negative(Contract.NO_TRICKS))
    play_tricks(deal, [(0, "2H 5H 3H 4H", 1)])


def test_trump_beats_led_suit():
    deal = Deal(SUIT_HANDS, declarer=3, declaration=trumps(Suit.SPADES))
    deal.play("AC")
    # Seat 0 holds nothing but spades (trumps): every card is a legal ruff.
    assert legal(deal) == cards(SUIT_HANDS[0])
    deal.play("2S")
    assert legal(deal) == cards(SUIT_HANDS[1])  # seat 1 has no trump: anything
    deal.play("AH")
    deal.play("AD")
    assert deal.tricks[0].winner == 0  # the two of trumps beats the ace of clubs


def test_highest_of_several_trumps_wins():
    deal = Deal(TRUMP_TEST, declarer=0, declaration=trumps(Suit.HEARTS))
    # 3H ruffs first, then KH overtakes it: the highest trump wins, not the first.
    play_tricks(deal, [(0, "AS 3H AC KH", 3)])


# -- Trumps: forced ruff, compulsory under-ruff, free discard ---------------------------


def test_trumps_forced_ruff_and_compulsory_underruff():
    deal = Deal(TRUMP_TEST, declarer=0, declaration=trumps(Suit.HEARTS))
    assert legal(deal) == cards(TRUMP_TEST[0])  # any lead in classic
    deal.play("AS")
    # Seat 1 has no spade: it must trump with one of its two hearts.
    assert legal(deal) == cards("AH 3H")
    assert_refused(deal, "AD", "seat 2 cannot follow spades and must play a trump (hearts)")
    deal.play("AH")
    # Seat 2 has neither spades nor trumps: it may discard anything at all.
    assert legal(deal) == cards(TRUMP_TEST[2])
    deal.play("4D")
    # Seat 3 has no spade; every heart it holds is below the AH already in the trick,
    # yet it must still trump (under-ruffing is compulsory in classic).
    assert legal(deal) == cards("KH QH JH TH 9H 8H 7H 6H 5H 4H 2H")
    assert_refused(deal, "3D", "seat 4 cannot follow spades and must play a trump (hearts)")
    deal.play("2H")
    assert deal.tricks[0].winner == 1
    assert deal.points() == [0, 50, 0, 0]


def test_trumps_any_trump_when_not_overruff():
    deal = Deal(TRUMP_TEST, declarer=0, declaration=trumps(Suit.HEARTS))
    for card in ("AS", "3H", "4D"):
        deal.play(card)
    # Classic: after 3H any trump, even 2H below it.
    assert legal(deal) == cards("KH QH JH TH 9H 8H 7H 6H 5H 4H 2H")
    deal.play("2H")
    assert deal.tricks[0].winner == 1  # 3H beats 2H


def test_trumps_full_deal_classic():
    """Trumps (spades), seat 0 declares, on the long-suit layout."""
    deal = Deal(LONG, declarer=0, declaration=trumps(Suit.SPADES))
    play_tricks(deal, [(0, "2H AH 3H 4H", 1)])  # no trump: the ace of hearts
    deal.play("KH")
    assert legal(deal) == cards("3S")  # seat 2 must ruff with its only trump
    deal.play("3S")
    assert legal(deal) == cards("2S")  # seat 3 must under-ruff below 3S
    assert_refused(deal, "AC", "seat 4 cannot follow hearts and must play a trump (spades)")
    deal.play("2S")
    assert legal(deal) == cards("AS KS QS JS TS 9S 8S 7S 6S 5S")
    deal.play("5S")
    assert deal.tricks[1].winner == 0  # 5S is the highest of three trumps
    play_tricks(
        deal,
        [
            (0, "2D 3D AD 4D", 2),
            (2, "KD 5C 6S 4S", 0),  # seat 3 has no trump left: free discard
            (0, "2C 3C 4C AC", 3),
            (3, "KC 7S 5H QD", 0),
            (0, "AS QH JD QC", 0),
            (0, "KS JH TD JC", 0),
            (0, "QS TH 9D TC", 0),
            (0, "JS 9H 8D 9C", 0),
            (0, "TS 8H 7D 8C", 0),
            (0, "9S 7H 6D 7C", 0),
            (0, "8S 6H 5D 6C", 0),
        ],
    )
    assert deal.is_over
    assert deal.trick_count == 13
    assert [deal.tricks_won(s) for s in range(4)] == [10, 1, 1, 1]
    assert deal.points() == [500, 50, 50, 50]
    assert sum(deal.points()) == 650


# -- the other contracts, played to the end (classic) --------------------------------


def test_no_tricks_full_deal():
    deal = Deal(LONG, declarer=0, declaration=negative(Contract.NO_TRICKS))
    deal.play("2H")
    deal.play("5H")
    assert_refused(deal, "AD", "seat 3 must follow hearts")
    deal.play("3H")
    deal.play("4H")
    assert deal.tricks[0].winner == 1
    play_tricks(
        deal,
        [
            (1, "4S 3S 2S 5S", 0),
            (0, "2D 3D 5D 4D", 2),
            (2, "4C 5C 2C 3C", 3),
            (3, "AC AS AH AD", 3),
            (3, "KC KS KH KD", 3),
            (3, "QC QS QH QD", 3),
            (3, "JC JS JH JD", 3),
            (3, "TC TS TH TD", 3),
            (3, "9C 9S 9H 9D", 3),
            (3, "8C 8S 8H 8D", 3),
            (3, "7C 7S 7H 7D", 3),
            (3, "6C 6S 6H 6D", 3),
        ],
    )
    assert deal.is_over
    assert deal.points() == [-50, -50, -50, -500]
    assert sum(deal.points()) == -650


def test_no_hearts_full_deal():
    deal = Deal(LONG, declarer=0, declaration=negative(Contract.NO_HEARTS))
    assert legal(deal) == cards("AS KS QS JS TS 9S 8S 7S 6S 5S 2D 2C")
    assert_refused(deal, "2H", "hearts may not be led yet")
    play_tricks(deal, [(0, "2D 3D 5D 4D", 2), (2, "4C 5C 2C 3C", 3)])
    # Seat 3 holds 4H and other cards, and no heart has been played yet.
    assert_refused(
        deal,
        "4H",
        "hearts may not be led yet: no heart has been played and seat 4 holds other suits",
    )
    play_tricks(
        deal,
        [
            (3, "2S 5S 4S 3S", 0),
            (0, "AS AH 3H 4H", 0),  # three hearts discarded: seat 0 takes 3
        ],
    )
    # Hearts were discarded to trick 4, so seat 0 may now lead its 2H.
    assert "2H" in legal(deal)
    play_tricks(
        deal,
        [
            (0, "2H 5H AD AC", 1),
            (1, "KH KD KC KS", 1),
            (1, "QH QD QC QS", 1),
            (1, "JH JD JC JS", 1),
            (1, "TH TD TC TS", 1),
            (1, "9H 9D 9C 9S", 1),
            (1, "8H 8D 8C 8S", 1),
            (1, "7H 7D 7C 7S", 1),
            (1, "6H 6D 6C 6S", 1),
        ],
    )
    assert deal.is_over
    # Seat 0: AH 3H 4H = 3 hearts; seat 1: 2H 5H and eight more = 10 hearts.
    assert deal.points() == [-90, -300, 0, 0]
    assert sum(deal.points()) == -390


def test_no_queens_full_deal():
    deal = Deal(LONG, declarer=0, declaration=negative(Contract.NO_QUEENS))
    play_tricks(
        deal,
        [
            (0, "2H QH 3H 4H", 1),
            (1, "3D QD 4D 2D", 2),
            (2, "4C QC 2C 3C", 3),
            (3, "2S QS 4S 3S", 0),
            (0, "AS AH AD AC", 0),
            (0, "KS KH KD KC", 0),
            (0, "JS JH JD JC", 0),
            (0, "TS TH TD TC", 0),
            (0, "9S 9H 9D 9C", 0),
            (0, "8S 8H 8D 8C", 0),
            (0, "7S 7H 7D 7C", 0),
            (0, "6S 6H 6D 6C", 0),
            (0, "5S 5H 5D 5C", 0),
        ],
    )
    assert deal.is_over
    assert deal.points() == [-100, -100, -100, -100]
    assert sum(deal.points()) == -400


NO_BOYS_TRICKS = [
    (0, "2H KH 3H 4H", 1),
    (1, "3D JD 4D 2D", 2),
    (2, "4C KC 2C 3C", 3),
    (3, "2S JS 4S 3S", 0),
    (0, "AS JH KD JC", 0),
    (0, "KS AH AD AC", 0),  # the last boy, KS, falls here
    (0, "QS QH QD QC", 0),
    (0, "TS TH TD TC", 0),
    (0, "9S 9H 9D 9C", 0),
    (0, "8S 8H 8D 8C", 0),
    (0, "7S 7H 7D 7C", 0),
    (0, "6S 6H 6D 6C", 0),
    (0, "5S 5H 5D 5C", 0),
]


def test_no_boys_full_deal():
    deal = Deal(LONG, declarer=0, declaration=negative(Contract.NO_BOYS))
    play_tricks(deal, NO_BOYS_TRICKS)
    assert deal.is_over
    # Seat 0: JS, then JH KD JC, then KS = 5 boys; the others one each.
    assert deal.points() == [-300, -60, -60, -60]
    assert sum(deal.points()) == -480


def test_no_king_full_deal():
    deal = Deal(LONG, declarer=0, declaration=negative(Contract.NO_KING))
    assert_refused(deal, "2H", "hearts may not be led yet")
    play_tricks(
        deal,
        [
            (0, "2D 3D 5D 4D", 2),
            (2, "KD 5C 5S KH", 2),  # seat 1, out of diamonds, throws the KH to seat 2
        ],
    )
    # A heart (the KH) was played to trick 2, so seat 2 may lead its 3H.
    assert "3H" in legal(deal)
    play_tricks(
        deal,
        [
            (2, "3H 4H 2H 5H", 1),
            (1, "4S 3S 2S 6S", 0),
            (0, "2C 3C 4C 6C", 3),
            (3, "AC AS AH AD", 3),
            (3, "KC KS QH QD", 3),
            (3, "QC QS JH JD", 3),
            (3, "JC JS TH TD", 3),
            (3, "TC TS 9H 9D", 3),
            (3, "9C 9S 8H 8D", 3),
            (3, "8C 8S 7H 7D", 3),
            (3, "7C 7S 6H 6D", 3),
        ],
    )
    assert deal.is_over
    assert deal.points() == [0, 0, -320, 0]
    assert sum(deal.points()) == -320


def test_no_last_two_full_deal():
    deal = Deal(LONG, declarer=0, declaration=negative(Contract.NO_LAST_TWO))
    play_tricks(
        deal,
        [
            (0, "AS 4S 3S 2S", 0),
            (0, "KS AH AD AC", 0),
            (0, "QS KH KD KC", 0),
            (0, "JS QH QD QC", 0),
            (0, "TS JH JD JC", 0),
            (0, "9S TH TD TC", 0),
            (0, "8S 9H 9D 9C", 0),
            (0, "7S 8H 8D 8C", 0),
            (0, "6S 7H 7D 7C", 0),
            (0, "2H 5H 3H 4H", 1),
            (1, "6H 6D 6C 5S", 1),
        ],
    )
    # Eleven tricks, none of them scores.
    assert deal.points() == [0, 0, 0, 0]
    play_tricks(deal, [(1, "3D 5D 4D 2D", 2), (2, "4C 5C 2C 3C", 3)])
    assert deal.is_over
    assert deal.points() == [0, 0, -180, -180]
    assert sum(deal.points()) == -360


# -- leading hearts in No Hearts and No King -------------------------------------------


@pytest.mark.parametrize("contract", [Contract.NO_HEARTS, Contract.NO_KING])
def test_heart_lead_refused_until_a_heart_is_discarded(contract):
    deal = Deal(LONG, declarer=0, declaration=negative(contract))
    assert legal(deal) == cards("AS KS QS JS TS 9S 8S 7S 6S 5S 2D 2C")
    assert_refused(
        deal,
        "2H",
        "hearts may not be led yet: no heart has been played and seat 1 holds other suits",
    )
    play_tricks(deal, [(0, "AS 4S 3S 2S", 0)])
    assert "2H" not in legal(deal)  # still no heart played
    play_tricks(deal, [(0, "KS 5H AD AC", 0)])  # seat 1 discards 5H
    assert legal(deal) == cards("QS JS TS 9S 8S 7S 6S 5S 2H 2D 2C")
    deal.play("2H")
    assert deal.current_trick[0][1].suit is Suit.HEARTS


@pytest.mark.parametrize("contract", [Contract.NO_HEARTS, Contract.NO_KING])
def test_heart_lead_allowed_when_leader_holds_only_hearts(contract):
    deal = Deal(SUIT_HANDS, declarer=1, declaration=negative(contract))
    assert legal(deal) == cards(SUIT_HANDS[1])
    play_tricks(deal, [(1, "2H AD AC AS", 1)])


def test_hearts_may_be_led_at_once_in_other_contracts():
    for declaration in (
        negative(Contract.NO_TRICKS),
        negative(Contract.NO_QUEENS),
        negative(Contract.NO_BOYS),
        negative(Contract.NO_LAST_TWO),
        trumps(Suit.CLUBS),
    ):
        deal = Deal(LONG, declarer=0, declaration=declaration)
        assert legal(deal) == cards(LONG[0]), declaration


# -- toggle: forced_penalty ----------------------------------------------------------

# Long-suit layout; trick 1 is AS 4S 3S 2S, then seat 0 leads KS and seats 1, 2 and 3
# are all out of spades.
# Each case: (seat 1's legal cards, its play, seat 2's legal cards, its play,
# seat 3's legal cards).
VOID_CASES = {
    Contract.NO_HEARTS: ("AH KH QH JH TH 9H 8H 7H 6H 5H", "5H", "3H", "3H", "4H"),
    Contract.NO_QUEENS: ("QH", "QH", "QD", "QD", "QC"),
    Contract.NO_BOYS: ("KH JH", "JH", "KD JD", "KD", "KC JC"),
    Contract.NO_KING: (
        "KH",
        "KH",
        "AD KD QD JD TD 9D 8D 7D 6D 5D 3H 4C",  # seat 2 has no KH: anything
        "4C",
        "AC KC QC JC TC 9C 8C 7C 6C 5C 4H 4D",  # nor has seat 3
    ),
}


@pytest.mark.parametrize("contract", list(VOID_CASES))
def test_forced_penalty_void_player_must_discard_penalty_card(contract):
    seat1, seat1_plays, seat2, seat2_plays, seat3 = VOID_CASES[contract]
    deal = Deal(LONG, declarer=0, declaration=negative(contract), rules=FORCED)
    play_tricks(deal, [(0, "AS 4S 3S 2S", 0)])
    deal.play("KS")
    assert legal(deal) == cards(seat1)
    assert_refused(deal, "3D", "seat 2 cannot follow spades and must discard a penalty card")
    deal.play(seat1_plays)
    assert legal(deal) == cards(seat2)
    deal.play(seat2_plays)
    assert legal(deal) == cards(seat3)


@pytest.mark.parametrize("contract", list(VOID_CASES))
def test_without_forced_penalty_void_player_discards_anything(contract):
    deal = Deal(LONG, declarer=0, declaration=negative(contract))
    play_tricks(deal, [(0, "AS 4S 3S 2S", 0)])
    deal.play("KS")
    assert legal(deal) == cards("AH KH QH JH TH 9H 8H 7H 6H 5H 3D 3C")


def test_forced_penalty_no_boys_following_suit():
    deal = Deal(FORCED_FOLLOW, declarer=0, declaration=negative(Contract.NO_BOYS), rules=FORCED)
    # Trick 1: AS led; seat 1 holds KS and JS, both below the ace: either one.
    deal.play("AS")
    assert legal(deal) == cards("KS JS")
    assert_refused(deal, "2S", "seat 2 must play a penalty card under the higher card in the trick")
    deal.play("JS")
    assert legal(deal) == cards("TS 9S 8S 7S")  # seat 2 has no boy
    deal.play("7S")
    deal.play("5S")
    assert deal.tricks[0].winner == 0
    # Trick 2: QH led; JH is below the queen and forced, KH is above it and is not.
    deal.play("QH")
    assert legal(deal) == cards("JH")
    assert_refused(deal, "KH", "seat 2 must play a penalty card under the higher card in the trick")
    deal.play("JH")
    deal.play("9H")
    deal.play("5H")
    assert deal.tricks[1].winner == 0
    # Trick 3: AD led; seat 1 must give KD, seat 2 must give JD (not QD or TD).
    deal.play("AD")
    assert legal(deal) == cards("KD")
    deal.play("KD")
    assert legal(deal) == cards("JD")
    deal.play("JD")
    assert legal(deal) == cards("9D 8D 7D 6D")
    deal.play("6D")
    assert deal.tricks[2].winner == 0
    # Trick 4: TC led; seat 1's only boy in clubs, KC, ranks above TC: nothing forced.
    deal.play("TC")
    assert legal(deal) == cards("KC 5C 3C")
    deal.play("KC")
    # Now the highest club in the trick is KC: seat 2's JC is below it and forced,
    # even though seat 2 holds the AC.
    assert legal(deal) == cards("JC")
    assert_refused(deal, "AC", "seat 3 must play a penalty card under the higher card in the trick")
    deal.play("JC")
    assert legal(deal) == cards("QC 8C 7C 6C 4C")
    deal.play("4C")
    assert deal.tricks[3].winner == 1
    # Boys taken: seat 0 JS, JH, KD, JD; seat 1 KC, JC.
    assert deal.points() == [-240, -120, 0, 0]


def test_forced_penalty_no_queens_following_suit():
    deal = Deal(FORCED_FOLLOW, declarer=0, declaration=negative(Contract.NO_QUEENS), rules=FORCED)
    # Trick 1: AD then KD; seat 2's QD is below them and forced.
    deal.play("AD")
    assert legal(deal) == cards("KD 4D")  # seat 1 has no queen of diamonds
    deal.play("KD")
    assert legal(deal) == cards("QD")
    assert_refused(deal, "JD", "seat 3 must play a penalty card under the higher card in the trick")
    deal.play("QD")
    deal.play("6D")
    assert deal.tricks[0].winner == 0
    # Trick 2: TC then KC; seat 3's QC is below the king and forced.
    deal.play("TC")
    deal.play("KC")
    assert legal(deal) == cards("AC JC 9C 2C")
    deal.play("2C")
    assert legal(deal) == cards("QC")
    deal.play("QC")
    assert deal.tricks[1].winner == 1
    # Trick 3: JS is the highest spade; seat 0's QS ranks above it and is not forced.
    deal.play("JS")
    deal.play("7S")
    deal.play("5S")
    assert legal(deal) == cards("AS QS 4S 3S")
    deal.play("3S")
    assert deal.tricks[2].winner == 1
    assert deal.points() == [-100, -100, 0, 0]


def test_forced_penalty_no_king_following_suit():
    deal = Deal(NO_KING_FOLLOW, declarer=0, declaration=negative(Contract.NO_KING), rules=FORCED)
    assert legal(deal) == cards("AS KS QS JS TS 9S 8S 5D 4D 3D 2D")
    assert_refused(deal, "AH", "hearts may not be led yet")
    deal.play("AS")
    assert legal(deal) == cards("7S 6S")
    deal.play("6S")
    deal.play("2S")
    # Seat 3 is out of spades but has no KH: a free discard.
    assert legal(deal) == cards(NO_KING_FOLLOW[3])
    deal.play("3H")
    assert deal.tricks[0].winner == 0
    # Trick 2: QH led; the KH ranks above it, so it is not forced.
    deal.play("QH")
    assert legal(deal) == cards("KH 9H 8H")
    deal.play("8H")
    deal.play("2H")
    deal.play("4H")
    assert deal.tricks[1].winner == 0
    # Trick 3: AH led; the KH is below the ace and must be played.
    deal.play("AH")
    assert legal(deal) == cards("KH")
    assert_refused(deal, "9H", "seat 2 must play a penalty card under the higher card in the trick")
    deal.play("KH")
    assert legal(deal) == cards("5S 4S 3S 6D AC KC QC JC TC 9C 8C")
    deal.play("AC")
    deal.play("5H")
    assert deal.tricks[2].winner == 0
    assert deal.points() == [-320, 0, 0, 0]


def test_forced_penalty_no_hearts_void_discard_but_no_follow_rule():
    deal = Deal(NO_KING_FOLLOW, declarer=0, declaration=negative(Contract.NO_HEARTS), rules=FORCED)
    deal.play("AS")
    deal.play("6S")
    deal.play("2S")
    # Seat 3 is out of spades: it must discard a heart, any heart.
    assert legal(deal) == cards("JH TH 7H 6H 5H 4H 3H")
    assert_refused(deal, "7C", "seat 4 cannot follow spades and must discard a penalty card")
    deal.play("3H")
    assert deal.tricks[0].winner == 0
    # Hearts are broken; QH led.  No Hearts has no rule for following suit: seat 1 may
    # play any heart, above or below the queen.
    deal.play("QH")
    assert legal(deal) == cards("KH 9H 8H")
    deal.play("KH")
    deal.play("2H")
    deal.play("4H")
    assert deal.tricks[1].winner == 1
    assert deal.points() == [-30, -120, 0, 0]


def test_no_king_following_suit_without_forced_penalty():
    deal = Deal(NO_KING_FOLLOW, declarer=0, declaration=negative(Contract.NO_KING))
    play_tricks(deal, [(0, "AS 6S 2S 3H", 0), (0, "QH 8H 2H 4H", 0)])
    deal.play("AH")
    assert legal(deal) == cards("KH 9H")


# -- toggle: early_end ---------------------------------------------------------------


def test_early_end_no_queens():
    deal = Deal(
        LONG,
        declarer=0,
        declaration=negative(Contract.NO_QUEENS),
        rules=Rules(early_end=True),
    )
    play_tricks(
        deal,
        [
            (0, "2H QH 3H 4H", 1),
            (1, "3D QD 4D 2D", 2),
            (2, "4C QC 2C 3C", 3),
        ],
    )
    assert not deal.is_over
    play_tricks(deal, [(3, "2S QS 4S 3S", 0)])  # the fourth queen falls
    assert deal.is_over
    assert deal.trick_count == 4
    assert deal.to_play is None
    assert deal.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="the deal is over"):
        deal.play("AS")
    assert deal.points() == [-100, -100, -100, -100]
    assert sum(deal.points()) == -400


def test_early_end_no_boys():
    deal = Deal(
        LONG,
        declarer=0,
        declaration=negative(Contract.NO_BOYS),
        rules=Rules(early_end=True),
    )
    play_tricks(deal, NO_BOYS_TRICKS[:5])
    assert not deal.is_over  # KS is still out
    play_tricks(deal, NO_BOYS_TRICKS[5:6])
    assert deal.is_over
    assert deal.trick_count == 6
    assert deal.points() == [-300, -60, -60, -60]
    assert sum(deal.points()) == -480


def test_early_end_does_not_apply_to_trick_contracts():
    deal = Deal(
        LONG,
        declarer=0,
        declaration=negative(Contract.NO_LAST_TWO),
        rules=Rules(early_end=True),
    )
    play_tricks(deal, [(0, "AS 4S 3S 2S", 0), (0, "KS QH QD QC", 0)])
    assert not deal.is_over


# -- toggle: overruff ----------------------------------------------------------------


def test_overruff_must_beat_trump_in_trick():
    deal = Deal(
        TRUMP_TEST,
        declarer=0,
        declaration=trumps(Suit.HEARTS),
        rules=Rules(overruff=True),
    )
    deal.play("AS")
    assert legal(deal) == cards("AH 3H")  # no trump in the trick yet: any trump
    deal.play("3H")
    assert legal(deal) == cards(TRUMP_TEST[2])  # no trump held: anything
    deal.play("4D")
    # Seat 3 holds hearts above 3H: it must play one of them, not the 2H.
    assert legal(deal) == cards("KH QH JH TH 9H 8H 7H 6H 5H 4H")
    assert_refused(deal, "2H", "seat 4 must overruff")
    assert_refused(deal, "3D", "seat 4 cannot follow spades and must play a trump (hearts)")
    deal.play("4H")
    assert deal.tricks[0].winner == 3


def test_overruff_with_only_lower_trumps_any_trump():
    deal = Deal(
        TRUMP_TEST,
        declarer=0,
        declaration=trumps(Suit.HEARTS),
        rules=Rules(overruff=True),
    )
    for card in ("AS", "AH", "4D"):
        deal.play(card)
    # Nothing beats AH: any trump, but still a trump.
    assert legal(deal) == cards("KH QH JH TH 9H 8H 7H 6H 5H 4H 2H")
    assert_refused(deal, "2D", "seat 4 cannot follow spades and must play a trump (hearts)")
    deal.play("2H")
    assert deal.tricks[0].winner == 1


#: For overruff against two trumps: seat 1 has only 5H, seat 2 only 9H, seat 3 the rest.
TWO_RUFFS = (
    "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S",
    "5H AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D",
    "9H AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C",
    "AH KH QH JH TH 8H 7H 6H 4H 3H 2H 2D 2C",
)


def test_overruff_must_beat_the_highest_trump_in_trick():
    deal = Deal(
        TWO_RUFFS,
        declarer=0,
        declaration=trumps(Suit.HEARTS),
        rules=Rules(overruff=True),
    )
    deal.play("AS")
    assert legal(deal) == cards("5H")
    deal.play("5H")
    assert legal(deal) == cards("9H")  # 9H is above 5H
    deal.play("9H")
    # 8H, 7H and 6H beat 5H but not 9H: only TH and above will do.
    assert legal(deal) == cards("AH KH QH JH TH")
    assert_refused(deal, "8H", "seat 4 must overruff")
    deal.play("TH")
    assert deal.tricks[0].winner == 3


def test_highest_trump_wins_when_three_players_ruff():
    deal = Deal(TWO_RUFFS, declarer=0, declaration=trumps(Suit.HEARTS))
    deal.play("AS")
    deal.play("5H")
    deal.play("9H")
    assert legal(deal) == cards("AH KH QH JH TH 8H 7H 6H 4H 3H 2H")  # classic: any trump
    deal.play("6H")
    assert deal.tricks[0].winner == 2  # 9H beats 6H and 5H


# -- toggle: trump_lead_after_break ----------------------------------------------------


def test_trump_lead_after_break():
    deal = Deal(
        LONG,
        declarer=0,
        declaration=trumps(Suit.SPADES),
        rules=Rules(trump_lead_after_break=True),
    )
    assert legal(deal) == cards("2H 2D 2C")
    assert_refused(
        deal,
        "AS",
        "trumps may not be led yet: no trump (spades) has been played and seat 1 holds other suits",
    )
    play_tricks(deal, [(0, "2H AH 3H 4H", 1)])
    # Seat 1 may not lead its 4S either.
    assert legal(deal) == cards("KH QH JH TH 9H 8H 7H 6H 5H 3D 3C")
    play_tricks(deal, [(1, "KH 3S 2S 5S", 0)])  # trumps have now fallen
    assert legal(deal) == cards("AS KS QS JS TS 9S 8S 7S 6S 2D 2C")
    deal.play("AS")


def test_trump_lead_allowed_when_leader_holds_only_trumps():
    deal = Deal(
        SUIT_HANDS,
        declarer=0,
        declaration=trumps(Suit.SPADES),
        rules=Rules(trump_lead_after_break=True),
    )
    assert legal(deal) == cards(SUIT_HANDS[0])


def test_trump_lead_any_time_in_classic():
    deal = Deal(LONG, declarer=0, declaration=trumps(Suit.SPADES))
    assert legal(deal) == cards(LONG[0])


# -- toggle: two_of_diamonds_starts ---------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 42, 2024])
def test_two_of_diamonds_holder_declares_first(seed):
    for rules in (Rules(two_of_diamonds_starts=True), Rules.preset("turkish")):
        game = Game(rules, seed=seed)
        holders = [seat for seat in range(4) if "2D" in game.hand(seat)]
        assert len(holders) == 1
        assert game.declarer == holders[0]
        assert game.phase is Phase.DECLARING


# -- declarations over a game ----------------------------------------------------------


def _finish_deal(game: Game) -> None:
    while game.phase is Phase.PLAYING:
        deal = game.deal
        assert deal is not None
        game.play(deal.legal_moves()[0])


def _refused(game: Game, text: str, sentence: str) -> None:
    declarer = game.declarer
    declaration = Declaration.parse(text)
    assert game.refusal(declaration) == sentence
    with pytest.raises(IllegalDeclarationError, match=re.escape(sentence)) as info:
        game.declare(declaration)
    assert info.value.seat == declarer
    assert game.phase is Phase.DECLARING
    assert game.declarer == declarer


def test_act_declares_or_plays_with_the_checks_of_declare_and_play():
    """One way to act: a declaration or a card, refused as declare and play refuse it."""
    game = Game(seed=3)
    assert game.legal_actions() == tuple(game.allowed_declarations())
    card = next(iter(game.hand(game.declarer)))
    with pytest.raises(GameStateError, match="no card can be played: the game is declaring"):
        game.act(card)
    declaration = game.legal_actions()[0]
    game.act(declaration)
    deal = game.deal
    assert deal is not None and deal.declaration == declaration
    assert game.legal_actions() == tuple(deal.legal_moves())
    with pytest.raises(GameStateError, match="no declaration is due: the game is playing"):
        game.act(declaration)
    refused = [c for c in deal.hand(game.declarer) if c not in deal.legal_moves()]
    for other in refused[:1]:
        with pytest.raises(IllegalMoveError):
            game.act(other)
    game.act(game.legal_actions()[0])
    assert len(deal.plays) == 1


def test_declaration_limits():
    game = Game(seed=11)
    first = game.declarer

    def seat(k: int) -> int:
        return (first + k) % 4

    def declare(k: int, text: str) -> None:
        assert game.deal_number == k
        assert game.declarer == seat(k)
        game.declare(text)
        _finish_deal(game)

    declare(0, "trumps S")
    declare(1, "no-queens")
    declare(2, "no-queens")
    # Deal 3: No Queens has been played twice, by anyone.
    _refused(game, "no-queens", "No Queens has been played twice")
    assert game.refusal(Declaration(Contract.NO_QUEENS), seat=seat(0)) is not None
    declare(3, "trumps H")
    declare(4, "trumps D")  # seat(0)'s second Trumps
    declare(5, "no-hearts")
    declare(6, "trumps C")
    declare(7, "trumps S")
    # Deal 8: seat(0) has declared Trumps twice; no third, in any suit.
    for suit in "SHDC":
        _refused(game, f"trumps {suit}", f"seat {seat(0) + 1} has already declared Trumps 2 times")
    assert all(d.contract is not Contract.TRUMPS for d in game.allowed_declarations())
    declare(8, "no-tricks")
    declare(9, "no-boys")  # seat(1)'s third negative
    declare(10, "no-tricks")
    declare(11, "no-king")
    declare(12, "no-king")
    # Deal 13: seat(1) has declared three negative contracts; no fourth.
    _refused(game, "no-last-two", f"seat {seat(1) + 1} has already declared 3 negative contracts")
    assert {str(d) for d in game.allowed_declarations()} == {
        "trumps S",
        "trumps H",
        "trumps D",
        "trumps C",
    }
    declare(13, "trumps S")

    assert [game.trumps_declared(seat(k)) for k in range(4)] == [2, 1, 1, 2]
    assert [game.negatives_declared(seat(k)) for k in range(4)] == [2, 3, 2, 1]
    assert game.times_declared(Contract.NO_QUEENS) == 2
    assert game.times_declared(Contract.NO_TRICKS) == 2
    assert game.times_declared(Contract.NO_KING) == 2
    assert game.times_declared(Contract.NO_HEARTS) == 1
    assert game.times_declared(Contract.NO_BOYS) == 1
    assert game.times_declared(Contract.NO_LAST_TWO) == 0
    # Six Trumps deals (+650 each) and eight negative deals:
    # 2 x -400, -390, 2 x -650, -480, 2 x -320 = -3610.
    assert sum(game.totals) == 6 * 650 - 3610 == 290
    assert [sum(r.points) for r in game.results] == [
        650,
        -400,
        -400,
        650,
        650,
        -390,
        650,
        650,
        -650,
        -480,
        -650,
        -320,
        -320,
        650,
    ]


# -- presets ---------------------------------------------------------------------------


def _toggles(rules: Rules) -> dict[str, bool]:
    return {name: getattr(rules, name) for name in TOGGLES}


def test_presets_have_exactly_the_listed_toggles():
    assert TOGGLES == (
        "forced_penalty",
        "early_end",
        "overruff",
        "trump_lead_after_break",
        "two_of_diamonds_starts",
    )
    assert _toggles(Rules.preset("classic")) == {
        "forced_penalty": False,
        "early_end": False,
        "overruff": False,
        "trump_lead_after_break": False,
        "two_of_diamonds_starts": False,
    }
    assert Rules.preset("classic") == Rules()
    assert _toggles(Rules.preset("pagat")) == {
        "forced_penalty": True,
        "early_end": True,
        "overruff": False,
        "trump_lead_after_break": False,
        "two_of_diamonds_starts": False,
    }
    assert _toggles(Rules.preset("turkish")) == {
        "forced_penalty": True,
        "early_end": True,
        "overruff": True,
        "trump_lead_after_break": True,
        "two_of_diamonds_starts": True,
    }
