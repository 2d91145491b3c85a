"""The exact solver in the engine (a port of :mod:`king.bots.search.solver`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from king.bots.engine.instance import EngineError, Instance, instance

__all__ = ["enumerate_value", "solve", "solve_moves", "solve_sized"]

_POSITION_WORDS = 22


def _put_position(engine: Instance, state: Any, entry: str) -> int:
    """Copy a position into the exchange area (its offset there); a refusal unless it is
    the 22 words of one position, since the engine reads exactly that many."""
    words = np.asarray(state, dtype=np.int64).reshape(-1)
    if words.size != _POSITION_WORDS:
        raise EngineError(entry, -3)
    return engine.put(words)


def solve_sized(
    state: Any, me: int, contract: int, trump: int, flags: int, first_rows: int,
    most_rows: int,
) -> tuple[int, int]:  # fmt: skip
    """:func:`king.bots.search.solver.solve_sized`: the exact value of ``state`` for ``me`` and
    the nodes searched, the table starting at ``first_rows`` rows and growing to at most
    ``most_rows`` (powers of two, from 4 to the engine's 2**19)."""
    engine = instance()
    at_state = _put_position(engine, state, "king_solve_sized")
    at_out = engine.room(2)
    answer = engine.words(at_out, 2)
    engine.call(
        "king_solve_sized", at_state, int(me), int(contract), int(trump), int(flags),
        int(first_rows), int(most_rows), at_out,
    )  # fmt: skip
    return int(answer[0]), int(answer[1])


def solve(state: Any, me: int, contract: int, trump: int, flags: int) -> tuple[int, int]:
    """:func:`king.bots.search.solver.solve`: the exact value of ``state`` for ``me`` (its final
    points, the three others playing as one side against it) and the nodes searched."""
    engine = instance()
    at_state = _put_position(engine, state, "king_solve")
    at_out = engine.room(2)
    answer = engine.words(at_out, 2)
    engine.call("king_solve", at_state, int(me), int(contract), int(trump), int(flags), at_out)
    return int(answer[0]), int(answer[1])


def solve_moves(
    state: Any, me: int, contract: int, trump: int, flags: int, out: NDArray[np.int64]
) -> int:
    """:func:`king.bots.search.solver.solve_moves`: ``out[card]`` gets the exact value for ``me``
    after each legal card of the seat to move (``out``'s other words are left as they
    were); the nodes searched."""
    engine = instance()
    at_state = _put_position(engine, state, "king_solve_moves")
    at_out = engine.put(np.append(np.asarray(out[:52], dtype=np.int64), 0))
    answer = engine.words(at_out, 53)
    engine.call(
        "king_solve_moves", at_state, int(me), int(contract), int(trump), int(flags), at_out
    )
    out[:52] = answer[:52]
    return int(answer[52])


def enumerate_value(state: Any, me: int, contract: int, trump: int, flags: int) -> int:
    """:func:`king.bots.search.solver.enumerate_value`: the solver's value by plain enumeration
    of every card at every node (the reference it is checked against; small endings
    only)."""
    engine = instance()
    at_state = _put_position(engine, state, "king_enumerate_value")
    at_out = engine.room(1)
    answer = engine.words(at_out, 1)
    engine.call(
        "king_enumerate_value", at_state, int(me), int(contract), int(trump), int(flags), at_out
    )
    return int(answer[0])
