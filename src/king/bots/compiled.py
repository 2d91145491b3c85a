"""The search bot's engines, compiled with numba: the plain-Python kernels of
:mod:`~king.bots.position`, :mod:`~king.bots.rule_play`, :mod:`~king.bots.worlds` and
:mod:`~king.bots.solver` made callable from compiled code, and the parallel entry points
that run them over many worlds at once.

This is the only module that imports numba (about a second): the other bots, and every
module that only names a bot, start without it.  Compiled code is cached on disk under
a directory named by a digest of the kernels' sources, so a change to any of them (not
only to the file of an entry point, which is all numba itself tracks) compiles afresh.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numba
import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic, register_jitable
from numba.np.numpy_support import carray

from king.bots import lookahead, net_play, position, rule_play, solver, worlds
from king.bots.base import warm_up_deferred
from king.bots.lookahead import lookahead_card
from king.bots.net_play import INPUTS, net_card, net_probabilities
from king.bots.position import (
    PENALTY,
    S_COUNT,
    S_LED,
    S_OVER,
    S_PLAYED,
    S_POINTS,
    S_TOP,
    S_TRICK,
    S_TRICKS,
    S_TURN,
    STATE_SIZE,
    SUITS,
    equal_cards,
    legal_now,
    new_state,
    play,
    popcount,
)
from king.bots.rule_play import best_reply, rule_card, rule_playout
from king.rules import NO_TRICKS, TRUMPS

__all__ = [
    "ENTRY_POINTS",
    "CACHE",
    "cache_dir",
    "compiled_lookahead_card",
    "compiled_net_card",
    "compiled_rule_card",
    "enumerate_value",
    "lookahead_rollouts",
    "net_declaration_values",
    "net_likelihoods",
    "net_rollouts",
    "needs_compiling",
    "rule_declaration_values",
    "rule_likelihoods",
    "rule_rollouts",
    "sample_worlds",
    "set_threads",
    "solve",
    "solve_moves",
    "solve_sized",
    "WARM_UP_STEPS",
    "warm_up",
    "warm_up_lookahead",
    "warm_up_net",
]

_KERNELS = (position, rule_play, net_play, worlds, lookahead, solver)
_solver_memory = threading.local()

for _module in _KERNELS:
    for _function in _module.KERNEL:
        if _function in getattr(_module, "INLINE", ()):
            register_jitable(inline="always")(_function)
        else:
            register_jitable(_function)


def cache_dir() -> str:
    """Where compiled code is kept: ``$NUMBA_CACHE_DIR``, else beside these modules
    (``__pycache__``, as numba does) when that is writable, else the user's cache
    folder; under a digest of this numba and of every kernel's source."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256(numba.__version__.encode())
    for module in (*_KERNELS,):
        digest.update(Path(str(module.__file__)).read_bytes())
    digest.update((here / "compiled.py").read_bytes())
    base = os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        beside = here / "__pycache__"
        if os.access(beside if beside.exists() else here, os.W_OK):
            base = str(beside / "numba")
        else:
            home = os.environ.get("XDG_CACHE_HOME") or os.path.join(
                os.path.expanduser("~"), ".cache"
            )
            base = os.path.join(home, "king", "numba")
    return os.path.join(base, digest.hexdigest()[:16])


#: Where this process keeps and finds compiled code.
CACHE = cache_dir()
_config: Any = numba.config  # numba's settings, read when a dispatcher is made
_saved_dir = _config.CACHE_DIR
_config.CACHE_DIR = CACHE
try:
    jit = njit(cache=True, nogil=True)
    parallel = njit(cache=True, nogil=True, parallel=True)

    @parallel
    def rule_rollouts(
        worlds: Any, base: Any, candidates: Any, me: int, contract: int, trump: int,
        flags: int, tail: int, values: Any,
    ) -> None:  # fmt: skip
        """For each world (the four current hands completing ``base``) and each
        candidate card of ``me``: ``me``'s points for the deal when it plays that card
        and every seat then plays the rule policy, until ``tail`` tricks are left; from
        there ``me`` plays its best reply to the others' rule cards
        (:func:`~king.bots.rule_play.best_reply`).  Worlds run in parallel threads."""
        for w in prange(worlds.shape[0]):
            state = base.copy()
            for seat in range(4):
                state[seat] = worlds[w, seat]
            stack = np.empty((15, STATE_SIZE), dtype=np.int64)
            for i in range(candidates.shape[0]):
                child = state.copy()
                play(child, candidates[i], contract, trump, flags)
                while not child[S_OVER] and (13 - child[S_TRICKS] > tail or child[S_COUNT] != 0):
                    play(child, rule_card(child, contract, trump, flags), contract, trump, flags)
                if child[S_OVER]:
                    values[w, i] = child[S_POINTS + me]
                else:
                    values[w, i] = best_reply(child, me, contract, trump, flags, stack)

    @parallel
    def lookahead_rollouts(
        worlds: Any, base: Any, candidates: Any, me: int, contract: int, trump: int,
        flags: int, tricks: int, inner: int, everyone: bool, values: Any,
    ) -> None:  # fmt: skip
        """As :func:`rule_rollouts` without the exact tail, with ``me`` (and with
        ``everyone`` every seat) playing :func:`~king.bots.lookahead.lookahead_card` in
        the last ``tricks`` tricks, over ``inner`` deals of what that seat has not seen.
        Those deals are drawn from a seed made of the world's hands and the candidate,
        so the values do not depend on the threads."""
        for w in prange(worlds.shape[0]):
            state = base.copy()
            mixed = np.int64(1469598103934665603)
            for seat in range(4):
                state[seat] = worlds[w, seat]
                mixed = (mixed ^ worlds[w, seat]) * np.int64(1099511628211)
            seed = np.empty(1, dtype=np.int64)
            for i in range(candidates.shape[0]):
                seed[0] = (mixed ^ (i * 2654435761)) | 1
                child = state.copy()
                play(child, candidates[i], contract, trump, flags)
                while not child[S_OVER]:
                    if everyone or child[S_TURN] == me:
                        card = lookahead_card(child, contract, trump, flags, tricks, inner, seed)
                    else:
                        card = rule_card(child, contract, trump, flags)
                    play(child, card, contract, trump, flags)
                values[w, i] = child[S_POINTS + me]

    @parallel
    def rule_likelihoods(
        dealt: Any, plays: Any, leader: int, me: int, contract: int, trump: int,
        flags: int, noise: float, alike: bool, out: Any,
    ) -> None:  # fmt: skip
        """For each world (the four hands as dealt), the log-probability of the other
        seats' plays so far if each plays the rule card with probability ``1 - noise``
        and any legal card otherwise; with ``alike``, the rule card's share goes evenly
        to the cards equal to it (a player indifferent between equal cards: the search
        bot plays the highest of them, the rule bot the one its order picks)."""
        penalty = PENALTY[contract]
        for w in prange(dealt.shape[0]):
            state = new_state(dealt[w], leader)
            total = 0.0
            for i in range(plays.shape[0]):
                card = plays[i]
                turn = state[S_TURN]
                if turn != me:
                    cards = legal_now(state, contract, trump, flags)
                    choices = popcount(cards)
                    if choices > 1:
                        p = noise / choices
                        rule = rule_card(state, contract, trump, flags)
                        if not alike:
                            if rule == card:
                                p += 1.0 - noise
                        else:
                            earlier = state[S_PLAYED] & ~state[S_TRICK]
                            same = equal_cards(state[turn], rule, earlier, penalty)
                            if (same >> card) & 1:
                                p += (1.0 - noise) / popcount(same)
                        total += np.log(p)
                play(state, card, contract, trump, flags)
            out[w] = total

    @parallel
    def rule_declaration_values(
        worlds: Any, declarer: int, contract: int, trump: int, flags: int, out: Any
    ) -> None:
        """The declarer's points in each world (four dealt hands) when every seat plays
        the rule policy: what a contract is worth with this hand."""
        for w in prange(worlds.shape[0]):
            state = new_state(worlds[w], declarer)
            rule_playout(state, contract, trump, flags)
            out[w] = state[S_POINTS + declarer]

    @parallel
    def net_rollouts(
        worlds: Any, base: Any, candidates: Any, me: int, contract: int, trump: int,
        flags: int, w0: Any, w1: Any, b1: Any, w2: Any, b2: Any, w3: Any, b3: Any,
        values: Any,
    ) -> None:  # fmt: skip
        """As :func:`rule_rollouts` (without the exact tail), with the learned policy
        (:func:`~king.bots.net_play.net_card`) playing every seat after the candidate."""
        for w in prange(worlds.shape[0]):
            state = base.copy()
            for seat in range(4):
                state[seat] = worlds[w, seat]
            x = np.empty(INPUTS, dtype=np.float32)
            h1 = np.empty(w1.shape[1], dtype=np.float32)
            h2 = np.empty(w2.shape[1], dtype=np.float32)
            logits = np.empty(52, dtype=np.float32)
            for i in range(candidates.shape[0]):
                child = state.copy()
                play(child, candidates[i], contract, trump, flags)
                while not child[S_OVER]:
                    card = net_card(
                        child, contract, trump, flags, w0, w1, b1, w2, b2, w3, b3, x, h1, h2,
                        logits,
                    )  # fmt: skip
                    play(child, card, contract, trump, flags)
                values[w, i] = child[S_POINTS + me]

    @parallel
    def net_likelihoods(
        dealt: Any, plays: Any, leader: int, me: int, contract: int, trump: int,
        flags: int, noise: float, w0: Any, w1: Any, b1: Any, w2: Any, b2: Any, w3: Any,
        b3: Any, out: Any,
    ) -> None:  # fmt: skip
        """As :func:`rule_likelihoods`, with the learned policy's probabilities as the
        model of the other seats (mixed with ``noise`` of a uniform legal card)."""
        for w in prange(dealt.shape[0]):
            state = new_state(dealt[w], leader)
            x = np.empty(INPUTS, dtype=np.float32)
            h1 = np.empty(w1.shape[1], dtype=np.float32)
            h2 = np.empty(w2.shape[1], dtype=np.float32)
            logits = np.empty(52, dtype=np.float32)
            probs = np.empty(52, dtype=np.float64)
            total = 0.0
            for i in range(plays.shape[0]):
                card = plays[i]
                if state[S_TURN] != me:
                    legal = net_probabilities(
                        state, contract, trump, flags, w0, w1, b1, w2, b2, w3, b3, x, h1, h2,
                        logits, probs,
                    )  # fmt: skip
                    choices = popcount(legal)
                    if choices > 1:
                        total += np.log(noise / choices + (1.0 - noise) * probs[card])
                play(state, card, contract, trump, flags)
            out[w] = total

    @parallel
    def net_declaration_values(
        worlds: Any, declarer: int, contract: int, trump: int, flags: int, w0: Any,
        w1: Any, b1: Any, w2: Any, b2: Any, w3: Any, b3: Any, out: Any,
    ) -> None:  # fmt: skip
        """As :func:`rule_declaration_values`, every seat playing the learned policy."""
        for w in prange(worlds.shape[0]):
            state = new_state(worlds[w], declarer)
            x = np.empty(INPUTS, dtype=np.float32)
            h1 = np.empty(w1.shape[1], dtype=np.float32)
            h2 = np.empty(w2.shape[1], dtype=np.float32)
            logits = np.empty(52, dtype=np.float32)
            while not state[S_OVER]:
                card = net_card(
                    state, contract, trump, flags, w0, w1, b1, w2, b2, w3, b3, x, h1, h2, logits
                )
                play(state, card, contract, trump, flags)
            out[w] = state[S_POINTS + declarer]

    def _pointer_to(typingctx: Any, address: Any) -> Any:
        """The int64 memory at ``address`` (an integer) as a pointer."""
        signature = types.CPointer(types.int64)(types.uintp)  # type: ignore[no-untyped-call]

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

        return signature, codegen

    _pointer: Any = intrinsic(_pointer_to)

    @jit
    def solve_sized(
        state: Any, me: int, contract: int, trump: int, flags: int, first_rows: int,
        most_rows: int,
    ) -> tuple[int, int]:  # fmt: skip
        """:func:`king.bots.solver.solve_sized`, its stack and table in memory whose
        references numba does not count: every array a helper of the search loop is
        given costs two atomic operations otherwise, 20-30% of the solver's time."""
        stack_memory = np.empty((solver.STACK_ROWS, solver.ROW), dtype=np.int64)
        space_memory = np.empty((most_rows, solver.TABLE_ROW), dtype=np.int64)
        stack = carray(_pointer(stack_memory.ctypes.data), stack_memory.shape)
        space = carray(_pointer(space_memory.ctypes.data), space_memory.shape)
        value, nodes = solver.solve_in(stack, space, state, me, contract, trump, flags, first_rows)
        # The memory is used past the search, so that it lives until here.
        return value + 0 * (stack_memory[0, 0] & space_memory[0, 0]), nodes

    @jit
    def solve_in_memory(
        stack_memory: Any, space_memory: Any, state: Any, me: int, contract: int,
        trump: int, flags: int,
    ) -> tuple[int, int]:  # fmt: skip
        """:func:`king.bots.solver.solve` in memory the caller gives and keeps alive
        (``STACK_ROWS`` × ``ROW`` and ``MOST_ROWS`` × ``TABLE_ROW`` int64), seen as
        views whose references numba does not count."""
        stack = carray(_pointer(stack_memory.ctypes.data), stack_memory.shape)
        space = carray(_pointer(space_memory.ctypes.data), space_memory.shape)
        return solver.solve_in(stack, space, state, me, contract, trump, flags, solver.FIRST_ROWS)

    #: The compiled deal of worlds, and the exact solver (compiled on first use).
    sample_worlds = jit(worlds.sample_worlds)
    solve_moves = jit(solver.solve_moves)
    enumerate_value = jit(solver.enumerate_value)
    #: The rule card of a position, compiled (for tests and benchmarks).
    compiled_rule_card = jit(rule_card)
    #: The learned policy's card, compiled (for tests).
    compiled_net_card = jit(net_card)
    #: The rule card with lookahead in the last tricks, compiled (for tests).
    compiled_lookahead_card = jit(lookahead_card)
finally:
    _config.CACHE_DIR = _saved_dir

#: What the search bot runs; :func:`warm_up` prepares them.
ENTRY_POINTS: tuple[Any, ...] = (
    rule_rollouts,
    rule_likelihoods,
    rule_declaration_values,
    sample_worlds,
)


def solve(state: Any, me: int, contract: int, trump: int, flags: int) -> tuple[int, int]:
    """:func:`king.bots.solver.solve`, compiled: the value and the nodes searched.

    Each thread keeps its solver's memory from one solve to the next: the table is
    8 MB, and made by numpy it is backed by huge pages where the kernel allows
    (numpy asks for them on large arrays), which spares the processor's address
    translation a miss on most table probes (4% less time on the hardest endings)."""
    memory = getattr(_solver_memory, "arrays", None)
    if memory is None:
        memory = (
            np.empty((solver.STACK_ROWS, solver.ROW), dtype=np.int64),
            np.empty((solver.MOST_ROWS, solver.TABLE_ROW), dtype=np.int64),
        )
        _solver_memory.arrays = memory
    value, nodes = solve_in_memory(memory[0], memory[1], state, me, contract, trump, flags)
    return int(value), int(nodes)


def _tiny_deal() -> tuple[Any, Any]:
    """One world (each seat a whole suit) and an empty position, to compile on."""
    hands = np.array([SUITS[0], SUITS[1], SUITS[2], SUITS[3]], dtype=np.int64)
    base = np.zeros(STATE_SIZE, dtype=np.int64)
    base[S_LED] = -1
    base[S_TOP] = -1
    return hands.reshape(1, 4).copy(), base


@contextmanager
def _one_compiler(needed: bool | None = True) -> Iterator[None]:
    """Processes that compile at once take turns: the first compiles and caches, the
    others wait for it and then load what it cached, so that two servers or an arena's
    jobs starting on a fresh install compile once, not once each.  Nothing is locked
    when the cache is known to be ready (``needed`` False) or cannot be written."""
    if needed is False:
        yield
        return
    try:
        Path(CACHE).mkdir(parents=True, exist_ok=True)
        handle = (Path(CACHE) / "compiling.lock").open("a", encoding="utf-8")
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


#: The steps of :func:`warm_up`, one entry point each (what its progress counts).
WARM_UP_STEPS = 4


def warm_up(progress: Callable[[int, int], None] | None = None) -> None:
    """Compile (or load from the cache) the search bot's entry points now, so that its
    first move is not charged with it; ``progress(done, WARM_UP_STEPS)`` follows it."""
    if warm_up_deferred():
        return
    with _one_compiler(needs_compiling()):
        _warm_up(progress or (lambda done, steps: None))


def _warm_up(progress: Callable[[int, int], None]) -> None:
    dealt, base = _tiny_deal()
    values = np.zeros((1, 1), dtype=np.int64)
    for contract, trump in ((NO_TRICKS, -1), (TRUMPS, 0)):
        rule_rollouts(dealt, base, np.array([12], dtype=np.int64), 0, contract, trump, 0, 3, values)
    progress(1, WARM_UP_STEPS)
    out = np.zeros(1, dtype=np.int64)
    rule_declaration_values(dealt, 0, NO_TRICKS, -1, 0, out)
    progress(2, WARM_UP_STEPS)
    logs = np.zeros(1, dtype=np.float64)
    rule_likelihoods(dealt, np.array([0], dtype=np.int64), 0, 0, NO_TRICKS, -1, 0, 0.3, True, logs)
    progress(3, WARM_UP_STEPS)
    seed = np.ones(1, dtype=np.int64)
    counts = np.zeros(4, dtype=np.int64)
    sample_worlds(0, counts, counts, 0, SUITS[0], seed, dealt)
    progress(4, WARM_UP_STEPS)


def warm_up_lookahead() -> None:
    """Compile (or load) the rollouts with lookahead (:func:`lookahead_rollouts`)."""
    if warm_up_deferred():
        return
    dealt, base = _tiny_deal()
    values = np.zeros((1, 1), dtype=np.int64)
    cards = np.array([12], dtype=np.int64)
    with _one_compiler():
        lookahead_rollouts(dealt, base, cards, 0, NO_TRICKS, -1, 0, 13, 2, True, values)


def needs_compiling() -> bool | None:
    """Whether :func:`warm_up` compiles now (no usable cache: the first run after an
    install or a change of the kernels); ``None`` when this numba does not say."""
    try:
        return any(not entry._cache._cache_file._load_index() for entry in ENTRY_POINTS)
    except Exception:  # numba's cache internals moved: we cannot tell
        return None


def set_threads(threads: int) -> None:
    """Run the parallel entry points on ``threads`` threads from here on in this thread
    (at least one, at most the pool numba started)."""
    available = int(getattr(numba.config, "NUMBA_NUM_THREADS", threads))
    numba.set_num_threads(max(1, min(threads, available)))


def warm_up_net(arrays: tuple[Any, ...]) -> None:
    """Compile (or load) the learned policy's entry points for a model's weights."""
    if warm_up_deferred():
        return
    w0, w1, b1, w2, b2, w3, b3 = arrays
    dealt, base = _tiny_deal()
    values = np.zeros((1, 1), dtype=np.int64)
    cards = np.array([12], dtype=np.int64)
    logs = np.zeros(1, dtype=np.float64)
    plays = np.array([0], dtype=np.int64)
    with _one_compiler():
        net_rollouts(dealt, base, cards, 0, NO_TRICKS, -1, 0, w0, w1, b1, w2, b2, w3, b3, values)
        net_likelihoods(
            dealt, plays, 0, 1, NO_TRICKS, -1, 0, 0.3, w0, w1, b1, w2, b2, w3, b3, logs
        )  # fmt: skip
