"""The exact solver: its time per solve with 4, 6 and 8 cards left in each hand (median,
99th percentile, mean) and the nodes it searched (which do not depend on the machine),
over positions reached by the quick policy from random deals (all ten declarations in
turn, a random seat solving); its speed against plain enumeration of the same small
endings (measured in the same run); and a check of its values against that enumeration
on many random endings (sometimes inside a trick, under every set of optional rules)."""

from __future__ import annotations

import random
import time

import numpy as np

from king.bots import compiled, position, solver
from king.cards import shuffled_hands
from king.rules import ALL_DECLARATIONS, FLAG_EARLY_END, FLAG_FORCED_PENALTY, FLAG_OVERRUFF

#: The optional rules the check runs under, in turn.
FLAG_SETS = (0, FLAG_FORCED_PENALTY, FLAG_OVERRUFF, FLAG_EARLY_END | FLAG_FORCED_PENALTY)


def ending(rng: random.Random, index: int, cards_left: int, flags: int) -> tuple[object, ...]:
    """A position with ``cards_left`` cards (or a few more, inside a trick) in the hand
    of the seat to play, reached by the quick policy from a random deal."""
    declaration = ALL_DECLARATIONS[index % 10]
    code = declaration.contract.code
    trump = -1 if declaration.trump is None else int(declaration.trump)
    state = position.new_state(np.array(shuffled_hands(rng), dtype=np.int64), index & 3)
    while 13 - state[position.S_TRICKS] > cards_left and not state[position.S_OVER]:
        card = solver.policy_move(state, code, trump, flags)
        position.play(state, card, code, trump, flags)
    return state, code, trump


def solve_times(cards_left: int, positions: int, seed: int) -> tuple[list[float], list[int]]:
    """Milliseconds per solve of ``positions`` random positions, and the nodes each
    searched (the same on any machine)."""
    rng = random.Random(seed)
    times = []
    nodes = []
    for i in range(positions):
        state, code, trump = ending(rng, i, cards_left, 0)
        assert isinstance(state, np.ndarray)
        me = rng.randrange(4)
        start = time.perf_counter()
        _, searched = compiled.solve(state, me, code, trump, 0)
        times.append(1000 * (time.perf_counter() - start))
        nodes.append(int(searched))
    return times, nodes


def check(endings: int, seed: int) -> tuple[int, float, float]:
    """Solve ``endings`` random endings of three tricks (some inside a trick) and
    enumerate each: the disagreements, and the seconds each took in all."""
    rng = random.Random(seed)
    wrong = 0
    solving = enumerating = 0.0
    for i in range(endings):
        flags = FLAG_SETS[i % len(FLAG_SETS)]
        state, code, trump = ending(rng, i, 3, flags)
        assert isinstance(state, np.ndarray)
        for _ in range(rng.randrange(4)):  # sometimes inside a trick
            if not state[position.S_OVER]:
                legal = position.legal_now(state, code, trump, flags)
                cards = [c for c in range(52) if legal >> c & 1]
                position.play(state, rng.choice(cards), code, trump, flags)
        if state[position.S_OVER]:
            continue
        me = rng.randrange(4)
        start = time.perf_counter()
        value, _ = compiled.solve(state, me, code, trump, flags)
        middle = time.perf_counter()
        plain = compiled.enumerate_value(state, me, code, trump, flags)
        enumerating += time.perf_counter() - middle
        solving += middle - start
        wrong += int(value != plain)
    return wrong, solving, enumerating


def run(seconds: float = 2.0, seed: int = 1) -> dict[str, float]:
    solve_times(4, 3, 0)  # compile (or load the cache) before timing anything
    check(4, 0)
    scale = max(1, int(seconds))
    figures: dict[str, float] = {}
    for left, count in ((4, 400 * scale), (6, 200 * scale), (8, 100 * scale)):
        times, nodes = solve_times(left, count, seed)
        figures[f"solver_{left}_cards_median_ms"] = round(float(np.median(times)), 3)
        figures[f"solver_{left}_cards_p99_ms"] = round(float(np.percentile(times, 99)), 3)
        figures[f"solver_{left}_cards_mean_ms"] = round(float(np.mean(times)), 3)
        figures[f"solver_{left}_cards_median_nodes"] = int(np.median(nodes))
        figures[f"solver_{left}_cards_p99_nodes"] = int(np.percentile(nodes, 99))
    endings = 5000 * scale
    wrong, solving, enumerating = check(endings, seed)
    figures["check_endings"] = endings
    figures["check_disagreements"] = wrong
    figures["solver_vs_enumeration_3_cards"] = round(enumerating / max(solving, 1e-9), 1)
    return figures
