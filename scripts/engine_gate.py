"""The gate of #51, measured in one run: the engine (engine/*.c in WebAssembly under
wasmtime) against today's numba build of the same kernels, before numba leaves.

    python scripts/engine_gate.py [--positions 100000] [--endings 10000]

- rule-policy playouts per second, one thread, each contract (engine / numba ≥ 0.75);
- the same rule card at every position of games under every rule preset;
- the exact solver at 8 cards a hand: the same values and nodes, and its median and 99th
  percentile time (engine / numba ≤ 1.3);
- the search bot's move (rollouts with likelihoods) per second, one and two threads.

It needs numba (``king.bots.compiled``), which the engine replaces: it ran at the last
commit that had both, and its figures are in docs/bots.md.  Each arena figure of the
gate is ``king arena --bots LEVEL,rule,rule,rule --deals 140 --seed 7``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import replace
from typing import Any

import numpy as np

from king.bots import compiled, engine
from king.bots import position as K
from king.bots.position import from_view
from king.bots.rule.bot import choose_card
from king.cards import shuffled_hands
from king.game import Game
from king.rules import ALL_DECLARATIONS, PRESETS, Rules

PRESET_RULES = [*PRESETS.values(), Rules(overruff=True), Rules(forced_penalty=True)]


def playouts(seconds: float = 1.0) -> None:
    """Whole rule-policy deals per second on one thread, numba then the engine, on the
    same 4,000 deals under each contract."""
    rng = random.Random(1)
    worlds = np.array([shuffled_hands(rng) for _ in range(4000)], dtype=np.int64)
    compiled.set_threads(1)
    ratios = []
    for contract in range(7):
        trump = 0 if contract == 0 else -1
        rates = []
        answers = []
        for run in (compiled.rule_declaration_values, engine.rule_declaration_values):
            out = np.zeros(len(worlds), dtype=np.int64)
            run(worlds[:10], 0, contract, trump, 0, out[:10])  # warm
            done = 0
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                run(worlds, 0, contract, trump, 0, out)
                done += len(worlds)
            rates.append(done / (time.perf_counter() - start))
            answers.append(out.copy())
        same = bool((answers[0] == answers[1]).all())
        ratios.append(rates[1] / rates[0])
        print(
            f"playouts contract {contract}: numba {rates[0]:,.0f}/s, engine {rates[1]:,.0f}/s,"
            f" ratio {rates[1] / rates[0]:.2f}, same points {same}"
        )
    print(f"playouts: engine/numba from {min(ratios):.2f} to {max(ratios):.2f} (gate ≥ 0.75)")


def same_cards(positions: int) -> None:
    """The rule card, numba's and the engine's, at ``positions`` positions of games
    under every preset (the whole position, half the cards random)."""
    rng = random.Random(51)
    seen = differ = number = 0
    while seen < positions:
        rules = PRESET_RULES[number % len(PRESET_RULES)]
        declaration = ALL_DECLARATIONS[number % 10]
        game = Game(replace(rules, two_of_diamonds_starts=False), seed=0, auto_deal=False)
        game.deal_cards(shuffled_hands(rng), number % 4)
        game.declare(declaration)
        code = declaration.contract.code
        trump = -1 if declaration.trump is None else int(declaration.trump)
        while game.deal_number == 0:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            state = from_view(view)
            ours = engine.rule_card(state, code, trump, rules.flags)
            theirs = int(compiled.compiled_rule_card(state, code, trump, rules.flags))
            differ += ours != theirs
            seen += 1
            legal = [card.id for card in view.legal_cards]
            rule = choose_card(view) if rng.random() < 0.5 else rng.choice(legal)
            game.play_unchecked(rule)
        number += 1
    print(f"rule cards: {seen:,} positions of {number} games, {differ} differ")


def _ending(rng: random.Random, index: int, cards: int) -> tuple[Any, int, int, int]:
    from king.bots.search import solver

    declaration = ALL_DECLARATIONS[index % 10]
    code = declaration.contract.code
    trump = -1 if declaration.trump is None else int(declaration.trump)
    flags = index % 16
    state = K.new_state(np.array(shuffled_hands(rng), dtype=np.int64), index & 3)
    while 13 - state[K.S_TRICKS] > cards and not state[K.S_OVER]:
        K.play(state, solver.policy_move(state, code, trump, flags), code, trump, flags)
    return state, code, trump, flags


def solver_gate(endings: int, timed: int) -> None:
    """The solver at 8 cards a hand: values and nodes on ``endings`` endings, times on
    ``timed`` of them (each engine warm, alternating)."""
    rng = random.Random(8)
    cases = [_ending(rng, i, 8) for i in range(endings)]
    compiled.solve(cases[0][0].copy(), 0, cases[0][1], cases[0][2], cases[0][3])
    engine.solve(cases[0][0].copy(), 0, cases[0][1], cases[0][2], cases[0][3])  # type: ignore[attr-defined]
    differ = 0
    times: dict[str, list[float]] = {"numba": [], "engine": []}
    for i, (state, code, trump, flags) in enumerate(cases):
        me = i % 4
        results = []
        for name, solve in (("numba", compiled.solve), ("engine", engine.solve)):  # type: ignore[attr-defined]
            start = time.perf_counter()
            results.append(solve(state.copy(), me, code, trump, flags))
            if i < timed:
                times[name].append(1000 * (time.perf_counter() - start))
        differ += results[0] != results[1]
    print(f"solver: {endings:,} endings at 8 cards, {differ} differ (value and nodes)")
    for name, values in times.items():
        values.sort()
        p99 = values[int(0.99 * (len(values) - 1))]
        print(f"solver {name}: median {statistics.median(values):.2f} ms, p99 {p99:.2f} ms")
    median = statistics.median(times["engine"]) / statistics.median(times["numba"])
    p99 = times["engine"][int(0.99 * (timed - 1))] / times["numba"][int(0.99 * (timed - 1))]
    print(f"solver: engine/numba median {median:.2f}, p99 {p99:.2f} (gate ≤ 1.3)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=100_000)
    parser.add_argument("--endings", type=int, default=10_000)
    parser.add_argument("--timed", type=int, default=2_000)
    args = parser.parse_args()
    playouts()
    same_cards(args.positions)
    if hasattr(engine, "solve"):
        solver_gate(args.endings, min(args.timed, args.endings))


if __name__ == "__main__":
    main()
