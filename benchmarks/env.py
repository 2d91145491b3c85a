"""Throughput of the RL environments: ``king_v0`` steps per second with random masked
actions, whole games, every step observed (``last()``) as a training loop would; and
beside it the batched environment (:class:`king.env.batch.BatchedKingEnv`, 256 single
deals stepped by the engine), a learner's decisions per second against the ``rule``
policy and against a frozen linear snapshot, with ``KingVsBotsEnv`` doing the same work
one deal at a time.

The baseline, timed in the same run, is the core's checked play rate (``legal_moves``
and ``play`` on a :class:`~king.game.Game`, random choices, no observation), in actions
per second; the ratio says what the observation vectors and the AEC bookkeeping cost,
and compares across machines.  Needs the ``rl`` extra; without it the benchmark
reports nothing.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

import numpy as np

from king.game import Game


def _timed(work: Callable[[], int], seconds: float) -> float:
    """Run ``work`` (which returns how many steps it took) until ``seconds`` have
    passed; return steps per second."""
    done = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        done += work()
        elapsed = time.perf_counter() - start
    return done / elapsed


def core_game(seed: int) -> Callable[[], int]:
    """One whole game through the core's checked API, random legal actions."""
    rng = random.Random(seed)

    def work() -> int:
        game = Game(seed=rng.getrandbits(63))
        steps = 0
        while not game.is_over:
            game.act(rng.choice(game.legal_actions()))
            steps += 1
        return steps

    return work


def env_game(seed: int) -> Callable[[], int]:
    """One whole game through ``king_v0.env()``, random masked actions."""
    from king.env import king_v0

    env = king_v0.env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def work() -> int:
        env.reset()
        steps = 0
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        return steps

    return work


def single_deals(seed: int) -> Callable[[], int]:
    """``KingVsBotsEnv(mode="deal")`` against three ``rule`` bots, random legal cards:
    the work of one batched step, one deal at a time."""
    from king.env import KingVsBotsEnv

    env = KingVsBotsEnv(opponents="rule", seat=None, mode="deal")
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def work() -> int:
        nonlocal info
        steps = 0
        over = False
        while not over:
            legal = np.flatnonzero(info["action_mask"])
            _, _, over, _, info = env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        _, info = env.reset()
        return steps

    return work


def batched(seed: int, opponents: object = "rule", copies: int = 256) -> Callable[[], int]:
    """``BatchedKingEnv(copies)``: one step is a decision in every copy, random legal
    cards chosen for all of them at once with numpy."""
    from king.env.batch import BatchedKingEnv

    env = BatchedKingEnv(copies, opponents=opponents, seat=None)  # type: ignore[arg-type]
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def work() -> int:
        nonlocal info
        masks = info["action_mask"]
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        _, _, _, _, info = env.step(actions)
        return copies

    return work


def linear_snapshot() -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A frozen linear policy (random weights) asked for a batch at once: one matrix
    product, masked argmax."""
    rng = np.random.default_rng(0)
    weights = rng.normal(size=(602, 62)).astype(np.float32)

    def policy(observation: np.ndarray, masks: np.ndarray) -> np.ndarray:
        logits = observation @ weights
        return np.where(masks == 1, logits, -np.inf).argmax(axis=1)

    return policy


def run(seconds: float = 2.0, seed: int = 1) -> dict[str, float]:
    """Measure the environment and the core baseline for about ``seconds`` each."""
    try:
        import gymnasium  # noqa: F401
        import pettingzoo  # noqa: F401
    except ImportError:
        print("env: skipped, the rl extra is not installed (pip install king[rl])", file=sys.stderr)
        return {}
    base = _timed(core_game(seed), seconds)
    steps = _timed(env_game(seed), seconds)
    single = _timed(single_deals(seed), seconds)
    batch = _timed(batched(seed), seconds)
    snapshot = _timed(batched(seed, linear_snapshot()), seconds)
    return {
        "env_core_actions_per_s": round(base, 1),
        "env_steps_per_s": round(steps, 1),
        "env_vs_core": round(steps / base, 4),
        "env_single_deal_steps_per_s": round(single, 1),
        "env_batch_steps_per_s": round(batch, 1),
        "env_batch_snapshot_steps_per_s": round(snapshot, 1),
        "env_batch_vs_aec": round(batch / steps, 1),
        "env_batch_vs_single": round(batch / single, 1),
    }
