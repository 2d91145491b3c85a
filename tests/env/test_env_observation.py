"""The RL observation: its layout, its bounds, its masks, and that it leaks nothing a
seat may not see."""

from __future__ import annotations

import doctest
import random
import re
from typing import Any

import numpy as np
import pytest

from king.arena import deal_declaration
from king.cards import DECK, SUIT_MASKS, CardSet, Suit
from king.env.observation import (
    ACTION_COUNT,
    LAYOUT,
    OBS_SIZE,
    action_mask,
    action_of,
    choice_of,
    describe_action,
    encode_observation,
    field_slice,
    layout_table,
    observation_bounds,
)
from king.env.table import cycle_declaration
from king.game import Game
from king.record import replay, to_record
from king.rules import ALL_DECLARATIONS, Declaration, Rules
from king.view import SeatView
from tests.support import ROOT
from tests.support.games import random_move

DOCS = ROOT / "docs" / "rl.md"


def _random_views(seed: int, rules: Rules, count: int) -> list[SeatView]:
    """Views of every seat at random moments of a random whole game."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    views: list[SeatView] = []
    while not game.is_over:
        if rng.random() < count / 1000:
            views.extend(game.view(s) for s in range(4))
        random_move(game, rng)
    views.extend(game.view(s) for s in range(4))
    return views


def test_the_layout_is_contiguous_and_the_docs_carry_it() -> None:
    start = 0
    for field in LAYOUT:
        assert field.start == start, field
        start = field.stop
    assert start == OBS_SIZE
    # The card planes are unpacked from one integer, so they must come first.
    names = [f.name for f in LAYOUT[:5]]
    assert names == ["hand", "winning_cards", "unseen_above", "played", "trick"]
    assert layout_table() in DOCS.read_text(encoding="utf-8")
    assert f"length {OBS_SIZE}" in DOCS.read_text(encoding="utf-8")


def test_observations_stay_in_bounds_and_masks_match_the_legal_moves() -> None:
    low, high = observation_bounds()
    for seed, preset in ((1, "classic"), (2, "pagat"), (3, "turkish")):
        for view in _random_views(seed, Rules.preset(preset), 60):
            vector = encode_observation(view)
            assert vector.shape == (OBS_SIZE,) and vector.dtype == np.float32
            assert (vector >= low).all() and (vector <= high).all()
            mask = action_mask(view)
            assert mask.shape == (ACTION_COUNT,) and mask.dtype == np.int8
            legal = {c.id for c in view.legal_cards}
            legal |= {52 + d.action_index for d in view.legal_declarations}
            assert set(np.flatnonzero(mask).tolist()) == legal
            assert bool(legal) == view.is_my_turn
            hand = vector[field_slice("hand")]
            assert set(np.flatnonzero(hand).tolist()) == set(view.hand.ids())


def test_fields_say_what_the_view_says() -> None:
    rng = random.Random(5)
    game = Game(seed=5, auto_deal=False)
    game.deal_cards()
    game.declare(Declaration.parse("trumps H"))
    for _ in range(22):
        random_move(game, rng)
    for seat in range(4):
        view = game.view(seat)
        vector = encode_observation(view)
        played = vector[field_slice("played")].reshape(4, 52)
        voids = vector[field_slice("voids")].reshape(4, 4)
        for other in range(4):
            rel = (other - seat) % 4
            mine = {
                c.id for t in view.tricks for i, c in enumerate(t.cards) if t.seat_of(i) == other
            }
            mine |= {c.id for s, c in view.current_trick if s == other}
            assert set(np.flatnonzero(played[rel]).tolist()) == mine
            assert {int(s) for s in np.flatnonzero(voids[rel])} == {
                int(s) for s in view.voids()[other]
            }
            assert vector[field_slice("tricks_won")][rel] == pytest.approx(
                view.tricks_won[other] / 13
            )
        trick = vector[field_slice("trick")].reshape(3, 52)
        for position, (_, card) in enumerate(view.current_trick):
            assert trick[position, card.id] == 1
        assert trick.sum() == len(view.current_trick)
        assert vector[field_slice("contract")].tolist() == [1, 0, 0, 0, 0, 0, 0]
        assert vector[field_slice("trump")].tolist() == [0, 1, 0, 0]
        assert vector[field_slice("to_act")][(game.to_act - seat) % 4] == 1
        assert vector[field_slice("tricks_done")][0] == pytest.approx(5 / 13)


def test_winning_cards_are_the_cards_that_would_lead_the_trick() -> None:
    rng = random.Random(8)
    checked = 0
    for trial in range(60):
        game = Game(seed=trial, auto_deal=False)
        game.deal_cards()
        game.declare(ALL_DECLARATIONS[trial % 10])
        deal = game.deal
        assert deal is not None
        for _ in range(rng.randrange(1, 40)):
            random_move(game, rng)
        seat = deal.to_play
        assert seat is not None
        view = game.view(seat)
        winning = set(np.flatnonzero(encode_observation(view)[field_slice("winning_cards")]))
        trump = deal.trump
        for card in view.hand:
            cards = [c for _, c in view.current_trick] + [card]
            if len(cards) == 1:
                assert card.id in winning
                continue
            led = cards[0].suit
            trumps = [c for c in cards if c.suit is trump]
            best = max(trumps or [c for c in cards if c.suit is led])
            assert (card.id in winning) == (best == card), (view.current_trick, card)
            checked += 1
    assert checked > 100


def test_unseen_above_counts_the_higher_cards_nobody_has_shown() -> None:
    game = Game(seed=4, auto_deal=False)
    game.deal_cards()
    game.declare(Declaration.parse("no-tricks"))
    view = game.view(0)
    above = encode_observation(view)[field_slice("unseen_above")]
    hand = view.hand.mask
    for card_id in range(52):
        if not hand >> card_id & 1:
            assert above[card_id] == 0
            continue
        higher = SUIT_MASKS[card_id // 13] & ~((2 << card_id) - 1) & ~hand
        assert above[card_id] == pytest.approx(higher.bit_count() / 12)


def _swap_unplayed(
    record: dict[str, Any], seat: int, played: set[str], rng: random.Random
) -> dict[str, Any] | None:
    """Another world: every unplayed card of the other seats dealt again among them,
    each keeping its count of every suit (so every play stays legal)."""
    hands = [CardSet.parse(h) for h in record["deals"][-1]["hands"]]
    others = [s for s in range(4) if s != seat]
    new = {s: CardSet.of([c for c in hands[s] if str(c) in played]) for s in others}
    for suit in Suit:
        pool = [c for s in others for c in hands[s].suit(suit) if str(c) not in played]
        rng.shuffle(pool)
        for s in others:
            count = len([c for c in hands[s].suit(suit) if str(c) not in played])
            new[s] = new[s] | CardSet.of(pool[:count])
            pool = pool[count:]
    if all(new[s] == hands[s] for s in others):
        return None
    changed = dict(record)
    changed["deals"] = [dict(d) for d in record["deals"]]
    changed["deals"][-1]["hands"] = [str(hands[s] if s == seat else new[s]) for s in range(4)]
    return changed


def test_other_seats_hidden_cards_do_not_change_an_observation() -> None:
    """Two worlds that differ only in the other seats' unplayed cards give the same
    observation (and mask) at every moment, in every contract."""
    rng = random.Random(11)
    compared = 0
    for trial in range(20):
        game = Game(seed=100 + trial, auto_deal=False)
        game.deal_cards()
        game.declare(deal_declaration(trial))
        deal = game.deal
        assert deal is not None
        stop = rng.randrange(0, 52)
        for _ in range(stop):
            random_move(game, rng)
        seat = rng.randrange(4)
        record = to_record(game)
        played = set(record["deals"][-1]["plays"].split())
        changed = _swap_unplayed(record, seat, played, rng)
        if changed is None:
            continue
        other = replay(changed)
        assert other.valid, other.fault
        world_b = other.game
        assert any(world_b.hand(s) != game.hand(s) for s in range(4) if s != seat)
        for s in range(4):
            if s == seat:
                assert world_b.hand(s) == game.hand(s)
        a, b = game.view(seat), world_b.view(seat)
        assert np.array_equal(encode_observation(a), encode_observation(b))
        assert np.array_equal(action_mask(a), action_mask(b))
        compared += 1
    assert compared >= 15


def test_a_whole_game_in_another_world_observes_the_same() -> None:
    """Declaring, with the totals and counts of earlier deals: only the seat's own
    hand reaches its observation."""
    game = Game(seed=21)
    rng = random.Random(21)
    while len(game.results) < 3:  # three whole deals, then the fourth is being declared
        random_move(game, rng)
    record = to_record(game)
    seat = game.declarer
    changed = _swap_unplayed(record, seat, set(), rng)
    assert changed is not None
    world_b = replay(changed).game
    for s in range(4):
        same = np.array_equal(encode_observation(game.view(s)), encode_observation(world_b.view(s)))
        assert same == (s == seat)


def test_actions_name_cards_then_declarations() -> None:
    assert [describe_action(a) for a in (0, 12, 13, 51)] == ["2S", "AS", "2H", "AC"]
    assert [describe_action(52 + i) for i in range(10)] == [str(d) for d in ALL_DECLARATIONS]
    for card in DECK:
        assert action_of(card) == card.id
    for declaration in ALL_DECLARATIONS:
        assert action_of(declaration) == 52 + declaration.action_index
    assert [action_of(choice_of(a)) for a in range(62)] == list(range(62))
    for bad in (-1, 62):
        with pytest.raises(ValueError, match="out of range"):
            describe_action(bad)
        with pytest.raises(ValueError, match="out of range"):
            choice_of(bad)
    with pytest.raises(KeyError, match="no observation field"):
        field_slice("nope")


def test_the_contract_cycle_is_the_arenas() -> None:
    assert [cycle_declaration(i) for i in range(60)] == [deal_declaration(i) for i in range(60)]


@pytest.mark.parametrize(
    "name", ["king.env.observation", "king.env.policies.base", "king.env.policies.mlp"]
)
def test_docstring_examples(name: str) -> None:
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_docs_layout_table_lists_every_field_once() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for field in LAYOUT:
        assert len(re.findall(rf"`{field.name}`", text)) >= 1
