"""The search bot's compiled engines: playouts per second of the rule policy and of the
learned policy that its rollouts use (against the same rule policy run as the Python
rule bot on the core engine, measured in the same run), and the net bot's moves per
second.  The exact solver has its own benchmark (solver.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from king.bots import compiled
from king.cards import shuffled_hands
from king.rules import ALL_DECLARATIONS

from .engine import fast, timed


def playouts(rng: random.Random) -> Callable[[int], None]:
    """Full playouts of the compiled rule policy from random deals (dealt beforehand,
    outside the timing), all ten declarations in turn, on one thread."""
    worlds = np.array([shuffled_hands(rng) for _ in range(1000)], dtype=np.int64)
    out = np.zeros(len(worlds), dtype=np.int64)

    def work(n: int) -> None:
        for i in range(n):
            declaration = ALL_DECLARATIONS[i % 10]
            trump = -1 if declaration.trump is None else int(declaration.trump)
            compiled.rule_declaration_values(
                worlds, i & 3, declaration.contract.code, trump, 0, out
            )

    return work


def net_playouts(rng: random.Random) -> Callable[[int], None]:
    """The same playouts with the shipped network at every seat, compiled."""
    from king.bots.net import default_model

    w0, w1, b1, w2, b2, w3, b3 = default_model().arrays
    worlds = np.array([shuffled_hands(rng) for _ in range(100)], dtype=np.int64)
    out = np.zeros(len(worlds), dtype=np.int64)

    def work(n: int) -> None:
        for i in range(n):
            declaration = ALL_DECLARATIONS[i % 10]
            trump = -1 if declaration.trump is None else int(declaration.trump)
            compiled.net_declaration_values(
                worlds, i & 3, declaration.contract.code, trump, 0, w0, w1, b1, w2, b2, w3, b3, out
            )

    return work


def net_bot_moves(rng: random.Random) -> Callable[[int], None]:
    """Whole deals played by four net bots (numpy), counted in moves."""
    from dataclasses import replace

    from king.bots.net import NetBot
    from king.game import Game
    from king.rules import Rules

    rules = replace(Rules(), two_of_diamonds_starts=False)
    bot = NetBot(0)

    def work(n: int) -> None:
        done = 0
        while done < n:
            game = Game(rules, seed=0, auto_deal=False)
            game.deal_cards(shuffled_hands(rng), done & 3)
            game.declare(ALL_DECLARATIONS[done % 10])
            while game.deal_number == 0 and done < n:
                seat = game.to_act
                assert seat is not None
                game.play(bot.play(game.view(seat)))
                done += 1

    return work


def python_rule_playouts(rng: random.Random) -> Callable[[int], None]:
    """The same playouts with the Python rule bot on the core engine (the baseline of
    the compiled rule policy)."""
    from dataclasses import replace

    from king.bots.rule import choose_card
    from king.game import Game
    from king.rules import Rules

    rules = replace(Rules(), two_of_diamonds_starts=False)

    def work(n: int) -> None:
        for i in range(n):
            game = Game(rules, seed=0, auto_deal=False)
            game.deal_cards(shuffled_hands(rng), i & 3)
            game.declare(ALL_DECLARATIONS[i % 10])
            while game.deal_number == 0:
                seat = game.to_act
                assert seat is not None
                game.play_unchecked(choose_card(game.view(seat)))

    return work


def run(seconds: float = 2.0, seed: int = 1) -> dict[str, float]:
    # Compile (or load the cache) before timing anything.
    playouts(random.Random(0))(10)
    net_playouts(random.Random(0))(1)
    from numba import get_num_threads, set_num_threads

    base = timed(fast(random.Random(seed)), seconds)
    threads = get_num_threads()
    set_num_threads(1)
    try:
        rule_rate = 1000 * timed(playouts(random.Random(seed)), seconds)
        python_rule = timed(python_rule_playouts(random.Random(seed)), seconds)
        net_rate = 100 * timed(net_playouts(random.Random(seed)), seconds)
        net_moves = timed(net_bot_moves(random.Random(seed)), seconds)
    finally:
        set_num_threads(threads)
    figures = {
        "rule_playouts_per_s": round(rule_rate, 1),
        "rule_playouts_vs_python_fast_path": round(rule_rate / base, 2),
        "python_rule_playouts_per_s": round(python_rule, 1),
        "rule_playouts_vs_python_rule_bot": round(rule_rate / python_rule, 1),
        "net_playouts_per_s": round(net_rate, 1),
        "net_playouts_vs_rule_playouts": round(net_rate / rule_rate, 3),
        "net_bot_moves_per_s": round(net_moves, 1),
        "net_bot_moves_vs_python_rule_playouts": round(net_moves / python_rule, 1),
    }
    return figures
