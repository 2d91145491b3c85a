"""Train a small policy with plain numpy, save it, and measure it in the arena.

The policy is linear softmax over the 602-float observation of ``king.env`` (one weight
row per action, illegal actions masked out).  It learns by imitation: four ``rule`` bots
play whole games and single deals through the core, every decision becomes an
(observation, mask, action) example, and the weights are fitted by cross-entropy with
Adam.  About a minute on a slow two-core machine; no deep-learning framework.

    python examples/rl_train.py                      # train, save, quick arena check
    king arena --deals 200 --jobs 2 \\
        --bots "policy:file=examples/rl_policy.npz,random,random,random"

Options: ``--games`` (whole teacher games, for declaring; default 40), ``--deals``
(single teacher deals, the contracts in turn; default 3000), ``--epochs`` (default 6),
``--out`` (default ``examples/rl_policy.npz``), ``--seed``, ``--arena-deals`` (the quick
in-process check against ``random``; 0 skips it).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from king.arena import ArenaConfig, run_arena
from king.bots import make_bot
from king.env import (
    ACTION_COUNT,
    OBS_SIZE,
    LinearPolicy,
    action_mask,
    action_of,
    encode_observation,
    register_policy,
)
from king.env.table import cycle_declaration
from king.game import Game
from king.rules import Declaration

HERE = Path(__file__).resolve().parent


def collect(
    games: int, deals: int, seed: int
) -> tuple[NDArray[np.float32], NDArray[np.bool_], NDArray[np.int64]]:
    """Every decision of four rule bots over ``games`` whole games (declaring and
    playing) and ``deals`` single deals (the contracts in turn), as training data."""
    observations: list[NDArray[np.float32]] = []
    masks: list[NDArray[np.bool_]] = []
    actions: list[int] = []
    for number in range(games + deals):
        if number < games:
            game = Game(seed=seed * 100_003 + number)
        else:
            game = Game(seed=seed * 100_003 + number, auto_deal=False)
            game.deal_cards()
            game.declare(cycle_declaration(number))
        bots = [make_bot("rule", seed=seed + 7 * number + seat) for seat in range(4)]
        while game.to_act is not None:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            choice = bots[seat].act(view)
            observations.append(encode_observation(view))
            masks.append(action_mask(view).astype(bool))
            actions.append(action_of(choice))
            if isinstance(choice, Declaration):
                game.declare(choice)
            else:
                game.play(choice)
    return np.stack(observations), np.stack(masks), np.array(actions, np.int64)


def masked_log_softmax(
    logits: NDArray[np.float32], masks: NDArray[np.bool_]
) -> NDArray[np.float32]:
    """Log-probabilities over the legal actions of each row."""
    logits = np.where(masks, logits, np.float32(-1e9))
    logits = logits - logits.max(axis=1, keepdims=True)
    return logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))


def train(
    obs: NDArray[np.float32],
    masks: NDArray[np.bool_],
    actions: NDArray[np.int64],
    epochs: int,
    seed: int,
) -> LinearPolicy:
    """Fit the linear softmax policy by minibatch cross-entropy with Adam."""
    rng = np.random.default_rng(seed)
    weights = np.zeros((ACTION_COUNT, OBS_SIZE), np.float32)
    bias = np.zeros(ACTION_COUNT, np.float32)
    moments = [np.zeros_like(weights), np.zeros_like(bias)]
    squares = [np.zeros_like(weights), np.zeros_like(bias)]
    rate, beta1, beta2, decay, batch = 0.01, 0.9, 0.999, 1e-5, 512
    step = 0
    n = len(actions)
    held = rng.permutation(n)
    test, fit = held[: n // 10], held[n // 10 :]
    for epoch in range(epochs):
        rng.shuffle(fit)
        for start in range(0, len(fit), batch):
            rows = fit[start : start + batch]
            x, m, y = obs[rows], masks[rows], actions[rows]
            probs = np.exp(masked_log_softmax(x @ weights.T + bias, m))
            probs[np.arange(len(rows)), y] -= 1.0  # d(cross-entropy)/d(logits)
            probs /= len(rows)
            grads = [probs.T @ x + decay * weights, probs.sum(axis=0)]
            step += 1
            for i, (param, grad) in enumerate(zip((weights, bias), grads, strict=True)):
                moments[i] = beta1 * moments[i] + (1 - beta1) * grad
                squares[i] = beta2 * squares[i] + (1 - beta2) * grad * grad
                corrected = moments[i] / (1 - beta1**step)
                scale = np.sqrt(squares[i] / (1 - beta2**step)) + 1e-8
                param[...] -= (rate * corrected / scale).astype(np.float32)
        logp = masked_log_softmax(obs[test] @ weights.T + bias, masks[test])
        agree = float((logp.argmax(axis=1) == actions[test]).mean())
        loss = float(-logp[np.arange(len(test)), actions[test]].mean())
        print(f"epoch {epoch + 1:>2}: held-out loss {loss:.3f}, agrees with rule {agree:.1%}")
    return LinearPolicy(weights, bias)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--deals", type=int, default=3000)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "rl_policy.npz")
    parser.add_argument("--arena-deals", type=int, default=40)
    args = parser.parse_args()

    start = time.perf_counter()
    obs, masks, actions = collect(args.games, args.deals, args.seed)
    print(
        f"{len(actions)} decisions from {args.games} games and {args.deals} deals "
        f"in {time.perf_counter() - start:.0f} s"
    )
    start = time.perf_counter()
    policy = train(obs, masks, actions, args.epochs, args.seed)
    print(f"trained in {time.perf_counter() - start:.0f} s")
    policy.save(args.out)
    print(f"saved {args.out}")

    if args.arena_deals:
        register_policy("linear", policy)
        config = ArenaConfig(("linear", "random", "random", "random"), "deals", args.arena_deals)
        print(run_arena(config).table())


if __name__ == "__main__":
    main()
