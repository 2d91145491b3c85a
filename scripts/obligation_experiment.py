"""The whole-game declaration experiment (#38): does valuing what a declarer still owes
over the rest of the game choose better contracts than the search bot's rule of thumb?

Today the search bot takes the contract whose value on this hand (rule-policy playouts
over sampled deals) is furthest above what that contract is worth on an average hand
(``TYPICAL_VALUE``).  The planner instead adds to each choice's value the worth of the
obligations it leaves, by dynamic programming over (trumps owed, negatives owed, each
negative contract's remaining uses): ``V(state)`` is the mean, over a sample of random
hands valued for every contract by the same playouts in the engine, of the best choice's
value plus ``V`` of the state it leaves.  The other players' later declarations are not
modelled (a negative contract stays available to the planner until it uses it up).

Paired whole games: seat 1 is the search bot, declaring by its rule of thumb in one game
and by the plan in the other, on the same deals with the same seeds; seats 2-4 are
``search1``.  The difference in seat 1's game total, with its 95% interval:

    python scripts/obligation_experiment.py --games 200 --jobs 2
"""

from __future__ import annotations

import argparse
import functools
import math
import multiprocessing
import random
import statistics
import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from king.bots import make_bot
from king.bots.engine import rule_declaration_values
from king.bots.search.bot import SearchBot
from king.cards import shuffled_hands
from king.game import Game
from king.rules import MAX_PER_NEGATIVE, NEGATIVE_CONTRACTS, Contract, Declaration
from king.view import SeatView

#: Column 0: Trumps with the best suit for the hand; then the negatives in rules order.
COLUMNS: tuple[Contract, ...] = (Contract.TRUMPS, *NEGATIVE_CONTRACTS)


def hand_values(hands: int, worlds: int, seed: int) -> NDArray[np.float64]:
    """``values[h, c]``: what contract ``COLUMNS[c]`` is worth to the declarer holding
    random hand ``h`` (the mean of ``worlds`` rule-policy playouts)."""
    rng = random.Random(seed)
    table = np.zeros((hands, len(COLUMNS)))
    out = np.zeros(worlds, dtype=np.int64)
    for h in range(hands):
        mine = shuffled_hands(rng)[0]
        rest = [c for c in range(52) if not mine >> c & 1]
        dealt = np.zeros((worlds, 4), dtype=np.int64)
        for w in range(worlds):
            rng.shuffle(rest)
            dealt[w, 0] = mine
            for seat in range(1, 4):
                for card in rest[(seat - 1) * 13 : seat * 13]:
                    dealt[w, seat] |= 1 << card
        best = -math.inf
        for suit in range(4):
            rule_declaration_values(dealt, 0, Contract.TRUMPS.code, suit, 0, out)
            best = max(best, float(out.mean()))
        table[h, 0] = best
        for c, contract in enumerate(COLUMNS[1:], start=1):
            rule_declaration_values(dealt, 0, contract.code, -1, 0, out)
            table[h, c] = float(out.mean())
    return table


@dataclass(frozen=True, eq=False)
class ObligationPlan:
    """The worth of what a declarer still owes, from a sample of valued hands."""

    values: NDArray[np.float64]

    @functools.cache  # noqa: B019 - one plan per process, states are few
    def worth(self, trumps: int, negatives: int, left: tuple[int, ...]) -> float:
        """``V``: the expected sum of this declarer's remaining declarations' values when
        each is chosen best on a random hand, with ``left`` uses of each negative."""
        if trumps + negatives == 0:
            return 0.0
        options = []
        if trumps:
            options.append(self.values[:, 0] + self.worth(trumps - 1, negatives, left))
        for i, uses in enumerate(left):
            if negatives and uses:
                after = (*left[:i], uses - 1, *left[i + 1 :])
                rest = self.worth(trumps, negatives - 1, after)
                options.append(self.values[:, i + 1] + rest)
        return float(np.max(np.stack(options), axis=0).mean())

    def after(self, view: SeatView, choice: Declaration) -> float:
        """``V`` of the state ``choice`` leaves the declarer in."""
        trumps, negatives = view.obligations(view.seat)
        counts = dict(view.contract_counts)
        left = [MAX_PER_NEGATIVE - counts[c] for c in NEGATIVE_CONTRACTS]
        if choice.contract is Contract.TRUMPS:
            return self.worth(trumps - 1, negatives, tuple(left))
        left[NEGATIVE_CONTRACTS.index(choice.contract)] -= 1
        return self.worth(trumps, negatives - 1, tuple(left))


class PlanningSearchBot(SearchBot):
    """The search bot with its declarations' reserve taken from the plan."""

    plan: ObligationPlan

    def _reserve(self, view: SeatView, choice: Declaration) -> float:  # type: ignore[override]
        return -self.plan.after(view, choice)


#: Each worker process's plan (made once, by :func:`_start`).
_PLAN: dict[str, ObligationPlan] = {}


def _start(values: NDArray[np.float64]) -> None:
    _PLAN["plan"] = ObligationPlan(values)


def play_pair(args: tuple[int, str, str]) -> tuple[int, int, int, int]:
    """Seed's two games: seat 0's totals (rule of thumb, plan) and how many of its five
    declarations differed (the first difference parts the games)."""
    seed, card_spec, others_spec = args
    totals = []
    declared: list[list[Declaration]] = []
    for planned in (False, True):
        bot = make_bot(card_spec, seed=seed * 4)
        assert isinstance(bot, SearchBot)
        if planned:
            bot.__class__ = PlanningSearchBot
            bot.plan = _PLAN["plan"]  # type: ignore[attr-defined]
        bots = [bot] + [make_bot(others_spec, seed=seed * 4 + s) for s in (1, 2, 3)]
        game = Game(seed=seed)
        mine: list[Declaration] = []
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            action = bots[seat].act(game.view(seat))
            if isinstance(action, Declaration):
                if seat == 0:
                    mine.append(action)
                game.declare(action)
            else:
                game.play(action)
        totals.append(game.totals[0])
        declared.append(mine)
    differed = sum(a != b for a, b in zip(*declared, strict=True))
    return seed, totals[0], totals[1], differed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--hands", type=int, default=2000, help="valued hands for the plan")
    parser.add_argument("--worlds", type=int, default=64, help="playouts per valued hand")
    parser.add_argument("--bot", default="search:time=0.01&threads=1")
    parser.add_argument("--others", default="search1:time=0.01&threads=1")
    args = parser.parse_args()
    began = time.perf_counter()
    values = hand_values(args.hands, args.worlds, args.seed)
    plan = ObligationPlan(values)
    full = plan.worth(2, 3, (MAX_PER_NEGATIVE,) * len(NEGATIVE_CONTRACTS))
    means = ", ".join(
        f"{c.value} {m:.1f}" for c, m in zip(COLUMNS, values.mean(axis=0), strict=True)
    )
    print(f"{args.hands} hands valued in {time.perf_counter() - began:.0f} s: {means}")
    print(f"V at the start of a game (2 trumps, 3 negatives owed): {full:.1f}")
    work = [(s, args.bot, args.others) for s in range(args.seed, args.seed + args.games)]
    diffs: list[int] = []
    changed = 0
    with multiprocessing.get_context("spawn").Pool(
        args.jobs, initializer=_start, initargs=(values,)
    ) as pool:
        for n, (_, thumb, planned, differed) in enumerate(
            pool.imap_unordered(play_pair, work), start=1
        ):
            diffs.append(planned - thumb)
            changed += differed
            if n % 20 == 0 or n == len(work):
                _report(diffs, changed, time.perf_counter() - began)


def _report(diffs: list[int], changed: int, seconds: float) -> None:
    mean = statistics.fmean(diffs)
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
    same = sum(d == 0 for d in diffs)
    print(
        f"{len(diffs)} paired games ({seconds:.0f} s): plan - rule of thumb = "
        f"{mean:+.1f} ± {half:.1f} points a game (95%), {mean / 20:+.2f} a deal; "
        f"{same} games identical, {changed} declarations differed",
        flush=True,
    )


if __name__ == "__main__":
    main()
