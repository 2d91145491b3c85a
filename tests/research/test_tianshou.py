"""Tianshou's own PettingZoo adapter collects whole games of ``king_v0`` as it is, with
``info="arrays"`` (the same numeric keys every step: its buffer stacks ``info``), with
no glue; with the default ``info`` its buffer would hold ``None`` (the reason this
option exists).  Collected with ``--research`` (``.ci/research``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv

from king.env import king_v0


def collect(info: str, episodes: int) -> tuple[VectorReplayBuffer, Any]:
    def make() -> PettingZooEnv:
        return PettingZooEnv(king_v0.env(info=info))

    env = make()
    random_policy = MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space).policy
    policy = MultiAgentPolicy(dict.fromkeys(env.agents, random_policy))
    buffer = VectorReplayBuffer(30_000, 2)
    collector = Collector(policy, DummyVectorEnv([make, make]), buffer)
    collector.reset()
    stats = collector.collect(n_episode=episodes, reset_before_collect=True)
    return buffer, stats


def test_tianshou_collects_whole_games_with_a_clean_buffer() -> None:
    buffer, stats = collect("arrays", 2)
    assert stats.n_collected_episodes == 2
    assert not buffer.hasnull()
    info = buffer.info[buffer.sample_indices(0)]  # every step stored
    over = np.flatnonzero(info.game_over == 1)
    assert len(over) == 2  # each game's last step says the game is over
    assert np.allclose(info.totals[over].sum(axis=1), 0)  # King is zero-sum
    assert info.deal_over.sum() >= 2 * 20  # every deal of both games reached an info


def test_the_default_info_is_what_tianshou_cannot_stack() -> None:
    buffer, _ = collect("dicts", 1)
    assert buffer.hasnull()
