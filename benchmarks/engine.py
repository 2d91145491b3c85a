"""Throughput of the rules engine: full random deals (shuffle + 52 cards) per second.

Three loops over the same kind of work, timed in the same run:

* ``baseline``: shuffle and deal only, the floor every deal pays;
* ``checked``: random legal play through the public API (``legal_moves`` and ``play``,
  with Card objects and full validation);
* ``fast``: random legal play through the unchecked fast path (masks and card ids).

The ratios against the baseline make figures from different machines comparable.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from king.cards import CardSet, shuffled_hands
from king.deal import Deal
from king.rules import ALL_DECLARATIONS, Rules


def timed(work: Callable[[int], None], seconds: float) -> float:
    """Run ``work`` in batches until ``seconds`` have passed; return items per second."""
    done = 0
    batch = 20
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        work(batch)
        done += batch
        elapsed = time.perf_counter() - start
    return done / elapsed


def baseline(rng: random.Random) -> Callable[[int], None]:
    def work(n: int) -> None:
        for _ in range(n):
            shuffled_hands(rng)

    return work


def checked(rng: random.Random) -> Callable[[int], None]:
    rules = Rules()

    def work(n: int) -> None:
        for i in range(n):
            hands = [CardSet(m) for m in shuffled_hands(rng)]
            deal = Deal(hands, i & 3, ALL_DECLARATIONS[i % 10], rules)
            while not deal.is_over:
                deal.play(rng.choice(deal.legal_moves()))

    return work


def fast(rng: random.Random) -> Callable[[int], None]:
    rules = Rules()
    rnd = rng.random

    def work(n: int) -> None:
        for i in range(n):
            deal = Deal(shuffled_hands(rng), i & 3, ALL_DECLARATIONS[i % 10], rules)
            legal = deal.legal_mask
            play = deal.play_unchecked
            mask = legal()
            while mask:
                skip = int(rnd() * mask.bit_count())
                while skip:
                    mask &= mask - 1
                    skip -= 1
                play((mask & -mask).bit_length() - 1)
                mask = legal()

    return work


def run(seconds: float = 2.0, seed: int = 1) -> dict[str, float]:
    """Measure the three loops for about ``seconds`` each; return the figures."""
    base = timed(baseline(random.Random(seed)), seconds)
    check = timed(checked(random.Random(seed)), seconds)
    quick = timed(fast(random.Random(seed)), seconds)
    return {
        "baseline_deals_per_s": round(base, 1),
        "checked_deals_per_s": round(check, 1),
        "fast_deals_per_s": round(quick, 1),
        "checked_vs_baseline": round(check / base, 4),
        "fast_vs_baseline": round(quick / base, 4),
    }
