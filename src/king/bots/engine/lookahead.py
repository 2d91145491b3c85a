"""The rule policy with lookahead in the last tricks, in the engine (a port of
:mod:`king.bots.search.lookahead`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from king.bots.engine.instance import instance, play_out

__all__ = ["lookahead_card", "lookahead_rollouts"]


def lookahead_card(
    state: Any, contract: int, trump: int, flags: int, tricks: int, worlds: int,
    seed: NDArray[np.int64],
) -> int:  # fmt: skip
    """The rule card, or with at most ``tricks`` cards in hand the best of the seat's
    distinct legal cards over ``worlds`` deals of what it has not seen
    (:func:`king.bots.search.lookahead.lookahead_card`), drawing from and advancing
    ``seed[0]``."""
    engine = instance()
    at = engine.put(np.asarray(state, dtype=np.int64))
    at_seed = engine.put(np.asarray(seed[:1], dtype=np.int64))
    kept_seed = engine.words(at_seed, 1)
    card = engine.call("king_lookahead_card", at, contract, trump, flags, tricks, worlds, at_seed)
    seed[0] = kept_seed[0]
    return card


def lookahead_rollouts(
    worlds: NDArray[np.int64], base: NDArray[np.int64], candidates: NDArray[np.int64],
    me: int, contract: int, trump: int, flags: int, tricks: int, inner: int, everyone: bool,
    values: NDArray[np.int64], threads: int = 1,
) -> None:  # fmt: skip
    """``values[w, i]``: ``me``'s points in world ``w`` after candidate ``i``, the rule
    policy playing on with ``me`` (with ``everyone``, every seat) playing
    :func:`lookahead_card` in the last ``tricks`` tricks over ``inner`` deals, seeded by
    the world and the candidate (seeded by ``engine/lookahead.c``'s ``world_seed``)."""
    play_out(
        "king_lookahead_rollouts", worlds, base, candidates, values, threads, me, contract,
        trump, flags, tricks, inner, int(everyone),
    )  # fmt: skip


# -- the exact solver (engine/solver.c) ------------------------------------------------

#: The words of a position (:data:`king.bots.position.STATE_SIZE`).
