"""The exact solver in the engine (``engine/solver.c`` in WebAssembly under wasmtime,
:func:`king.bots.engine.solve`): its time per solve with 4, 6 and 8 cards left in each
hand (median, 99th percentile, mean) and the nodes it searched (which do not depend on
the machine), over positions reached by the quick policy from random deals (all ten
declarations in turn, a random seat solving); the Python reference it was ported from
(:mod:`king.bots.search.solver`, plain Python on numpy arrays) on some of the same positions
of 4 and 6 cards, measured in the same run, which must search the same nodes; the 8
cards beside numba's last figures (recorded below, as numba no longer runs here); its
speed against plain enumeration of the same small endings (measured in the same run);
and a check of its values against that enumeration on many random endings (sometimes
inside a trick, under every set of optional rules)."""

from __future__ import annotations

import random
import time
import warnings

import numpy as np

from king.bots import engine, position
from king.bots.search import solver
from king.cards import shuffled_hands
from king.rules import ALL_DECLARATIONS, FLAG_EARLY_END, FLAG_FORCED_PENALTY, FLAG_OVERRUFF

#: The optional rules the check runs under, in turn.
FLAG_SETS = (0, FLAG_FORCED_PENALTY, FLAG_OVERRUFF, FLAG_EARLY_END | FLAG_FORCED_PENALTY)

#: numba's last figures for the solver at 8 cards a hand (the gate of #51,
#: ``scripts/engine_gate.py``, on the 2-core reference machine), in milliseconds, over
#: the 2,000 endings :func:`gate_endings` deals.
NUMBA_LAST_8_CARDS_MEDIAN_MS = 0.98
NUMBA_LAST_8_CARDS_P99_MS = 41.08


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
        _, searched = engine.solve(state, me, code, trump, 0)
        times.append(1000 * (time.perf_counter() - start))
        nodes.append(int(searched))
    return times, nodes


def reference_times(cards_left: int, positions: int, seed: int) -> tuple[float, float, int]:
    """The first ``positions`` positions of :func:`solve_times` solved by the engine and
    by the Python reference: the seconds each took in all, and how many positions
    they disagreed on (value or nodes)."""
    rng = random.Random(seed)
    ours = theirs = 0.0
    differ = 0
    for i in range(positions):
        state, code, trump = ending(rng, i, cards_left, 0)
        assert isinstance(state, np.ndarray)
        me = rng.randrange(4)
        start = time.perf_counter()
        found = engine.solve(state, me, code, trump, 0)
        middle = time.perf_counter()
        with warnings.catch_warnings():  # its table keys wrap numpy's int64, as they must
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = solver.solve(state.copy(), me, code, trump, 0)
        theirs += time.perf_counter() - middle
        ours += middle - start
        differ += found != (int(expected[0]), int(expected[1]))
    return ours, theirs, differ


def gate_endings(count: int) -> list[tuple[np.ndarray, int, int, int, int]]:  # type: ignore[type-arg]
    """The first ``count`` endings of 8 cards a hand that the gate timed numba on: the
    quick policy from random deals, every declaration, flags 0-15 in turn, seat
    ``index % 4`` solving: (state, me, contract, trump, flags)."""
    rng = random.Random(8)
    found = []
    for index in range(count):
        declaration = ALL_DECLARATIONS[index % 10]
        code = declaration.contract.code
        trump = -1 if declaration.trump is None else int(declaration.trump)
        flags = index % 16
        state = position.new_state(np.array(shuffled_hands(rng), dtype=np.int64), index & 3)
        while 13 - state[position.S_TRICKS] > 8 and not state[position.S_OVER]:
            card = solver.policy_move(state, code, trump, flags)
            position.play(state, card, code, trump, flags)
        found.append((state, index % 4, code, trump, flags))
    return found


def gate_times(count: int) -> list[float]:
    """Milliseconds per solve of the first ``count`` of the gate's endings."""
    times = []
    for state, me, code, trump, flags in gate_endings(count):
        start = time.perf_counter()
        engine.solve(state, me, code, trump, flags)
        times.append(1000 * (time.perf_counter() - start))
    return times


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
        value, _ = engine.solve(state, me, code, trump, flags)
        middle = time.perf_counter()
        plain = engine.enumerate_value(state, me, code, trump, flags)
        enumerating += time.perf_counter() - middle
        solving += middle - start
        wrong += int(value != plain)
    return wrong, solving, enumerating


def run(seconds: float = 2.0, seed: int = 1) -> dict[str, float]:
    solve_times(4, 3, 0)  # the engine's instance ready before timing anything
    scale = max(1, int(seconds))
    figures: dict[str, float] = {}
    for left, count in ((4, 400 * scale), (6, 200 * scale), (8, 100 * scale)):
        times, nodes = solve_times(left, count, seed)
        figures[f"solver_{left}_cards_median_ms"] = round(float(np.median(times)), 3)
        figures[f"solver_{left}_cards_p99_ms"] = round(float(np.percentile(times, 99)), 3)
        figures[f"solver_{left}_cards_mean_ms"] = round(float(np.mean(times)), 3)
        figures[f"solver_{left}_cards_median_nodes"] = int(np.median(nodes))
        figures[f"solver_{left}_cards_p99_nodes"] = int(np.percentile(nodes, 99))
    differ = 0
    for left, count in ((4, 40 * scale), (6, 10 * scale)):
        ours, theirs, wrong = reference_times(left, count, seed)
        differ += wrong
        figures[f"solver_{left}_cards_vs_python_reference"] = round(theirs / max(ours, 1e-9), 1)
    figures["python_reference_disagreements"] = differ
    gate = sorted(gate_times(min(2000, 1000 * scale)))  # all of them from 2 seconds on
    median = float(np.median(gate))
    p99 = gate[int(0.99 * (len(gate) - 1))]  # as the gate took it
    figures["solver_gate_8_cards_median_ms"] = round(median, 3)
    figures["numba_last_8_cards_median_ms"] = NUMBA_LAST_8_CARDS_MEDIAN_MS
    figures["solver_gate_8_cards_median_vs_numba_last"] = round(
        median / NUMBA_LAST_8_CARDS_MEDIAN_MS, 2
    )
    figures["solver_gate_8_cards_p99_ms"] = round(p99, 3)
    figures["numba_last_8_cards_p99_ms"] = NUMBA_LAST_8_CARDS_P99_MS
    figures["solver_gate_8_cards_p99_vs_numba_last"] = round(p99 / NUMBA_LAST_8_CARDS_P99_MS, 2)
    endings = 5000 * scale
    wrong, solving, enumerating = check(endings, seed)
    figures["check_endings"] = endings
    figures["check_disagreements"] = wrong
    figures["solver_vs_enumeration_3_cards"] = round(enumerating / max(solving, 1e-9), 1)
    return figures
