"""Gymnasium's vector interface over whole games (docs/rl.md, "Vector environments"):
a random-legal loop needs no glue, every mask it is given has a legal action (Gymnasium
1.x's default reset on the next step hands back a finished game's empty mask, which the
first test shows), and a finished episode's last observation and results are in
``info["final_obs"]`` and ``info["final_info"]``."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import SyncVectorEnv

from king.env import KingVsBotsEnv, make_vector_env
from king.env.observation import ACTION_COUNT, OBS_SIZE


def legal_choices(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One random legal action a row (an empty row has none to give)."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


def test_gymnasiums_default_reset_hands_back_an_empty_mask_at_an_episode_end() -> None:
    """Why :func:`make_vector_env` exists: with the default autoreset a finished game's
    empty mask comes back, and sampling from it fails."""
    vector = SyncVectorEnv([lambda: KingVsBotsEnv(opponents="random", mode="deal")])
    _, info = vector.reset(seed=3)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="a cannot be empty"):
        for _ in range(200):
            _, _, terminated, _, info = vector.step(legal_choices(info["action_mask"], rng))
    assert terminated.any() and not info["action_mask"].any()
    vector.close()


@pytest.mark.parametrize("processes", [False, True])
def test_a_random_legal_loop_plays_whole_games_with_a_legal_action_in_every_mask(
    processes: bool,
) -> None:
    count = 3
    vector = make_vector_env(count, processes=processes, opponents="random", mode="game")
    assert vector.single_observation_space.shape == (OBS_SIZE,)
    observations, info = vector.reset(seed=11)
    rng = np.random.default_rng(1)
    games = [0] * count
    steps = 0
    while min(games) < 1:
        masks = info["action_mask"]
        assert masks.shape == (count, ACTION_COUNT) and masks.any(axis=1).all(), steps
        observations, _, terminated, truncated, info = vector.step(legal_choices(masks, rng))
        assert observations.shape == (count, OBS_SIZE) and not truncated.any()
        for copy in np.flatnonzero(terminated):
            games[copy] += 1
            final = info["final_info"]
            # The finished game's results, and its last (empty) mask, kept apart.
            assert len(final["totals"][copy]) == 4 and sum(final["totals"][copy]) == 0
            assert not final["action_mask"][copy].any()
            assert info["final_obs"][copy].shape == (OBS_SIZE,)
        steps += 1
    assert steps >= 13 * 20 * 1  # whole games: the learner's every card and declaration
    vector.close()


def test_a_vector_is_refused_a_count_that_is_no_count() -> None:
    for count in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="count is a whole number of copies"):
            make_vector_env(count)  # type: ignore[arg-type]
