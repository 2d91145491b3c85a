"""Self-play in ``KingVsBotsEnv``: the opponents play a frozen snapshot of the learner's
policy, refreshed every ``refresh_every`` steps, never the live policy."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from king.env import KingVsBotsEnv, LinearPolicy, SelfPlay


class Versioned:
    """A policy whose behaviour is its ``version``: 0 plays the lowest legal action,
    1 the highest.  Every call, by whichever copy, is logged with its version."""

    calls: ClassVar[list[int]] = []

    def __init__(self) -> None:
        self.version = 0

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        Versioned.calls.append(self.version)
        legal = np.flatnonzero(mask)
        return int(legal[0] if self.version == 0 else legal[-1])


def test_the_opponents_play_the_snapshot_until_the_refresh() -> None:
    live = Versioned()
    Versioned.calls = []
    env = KingVsBotsEnv(opponents=SelfPlay.copying(live, refresh_every=6), seat=0)
    env.reset(seed=3)  # step 0: the snapshot is taken (version 0)
    live.version = 1  # the learner trains on...
    by_step: list[list[int]] = []
    for _ in range(12):
        before = len(Versioned.calls)
        env.step(int(np.flatnonzero(env.action_masks())[0]))
        by_step.append(Versioned.calls[before:])
    # ... but the opponents play the frozen snapshot for steps 1-5; the refresh comes
    # with step 6, and the bots' moves after it are the new policy's.
    assert any(by_step[:5]) and any(by_step[6:])
    assert {v for calls in by_step[:5] for v in calls} == {0}
    assert {v for calls in by_step[5:] for v in calls} == {1}
    assert env.record()["players"] == ["learner", "self-play", "self-play", "self-play"]


def test_a_snapshot_is_a_copy_unchanged_by_the_live_policy_until_its_refresh() -> None:
    rng = np.random.default_rng(0)
    live = LinearPolicy(rng.normal(size=(62, 602)).astype(np.float32), np.zeros(62, np.float32))
    snapshot = live.weights.copy()
    taken: list[LinearPolicy] = []

    def freeze() -> LinearPolicy:
        frozen = LinearPolicy(live.weights.copy(), live.bias.copy())
        taken.append(frozen)
        return frozen

    env = KingVsBotsEnv(opponents=["random", SelfPlay(freeze, 1000), SelfPlay(freeze, 1000)])
    env.reset(seed=1)
    live.weights[:] = 0  # the live policy changes in place
    for _ in range(20):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    # One snapshot per SelfPlay, taken at the reset, unchanged by the live policy.
    assert len(taken) == 2 and all(np.array_equal(p.weights, snapshot) for p in taken)
    assert env.record()["players"] == ["learner", "random", "self-play", "self-play"]
    for _ in range(999 - 20):
        if env.game.is_over:
            env.reset()
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert len(taken) == 2
    if env.game.is_over:
        env.reset()  # a reset takes no snapshot: steps count
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # step 1000: refreshed
    assert len(taken) == 4 and not taken[2].weights.any()


def test_the_frozen_policy_decides_every_self_play_move() -> None:
    chosen: list[int] = []

    def snapshot():  # type: ignore[no-untyped-def]
        def highest(observation: np.ndarray, mask: np.ndarray) -> int:
            action = int(np.flatnonzero(mask)[-1])
            chosen.append(action)
            return action

        return highest

    env = KingVsBotsEnv(opponents=SelfPlay(snapshot, refresh_every=3), mode="deal", seat=2)
    env.reset(seed=4)
    terminated = False
    while not terminated:
        _, _, terminated, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    plays = [card.id for seat_and_card in env.game.deals[0].tricks for card in seat_and_card.cards]
    assert len(chosen) == 39 and set(chosen) <= set(plays)


def test_self_play_options_are_checked() -> None:
    with pytest.raises(ValueError, match="refresh_every is a number of steps"):
        SelfPlay(lambda: lambda o, m: 0, refresh_every=0)
    with pytest.raises(ValueError, match="refresh_every is a number of steps"):
        SelfPlay(lambda: lambda o, m: 0, refresh_every=True)
    with pytest.raises(ValueError, match="a function that returns a frozen copy"):
        SelfPlay(LinearPolicy.zeros().weights)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a bot spec or a SelfPlay"):
        KingVsBotsEnv(opponents=["rule", "rule", 3])  # type: ignore[list-item]
