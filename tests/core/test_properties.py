"""Hypothesis properties of deals, games and records, and an independent reference
implementation of the play rules that the engine's legality must agree with."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from king.cards import Card, CardSet, Rank, Suit
from king.deal import Deal, IllegalMoveError
from king.game import Action, Game, GameStateError, IllegalDeclarationError
from king.record import dump, replay, to_record
from king.rules import ALL_DECLARATIONS, PRESETS, Contract, Declaration, Rules

rules_strategy = st.builds(
    Rules,
    forced_penalty=st.booleans(),
    early_end=st.booleans(),
    overruff=st.booleans(),
    trump_lead_after_break=st.booleans(),
    two_of_diamonds_starts=st.booleans(),
)
declarations = st.sampled_from(ALL_DECLARATIONS)
seeds = st.integers(min_value=0, max_value=2**32)
seats = st.integers(min_value=0, max_value=3)


@st.composite
def dealt_hands(draw: st.DrawFn) -> list[int]:
    """Four hands of thirteen (masks), drawn so that a failure shrinks to a simple deal."""
    order = draw(st.permutations(range(52)))
    return [sum(1 << card for card in order[13 * seat : 13 * seat + 13]) for seat in range(4)]


def pick(data: st.DataObject, choices: Sequence[Action]) -> Action:
    """One choice drawn by hypothesis (shrinking towards the first), not by a seed."""
    return data.draw(st.sampled_from(choices))


def play_drawn_game(rules: Rules, seed: int, data: st.DataObject, stop: int = 10_000) -> Game:
    """A game (its deals from ``seed``) whose declarations and cards are drawn."""
    game = Game(rules, seed=seed)
    for _ in range(stop):
        if game.is_over:
            break
        game.act(pick(data, game.legal_actions()))
    return game


PENALTIES = {
    Contract.NO_HEARTS: {c for c in CardSet.full() if c.suit is Suit.HEARTS},
    Contract.NO_QUEENS: {c for c in CardSet.full() if c.rank is Rank.QUEEN},
    Contract.NO_BOYS: {c for c in CardSet.full() if c.rank in (Rank.KING, Rank.JACK)},
    Contract.NO_KING: {Card.parse("KH")},
}


def reference_legal(
    hand: set[Card],
    trick: list[Card],
    earlier: set[Card],
    declaration: Declaration,
    rules: Rules,
) -> set[Card]:
    """RULES.md written out plainly, card by card, independent of the engine."""
    contract, trump = declaration.contract, declaration.trump
    penalties = PENALTIES.get(contract, set())
    if not trick:
        if contract in (Contract.NO_HEARTS, Contract.NO_KING):
            hearts_fallen = any(c.suit is Suit.HEARTS for c in earlier)
            non_hearts = {c for c in hand if c.suit is not Suit.HEARTS}
            if not hearts_fallen and non_hearts:
                return non_hearts
        if contract is Contract.TRUMPS and rules.trump_lead_after_break:
            trump_fallen = any(c.suit is trump for c in earlier)
            non_trumps = {c for c in hand if c.suit is not trump}
            if not trump_fallen and non_trumps:
                return non_trumps
        return set(hand)
    led = trick[0].suit
    same = {c for c in hand if c.suit is led}
    if same:
        if rules.forced_penalty and contract in (
            Contract.NO_QUEENS,
            Contract.NO_BOYS,
            Contract.NO_KING,
        ):
            top = max(c.rank for c in trick if c.suit is led)
            forced = {c for c in same if c in penalties and c.rank < top}
            if forced:
                return forced
        return same
    if contract is Contract.TRUMPS:
        trumps = {c for c in hand if c.suit is trump}
        if not trumps:
            return set(hand)
        if rules.overruff:
            in_trick = [c.rank for c in trick if c.suit is trump]
            higher = {c for c in trumps if not in_trick or c.rank > max(in_trick)}
            if higher:
                return higher
        return trumps
    if rules.forced_penalty and penalties:
        held = {c for c in hand if c in penalties}
        if held:
            return held
    return set(hand)


@settings(max_examples=300, deadline=None)
@given(
    rules=rules_strategy,
    declaration=declarations,
    masks=dealt_hands(),
    leader=seats,
    data=st.data(),
)
def test_a_deal_plays_every_card_once_and_scores_its_total(
    rules: Rules, declaration: Declaration, masks: list[int], leader: int, data: st.DataObject
) -> None:
    hands = [CardSet(m) for m in masks]
    deal = Deal(hands, leader, declaration, rules)
    while not deal.is_over:
        deal.play(data.draw(st.sampled_from(deal.legal_moves())))
    plays = deal.plays
    assert len(plays) == len(set(plays)) == 4 * deal.trick_count
    assert all(any(card in hand for hand in hands) for card in plays)
    if deal.trick_count < 13:
        assert rules.early_end
        assert declaration.contract in PENALTIES
        assert PENALTIES[declaration.contract] <= set(plays)
    else:
        assert len(plays) == 52
    assert sum(deal.points()) == declaration.contract.total
    assert sum(deal.tricks_won(s) for s in range(4)) == deal.trick_count


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    rules=rules_strategy,
    declaration=declarations,
    masks=dealt_hands(),
    leader=seats,
    data=st.data(),
)
def test_legality_agrees_with_the_reference_rules(
    rules: Rules, declaration: Declaration, masks: list[int], leader: int, data: st.DataObject
) -> None:
    hands = [CardSet(m) for m in masks]
    deal = Deal(hands, leader, declaration, rules)
    earlier: set[Card] = set()
    while not deal.is_over:
        seat = deal.to_play
        assert seat is not None
        trick = [card for _, card in deal.current_trick]
        expected = reference_legal(set(deal.hand(seat)), trick, earlier, declaration, rules)
        assert set(deal.legal_moves()) == expected
        # The checked play accepts exactly the legal cards and refuses the rest unchanged.
        for card in CardSet.full():
            trial = deal.copy()
            try:
                trial.play(card)
            except IllegalMoveError as error:
                assert card not in expected
                assert error.seat in (seat, None)
                assert trial.plays == deal.plays
                assert trial.to_play == seat
            else:
                assert card in expected
        card = data.draw(st.sampled_from(sorted(expected)))
        deal.play(card)
        if not deal.current_trick:
            earlier = set(deal.plays)


@settings(max_examples=200, deadline=None)
@given(
    rules=rules_strategy,
    declaration=declarations,
    hands=dealt_hands(),
    declarer=seats,
    data=st.data(),
)
def test_fast_path_and_checked_api_reach_the_same_position(
    rules: Rules, declaration: Declaration, hands: list[int], declarer: int, data: st.DataObject
) -> None:
    checked = Deal([CardSet(h) for h in hands], declarer, declaration, rules)
    fast = Deal(hands, declarer, declaration, rules)
    while not checked.is_over:
        legal = checked.legal_moves()
        assert CardSet(fast.legal_mask()) == CardSet.of(legal)
        card = data.draw(st.sampled_from(legal))
        checked.play(card)
        fast.play_unchecked(card.id)
    assert fast.is_over
    assert fast.tricks == checked.tricks
    assert fast.points() == checked.points()


@settings(max_examples=25, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=seeds, data=st.data())
def test_a_whole_game_sums_to_zero_with_every_obligation_met(
    preset: str, seed: int, data: st.DataObject
) -> None:
    game = play_drawn_game(Rules.preset(preset), seed, data)
    assert game.is_over
    assert len(game.results) == 20
    assert sum(game.totals) == 0
    for seat in range(4):
        assert game.trumps_declared(seat) == 2
        assert game.negatives_declared(seat) == 3
        assert sum(1 for r in game.results if r.declarer == seat) == 5
    for contract in Contract:
        if contract.is_negative:
            assert game.times_declared(contract) == 2
    declarers = [r.declarer for r in game.results]
    assert all(b == (a + 1) % 4 for a, b in itertools.pairwise(declarers))
    for result in game.results:
        assert sum(result.points) == result.declaration.contract.total


@settings(max_examples=25, deadline=None)
@given(
    rules=rules_strategy, seed=seeds, stop=st.integers(min_value=0, max_value=1100), data=st.data()
)
def test_act_takes_exactly_the_legal_actions(
    rules: Rules, seed: int, stop: int, data: st.DataObject
) -> None:
    """At any point of a game, :meth:`Game.legal_actions` is what the view of the seat to
    act offers, and :meth:`Game.act` refuses every other declaration and card, changing
    nothing (the legal ones are those the game was played with)."""
    game = play_drawn_game(rules, seed, data, stop)
    legal = game.legal_actions()
    seat = game.to_act
    if seat is None:
        assert legal == ()
    else:
        view = game.view(seat)
        assert legal == view.legal_declarations + tuple(view.legal_cards)
    before = to_record(game)
    for action in (*ALL_DECLARATIONS, *CardSet.full()):
        if action not in legal:
            with pytest.raises((IllegalMoveError, IllegalDeclarationError, GameStateError)):
                game.act(action)
    assert to_record(game) == before


@settings(max_examples=25, deadline=None)
@given(
    rules=rules_strategy, seed=seeds, stop=st.integers(min_value=0, max_value=1100), data=st.data()
)
def test_records_round_trip_at_any_point_of_a_game(
    rules: Rules, seed: int, stop: int, data: st.DataObject
) -> None:
    game = play_drawn_game(rules, seed, data, stop)
    names = ["Ada", "Bülent", "Çiğdem", "ไทย"]
    text = dump(game, players=names)
    report = replay(text)
    assert report.valid, report.fault
    assert report.players == tuple(names)
    again = report.game
    assert again.totals == game.totals
    assert again.phase == game.phase
    assert to_record(again, names) == json.loads(text)
    assert [d.plays for d in again.deals] == [d.plays for d in game.deals]


@settings(max_examples=10, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=seeds, data=st.data())
def test_a_complete_game_record_replays_valid_and_sums_to_zero(
    preset: str, seed: int, data: st.DataObject
) -> None:
    game = play_drawn_game(Rules.preset(preset), seed, data)
    report = replay(dump(game))
    out = report.to_json()
    assert out["valid"] is True
    assert out["complete"] is True
    assert sum(out["totals"]) == 0
    assert len(out["deals"]) == 20
    for deal in out["deals"]:
        assert deal["complete"] is True
        assert sum(deal["points"]) == Contract(deal["contract"]).total
