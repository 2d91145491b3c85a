"""Compile the search bot's kernels, the solver, the rule card and the learned card
into the shared numba cache, for a test run that starts on a cold cache (a fresh clone,
a change of the kernels).

``tests/conftest.py`` runs this in a process of its own as the run starts, while the
first tests (pages, the terminal, the core) need no kernel; it holds the cache's
compile lock while it compiles the search bot, so that a test (or a server it started)
that builds one meanwhile waits for it and loads what it cached, rather than compiling
the same code beside it. On a warm cache it only loads, in a second or two."""

from __future__ import annotations

import numpy as np

from king.bots import compiled, position
from king.bots.net import default_model
from king.bots.net_play import INPUTS
from king.rules import Contract


def warm_the_solver() -> None:
    """The compiled rule card (and with lookahead), the solver and plain enumeration,
    called as the tests call them (numba compiles for the argument types): a deal in
    which each seat holds a whole suit, played by the rule card to its last two tricks."""
    code = Contract.NO_TRICKS.code
    suits = position.SUITS.copy()
    state = position.new_state(suits, 0)
    seed = np.array([1], dtype=np.int64)
    compiled.compiled_lookahead_card(state.copy(), code, -1, 0, 0, 8, seed)
    for _ in range(44):
        position.play(state, compiled.compiled_rule_card(state, code, -1, 0), code, -1, 0)
    out = np.full(52, -99999, dtype=np.int64)
    compiled.solve_moves(state.copy(), 0, code, -1, 0, out)
    compiled.solve(state.copy(), 0, code, -1, 0)
    compiled.solve_sized(state.copy(), 0, code, -1, 0, 4, 4)
    compiled.enumerate_value(state.copy(), 0, code, -1, 0)


def warm_the_net_card() -> None:
    """The learned policy's card, compiled, called as its test calls it."""
    model = default_model()
    h1, h2 = model.hidden
    scratch = [np.zeros(size, dtype=np.float32) for size in (INPUTS, h1, h2, 52)]
    state = position.new_state(position.SUITS.copy(), 0)
    compiled.compiled_net_card(state, Contract.NO_TRICKS.code, -1, 0, *model.arrays, *scratch)


def main() -> None:
    compiled.warm_up()
    compiled.warm_up_lookahead()
    compiled.warm_up_net(default_model().arrays)
    warm_the_solver()
    warm_the_net_card()


if __name__ == "__main__":
    main()
