"""The rule policy in the engine: its card, whole playouts, rollouts with the exact
best reply, the likelihoods of the others' plays, and the deal of worlds (ports of
:mod:`king.bots.rule.play` and :mod:`king.bots.search.worlds`)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from numpy.typing import NDArray

from king.bots.engine.instance import CHUNK, instance, play_out, split
from king.bots.search.sampler import Constraints, sample_world

__all__ = [
    "deal_worlds",
    "rule_card",
    "rule_declaration_values",
    "rule_likelihoods",
    "rule_rollouts",
    "sample_worlds",
]


def rule_card(state: Any, contract: int, trump: int, flags: int) -> int:
    """The rule bot's card for the seat to move (:func:`king.bots.rule.play.rule_card`)."""
    engine = instance()
    at = engine.put(np.asarray(state, dtype=np.int64))
    return engine.call("king_rule_card", at, contract, trump, flags)


def rule_rollouts(
    worlds: NDArray[np.int64], base: NDArray[np.int64], candidates: NDArray[np.int64],
    me: int, contract: int, trump: int, flags: int, tail: int, values: NDArray[np.int64],
    threads: int = 1,
) -> None:  # fmt: skip
    """``values[w, i]``: ``me``'s points in world ``w`` after candidate ``i``, every seat
    then playing the rule policy until ``tail`` tricks are left, and ``me`` its best
    reply to them from there (as ``king.bots.rule.play`` plays it)."""
    play_out(
        "king_rule_rollouts", worlds, base, candidates, values, threads, me, contract, trump,
        flags, tail,
    )  # fmt: skip


def rule_likelihoods(
    dealt: NDArray[np.int64], plays: NDArray[np.int64], leader: int, me: int, contract: int,
    trump: int, flags: int, noise: float, alike: bool, out: NDArray[np.float64],
    threads: int = 1,
) -> None:  # fmt: skip
    """``out[w]``: the log-probability of the others' ``plays`` in dealt world ``w`` under
    the rule policy with ``noise`` (the search bot's model of the others)."""

    def run(start: int, stop: int) -> None:
        engine = instance()
        at_dealt = engine.put(dealt[start:stop])
        at_plays = engine.put(np.asarray(plays, dtype=np.int64))
        at_out = engine.room(stop - start)
        answer = engine.words(at_out, stop - start)
        engine.call(
            "king_rule_likelihoods", at_dealt, stop - start, at_plays, len(plays), leader,
            me, contract, trump, flags, float(noise), int(alike), at_out,
        )  # fmt: skip
        out[start:stop] = answer.view(np.float64)

    split(len(dealt), threads, run)


def rule_declaration_values(
    worlds: NDArray[np.int64], declarer: int, contract: int, trump: int, flags: int,
    out: NDArray[np.int64], threads: int = 1,
) -> None:  # fmt: skip
    """``out[w]``: the declarer's points in dealt world ``w`` when every seat plays the
    rule policy (:func:`king.bots.rule.play.rule_playout` from the deal)."""

    def run(start: int, stop: int) -> None:
        engine = instance()
        at_worlds = engine.put(worlds[start:stop])
        at_out = engine.room(stop - start)
        answer = engine.words(at_out, stop - start)
        engine.call(
            "king_rule_declaration_values", at_worlds, stop - start, declarer, contract,
            trump, flags, at_out,
        )  # fmt: skip
        out[start:stop] = answer

    split(len(worlds), threads, run)


def sample_worlds(
    unseen: int, counts: NDArray[np.int64], forbidden: NDArray[np.int64], me: int,
    my_hand: int, seed: NDArray[np.int64], out: NDArray[np.int64],
) -> int:  # fmt: skip
    """Deal ``out``'s worlds (:func:`king.bots.search.worlds.sample_worlds`), drawing from and
    advancing ``seed[0]``; how many it gave up on (left at zero)."""
    engine = instance()
    failures = 0
    for start in range(0, len(out), CHUNK):
        stop = min(len(out), start + CHUNK)
        at_counts = engine.put(np.asarray(counts, dtype=np.int64))
        at_forbidden = engine.put(np.asarray(forbidden, dtype=np.int64))
        at_seed = engine.put(np.asarray(seed[:1], dtype=np.int64))
        at_out = engine.room(4 * (stop - start))
        dealt = engine.words(at_out, 4 * (stop - start))
        kept_seed = engine.words(at_seed, 1)
        failures += engine.call(
            "king_sample_worlds", int(unseen), at_counts, at_forbidden, me, int(my_hand),
            at_seed, at_out, stop - start,
        )  # fmt: skip
        out[start:stop] = dealt.reshape(stop - start, 4)
        seed[0] = kept_seed[0]
    return failures


# -- the learned policy and the lookahead ----------------------------------------------


def deal_worlds(known: Constraints, rng: random.Random, count: int) -> NDArray[np.int64]:
    """``count`` worlds dealt by the engine, one row of four hands each; the rare one it
    cannot deal is dealt by the exhaustive search of
    :func:`king.bots.search.sampler.sample_world` (for the training's measurements: the search
    bot deals inside the engine, :mod:`king.bots.engine.steps`)."""
    worlds = np.zeros((count, 4), dtype=np.int64)
    seed = np.array([rng.getrandbits(62) | 1], dtype=np.int64)
    counts = np.array(known.counts, dtype=np.int64)
    forbidden = np.array(known.forbidden, dtype=np.int64)
    failures = sample_worlds(known.unseen, counts, forbidden, known.me, known.my_hand, seed, worlds)
    if failures:
        for row in range(count):
            if worlds[row, known.me] == 0 and known.my_hand:
                worlds[row] = sample_world(known, rng)
    return worlds
