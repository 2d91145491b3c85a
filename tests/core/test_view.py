"""What one seat may see: its own hand and public information, nothing else."""

from __future__ import annotations

import random

import pytest

from king.cards import SUIT_MASKS, CardSet, Suit
from king.game import Game, Phase
from king.record import replay, to_record
from king.rules import Declaration, Rules
from tests.support.games import random_move


def _swap_unplayed_same_suit(record: dict, deal_index: int, played: set[str]) -> dict | None:  # type: ignore[type-arg]
    """Exchange one unplayed card of a suit between seats 1 and 2 (not seat 0)."""
    hands = [CardSet.parse(h) for h in record["deals"][deal_index]["hands"]]
    for suit in Suit:
        one = [c for c in hands[1].suit(suit) if str(c) not in played]
        two = [c for c in hands[2].suit(suit) if str(c) not in played]
        if one and two:
            a, b = CardSet.of([one[0]]), CardSet.of([two[0]])
            hands[1] = hands[1] - a | b
            hands[2] = hands[2] - b | a
            changed = dict(record)
            changed["deals"] = [dict(d) for d in record["deals"]]
            changed["deals"][deal_index]["hands"] = [str(h) for h in hands]
            return changed
    return None


def test_other_seats_hidden_cards_do_not_change_a_view() -> None:
    rng = random.Random(3)
    checked = 0
    for trial in range(40):
        game = Game(seed=trial)
        game.declare(Declaration.parse("no-tricks"))
        for _ in range(rng.randrange(0, 40)):
            random_move(game, rng)
        record = to_record(game)
        played = set(record["deals"][0]["plays"].split())
        changed = _swap_unplayed_same_suit(record, 0, played)
        if changed is None:
            continue
        checked += 1
        other = replay(changed)
        assert other.valid, other.fault
        assert other.game.hand(1) != game.hand(1)
        assert other.game.view(0) == game.view(0)
        assert other.game.view(3) == game.view(3)
        assert other.game.view(1) != game.view(1)
    assert checked >= 30


def test_a_view_shows_legal_moves_only_to_the_seat_to_act() -> None:
    game = Game(seed=12)
    declarer = game.declarer
    for seat in range(4):
        view = game.view(seat)
        assert view.phase is Phase.DECLARING
        assert len(view.hand) == 13
        assert view.hand == game.hand(seat)
        assert bool(view.legal_declarations) == (seat == declarer)
        assert not view.legal_cards
    game.declare(Declaration.parse("trumps H"))
    for seat in range(4):
        view = game.view(seat)
        assert view.contract is not None
        assert view.trump is Suit.HEARTS
        assert bool(view.legal_cards) == (seat == declarer)
        assert view.unseen.mask == ((1 << 52) - 1) & ~view.hand.mask


def test_a_views_legal_actions_are_the_games_for_the_seat_to_act_only() -> None:
    """A bot holds only its view: what it may do is what the game would accept from it,
    in the same order, through a whole random game (declarations and cards)."""
    rng = random.Random(5)
    game = Game(Rules.preset("pagat"), seed=5)
    declared = 0
    while not game.is_over:
        to_act = game.to_act
        for seat in range(4):
            mine = game.view(seat).legal_actions()
            assert mine == (game.legal_actions() if seat == to_act else ()), (seat, to_act)
        assert game.view(None).legal_actions() == ()  # a spectator does nothing
        declared += isinstance(game.legal_actions()[0], Declaration)
        random_move(game, rng)
    assert declared == 20  # every deal's declaration, then its cards
    assert all(game.view(seat).legal_actions() == () for seat in range(4))


def test_voids_follow_from_failures_to_follow() -> None:
    # Seat 1 holds no spades; in Trumps (hearts) it must ruff, so a discard shows a void in
    # hearts as well.
    hands = [
        "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S",
        "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
        "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H",
        "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
    ]
    record = {
        "format": "king-record/1",
        "deals": [
            {"declarer": 0, "hands": hands, "contract": "trumps", "trump": "H", "plays": "AS 2D"}
        ],
    }
    game = replay(record).game
    voids = game.view(2).voids()
    assert voids[1] == frozenset({Suit.SPADES, Suit.HEARTS})
    assert voids[0] == voids[2] == voids[3] == frozenset()
    assert game.view(0).played.mask == (1 << 12) | (1 << 26)
    assert game.view(2).suit_cards(Suit.HEARTS).mask == SUIT_MASKS[Suit.HEARTS]


@pytest.mark.parametrize("preset", ["classic", "pagat"])
def test_a_spectator_sees_every_public_fact_and_no_hand(preset: str) -> None:
    """The core builds a spectator's view: seat 0's picture without its hand or legal
    moves, the hand sizes counted from the play alone."""
    rng = random.Random(4)
    game = Game(Rules.preset(preset), seed=4)
    steps = 0
    while not game.is_over:
        watching = game.view(None)
        seat_zero = game.view(0)
        assert watching.watching and watching.hand == CardSet()
        assert watching.legal_cards == CardSet() and watching.legal_declarations == ()
        public = {**seat_zero.to_json(), "seat": None, "hand": []}
        assert watching.to_json() == public
        dealt = game.phase in (Phase.PLAYING, Phase.DECLARING)
        sizes = [len(game.hand(seat)) if dealt else 0 for seat in range(4)]
        assert list(watching.hand_sizes) == sizes == list(seat_zero.hand_sizes)
        random_move(game, rng)
        steps += 1
    assert steps > 250
