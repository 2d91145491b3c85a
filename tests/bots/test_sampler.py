"""Sampled worlds never contradict the view: checked over many random views, under
every toggle, by replaying the deal from the sampled hands with the core engine."""

from __future__ import annotations

import random

import pytest

from king.bots.engine.rule import deal_worlds
from king.bots.search.sampler import constraints, not_held, sample_world
from king.cards import CardSet
from king.deal import Deal
from king.game import Game, Phase
from king.rules import ALL_DECLARATIONS, Declaration, Rules
from king.view import SeatView
from tests.support.games import random_move

RULE_SETS = [
    Rules(),
    Rules.preset("pagat"),
    Rules.preset("turkish"),
    Rules(overruff=True),
    Rules(forced_penalty=True),
    Rules(trump_lead_after_break=True),
]


def _random_view(rng: random.Random, rules: Rules, declaration: Declaration) -> SeatView:
    game = Game(rules, seed=rng.randrange(1 << 30), auto_deal=False)
    game.deal_cards()
    game.declare(declaration)
    deal = game.deal
    assert deal is not None
    for _ in range(rng.randrange(0, 50)):
        if game.phase is not Phase.PLAYING:
            break
        random_move(game, rng)
    seat = game.to_act if game.to_act is not None else rng.randrange(4)
    return game.view(seat)


def _check_world(view: SeatView, world: tuple[int, int, int, int]) -> None:
    me = view.seat
    assert world[me] == view.hand.mask
    union = 0
    for hand in world:
        assert union & hand == 0
        union |= hand
    assert union | view.played.mask == (1 << 52) - 1
    # Rebuild the dealt hands and replay every card with the core engine.
    sequence = [(t.seat_of(i), c) for t in view.tricks for i, c in enumerate(t.cards)]
    sequence += list(view.current_trick)
    dealt = list(world)
    for seat, card in sequence:
        dealt[seat] |= card.mask
    assert view.declaration is not None
    first_leader = sequence[0][0] if sequence else view.declarer
    deal = Deal(dealt, first_leader, view.declaration, view.rules)
    for seat, card in sequence:
        assert deal.to_play == seat
        deal.play(card)  # raises IllegalMoveError if the world contradicts the view
    for seat in range(4):
        assert deal.hand(seat).mask == world[seat]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_sampled_worlds_never_contradict_the_view(rules: Rules) -> None:
    rng = random.Random(rules.flags * 7 + 1)
    checked = 0
    for trial in range(60):
        declaration = ALL_DECLARATIONS[trial % 10]
        view = _random_view(rng, rules, declaration)
        if view.phase is not Phase.PLAYING:
            continue
        known = constraints(view)
        for _ in range(4):
            _check_world(view, sample_world(known, rng))
            checked += 1
        # The engine's sampler, which the search bot uses, obeys the same constraints.
        for row in deal_worlds(known, rng, 4):
            _check_world(view, (int(row[0]), int(row[1]), int(row[2]), int(row[3])))
            checked += 1
    assert checked >= 300


def test_a_shown_void_is_respected_and_deals_vary() -> None:
    hands = [
        "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S",
        "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
        "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H",
        "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
    ]
    game = Game(auto_deal=False)
    game.deal_cards(hands, 0)
    game.declare("no-tricks")
    game.play("AS")
    game.play("2D")  # seat 1 is void in spades
    view = game.view(2)
    known = constraints(view)
    rng = random.Random(1)
    worlds = {sample_world(known, rng) for _ in range(50)}
    assert len(worlds) > 40
    spades = CardSet.parse("KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S").mask
    for world in worlds:
        assert world[1] & spades == 0
        assert world[0].bit_count() == 12 and world[1].bit_count() == 12
        assert world[3].bit_count() == 13


def test_not_held_reads_each_forced_rule() -> None:
    # Trumps (hearts), overruff: seat discards a trump lower than the 9H in the trick,
    # so it holds no trump above the nine and no card of the led suit (spades).
    flags = Rules(overruff=True).flags
    trick = CardSet.parse("AS 9H").mask
    cannot = CardSet(not_held(CardSet.parse("3H").ids()[0], trick, 0, trick, 0, 1, flags))
    assert cannot == CardSet.parse("AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S AH KH QH JH TH")
    # No King: leading a heart before hearts fall means holding nothing but hearts.
    cannot = CardSet(not_held(CardSet.parse("4H").ids()[0], 0, -1, 0, 5, -1, 0))
    assert len(cannot) == 39 and not cannot & CardSet.parse("AH")
