"""The learned policy's weights in an instance's exchange area: the seven float32 arrays
and the description the engine checks them by (``engine/net_play.c``'s ``net_from``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from king.bots.engine.instance import Instance

__all__ = ["put_net"]


def put_net(engine: Instance, weights: Sequence[Any]) -> int:
    """Put the learned policy's seven arrays (w0, w1, b1, w2, b2, w3, b3) as float32,
    and their description for the engine to check (for each its offset, rows and
    columns; a vector is one column); the description's offset."""
    about: list[int] = []
    for array in weights:
        shape = np.shape(array)
        rows, cols = (shape[0], 1) if len(shape) == 1 else shape if len(shape) == 2 else (-1, -1)
        about += [engine.put_float32(array), int(rows), int(cols)]
    return engine.put(np.array(about, dtype=np.int64))
