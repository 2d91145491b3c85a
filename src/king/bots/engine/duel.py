"""A policy against the rule policy on duplicate deals, in the engine (``engine/duel.c``):
the rule policy with lookahead, or a variant of the rule policy built into an engine of
its own (``engine/build.py``'s ``build_variant``), for ``scripts/policy_duel.py``."""

from __future__ import annotations

import threading

import numpy as np
from numpy.typing import NDArray

from king.bots.engine.instance import Instance, instance, split

__all__ = ["LOOKAHEAD", "VARIANT", "duel"]

#: The challengers ``engine/duel.c`` knows.
VARIANT = 0
LOOKAHEAD = 1

_variants = threading.local()


def _instance(wasm: bytes | None) -> Instance:
    """This thread's instance of the shipped engine, or of the variant ``wasm``."""
    if wasm is None:
        return instance()
    mine: dict[bytes, Instance] = _variants.__dict__.setdefault("made", {})
    if wasm not in mine:
        mine[wasm] = Instance(wasm)
    return mine[wasm]


def duel(
    deals: NDArray[np.int64], flags: int, player: int, *, tricks: int = 0, inner: int = 0,
    wasm: bytes | None = None, threads: int = 1,
) -> NDArray[np.int64]:  # fmt: skip
    """Each deal's gain of the challenger (``player``: :data:`VARIANT`, the rule policy
    of ``wasm`` or of the shipped engine; :data:`LOOKAHEAD` with ``tricks`` and
    ``inner``) over the rule policy, per seat it took (``gains[deal, seat]``).  A deal
    is seven numbers: four hands, the leader, the contract code and the trump (-1)."""
    gains = np.zeros((len(deals), 4), dtype=np.int64)

    def run(start: int, stop: int) -> None:
        engine = _instance(wasm)
        at_deals = engine.put(deals[start:stop])
        at_out = engine.room(4 * (stop - start))
        out = engine.words(at_out, 4 * (stop - start))
        count = stop - start
        engine.call("king_duel", at_deals, count, start, flags, player, tricks, inner, at_out)
        gains[start:stop] = out.reshape(stop - start, 4)

    split(len(deals), threads, run)
    return gains
