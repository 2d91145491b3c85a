"""The learned policy in the engine (a port of :mod:`king.bots.net.play`): its card,
rollouts, likelihoods and declaration values, the weights given with each call."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from king.bots.engine.instance import instance, split
from king.bots.engine.weights import put_net

__all__ = ["net_card", "net_declaration_values", "net_likelihoods", "net_rollouts"]


def _net_spans(start: int, stop: int, per_world: int, weights: Sequence[Any]) -> list[range]:
    """``range(start, stop)`` in calls whose worlds (``per_world`` words each) fit the
    exchange area beside the weights."""
    weight_words = sum((np.size(array) + 1) // 2 + 3 for array in weights)
    size = max(1, (instance().io.size - weight_words - STATE_WORDS) // max(1, per_world))
    return [range(at, min(stop, at + size)) for at in range(start, stop, size)]


#: Room kept beside the worlds for a position and the candidates.
STATE_WORDS = 64


def net_card(
    state: Any, contract: int, trump: int, flags: int, w0: Any, w1: Any, b1: Any, w2: Any,
    b2: Any, w3: Any, b3: Any,
) -> int:  # fmt: skip
    """The learned policy's card for the seat to move
    (:func:`king.bots.net.play.net_card`), the weights taken as float32."""
    engine = instance()
    at = engine.put(np.asarray(state, dtype=np.int64))
    at_net = put_net(engine, (w0, w1, b1, w2, b2, w3, b3))
    return engine.call("king_net_card", at, contract, trump, flags, at_net)


def net_rollouts(
    worlds: NDArray[np.int64], base: NDArray[np.int64], candidates: NDArray[np.int64],
    me: int, contract: int, trump: int, flags: int, w0: Any, w1: Any, b1: Any, w2: Any,
    b2: Any, w3: Any, b3: Any, values: NDArray[np.int64], threads: int = 1,
) -> None:  # fmt: skip
    """``values[w, i]``: ``me``'s points in world ``w`` after candidate ``i``, the learned
    policy playing every seat after it (:func:`king.bots.net.play.net_card` at every seat)."""
    count = len(candidates)
    weights = (w0, w1, b1, w2, b2, w3, b3)

    def run(start: int, stop: int) -> None:
        for span in _net_spans(start, stop, 4 + count, weights):
            engine = instance()
            n = len(span)
            at_worlds = engine.put(worlds[span.start : span.stop])
            at_base = engine.put(base)
            at_cards = engine.put(np.asarray(candidates, dtype=np.int64))
            at_net = put_net(engine, weights)
            at_values = engine.room(n * count)
            out = engine.words(at_values, n * count)
            engine.call(
                "king_net_rollouts", at_worlds, n, at_base, at_cards, count, me, contract,
                trump, flags, at_net, at_values,
            )  # fmt: skip
            values[span.start : span.stop] = out.reshape(n, count)

    split(len(worlds), threads, run)


def net_likelihoods(
    dealt: NDArray[np.int64], plays: NDArray[np.int64], leader: int, me: int, contract: int,
    trump: int, flags: int, noise: float, w0: Any, w1: Any, b1: Any, w2: Any, b2: Any,
    w3: Any, b3: Any, out: NDArray[np.float64], threads: int = 1,
) -> None:  # fmt: skip
    """``out[w]``: the log-probability of the others' ``plays`` in dealt world ``w`` under
    the learned policy mixed with ``noise`` of a uniform legal card
    (:func:`king.bots.net.play.net_probabilities` as the model)."""
    weights = (w0, w1, b1, w2, b2, w3, b3)

    def run(start: int, stop: int) -> None:
        for span in _net_spans(start, stop, 5, weights):
            engine = instance()
            n = len(span)
            at_dealt = engine.put(dealt[span.start : span.stop])
            at_plays = engine.put(np.asarray(plays, dtype=np.int64))
            at_net = put_net(engine, weights)
            at_out = engine.room(n)
            answer = engine.words(at_out, n)
            engine.call(
                "king_net_likelihoods", at_dealt, n, at_plays, len(plays), leader, me,
                contract, trump, flags, float(noise), at_net, at_out,
            )  # fmt: skip
            out[span.start : span.stop] = answer.view(np.float64)

    split(len(dealt), threads, run)


def net_declaration_values(
    worlds: NDArray[np.int64], declarer: int, contract: int, trump: int, flags: int,
    w0: Any, w1: Any, b1: Any, w2: Any, b2: Any, w3: Any, b3: Any, out: NDArray[np.int64],
    threads: int = 1,
) -> None:  # fmt: skip
    """``out[w]``: the declarer's points in dealt world ``w`` when every seat plays the
    learned policy (:func:`king.bots.net.play.net_card` at every seat)."""
    weights = (w0, w1, b1, w2, b2, w3, b3)

    def run(start: int, stop: int) -> None:
        for span in _net_spans(start, stop, 5, weights):
            engine = instance()
            n = len(span)
            at_worlds = engine.put(worlds[span.start : span.stop])
            at_net = put_net(engine, weights)
            at_out = engine.room(n)
            answer = engine.words(at_out, n)
            engine.call(
                "king_net_declaration_values", at_worlds, n, declarer, contract, trump,
                flags, at_net, at_out,
            )  # fmt: skip
            out[span.start : span.stop] = answer

    split(len(worlds), threads, run)
