"""The exact solver in the engine (``engine/solver.c``) held to the reference it was
ported from (:mod:`king.bots.search.solver`, run as plain Python on numpy arrays): the same
value AND the same number of nodes on hundreds of endings under every contract and set
of rule flags.  Equal node counts are the proof that the port is faithful: it searches
the same tree in the same order with the same table, not merely that it finds the same
value.  The reference is slow as plain Python (seconds for some endings of seven cards
a hand), so the endings are of up to seven cards (``scripts/engine_gate.py`` recorded
the same values and nodes on 10,000 endings of eight, against the reference's earlier
build).  And every input the engine cannot solve is refused with an
:class:`EngineError`."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest
from numpy.typing import NDArray

from king.bots import engine
from king.bots import position as K
from king.bots.engine import EngineError
from king.bots.search import solver
from king.cards import shuffled_hands
from king.rules import ALL_DECLARATIONS

#: The reference's table keys mix numpy's int64 scalars, which wrap, as they must.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")

#: A position, the seat solved for, the contract's code, the trump (-1: none), the flags.
Ending = tuple[NDArray[np.int64], int, int, int, int]


def _ending(rng: random.Random, number: int, cards: int) -> Ending | None:
    """A random deal (declaration by ``number``, rule flags 0-15 at random) played at
    random to ``cards`` cards a hand, or up to three cards more (so often inside a
    trick); None when the deal ended before (early end)."""
    declaration = ALL_DECLARATIONS[number % len(ALL_DECLARATIONS)]
    code = declaration.contract.code
    trump = -1 if declaration.trump is None else int(declaration.trump)
    flags = rng.randrange(16)
    state = K.new_state(np.array(shuffled_hands(rng), dtype=np.int64), number % 4)
    for _ in range(52 - 4 * cards + rng.randrange(4)):
        legal = K.legal_now(state, code, trump, flags)
        if legal == 0:
            return None
        card = rng.choice([card for card in range(52) if legal >> card & 1])
        K.play(state, card, code, trump, flags)
    if state[K.S_OVER]:
        return None
    return state, rng.randrange(4), code, trump, flags


def _endings(seed: int, count: int, sizes: range) -> list[Ending]:
    """``count`` endings, their cards a hand cycling through ``sizes``."""
    rng = random.Random(seed)
    found: list[Ending] = []
    number = 0
    while len(found) < count:
        ending = _ending(rng, number, sizes[number % len(sizes)])
        number += 1
        if ending is not None:
            found.append(ending)
    return found


@pytest.mark.slow
def test_the_engine_solves_hundreds_of_endings_with_the_references_nodes() -> None:
    """300 endings of 3 to 7 cards a hand, every declaration, flags 0-15, a quarter
    inside a trick: the value and the node count are the reference's, ending by ending
    (the table grows during the larger ones, so its growth is held to the reference's
    too)."""
    grew = 0
    for state, me, code, trump, flags in _endings(51, 300, range(3, 8)):
        expected = solver.solve(state.copy(), me, code, trump, flags)
        found = engine.solve(state, me, code, trump, flags)
        assert found == expected, (me, code, trump, flags, state.tolist())
        grew += expected[1] > 4 * solver.FIRST_ROWS  # the default table doubled at least once
    assert grew > 20


@pytest.mark.slow
def test_every_legal_card_is_solved_as_the_reference_solves_it() -> None:
    """``solve_moves`` for the seat to move on 200 endings: the same value for each legal
    card, the other words of ``out`` left as they were, and the same node count (one
    table kept across the cards, as the reference keeps it)."""
    for state, _, code, trump, flags in _endings(52, 200, range(2, 7)):
        me = int(state[K.S_TURN])
        expected = np.full(52, -12345, dtype=np.int64)
        found = expected.copy()
        nodes = solver.solve_moves(state.copy(), me, code, trump, flags, expected)
        assert engine.solve_moves(state, me, code, trump, flags, found) == nodes
        assert found.tolist() == expected.tolist()
        assert (found != -12345).sum() == K.popcount(K.legal_now(state, code, trump, flags))


def test_plain_enumeration_gives_the_solvers_value_on_small_endings() -> None:
    """On endings of up to three cards a hand, plain enumeration in the engine (every
    card at every node) gives the reference's enumeration and the engine's solver value:
    the solver's bounds, table and ordering change the work, never the value."""
    for state, me, code, trump, flags in _endings(53, 400, range(1, 4)):
        plain = engine.enumerate_value(state, me, code, trump, flags)
        assert plain == solver.enumerate_value(state.copy(), me, code, trump, flags)
        assert plain == engine.solve(state, me, code, trump, flags)[0]


@pytest.mark.slow
def test_the_tables_size_is_the_references_in_work_and_value() -> None:
    """On 40 endings of 4 to 6 cards a hand, a table of one bucket (every position
    fighting for its four rows), one that starts at one bucket and doubles many times
    (each row moved to its new bucket, done in place by the engine) and one that stops
    growing early: the reference's value and node count, so eviction and growth pick
    the same rows."""
    for state, me, code, trump, flags in _endings(54, 40, range(4, 7)):
        for first, most in ((4, 4), (4, solver.MOST_ROWS), (64, 256)):
            expected = solver.solve_sized(state.copy(), me, code, trump, flags, first, most)
            found = engine.solve_sized(state, me, code, trump, flags, first, most)
            assert found == (int(expected[0]), int(expected[1]))


def test_a_finished_deal_is_worth_its_points() -> None:
    """A deal played to its end is solved without a search: its points, and the
    reference's count of the two zero-window probes that confirm them."""
    state, me, code, trump, flags = _endings(55, 1, range(1, 2))[0]
    while not state[K.S_OVER]:
        K.play(state, K.lowest(K.legal_now(state, code, trump, flags)), code, trump, flags)
    expected = solver.solve(state.copy(), me, code, trump, flags)
    assert engine.solve(state, me, code, trump, flags) == expected
    assert expected[0] == state[K.S_POINTS + me]


def _refusal(call: Callable[..., object], *args: object) -> int:
    """The code of the EngineError that ``call(*args)`` raises."""
    with pytest.raises(EngineError) as refused:
        call(*args)
    return refused.value.code


def test_what_the_solver_cannot_solve_is_refused() -> None:
    """Offsets outside the exchange area, settings out of range and positions the rules
    cannot reach are refused with their reason's code (never a trap that would kill the
    instance), and the instance solves as before afterwards."""
    inside = [ending for ending in _endings(56, 20, range(6, 7)) if ending[0][K.S_COUNT] > 0]
    state, me, code, trump, flags = inside[0]
    expected = engine.solve(state, me, code, trump, flags)
    mine = engine.instance()
    words = mine.io.size
    for entry in ("king_solve", "king_solve_moves", "king_enumerate_value"):
        assert _refusal(mine.call, entry, -1, 0, 0, -1, 0, 0) == -1
        assert _refusal(mine.call, entry, words - 5, 0, 0, -1, 0, 0) == -1
    at = mine.put(state)
    assert _refusal(mine.call, "king_solve", at, me, code, trump, flags, words - 1) == -1
    at = mine.put(state)
    assert _refusal(mine.call, "king_solve_moves", at, me, code, trump, flags, words - 52) == -1
    for bad in ((me, 7, -1, 0), (me, 0, -1, 0), (me, code, trump, 16), (4, code, trump, flags)):
        assert _refusal(engine.solve, state, *bad) == -2
        assert _refusal(engine.enumerate_value, state, *bad) == -2
        assert _refusal(engine.solve_moves, state, *bad, np.zeros(52, dtype=np.int64)) == -2
    for first, most in ((3, 8), (8, 4), (4, 1 << 20), (0, 4)):
        assert _refusal(engine.solve_sized, state, me, code, trump, flags, first, most) == -2
    held = [seat for seat in range(4) if state[seat]]
    highest_out = K.highest(state[0] | state[1] | state[2] | state[3])
    broken = []
    for field, value in (
        (held[0], state[held[0]] | state[held[1]]),  # a card in two hands
        (held[0], state[held[0]] & (state[held[0]] - 1)),  # a hand a card short
        (K.S_POINTS, 1 << 40),  # points no deal scores
        (K.S_TRICKS, 13),  # past the last trick
        (K.S_TURN, (state[K.S_TURN] + 1) % 4),  # the wrong seat to play
        (K.S_TOP, highest_out),  # a top card not on the table
        (K.S_TOP, -1),  # a trick without a top
    ):
        bad_state = state.copy()
        bad_state[field] = value
        broken.append(bad_state)
    for bad_state in broken:
        assert _refusal(engine.solve, bad_state, me, code, trump, flags) == -3
        assert _refusal(engine.enumerate_value, bad_state, me, code, trump, flags) == -3
    assert _refusal(engine.solve, state[:-1], me, code, trump, flags) == -3
    # A whole deal (or any position with more than ten tricks left) is not an ending:
    # its exact search would not end in any time a caller waits, so it is refused.
    deal = K.new_state(np.array(shuffled_hands(random.Random(9)), dtype=np.int64), 0)
    for entry in (engine.solve, engine.enumerate_value):
        assert _refusal(entry, deal, 0, code, trump, flags) == -5
    assert _refusal(engine.solve_moves, deal, 0, code, trump, flags, np.zeros(52, np.int64)) == -5
    assert engine.solve(state, me, code, trump, flags) == expected
