"""Measure a change to the rule policy on many duplicate deals, compiled: a variant of
``king/bots/rule_play.py`` (a copy of the file, edited) takes one seat and the rule
policy the other three, each seat in turn, and its points are compared with the rule
policy's in the same seat of the same deal.

A deal takes microseconds, so 100,000 deals (every declaration in turn) give a 95%
interval of about ±0.1 points per deal, against ±10 for 40 deals of ``king arena``
with the search bot: fine enough to show that a constant of the policy is at its best
or that a new rule of thumb loses, before it goes near the search bot.

    cp src/king/bots/rule_play.py /tmp/variant.py   # then edit /tmp/variant.py
    python scripts/policy_duel.py /tmp/variant.py --deals 100000

With ``--lookahead TRICKS`` (and ``--inner DEALS``) instead of a file, the seat plays
the rule policy with lookahead in its last tricks (:mod:`king.bots.lookahead`).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import random
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from numba import njit, prange
from numba.extending import register_jitable

from king.bots import compiled  # noqa: F401  (makes the kernels callable when compiled)
from king.bots.lookahead import lookahead_card
from king.bots.position import S_OVER, S_POINTS, S_TURN, new_state, play
from king.bots.rule_play import rule_card, rule_playout
from king.cards import shuffled_hands
from king.rules import ALL_DECLARATIONS, PRESETS, Contract

CONTRACTS = tuple(Contract)


def load_variant(path: Path) -> ModuleType:
    """The edited copy of ``rule_play`` at ``path``, its functions made callable from
    compiled code."""
    spec = importlib.util.spec_from_file_location(f"policy_variant_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "KERNEL") or not hasattr(module, "rule_card"):
        raise SystemExit(f"{path}: not a copy of rule_play.py (no KERNEL or rule_card)")
    for function in module.KERNEL:
        register_jitable(function)
    return module


def variant_player(variant: ModuleType) -> Any:
    """The variant's card, for the duel (its seed unused)."""
    variant_card = variant.rule_card

    @register_jitable
    def card(state: Any, code: int, trump: int, flags: int, seed: Any) -> int:
        return variant_card(state, code, trump, flags)  # type: ignore[no-any-return]

    return card


def lookahead_player(tricks: int, inner: int) -> Any:
    """The rule policy with lookahead in the last ``tricks`` tricks over ``inner`` deals."""

    @register_jitable
    def card(state: Any, code: int, trump: int, flags: int, seed: Any) -> int:
        return lookahead_card(state, code, trump, flags, tricks, inner, seed)

    return card


def _compile(player: Any) -> Any:
    @njit(parallel=True, nogil=True)
    def duel(hands: Any, leaders: Any, codes: Any, trumps: Any, flags: int, out: Any) -> None:
        for d in prange(hands.shape[0]):
            code = codes[d]
            trump = trumps[d]
            start = new_state(hands[d], leaders[d])
            reference = start.copy()
            rule_playout(reference, code, trump, flags)
            for seat in range(4):
                state = start.copy()
                seed = np.empty(1, dtype=np.int64)
                seed[0] = (d * 4 + seat) * 2654435761 + 1
                while not state[S_OVER]:
                    if state[S_TURN] == seat:
                        card = player(state, code, trump, flags, seed)
                    else:
                        card = rule_card(state, code, trump, flags)
                    play(state, card, code, trump, flags)
                out[d, seat] = state[S_POINTS + seat] - reference[S_POINTS + seat]

    return duel


def duel(variant: ModuleType | Any, deals: int, seed: int, flags: int) -> tuple[Any, Any]:
    """Each deal's gain of the variant (a module, or a player made by
    :func:`lookahead_player`) over the rule policy, per seat it took
    (``gains[deal, seat]``), and each deal's contract code."""
    player = variant_player(variant) if isinstance(variant, ModuleType) else variant
    rng = random.Random(seed)
    hands = np.array([shuffled_hands(rng) for _ in range(deals)], dtype=np.int64)
    declarations = [ALL_DECLARATIONS[d % len(ALL_DECLARATIONS)] for d in range(deals)]
    codes = np.array([d.contract.code for d in declarations], dtype=np.int64)
    trumps = np.array(
        [-1 if d.trump is None else int(d.trump) for d in declarations], dtype=np.int64
    )
    leaders = np.array([rng.randrange(4) for _ in range(deals)], dtype=np.int64)
    gains = np.zeros((deals, 4), dtype=np.int64)
    _compile(player)(hands, leaders, codes, trumps, flags, gains)
    return gains, codes


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
    parser.add_argument("variant", type=Path, nargs="?", help="an edited copy of rule_play.py")
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
