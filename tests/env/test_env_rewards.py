"""The ``reward`` option and the deal results in ``info``, in both environments: points,
points above the arena's par, or their sign; each finished deal in ``info`` as JSON."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from king.env import REWARDS, KingVsBotsEnv, king_v0
from king.rules import ALL_DECLARATIONS, Declaration

DEAL_KEYS = {
    "deal",
    "declaration",
    "contract",
    "trump",
    "declarer",
    "points",
    "par",
    "seat",
    "above_par",
}


def _play_out(env: Any, rng: np.random.Generator) -> tuple[dict[str, float], dict[str, Any]]:
    """Random masked play to the end: each agent's summed rewards and its last info."""
    rewards: dict[str, float] = {}
    infos: dict[str, Any] = {}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        rewards[agent] = rewards.get(agent, 0.0) + reward
        if terminated or truncated:
            infos[agent] = info
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return rewards, infos


def _sign(value: float) -> float:
    return float((value > 0) - (value < 0))


@pytest.mark.parametrize("rules", ["classic", "pagat"])
@pytest.mark.parametrize("declaration", [str(d) for d in ALL_DECLARATIONS])
def test_above_par_rewards_of_the_four_seats_sum_to_zero(rules: str, declaration: str) -> None:
    contract = Declaration.parse(declaration).contract
    for seed in range(2):
        env = king_v0.env(mode="deal", contract=declaration, rules=rules, reward="above_par")
        env.reset(seed=seed)
        rewards, infos = _play_out(env, np.random.default_rng(seed))
        points = env.unwrapped.game.results[0].points
        assert sum(rewards.values()) == pytest.approx(0.0)
        for seat in range(4):
            agent = f"player_{seat}"
            assert rewards[agent] == pytest.approx(points[seat] - contract.total / 4)
            (deal,) = infos[agent]["deals"]
            assert deal["above_par"] == rewards[agent] and deal["seat"] == seat
            assert deal["par"] == contract.total / 4 and deal["points"] == list(points)

        signs = king_v0.env(mode="deal", contract=declaration, rules=rules, reward="sign")
        signs.reset(seed=seed)
        signed, _ = _play_out(signs, np.random.default_rng(seed))
        for seat in range(4):
            assert signed[f"player_{seat}"] == _sign(rewards[f"player_{seat}"])


def test_in_a_whole_game_above_par_adds_up_to_the_totals_and_sign_counts_deals() -> None:
    rewards: dict[str, dict[str, float]] = {}
    for kind in REWARDS:
        env = king_v0.env(reward=kind, reward_scale=0.5)
        env.reset(seed=8)
        rewards[kind], _ = _play_out(env, np.random.default_rng(8))
        game = env.unwrapped.game
    for seat in range(4):
        agent = f"player_{seat}"
        # The pars of a whole game's 20 contracts add up to 0.
        assert rewards["above_par"][agent] == pytest.approx(game.totals[seat] * 0.5)
        assert rewards["points"][agent] == pytest.approx(game.totals[seat] * 0.5)
        gains = [r.points[seat] - r.declaration.contract.par for r in game.results]
        expected = sum(_sign(g) for g in gains) * 0.5
        assert rewards["sign"][agent] == pytest.approx(expected)


def test_a_bad_reward_option_is_refused_naming_the_choices() -> None:
    for bad in ["above-par", "Points", None, 1]:
        message = rf"reward is one of 'points', 'above_par', 'sign', not {bad!r}"
        with pytest.raises(ValueError, match=message):
            king_v0.env(reward=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match=message):
            KingVsBotsEnv(opponents="random", reward=bad)  # type: ignore[arg-type]


def test_the_learner_gets_its_chosen_reward_and_the_deal_in_info() -> None:
    for kind in REWARDS:
        env = KingVsBotsEnv(opponents="random", mode="deal", seat=1, reward=kind)
        for seed in range(4):
            env.reset(seed=seed)
            terminated = False
            while not terminated:
                legal = np.flatnonzero(env.action_masks())
                _, reward, terminated, _, info = env.step(int(legal[-1]))
                assert ("deals" in info) == terminated
            result = env.game.results[0]
            gain = result.points[1] - result.declaration.contract.par
            expected = {"points": result.points[1], "above_par": gain, "sign": _sign(gain)}
            assert reward == expected[kind]
            (deal,) = info["deals"]
            assert set(deal) == DEAL_KEYS and "totals" not in info
            assert json.loads(json.dumps(deal)) == deal
            assert deal == {
                "deal": 0,
                "declaration": str(result.declaration),
                "contract": result.declaration.contract.value,
                "trump": None
                if result.declaration.trump is None
                else result.declaration.trump.letter,
                "declarer": result.declarer,
                "points": list(result.points),
                "par": result.declaration.contract.total / 4,
                "seat": 1,
                "above_par": gain,
            }


def test_a_whole_game_tells_each_deal_once_then_the_totals() -> None:
    env = KingVsBotsEnv(opponents="rule", seat=3, reward="above_par")
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    deals: list[dict[str, Any]] = []
    rewards = 0.0
    terminated = False
    while not terminated:
        _, reward, terminated, _, info = env.step(
            int(rng.choice(np.flatnonzero(env.action_masks())))
        )
        deals += info.get("deals", [])
        rewards += reward
        assert ("totals" in info) == terminated
    game = env.game
    assert [d["deal"] for d in deals] == list(range(20))
    assert [d["points"] for d in deals] == [list(r.points) for r in game.results]
    assert sum(d["above_par"] for d in deals) == pytest.approx(rewards)
    assert info["totals"] == game.totals and info["winners"] == game.winners()
    assert json.loads(json.dumps({k: v for k, v in info.items() if k != "action_mask"}))


def test_each_agent_sees_every_deal_once_in_its_info() -> None:
    env = king_v0.raw_env()
    env.reset(seed=12)
    rng = np.random.default_rng(12)
    seen: dict[str, list[int]] = {f"player_{s}": [] for s in range(4)}
    while env.agents:
        agent = env.agent_selection
        observation, _, terminated, _, info = env.last()
        for deal in info.get("deals", []):
            assert deal["seat"] == int(agent[-1])
            seen[agent].append(deal["deal"])
        if terminated:
            assert info["totals"] == env.game.totals
            assert info["winners"] == env.game.winners()
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert all(numbers == list(range(20)) for numbers in seen.values()), seen


@pytest.mark.parametrize("kind", ["aec", "gym"])
def test_info_arrays_keeps_the_same_numeric_keys_at_every_step(kind: str) -> None:
    """``info="arrays"``: the keys and shapes never change, nothing is None or text, and
    they still tell every deal and the game's end (what a replay buffer that stacks
    ``info``, as Tianshou's does, needs)."""

    rng = np.random.default_rng(4)
    infos: list[dict[str, Any]] = []
    if kind == "aec":
        env = king_v0.env(info="arrays")
        env.reset(seed=4)
        for _agent in env.agent_iter():
            observation, _, over, _, info = env.last()
            infos.append(info)
            mask = observation["action_mask"]
            env.step(None if over else int(rng.choice(np.flatnonzero(mask))))
    else:
        single = KingVsBotsEnv(opponents="random", info="arrays")
        _, info = single.reset(seed=4)
        over = False
        while not over:
            _, _, over, _, info = single.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            infos.append(info)
    shapes = {key: np.shape(value) for key, value in infos[0].items()}
    for info in infos:
        assert {key: np.shape(value) for key, value in info.items()} == shapes
        assert all(np.asarray(v).dtype.kind in "biuf" for v in info.values()), info
    ended = [info for info in infos if info["deal_over"]]
    assert {info["deal"] for info in ended} == set(range(20))
    assert all(0 <= info["contract"] < 7 and 0 <= info["declarer"] < 4 for info in ended)
    final = [info for info in infos if info["game_over"]]
    assert final and all(np.isclose(info["totals"].sum(), 0) for info in final)
    assert all(info["winners"].sum() >= 1 for info in final)


def test_info_is_dicts_or_arrays() -> None:

    with pytest.raises(ValueError, match="info is one of 'dicts', 'arrays', not 'json'"):
        king_v0.raw_env(info="json")  # type: ignore[arg-type]
