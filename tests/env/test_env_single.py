"""``KingVsBotsEnv``: one learner against bots, as a Gymnasium environment."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import gymnasium
from gymnasium.utils.env_checker import check_env

from king.bots import BotSpecError
from king.env import IllegalActionError, KingVsBotsEnv
from king.env.table import cycle_declaration
from king.game import Phase
from king.record import replay


def _check(env: gymnasium.Env) -> None:  # type: ignore[type-arg]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", ".*Not able to test alternative render modes")
        check_env(env)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"mode": "deal", "seat": None, "opponents": "random", "rules": "pagat"},
        {"mode": "deal", "opponents": ["random", "rule", "random"], "contract": "trumps S"},
    ],
    ids=["game-rule", "deal-random-seat", "deal-mixed"],
)
def test_gymnasium_check_env(options: dict[str, object]) -> None:
    """check_env steps unmasked random actions, so it runs with illegal actions penalized."""
    _check(KingVsBotsEnv(illegal_action="penalize", **options))  # type: ignore[arg-type]


def test_registered_with_gymnasium_make() -> None:
    env = gymnasium.make("king/KingVsBots-v0", mode="deal", illegal_action="penalize")
    _check(env.unwrapped)
    observation, info = env.reset(seed=1)
    assert observation.shape == env.observation_space.shape
    assert info["action_mask"].dtype == np.bool_


def test_masked_random_play_scores_the_learners_points() -> None:
    env = KingVsBotsEnv(opponents="rule", seat=2, reward_scale=0.01)
    observation, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    total = 0.0
    steps = 0
    terminated = False
    while not terminated:
        masks = env.action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (62,)
        assert np.array_equal(masks, info["action_mask"])
        assert env.game.to_act == 2
        assert env.observation_space.contains(observation)
        observation, reward, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(masks)))
        )
        assert not truncated
        total += reward
        steps += 1
    game = env.game
    assert game.is_over
    assert total == pytest.approx(game.totals[2] / 100)
    assert steps == 13 * 20 + 5  # 13 cards a deal, and 5 declarations
    assert not env.action_masks().any()
    record = env.record()
    assert record["players"][2] == "learner" and record["players"][0] == "rule"
    assert replay(record).complete
    with pytest.raises(IllegalActionError, match="the episode is over"):
        env.step(0)


def test_deal_mode_rewards_once_and_cycles() -> None:
    env = KingVsBotsEnv(opponents="random", mode="deal", seat=None)
    contracts = []
    seats = set()
    for episode in range(8):
        env.reset(seed=10 if episode == 0 else None)
        contracts.append(env.game.deals[0].declaration)
        seats.add(env.seat)
        rewards = []
        terminated = False
        while not terminated:
            legal = np.flatnonzero(env.action_masks())
            _, reward, terminated, _, _ = env.step(int(legal[0]))
            rewards.append(reward)
        assert all(r == 0 for r in rewards[:-1])
        assert rewards[-1] == env.game.results[0].points[env.seat]
    assert contracts == [cycle_declaration(i) for i in range(8)]
    assert len(seats) > 1


def test_illegal_actions_raise_or_are_penalized() -> None:
    strict = KingVsBotsEnv(opponents="random", mode="deal", contract="no-queens")
    strict.reset(seed=2)
    illegal = int(np.flatnonzero(~strict.action_masks())[0])
    with pytest.raises(IllegalActionError, match=rf"action {illegal} .* is illegal"):
        strict.step(illegal)
    with pytest.raises(IllegalActionError, match="must play a card"):
        strict.step(60)
    with pytest.raises(IllegalActionError, match="out of range"):
        strict.step(99)

    lenient = KingVsBotsEnv(
        opponents="random", mode="deal", illegal_action="penalize", illegal_reward=-5.0
    )
    observation, _ = lenient.reset(seed=2)
    plays = len(lenient.game.deals[0].play_ids)
    illegal = int(np.flatnonzero(~lenient.action_masks())[0])
    after, reward, terminated, _, info = lenient.step(illegal)
    assert reward == -5.0 and not terminated and info["illegal_action"]
    assert np.array_equal(after, observation)
    assert len(lenient.game.deals[0].play_ids) == plays
    with pytest.raises(IllegalActionError, match="an action is an integer"):
        lenient.step("2S")  # type: ignore[arg-type]


def test_options_are_checked() -> None:
    with pytest.raises(BotSpecError, match="no bot is called"):
        KingVsBotsEnv(opponents="nobody")
    with pytest.raises(ValueError, match="one bot spec or three"):
        KingVsBotsEnv(opponents=["rule", "rule"])
    with pytest.raises(ValueError, match="seat is 0-3"):
        KingVsBotsEnv(seat=4)
    with pytest.raises(ValueError, match="illegal_action"):
        KingVsBotsEnv(illegal_action="ignore")  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match="reset"):
        KingVsBotsEnv().step(0)


def test_render_and_declaring_phase() -> None:
    env = KingVsBotsEnv(opponents="random", seat=0, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and text.startswith("learner: seat 0")
    while env.game.phase is not Phase.DECLARING or env.game.to_act != 0:
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert (np.flatnonzero(env.action_masks()) >= 52).all()
