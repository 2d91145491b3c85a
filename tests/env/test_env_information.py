"""The information state: the observation and the whole public history, index by index
as docs/rl.md lays it out, from one seat's view only (the same in every world the seat
cannot tell apart), in both environments and for policies that read it."""

from __future__ import annotations

import itertools
import random
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from king.arena import ArenaConfig, run_arena
from king.bots.search.sampler import constraints, sample_world
from king.env import KingVsBotsEnv, MlpPolicy, king_v0
from king.env.information import (
    INFORMATION_LAYOUT,
    INFORMATION_SIZE,
    encode_information_state,
    field_range,
    information_bounds,
    information_layout_table,
    information_tensors,
)
from king.env.observation import ACTION_COUNT, OBS_SIZE, encode_observation
from king.game import Game, Phase
from king.rules import ALL_DECLARATIONS
from tests.support import ROOT


def test_the_layout_follows_the_observation_without_gaps_and_docs_list_it() -> None:
    assert INFORMATION_LAYOUT[0].start == 0
    for before, after in itertools.pairwise(INFORMATION_LAYOUT):
        assert after.start == before.stop
    assert field_range("history_cards").start == OBS_SIZE
    assert INFORMATION_SIZE == 602 + 13 * 4 * 52 + 13 * 4 + 20 * 10 + 20 * 4 + 20 * 4
    assert information_layout_table() in (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")
    with pytest.raises(KeyError, match="no information field 'nope'"):
        field_range("nope")


def decode(state: np.ndarray, seat: int) -> tuple[list[tuple[int, list[int]]], list[tuple]]:
    """The tricks (absolute leader, card ids in order) and the deals (declaration index,
    absolute declarer, points) an information state says, read back index by index."""
    tensors = {
        "cards": state[field_range("history_cards")].reshape(13, 4, 52),
        "leaders": state[field_range("history_leaders")].reshape(13, 4),
    }
    tricks = []
    for index in range(13):
        if not tensors["leaders"][index].any():
            assert not tensors["cards"][index].any()
            continue
        leader = (int(np.argmax(tensors["leaders"][index])) + seat) & 3
        cards = [int(np.argmax(p)) for p in tensors["cards"][index] if p.any()]
        tricks.append((leader, cards))
    declarations = state[field_range("game_declarations")].reshape(20, 10)
    declarers = state[field_range("game_declarers")].reshape(20, 4)
    points = state[field_range("game_points")].reshape(20, 4) * 650
    deals = []
    for index in range(20):
        if not declarations[index].any():
            continue
        declarer = (int(np.argmax(declarers[index])) + seat) & 3
        by_seat = tuple(round(float(points[index][(s - seat) & 3])) for s in range(4))
        deals.append((int(np.argmax(declarations[index])), declarer, by_seat))
    return tricks, deals


def test_a_whole_game_reads_back_from_every_seats_information_state() -> None:
    game = Game(seed=11)
    rng = random.Random(11)
    low, high = information_bounds()
    while game.phase is not Phase.OVER:
        for seat in range(4):
            view = game.view(seat)
            state = encode_information_state(view)
            assert state.shape == (INFORMATION_SIZE,) and state.dtype == np.float32
            assert np.array_equal(state[:OBS_SIZE], encode_observation(view))
            assert (state >= low).all() and (state <= high).all()
            tricks, deals = decode(state, seat)
            played = [(t.leader, [c.id for c in t.cards]) for t in view.tricks]
            if view.current_trick:
                current = [card.id for _, card in view.current_trick]
                played.append((view.current_trick[0][0], current))
            assert tricks == played
            assert deals == [
                (r.declaration.action_index, r.declarer, tuple(r.points)) for r in view.results
            ]
        game.act(rng.choice(game.legal_actions()))
    assert len(game.results) == 20


def test_the_worlds_a_seat_cannot_tell_apart_give_it_one_information_state() -> None:
    rng = random.Random(5)
    game = Game(seed=5)
    for _ in range(150):
        game.act(rng.choice(game.legal_actions()))
    seat = game.to_act
    assert seat is not None
    view = game.view(seat)
    state = encode_information_state(view)
    for _ in range(20):
        world = game.determinized(sample_world(constraints(view), rng))
        assert np.array_equal(encode_information_state(world.view(seat)), state)


def test_the_tensors_are_the_vector_shaped() -> None:
    game = Game(seed=3)
    for _ in range(9):
        game.act(game.legal_actions()[0])
    view = game.view(game.to_act)
    tensors = information_tensors(view)
    assert tensors["history_cards"].shape == (13, 4, 52)
    assert tensors["game_declarations"].shape == (20, len(ALL_DECLARATIONS))
    joined = np.concatenate([t.ravel() for t in tensors.values()])
    assert np.array_equal(joined, encode_information_state(view))


def test_both_environments_offer_it_and_pass_their_libraries_checks() -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Observation is not a NumPy array")
        warnings.filterwarnings("ignore", "Observation space for each agent probably")
        api_test(king_v0.env(mode="deal", observation="information"), num_cycles=100)
    env = KingVsBotsEnv(mode="deal", illegal_action="penalize", observation="information")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env)
    observation, _ = env.reset(seed=2)
    assert observation.shape == (INFORMATION_SIZE,)
    with pytest.raises(ValueError, match=re.escape("observation is one of 'summary'")):
        KingVsBotsEnv(observation="history")  # type: ignore[arg-type]


def test_a_policy_that_reads_the_information_state_plays_as_a_bot(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    layers = [
        (rng.normal(size=(8, INFORMATION_SIZE)), np.zeros(8)),
        (rng.normal(size=(ACTION_COUNT, 8)), np.zeros(ACTION_COUNT)),
    ]
    MlpPolicy(layers, "tanh").save(tmp_path / "history.npz")
    bots = (f"policy:file={tmp_path / 'history.npz'}", "random", "random", "random")
    report = run_arena(ArenaConfig(bots, "deals", 2))
    assert report.abandoned == [] and report.stats[bots[0]].n == 8
