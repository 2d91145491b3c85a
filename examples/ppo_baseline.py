"""A baseline to beat: sb3-contrib's MaskablePPO trained on ``KingVsBotsEnv`` for a
stated budget, then measured in duplicate deals beside the project's own bots
(docs/rl.md, "Baselines").

Needs the ``train`` extra (torch and sb3-contrib; on the project's machine install torch
first with ``pip install torch==2.13.0``, which comes from its own disk):

    pip install -e ".[train]"
    python examples/ppo_baseline.py --steps 200000 --deals 100

It trains one learner against three ``rule`` bots on single deals (every contract in
turn, the learner in a random seat), saves the model (``--out``, sb3's ``.zip``) and its
numpy copy beside it (``.npz``: ``king.env.export_policy``), registers the saved model as
the in-process bot ``ppo`` (``king.env.load_policy`` reads the ``.zip`` as any
``policy:file=`` does: no pickle) and plays ``king arena``'s duplicate deals: each bot
of ``--bots`` against three ``random`` and against three ``rule``, the same deals for
every bot.  It prints the table docs/rl.md shows.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

import king.env  # registers policy:file=
from king.arena import ArenaConfig, run_arena
from king.env import (
    BatchedKingEnv,
    KingVsBotsEnv,
    export_policy,
    load_policy,
    register_policy,
)
from king.env.sb3_vec import sb3_vec_env

HERE = Path(__file__).resolve().parent


class Deadline(BaseCallback):
    """Stops the training once ``minutes`` have passed (0: never)."""

    def __init__(self, minutes: float) -> None:
        super().__init__()
        self.end = time.perf_counter() + minutes * 60 if minutes else float("inf")

    def _on_step(self) -> bool:
        return time.perf_counter() < self.end


def make_model(copies: int, seed: int, net: list[int]) -> MaskablePPO:
    """MaskablePPO on ``KingVsBotsEnv`` with sb3-contrib's defaults (points / 100), or,
    with ``copies``, on that many deals stepped by the engine (``BatchedKingEnv``:
    rewards above par / 100, 4,096 steps an update, ``net`` hidden layers of ReLU)."""
    if not copies:
        env = KingVsBotsEnv(opponents="rule", seat=None, mode="deal", reward_scale=0.01)
        return MaskablePPO("MlpPolicy", env, seed=seed, verbose=0)
    batched = BatchedKingEnv(
        copies, opponents="rule", seat=None, reward="above_par", reward_scale=0.01
    )
    return MaskablePPO(
        "MlpPolicy",
        sb3_vec_env(batched, seed=seed),
        seed=seed,
        n_steps=max(1, 4096 // copies),
        batch_size=512,
        policy_kwargs={"net_arch": net, "activation_fn": torch.nn.ReLU},
        verbose=0,
    )


def train(
    steps: int, seed: int, out: Path, copies: int = 0, net: tuple[int, ...] = (256, 256),
    minutes: float = 0,
) -> tuple[MaskablePPO, float]:  # fmt: skip
    """Train for ``steps`` (or until ``minutes`` have passed), save the model."""
    model = make_model(copies, seed, list(net))
    start = time.perf_counter()
    model.learn(total_timesteps=steps, callback=Deadline(minutes))
    spent = time.perf_counter() - start
    env = model.get_env()
    model.save(out)
    export_policy(model, out.with_suffix(".npz"))  # plays with numpy alone
    if env is not None:
        env.close()
    return model, spent


def measure(bot: str, against: str, deals: int, seed: int) -> tuple[float, float, float]:
    """Points per deal above par of ``bot`` against three ``against``, 95% interval,
    ms per move."""
    config = ArenaConfig((bot, against, against, against), "deals", deals, seed=seed)
    stats = run_arena(config).stats[bot]
    return stats.score.mean, stats.score.ci95, stats.ms_per_move


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200_000, help="training steps")
    parser.add_argument("--deals", type=int, default=100, help="arena deals per row")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--copies", type=int, default=0, help="train on this many batched deals (0: one)"
    )
    parser.add_argument("--net", default="256,256", help="hidden layers with --copies")
    parser.add_argument("--minutes", type=float, default=0, help="stop training after these")
    parser.add_argument("--out", type=Path, default=HERE / "ppo_king.zip")
    parser.add_argument(
        "--bots",
        default=f"ppo,policy:file={HERE / 'rl_policy.npz'},random,rule,hard",
        help="the bots of the table, comma-separated (ppo: the trained model)",
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    net = tuple(int(width) for width in args.net.split(","))
    model, spent = train(args.steps, args.seed, args.out, args.copies, net, args.minutes)
    done = model.num_timesteps
    print(f"trained {done} steps in {spent:.0f} s ({done / spent:.0f} steps/s)", flush=True)
    register_policy("ppo", load_policy(args.out))  # the saved file, as policy:file= reads it
    assert king.env  # imported for its bot spec
    print(f"| bot | vs 3 `random` | vs 3 `rule` | ms per move |  ({args.deals} deals x 4 seats)")
    print("|---|---|---|---|")
    for bot in args.bots.split(","):
        random_mean, random_ci, _ = measure(bot, "random", args.deals, args.seed)
        rule_mean, rule_ci, ms = measure(bot, "rule", args.deals, args.seed)
        print(
            f"| `{bot}` | {random_mean:+.1f} ± {random_ci:.1f} | {rule_mean:+.1f} ± {rule_ci:.1f} "
            f"| {ms:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
