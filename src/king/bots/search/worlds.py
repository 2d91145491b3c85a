"""Dealing the hidden cards: worlds (the four current hands) consistent with what a seat
knows, drawn by a tiny deterministic generator so that a search is repeatable.

The readable reference of the engine's ``engine/worlds.c`` (:mod:`king.bots.engine`),
which is what the search bot runs;
``tests/bots/test_sampler.py`` checks the worlds against the constraints.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from king.bots.position import lowest

__all__ = ["sample_worlds"]


def _next_random(seed: Any) -> int:
    """xorshift64*: a tiny deterministic generator whose state lives in ``seed[0]``."""
    x = seed[0]
    x ^= (x >> 12) & 0xFFFFFFFFFFFFF
    x ^= x << 25
    x ^= (x >> 27) & 0x1FFFFFFFFF
    seed[0] = x
    return (x * 2685821657736338717) & 0x7FFFFFFFFFFFFFFF


def _random_below(seed: Any, bound: int) -> int:
    return _next_random(seed) % bound


def sample_worlds(
    unseen: int,
    counts: Any,
    forbidden: Any,
    me: int,
    my_hand: int,
    seed: Any,
    out: Any,
) -> int:
    """Fill ``out[w]`` with the current hands of a world for every ``w``: ``me`` keeps its
    hand and the unseen cards go to the others, ``counts[s]`` each, none to a seat that
    cannot hold it (``forbidden[s]``), the most constrained cards placed first and each
    card to a seat drawn in proportion to the room it has left.  A world that runs into a
    dead end is dealt again; after 200 tries its row is left at zero and counted in the
    returned number of failures (the caller deals those by exhaustive search)."""
    cards = np.empty(52, dtype=np.int64)
    n = _listed(unseen, cards)
    order = np.empty(52, dtype=np.int64)
    room = np.zeros(4, dtype=np.int64)
    failures = 0
    for w in range(out.shape[0]):
        dealt = False
        for _attempt in range(200):
            _shuffle(cards, n, seed)
            _most_constrained_first(cards, n, forbidden, me, order)
            _start_world(counts, me, my_hand, room, out, w)
            # Each card to a seat drawn in proportion to the room it has left (here, in
            # the loop itself: as a helper of its own, this cost 1% of the deal).
            ok = True
            for i in range(n):
                card = order[i]
                total = 0
                for seat in range(4):
                    if room[seat] > 0 and not (forbidden[seat] >> card) & 1:
                        total += room[seat]
                if total == 0:
                    ok = False
                    break
                pick = _random_below(seed, total)
                for seat in range(4):
                    if room[seat] > 0 and not (forbidden[seat] >> card) & 1:
                        pick -= room[seat]
                        if pick < 0:
                            out[w, seat] |= np.int64(1) << card
                            room[seat] -= 1
                            break
            if ok:
                dealt = True
                break
        if not dealt:
            _clear_world(out, w)
            failures += 1
    return failures


def _listed(bits: int, cards: Any) -> int:
    """Write the cards of ``bits`` into ``cards``, lowest first; how many."""
    n = 0
    while bits != 0:
        card = lowest(bits)
        bits &= ~(np.int64(1) << card)
        cards[n] = card
        n += 1
    return n


def _shuffle(cards: Any, n: int, seed: Any) -> None:
    """Shuffle the first ``n`` of ``cards`` in place (Fisher-Yates, from the end)."""
    for i in range(n - 1, 0, -1):
        j = _random_below(seed, i + 1)
        cards[i], cards[j] = cards[j], cards[i]


def _most_constrained_first(cards: Any, n: int, forbidden: Any, me: int, order: Any) -> None:
    """Copy the first ``n`` of ``cards`` into ``order``, stable-partitioned by how many
    seats may take each card, fewest first."""
    k = 0
    for allowed_seats in range(0, 4):
        for i in range(n):
            card = cards[i]
            choices = 0
            for seat in range(4):
                if seat != me and not (forbidden[seat] >> card) & 1:
                    choices += 1
            if choices == allowed_seats:
                order[k] = card
                k += 1


def _start_world(counts: Any, me: int, my_hand: int, room: Any, out: Any, w: int) -> None:
    """Start dealing world ``w``: ``me`` holds its hand, the others nothing yet, with
    room for ``counts[s]`` cards each."""
    for seat in range(4):
        room[seat] = 0 if seat == me else counts[seat]
        out[w, seat] = 0
    out[w, me] = my_hand


def _clear_world(out: Any, w: int) -> None:
    """Leave world ``w`` at zero: the sampler gave up on it."""
    for seat in range(4):
        out[w, seat] = 0
