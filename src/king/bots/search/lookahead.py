"""The rule policy with one step of lookahead in the last tricks: a fair policy (it reads
only what the seat to move knows) that is stronger than the rule policy alone, for the
search bot's own later decisions in its rollouts (option ``lookahead``).

With at most ``tricks`` cards left in its hand, the seat deals the cards it has not seen
to the others ``worlds`` times (each seat as many as it holds, none of a suit it has
shown void), plays each of its distinct legal cards in every such deal and lets the rule
policy play all four seats to the end; the card with the most points over those deals
wins, the rule card (or the card equal to it) on ties.  On 14,000 duplicate deals against
the rule policy (every seat in turn), ``tricks=4, worlds=8`` gains about 4 points per deal
(15 in No Last Two) and ``tricks=6, worlds=16`` about 8: far more than any constant of
the rule policy moves it (``docs/bots.md``).

The readable reference of the engine's ``engine/lookahead.c`` (:mod:`king.bots.engine`),
which is what the search bot runs.  The deals are
drawn from ``seed`` (a one-element array the caller owns), so a rollout is repeatable.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from king.bots.position import (
    S_PLAYED,
    S_POINTS,
    S_TRICK,
    S_TURN,
    S_VOIDS,
    SUITS,
    distinct,
    equal_cards,
    legal_now,
    lowest,
    play,
    popcount,
)
from king.bots.rule.play import FULL, PENALTY, rule_card, rule_playout
from king.bots.search.worlds import sample_worlds

__all__ = ["lookahead_card"]


def lookahead_card(
    state: Any, contract: int, trump: int, flags: int, tricks: int, worlds: int, seed: Any
) -> int:
    """The card the seat to move plays: the rule card, or with at most ``tricks`` cards
    in hand the best of its distinct legal cards over ``worlds`` deals of the unseen
    cards, each played on by the rule policy."""
    me = state[S_TURN]
    hand = state[me]
    card = rule_card(state, contract, trump, flags)
    if popcount(hand) > tricks:
        return int(card)
    earlier = state[S_PLAYED] & ~state[S_TRICK]
    penalty = PENALTY[contract]
    choices = distinct(legal_now(state, contract, trump, flags), earlier, penalty)
    count = popcount(choices)
    if count <= 1:
        return int(card)
    same = equal_cards(hand, card, earlier, penalty)
    ids = np.empty(count, dtype=np.int64)
    kept = 0
    for i in range(count):
        ids[i] = lowest(choices)
        choices &= choices - 1
        if same >> ids[i] & 1:
            kept = i
    dealt = _deal_unseen(state, me, hand, worlds, seed)
    totals = _playout_totals(state, dealt, ids, me, contract, trump, flags)
    best = kept
    for i in range(count):
        if totals[i] > totals[best]:
            best = i
    return int(ids[best])


def _deal_unseen(state: Any, me: int, hand: int, worlds: int, seed: Any) -> Any:
    """``worlds`` deals of the cards ``me`` has not seen to the other seats (each as
    many as it holds, none of a suit it has shown void), one a row of four hands."""
    counts = np.zeros(4, dtype=np.int64)
    forbidden = np.zeros(4, dtype=np.int64)
    for seat in range(4):
        if seat != me:
            counts[seat] = popcount(state[seat])
            for suit in range(4):
                if state[S_VOIDS + seat] >> suit & 1:
                    forbidden[seat] |= SUITS[suit]
    unseen = FULL & ~hand & ~state[S_PLAYED]
    dealt = np.zeros((worlds, 4), dtype=np.int64)
    sample_worlds(unseen, counts, forbidden, me, hand, seed, dealt)
    return dealt


def _playout_totals(
    state: Any, dealt: Any, ids: Any, me: int, contract: int, trump: int, flags: int
) -> Any:
    """``me``'s points summed over the deals, for each card of ``ids`` played in every
    deal and the rule policy playing all four seats after it."""
    count = ids.shape[0]
    totals = np.zeros(count, dtype=np.int64)
    hand = state[me]
    for w in range(dealt.shape[0]):
        if dealt[w, me] != hand:  # a deal the sampler gave up on (left at zero)
            continue
        for i in range(count):
            child = state.copy()
            for seat in range(4):
                child[seat] = dealt[w, seat]
            play(child, ids[i], contract, trump, flags)
            rule_playout(child, contract, trump, flags)
            totals[i] += child[S_POINTS + me]
    return totals
