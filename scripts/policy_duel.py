"""Measure a change to the rule policy on many duplicate deals, in the engine: a variant
of ``engine/rule_play.c`` (a copy of the file, edited) takes one seat and the rule
policy the other three, each seat in turn, and its points are compared with the rule
policy's in the same seat of the same deal.

A deal takes microseconds, so 100,000 deals (every declaration in turn) give a 95%
interval of about ±0.1 points per deal, against ±10 for 40 deals of ``king arena``
with the search bot: fine enough to show that a constant of the policy is at its best
or that a new rule of thumb loses, before it goes near the search bot.  The variant is
built into an engine of its own with the pinned zig (``pip install .[engine]``), in
about a second.

    cp engine/rule_play.c /tmp/variant.c   # then edit /tmp/variant.c
    python scripts/policy_duel.py /tmp/variant.c --deals 100000

With ``--lookahead TRICKS`` (and ``--inner DEALS``) instead of a file, the seat plays
the rule policy with lookahead in its last tricks (:mod:`king.bots.search.lookahead`).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from king.bots.engine.duel import LOOKAHEAD, VARIANT
from king.bots.engine.duel import duel as engine_duel
from king.cards import shuffled_hands
from king.rules import ALL_DECLARATIONS, PRESETS, Contract

CONTRACTS = tuple(Contract)
BUILD = Path(__file__).resolve().parent.parent / "engine" / "build.py"


@dataclass(frozen=True)
class Challenger:
    """Who takes the seat: a variant's engine (``wasm``), or the rule policy with
    lookahead in its last ``tricks`` tricks over ``inner`` deals."""

    player: int
    wasm: bytes | None = None
    tricks: int = 0
    inner: int = 0


def load_variant(path: Path) -> Challenger:
    """The engine built with the edited copy of ``rule_play.c`` at ``path``."""
    spec = importlib.util.spec_from_file_location("engine_build", BUILD)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{BUILD}: the engine's build script is missing")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "variant.wasm"
        try:
            build.build_variant(path, out)
        except ValueError as error:
            raise SystemExit(str(error)) from None
        except subprocess.CalledProcessError:
            raise SystemExit(f"{path}: the variant does not compile (the errors above)") from None
        return Challenger(VARIANT, wasm=out.read_bytes())


def lookahead_player(tricks: int, inner: int) -> Challenger:
    """The rule policy with lookahead in the last ``tricks`` tricks over ``inner`` deals."""
    return Challenger(LOOKAHEAD, tricks=tricks, inner=inner)


def duel(challenger: Challenger, deals: int, seed: int, flags: int) -> tuple[Any, Any]:
    """Each deal's gain of the challenger over the rule policy, per seat it took
    (``gains[deal, seat]``), and each deal's contract code."""
    rng = random.Random(seed)
    rows = np.zeros((deals, 7), dtype=np.int64)
    for d in range(deals):
        declaration = ALL_DECLARATIONS[d % len(ALL_DECLARATIONS)]
        rows[d, :4] = shuffled_hands(rng)
        rows[d, 5] = declaration.contract.code
        rows[d, 6] = -1 if declaration.trump is None else int(declaration.trump)
    rows[:, 4] = [rng.randrange(4) for _ in range(deals)]
    gains = engine_duel(
        rows, flags, challenger.player, tricks=challenger.tricks, inner=challenger.inner,
        wasm=challenger.wasm, threads=os.cpu_count() or 1,
    )  # fmt: skip
    return gains, rows[:, 5].copy()


def summary(gains: Any, codes: Any) -> tuple[float, float, dict[Contract, float]]:
    """The mean gain per deal with each contract weighing the same (as in the arena), its
    95% half-interval, and the mean per contract."""
    per_deal = gains.mean(axis=1)
    means: dict[Contract, float] = {}
    variance = 0.0
    for contract in CONTRACTS:
        rows = per_deal[codes == contract.code]
        if len(rows) < 2:
            raise SystemExit("too few deals: every contract needs at least two")
        means[contract] = float(rows.mean())
        variance += float(rows.var(ddof=1)) / len(rows)
    mean = sum(means.values()) / len(means)
    return mean, 1.96 * math.sqrt(variance) / len(means), means


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("variant", type=Path, nargs="?", help="an edited copy of rule_play.c")
    parser.add_argument(
        "--lookahead",
        type=int,
        metavar="TRICKS",
        help="instead of a variant: the rule policy with lookahead in the last TRICKS tricks",
    )
    parser.add_argument("--inner", type=int, default=8, metavar="DEALS")
    parser.add_argument("--deals", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", choices=sorted(PRESETS), default="classic")
    args = parser.parse_args(argv)
    if args.deals < 14:
        parser.error("--deals must be at least 14 (two of each contract)")
    if (args.variant is None) == (args.lookahead is None):
        parser.error("give either a variant file or --lookahead")
    if args.variant is not None and not args.variant.is_file():
        parser.error(f"{args.variant}: no such file")
    if args.lookahead is not None and not (1 <= args.lookahead <= 13 and 1 <= args.inner <= 64):
        parser.error("--lookahead must be 1 to 13 tricks and --inner 1 to 64 deals")
    started = time.perf_counter()
    if args.variant is not None:
        name = str(args.variant)
        player = load_variant(args.variant)
    else:
        name = f"lookahead {args.lookahead}, {args.inner} deals"
        player = lookahead_player(args.lookahead, args.inner)
    gains, codes = duel(player, args.deals, args.seed, PRESETS[args.rules].flags)
    mean, interval, means = summary(gains, codes)
    changed = float((gains != 0).mean())
    print(
        f"{name}: {mean:+.2f} ± {interval:.2f} points per deal against the rule "
        f"policy ({args.deals} deals, {changed:.1%} of deal-seats changed, "
        f"{time.perf_counter() - started:.0f} s)"
    )
    print("  " + "  ".join(f"{c.value} {means[c]:+.2f}" for c in CONTRACTS))


if __name__ == "__main__":
    main(sys.argv[1:])
