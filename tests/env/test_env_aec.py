"""``king_v0``, the PettingZoo AEC environment: PettingZoo's own conformance tests, the
same points as the core on the same moves, records that replay, and clear errors."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from pettingzoo.test import api_test, seed_test

from king.env import IllegalActionError, encode_observation, king_v0
from king.env.observation import action_mask
from king.env.table import cycle_declaration
from king.game import Game, Phase
from king.record import replay
from king.rules import Declaration, Rules


def _play_out(env: object, rng: np.random.Generator) -> dict[str, float]:
    """Play random masked actions to the end; return each agent's summed rewards."""
    totals = dict.fromkeys(["player_0", "player_1", "player_2", "player_3"], 0.0)
    for agent in env.agent_iter():  # type: ignore[attr-defined]
        observation, reward, terminated, truncated, _ = env.last()  # type: ignore[attr-defined]
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)  # type: ignore[attr-defined]
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(rng.choice(legal)))  # type: ignore[attr-defined]
    return totals


@pytest.mark.parametrize(
    "options",
    [{}, {"mode": "deal"}, {"mode": "deal", "contract": "random", "rules": "turkish"}],
    ids=["game", "deal-cycle", "deal-random-turkish"],
)
def test_pettingzoo_api_test(options: dict[str, str]) -> None:
    with warnings.catch_warnings():
        # PettingZoo whitelists its own classic games for dict observations only.
        warnings.filterwarnings("ignore", "Observation is not a NumPy array")
        warnings.filterwarnings("ignore", "Observation space for each agent probably")
        api_test(king_v0.env(**options), num_cycles=300)


@pytest.mark.parametrize("options", [{}, {"mode": "deal", "contract": "random"}])
def test_pettingzoo_seed_test(options: dict[str, str]) -> None:
    seed_test(lambda: king_v0.env(**options), num_cycles=300)


def test_a_game_through_the_env_scores_as_the_core_and_its_record_replays() -> None:
    env = king_v0.env(reward_scale=0.01)
    env.reset(seed=7)
    game = env.unwrapped.game
    totals = _play_out(env, np.random.default_rng(7))
    assert game.is_over
    assert env.agents == []
    for seat in range(4):
        assert totals[f"player_{seat}"] == pytest.approx(game.totals[seat] / 100)
    assert sum(game.totals) == 0

    record = env.unwrapped.record()
    assert record["players"] == ["player_0", "player_1", "player_2", "player_3"]
    report = replay(record)
    assert report.valid and report.complete
    assert report.game.totals == game.totals

    # The same deals and moves through the core alone give the same points.
    core = Game(game.rules, seed=game.seed)
    for deal in game.deals:
        core.declare(deal.declaration)
        for card in deal.plays:
            core.play(card)
    assert core.is_over
    assert [r.points for r in core.results] == [r.points for r in game.results]


def test_rewards_come_at_the_end_of_each_deal() -> None:
    env = king_v0.raw_env()
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    deals_seen = 0
    while env.agents:
        agent = env.agent_selection
        observation, _, terminated, _, _ = env.last()
        if terminated:
            env.step(None)
            continue
        before = len(env.game.results)
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        results = env.game.results
        if len(results) > before:
            deals_seen += 1
            points = results[-1].points
            assert [env.rewards[f"player_{s}"] for s in range(4)] == list(points)
        else:
            assert all(r == 0 for r in env.rewards.values()), agent
    assert deals_seen == 20


def test_observe_is_the_seats_view_and_only_the_actor_has_a_mask() -> None:
    env = king_v0.raw_env()
    env.reset(seed=11)
    for _ in range(30):
        acting = env.agent_selection
        for seat in range(4):
            agent = f"player_{seat}"
            seen = env.observe(agent)
            view = env.game.view(seat)
            assert np.array_equal(seen["observation"], encode_observation(view))
            assert np.array_equal(seen["action_mask"], action_mask(view))
            assert seen["action_mask"].any() == (agent == acting)
            assert env.observation_space(agent).contains(seen)
        legal = np.flatnonzero(env.observe(acting)["action_mask"])
        env.step(int(legal[0]))


def test_deal_mode_cycles_contracts_like_the_arena_or_fixes_one() -> None:
    env = king_v0.raw_env(mode="deal")
    rng = np.random.default_rng(0)
    seen = []
    env.reset(seed=5)
    for episode in range(9):
        if episode:
            env.reset()
        deal = env.game.deal
        assert deal is not None
        seen.append(deal.declaration)
        totals = _play_out(env, rng)
        assert sum(totals.values()) == deal.total
    assert seen == [cycle_declaration(i) for i in range(9)]
    env.reset(seed=5)  # a seed restarts the cycle
    assert env.game.deal is not None and env.game.deal.declaration == cycle_declaration(0)

    fixed = king_v0.raw_env(mode="deal", contract="trumps H", rules="pagat")
    for seed in range(3):
        fixed.reset(seed=seed)
        deal = fixed.game.deal
        assert deal is not None and deal.declaration == Declaration.parse("trumps H")
        assert fixed.game.rules == Rules.preset("pagat")
        assert fixed.agent_selection == f"player_{deal.declarer}"
        assert replay(fixed.record()).valid


def test_same_seed_same_episodes() -> None:
    def run(seed: int) -> list[list[int]]:
        env = king_v0.raw_env(mode="deal", contract="random")
        env.reset(seed=seed)
        out = []
        for _ in range(3):
            _play_out(env, np.random.default_rng(1))
            out.append(env.game.results[0].points)
            env.reset()
        return [list(p) for p in out]

    assert run(4) == run(4)


def test_illegal_actions_are_refused_with_the_reason_and_change_nothing() -> None:
    env = king_v0.env(mode="deal", contract="no-hearts")
    env.reset(seed=2)
    game = env.unwrapped.game
    deal = game.deal
    seat = deal.to_play
    agent = env.agent_selection
    assert agent == f"player_{seat}"
    missing = next(c for c in range(52) if not game.hand(seat).mask >> c & 1)
    # The sentence counts seats from 1, as people do: player_0 is "seat 1".
    with pytest.raises(
        IllegalActionError,
        match=rf"action {missing} \(.*\) is illegal: seat {seat + 1} does not hold",
    ):
        env.step(missing)
    with pytest.raises(
        IllegalActionError, match=r"must play a card .* not declare: action 56 is no-king"
    ):
        env.step(56)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(62)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(-1)
    with pytest.raises(IllegalActionError, match="an action is an integer"):
        env.step("QS")
    with pytest.raises(IllegalActionError, match="an action is an integer"):
        env.step(3.0)
    with pytest.raises(ValueError, match="must act: None"):
        env.step(None)
    assert env.agent_selection == agent and deal.play_ids == []
    env.step(np.int64(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    assert len(deal.play_ids) == 1

    whole = king_v0.env()
    whole.reset(seed=2)
    with pytest.raises(IllegalActionError, match=r"must declare a contract .* action 10 is QS"):
        whole.step(10)


def test_a_finished_agent_may_only_step_none_and_step_needs_reset() -> None:
    env = king_v0.env(mode="deal")
    with pytest.raises(Exception, match="reset"):
        env.step(0)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    while not env.unwrapped.terminations[env.agent_selection]:
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    observation, _, terminated, _, _ = env.last()
    assert terminated and not observation["action_mask"].any()
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)


def test_rules_and_options_are_checked() -> None:
    with pytest.raises(ValueError, match="is not a rules preset"):
        king_v0.env(rules="nope")
    with pytest.raises(ValueError, match="mode is 'game' or 'deal'"):
        king_v0.raw_env(mode="tricks")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="is not a contract"):
        king_v0.raw_env(mode="deal", contract="no-spades")
    with pytest.raises(ValueError, match="render_mode"):
        king_v0.raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="no agent is called"):
        king_v0.raw_env().observe("player_4")


def test_render_ansi_shows_the_table() -> None:
    env = king_v0.raw_env(mode="deal", contract="no-king", render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str)
    assert "No King" in text and "player_3" in text
    # Every hand is shown, and the text says so (an observation shows one seat's).
    assert text.startswith("the whole table, every hand shown")
    assert all(str(env.unwrapped.game.hand(seat)) in text for seat in range(4))
    assert king_v0.raw_env().render() is None


def test_whole_game_declarations_go_through_the_env() -> None:
    env = king_v0.raw_env()
    env.reset(seed=9)
    declared = 0
    rng = random.Random(9)
    while env.agents:
        observation, _, terminated, _, _ = env.last()
        if terminated:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        if env.game.phase is Phase.DECLARING:
            assert (legal >= 52).all()
            declared += 1
        else:
            assert (legal < 52).all()
        env.step(int(rng.choice(list(legal))))
    assert declared == 20
    assert all(env.game.obligations(s) == (0, 0) for s in range(4))


def test_pettingzoos_terminate_illegal_wrapper_fits() -> None:
    from pettingzoo.utils.wrappers import TerminateIllegalWrapper

    env = TerminateIllegalWrapper(king_v0.raw_env(mode="deal"), illegal_reward=-1)
    env.reset(seed=1)
    observation, *_ = env.last()
    offender = env.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(int(np.flatnonzero(observation["action_mask"] == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1


def test_no_parallel_api_one_seat_acts_at_a_time() -> None:
    """docs/rl.md: PettingZoo's converter refuses king_v0 rather than ignore actions."""
    from pettingzoo.utils.conversions import aec_to_parallel

    assert king_v0.raw_env.metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(king_v0.env())
