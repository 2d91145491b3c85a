"""The search bot's engine (``engine/*.c`` in WebAssembly under wasmtime,
:mod:`king.bots.engine`): playouts per second of the rule policy and of the learned
policy that its rollouts use, on one thread, against the Python reference kernels they
were ported from (:mod:`king.bots.rule.play`, :mod:`king.bots.net.play`, plain Python
on numpy arrays) and the Python rule bot on the core engine, all measured in the same
run; the rule policy under each contract beside numba's last figures (recorded below,
as numba no longer runs here); and the net bot's moves per second.  The exact solver
has its own benchmark (solver.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from king.bots import engine
from king.bots import position as K
from king.cards import shuffled_hands
from king.rules import ALL_DECLARATIONS

from .engine import fast, timed

#: numba's last figures for the rule policy (the gate of #51, ``scripts/engine_gate.py``,
#: on the 2-core reference machine): whole playouts per second on one thread under each
#: contract code 0-6 (Trumps with spades, flags 0, seat 0 declaring), what
#: :func:`contract_playouts` measures for the engine.
NUMBA_LAST_PLAYOUTS_PER_S = (391323, 65123, 71033, 63483, 55640, 79362, 47101)


def _trump(index: int) -> tuple[int, int]:
    declaration = ALL_DECLARATIONS[index % 10]
    return declaration.contract.code, -1 if declaration.trump is None else int(declaration.trump)


def playouts(rng: random.Random) -> Callable[[int], None]:
    """Full playouts of the engine's rule policy from random deals (dealt beforehand,
    outside the timing), 1,000 a call, all ten declarations in turn, on one thread."""
    worlds = np.array([shuffled_hands(rng) for _ in range(1000)], dtype=np.int64)
    out = np.zeros(len(worlds), dtype=np.int64)

    def work(n: int) -> None:
        for i in range(n):
            code, trump = _trump(i)
            engine.rule_declaration_values(worlds, i & 3, code, trump, 0, out, threads=1)

    return work


def contract_playouts(rng: random.Random, contract: int) -> Callable[[int], None]:
    """The engine's rule-policy playouts under one contract, 1,000 a call, as numba's
    last figures were measured: Trumps with spades, flags 0, seat 0 declaring."""
    worlds = np.array([shuffled_hands(rng) for _ in range(1000)], dtype=np.int64)
    out = np.zeros(len(worlds), dtype=np.int64)
    trump = 0 if contract == 0 else -1

    def work(n: int) -> None:
        for _ in range(n):
            engine.rule_declaration_values(worlds, 0, contract, trump, 0, out, threads=1)

    return work


def reference_playouts(rng: random.Random) -> Callable[[int], None]:
    """The same playouts with the Python reference (:func:`king.bots.rule.play.rule_playout`
    on a position of :mod:`king.bots.position`), one a call."""
    from king.bots.rule.play import rule_playout

    worlds = np.array([shuffled_hands(rng) for _ in range(1000)], dtype=np.int64)

    def work(n: int) -> None:
        for i in range(n):
            code, trump = _trump(i)
            state = K.new_state(worlds[i % len(worlds)], i & 3)
            rule_playout(state, code, trump, 0)

    return work


def net_playouts(rng: random.Random) -> Callable[[int], None]:
    """The same playouts with the shipped network at every seat, in the engine, 100 a
    call."""
    from king.bots.net.bot import default_model

    w0, w1, b1, w2, b2, w3, b3 = default_model().arrays
    worlds = np.array([shuffled_hands(rng) for _ in range(100)], dtype=np.int64)
    out = np.zeros(len(worlds), dtype=np.int64)

    def work(n: int) -> None:
        for i in range(n):
            code, trump = _trump(i)
            engine.net_declaration_values(
                worlds, i & 3, code, trump, 0, w0, w1, b1, w2, b2, w3, b3, out, threads=1
            )

    return work


def reference_net_playouts(rng: random.Random) -> Callable[[int], None]:
    """The learned policy's playouts with the Python reference
    (:func:`king.bots.net.play.net_card`), one a call."""
    from king.bots.net.bot import default_model
    from king.bots.net.play import INPUTS, net_card

    weights = default_model().arrays
    scratch = tuple(
        np.empty(size, dtype=np.float32)
        for size in (INPUTS, weights[1].shape[1], weights[3].shape[1], 52)
    )
    worlds = np.array([shuffled_hands(rng) for _ in range(100)], dtype=np.int64)

    def work(n: int) -> None:
        for i in range(n):
            code, trump = _trump(i)
            state = K.new_state(worlds[i % len(worlds)], i & 3)
            while not state[K.S_OVER]:
                card = net_card(state, code, trump, 0, *weights, *scratch)
                K.play(state, card, code, trump, 0)

    return work


def net_bot_moves(rng: random.Random) -> Callable[[int], None]:
    """Whole deals played by four net bots (numpy), counted in moves."""
    from dataclasses import replace

    from king.bots.net.bot import NetBot
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
    """The same playouts with the Python rule bot on the core engine (its view read
    into a position at every card)."""
    from dataclasses import replace

    from king.bots.rule.bot import choose_card
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
    # The engine's instance and the model ready before timing anything.
    playouts(random.Random(0))(1)
    net_playouts(random.Random(0))(1)
    base = timed(fast(random.Random(seed)), seconds)
    rule_rate = 1000 * timed(playouts(random.Random(seed)), seconds)
    reference_rule = timed(reference_playouts(random.Random(seed)), seconds)
    python_rule = timed(python_rule_playouts(random.Random(seed)), seconds)
    net_rate = 100 * timed(net_playouts(random.Random(seed)), seconds)
    reference_net = timed(reference_net_playouts(random.Random(seed)), seconds)
    net_moves = timed(net_bot_moves(random.Random(seed)), seconds)
    figures: dict[str, float] = {
        "rule_playouts_per_s": round(rule_rate, 1),
        "python_reference_rule_playouts_per_s": round(reference_rule, 1),
        "rule_playouts_vs_python_reference": round(rule_rate / reference_rule, 1),
        "rule_playouts_vs_python_fast_path": round(rule_rate / base, 2),
        "python_rule_playouts_per_s": round(python_rule, 1),
        "rule_playouts_vs_python_rule_bot": round(rule_rate / python_rule, 1),
    }
    for contract, numba_rate in enumerate(NUMBA_LAST_PLAYOUTS_PER_S):
        rate = 1000 * timed(contract_playouts(random.Random(seed), contract), seconds / 2)
        figures[f"rule_playouts_contract_{contract}_per_s"] = round(rate, 1)
        figures[f"numba_last_rule_playouts_contract_{contract}_per_s"] = numba_rate
        figures[f"rule_playouts_contract_{contract}_vs_numba_last"] = round(rate / numba_rate, 2)
    figures.update(
        {
            "net_playouts_per_s": round(net_rate, 1),
            "python_reference_net_playouts_per_s": round(reference_net, 2),
            "net_playouts_vs_python_reference": round(net_rate / reference_net, 1),
            "net_playouts_vs_rule_playouts": round(net_rate / rule_rate, 3),
            "net_bot_moves_per_s": round(net_moves, 1),
            "net_bot_moves_vs_python_rule_playouts": round(net_moves / python_rule, 1),
        }
    )
    return figures
