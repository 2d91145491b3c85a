"""Measure what each contract is worth to its declarer on an average hand when every
seat plays the rule policy (in the engine, :mod:`king.bots.engine`; Trumps: with the best
trump suit for the hand).

The search bot's ``TYPICAL_VALUE`` table comes from this script:

    python scripts/calibrate_declarations.py --hands 4000
"""

from __future__ import annotations

import argparse
import random

import numpy as np

from king.bots.engine import rule_declaration_values
from king.cards import shuffled_hands
from king.rules import Contract


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--worlds", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sums = dict.fromkeys(Contract, 0.0)
    out = np.zeros(args.worlds, dtype=np.int64)
    for _ in range(args.hands):
        mine = shuffled_hands(rng)[0]
        rest = [c for c in range(52) if not mine >> c & 1]
        worlds = np.zeros((args.worlds, 4), dtype=np.int64)
        for w in range(args.worlds):
            rng.shuffle(rest)
            worlds[w, 0] = mine
            for seat in range(1, 4):
                for card in rest[(seat - 1) * 13 : seat * 13]:
                    worlds[w, seat] |= 1 << card
        best_trumps = -1e9
        for suit in range(4):
            rule_declaration_values(worlds, 0, Contract.TRUMPS.code, suit, 0, out)
            best_trumps = max(best_trumps, float(out.mean()))
        sums[Contract.TRUMPS] += best_trumps
        for contract in Contract:
            if contract is Contract.TRUMPS:
                continue
            rule_declaration_values(worlds, 0, contract.code, -1, 0, out)
            sums[contract] += float(out.mean())
    for contract, total in sums.items():
        print(f"{contract.value:<12} {total / args.hands:8.1f}")


if __name__ == "__main__":
    main()
