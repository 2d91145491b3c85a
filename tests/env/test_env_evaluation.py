"""Fair evaluation: a fixed set of deals that covers every contract and trump suit
evenly, played the same way in both environments; and single deals that start before
the declaration (``contract="declare"``)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from king.env import EvaluationDeal, KingVsBotsEnv, evaluation_deals, king_v0
from king.env.table import cycle_declaration
from king.game import Phase
from king.rules import DECLARATION_CYCLE, NEGATIVE_CONTRACTS, Contract, Declaration, Suit


def _lowest_until_over(env: KingVsBotsEnv) -> float:
    total = 0.0
    terminated = False
    while not terminated:
        _, reward, terminated, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        total += reward
    return total


@pytest.mark.parametrize("rounds", [1, 3])
def test_a_multiple_of_the_cycle_covers_every_contract_and_suit_evenly(rounds: int) -> None:
    deals = evaluation_deals(rounds * DECLARATION_CYCLE, seed=7)
    contracts = Counter(deal.declaration.contract for deal in deals)
    suits = Counter(deal.declaration.trump for deal in deals if deal.declaration.trump is not None)
    assert contracts == dict.fromkeys(Contract, 4 * rounds)
    assert suits == dict.fromkeys(Suit, rounds)
    assert [deal.declaration for deal in deals] == [cycle_declaration(i) for i in range(len(deals))]
    assert [deal.index for deal in deals] == list(range(len(deals)))
    assert len({deal.seed for deal in deals}) == len(deals)


def test_the_same_count_and_seed_give_the_same_deals() -> None:
    assert evaluation_deals(30, seed=4) == evaluation_deals(30, seed=4)
    assert evaluation_deals(30, seed=4)[:10] == evaluation_deals(10, seed=4)
    assert [d.seed for d in evaluation_deals(5, 4)] != [d.seed for d in evaluation_deals(5, 5)]
    assert evaluation_deals(0) == ()
    for bad in [-1, 2.0, True]:
        with pytest.raises(ValueError, match="count is a number of deals"):
            evaluation_deals(bad)  # type: ignore[arg-type]


def test_both_environments_play_the_evaluation_deals_as_given() -> None:
    single = KingVsBotsEnv(opponents="random", mode="deal", contract="no-king")
    multi = king_v0.raw_env(mode="deal")
    for deal in evaluation_deals(DECLARATION_CYCLE, seed=2):
        single.reset(options={"deal": deal})
        multi.reset(options={"deal": deal})
        for game in (single.game, multi.game):
            assert game.seed == deal.seed
            assert game.deals[0].declaration == deal.declaration  # not "no-king"
        assert single.game.deals[0].dealt_masks == multi.game.deals[0].dealt_masks


def test_an_evaluation_deal_replays_exactly_bots_included() -> None:
    """The bots' seeds come from the deal: two runs of a policy meet the same game."""
    deal = evaluation_deals(40, seed=3)[37]
    records = []
    rewards = []
    for _ in range(2):
        env = KingVsBotsEnv(opponents="random", mode="deal", seat=None)
        env.reset(seed=99 if records else None)  # what came before does not matter
        env.reset(options={"deal": deal})
        rewards.append(_lowest_until_over(env))
        records.append(env.record())
    assert records[0]["deals"] == records[1]["deals"] and rewards[0] == rewards[1]


def test_evaluation_deals_do_not_disturb_the_training_cycle() -> None:
    env = king_v0.raw_env(mode="deal")
    env.reset(seed=1)
    env.reset(options={"deal": evaluation_deals(3)[2]})
    env.reset()
    assert env.game.deals[0].declaration == cycle_declaration(1)


def test_bad_evaluation_options_are_refused() -> None:
    deal = evaluation_deals(1)[0]
    with pytest.raises(ValueError, match="needs mode='deal'"):
        KingVsBotsEnv(opponents="random").reset(options={"deal": deal})
    with pytest.raises(ValueError, match="needs mode='deal'"):
        king_v0.raw_env().reset(options={"deal": deal})
    with pytest.raises(ValueError, match=r"options\['deal'\] is an EvaluationDeal"):
        king_v0.raw_env(mode="deal").reset(options={"deal": 3})
    assert isinstance(deal, EvaluationDeal)


def test_a_single_deal_may_start_before_the_declaration() -> None:
    env = king_v0.raw_env(mode="deal", contract="declare")
    env.reset(seed=4)
    game = env.game
    assert game.phase is Phase.DECLARING
    assert env.agent_selection == f"player_{game.declarer}"
    mask = env.observe(env.agent_selection)["action_mask"]
    assert (np.flatnonzero(mask) == np.arange(52, 62)).all()  # all ten, as in a game's deal 1
    env.step(52 + Declaration(NEGATIVE_CONTRACTS[2]).action_index)
    assert (
        game.phase is Phase.PLAYING and game.deals[0].declaration.contract is NEGATIVE_CONTRACTS[2]
    )
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(4)
    while env.agents:
        observation, reward, terminated, _, _ = env.last()
        rewards[env.agent_selection] += reward
        if terminated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert len(game.results) == 1 and sum(rewards.values()) == NEGATIVE_CONTRACTS[2].total


def test_the_learner_declares_its_own_single_deals() -> None:
    env = KingVsBotsEnv(opponents="rule", mode="deal", contract="declare")
    declared_by_learner = 0
    for seed in range(8):
        env.reset(seed=seed)
        game = env.game
        if game.declarer == env.seat:
            declared_by_learner += 1
            assert game.phase is Phase.DECLARING
            legal = np.flatnonzero(env.action_masks())
            assert (legal >= 52).all() and len(legal) == 10
        else:
            assert game.phase is Phase.PLAYING  # the bot declared
        _lowest_until_over(env)
        assert len(game.results) == 1
    assert declared_by_learner > 0


def test_in_a_whole_game_the_learner_declares_its_five_deals() -> None:
    env = KingVsBotsEnv(opponents="rule", seat=2)
    env.reset(seed=6)
    declared = []
    terminated = False
    while not terminated:
        legal = np.flatnonzero(env.action_masks())
        if env.game.phase is Phase.DECLARING:
            assert env.game.declarer == 2 and (legal >= 52).all()
            declared.append(env.game.deal_number)
        _, _, terminated, _, _ = env.step(int(legal[0]))
    assert len(declared) == 5
    assert [r.number for r in env.game.results if r.declarer == 2] == declared
