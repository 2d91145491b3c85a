"""The learned policy's card play, written once: what the seat to move sees, as the
network's input, and the network itself, read from a position of
:mod:`king.bots.position`.

The ``net`` bot runs the encoding as ordinary Python on its view's position (and the
layers with numpy); they are the readable reference of the engine's
``engine/net_play.c``, which the search bot runs (:mod:`king.bots.engine`) as the policy
of its rollouts and as its model of the other players. The input holds only what the
seat to move knows (its hand, the cards it has not seen, the current trick, the voids
each seat has shown, the points so far) and the rule policy's card for it, so the
network learns where to depart from the rule bot rather than the whole game again.

The network is a small multilayer perceptron (``INPUTS`` → hidden → hidden → 52 card
logits, ReLU between) with a linear path from the inputs straight to the logits beside
it (so that "play the rule card" is one weight per card, and the layers learn where to
depart from it).  Its weights are float32 arrays: ``w0[INPUTS, 52]`` (the linear path),
``w1[INPUTS, H1]``, ``w2[H1, H2]``, ``w3[52, H2]`` (one row per card, so that only the
legal cards' logits are computed) and the biases.  Most inputs are zero, so the first
layer and the linear path add up the rows of the inputs that are set.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from king.bots.position import (
    S_COUNT,
    S_LED,
    S_PLAYED,
    S_POINTS,
    S_TOP,
    S_TOP_SEAT,
    S_TRICK,
    S_TRICKS,
    S_TURN,
    S_VOIDS,
    highest,
    legal_now,
)
from king.bots.rule.play import rule_card
from king.rules import (
    FLAG_EARLY_END,
    FLAG_FORCED_PENALTY,
    FLAG_OVERRUFF,
    FLAG_TRUMP_LEAD_AFTER_BREAK,
    POINTS_PER_UNIT,
    TRUMPS,
)

__all__ = ["INPUTS", "encode", "net_card", "net_logits", "net_probabilities"]

FULL = (1 << 52) - 1
UNIT = np.array([abs(points) for points in POINTS_PER_UNIT], dtype=np.int64)
FLAG_BITS = np.array(
    (FLAG_FORCED_PENALTY, FLAG_EARLY_END, FLAG_OVERRUFF, FLAG_TRUMP_LEAD_AFTER_BREAK),
    dtype=np.int64,
)

# The layout of the input (offsets; every block is relative to the seat to move).
I_HAND = 0  # 52: the cards in its hand
I_UNSEEN = 52  # 52: the cards it has not seen (the other hands together)
I_TRICK = 104  # 52: the cards of the current trick
I_RULE = 156  # 52: the rule policy's card
I_WINS = 208  # 52: the cards of its hand that would take the trick now
I_COUNT = 260  # 4: cards already in the trick
I_TOP_SEAT = 264  # 4: who is winning the trick (seats after it: 1-3; 0 when none)
I_VOIDS = 268  # 12: the suits each other seat (next, across, previous) has shown void
I_CONTRACT = 280  # 7
I_TRUMP = 287  # 4
I_POINTS = 291  # 4: penalty units (tricks in Trumps) so far, its own first, / 13
I_TRICKS = 295  # 1: tricks done / 13
I_FLAGS = 296  # 4: the optional rules that change the play
I_LED = 300  # 4: the suit led
INPUTS = 304


def encode(state: Any, contract: int, trump: int, flags: int, rule: int, out: Any) -> None:
    """Write the input of the seat to move in ``state`` into ``out`` (``INPUTS``
    floats); ``rule`` is the rule policy's card for it."""
    me = state[S_TURN]
    for i in range(INPUTS):
        out[i] = 0.0
    _encode_cards(state, me, contract, trump, out)
    count = state[S_COUNT]
    out[I_RULE + rule] = 1.0
    out[I_COUNT + count] = 1.0
    if count:
        out[I_TOP_SEAT + ((state[S_TOP_SEAT] - me) & 3)] = 1.0
        out[I_LED + state[S_LED]] = 1.0
    _encode_voids(state, me, out)
    out[I_CONTRACT + contract] = 1.0
    if trump >= 0:
        out[I_TRUMP + trump] = 1.0
    unit = UNIT[contract]
    for k in range(4):
        out[I_POINTS + k] = abs(state[S_POINTS + ((me + k) & 3)]) / (13.0 * unit)
    out[I_TRICKS] = state[S_TRICKS] / 13.0
    for k in range(4):
        if flags & FLAG_BITS[k]:
            out[I_FLAGS + k] = 1.0


def _encode_cards(state: Any, me: int, contract: int, trump: int, out: Any) -> None:
    """The card blocks of the input: ``me``'s hand, the cards it has not seen, the
    current trick's, and the cards of its hand that would take the trick now."""
    hand = state[me]
    unseen = FULL & ~hand & ~state[S_PLAYED]
    count = state[S_COUNT]
    trick = state[S_TRICK] if count else 0
    top = state[S_TOP] if count else -1
    top_suit = top // 13 if count else -1
    for card in range(52):
        bit = np.int64(1) << card
        if hand & bit:
            out[I_HAND + card] = 1.0
            if count:
                suit = card // 13
                if suit == top_suit:
                    if card > top:
                        out[I_WINS + card] = 1.0
                elif contract == TRUMPS and suit == trump:
                    out[I_WINS + card] = 1.0
        elif unseen & bit:
            out[I_UNSEEN + card] = 1.0
        elif trick & bit:
            out[I_TRICK + card] = 1.0


def _encode_voids(state: Any, me: int, out: Any) -> None:
    """The suits each other seat (next, across, previous) has shown void."""
    for k in range(3):
        voids = state[S_VOIDS + ((me + k + 1) & 3)]
        for suit in range(4):
            if voids >> suit & 1:
                out[I_VOIDS + 4 * k + suit] = 1.0


def net_logits(
    x: Any, legal: int, w0: Any, w1: Any, b1: Any, w2: Any, b2: Any, w3: Any, b3: Any,
    h1: Any, h2: Any, logits: Any,
) -> None:  # fmt: skip
    """The network's logit of each ``legal`` card into ``logits`` (52; the others left
    as they are), with ``h1`` and ``h2`` as scratch for the hidden layers."""
    _first_layer(x, w1, b1, h1)
    _second_layer(h1, w2, b2, h2)
    _card_logits(x, legal, w0, h2, w3, b3, logits)


def _first_layer(x: Any, w1: Any, b1: Any, h1: Any) -> None:
    """The first hidden layer's sums (before its ReLU, which the next layer applies by
    skipping the units at or below zero), adding the rows of the inputs that are set."""
    n1 = h1.shape[0]
    for j in range(n1):
        h1[j] = b1[j]
    for i in range(x.shape[0]):
        v = x[i]
        if v != 0.0:
            for j in range(n1):
                h1[j] += v * w1[i, j]


def _second_layer(h1: Any, w2: Any, b2: Any, h2: Any) -> None:
    """The second hidden layer, after its ReLU, from the first layer's positive units."""
    n1 = h1.shape[0]
    n2 = h2.shape[0]
    for k in range(n2):
        h2[k] = b2[k]
    for j in range(n1):
        a = h1[j]
        if a > 0.0:
            for k in range(n2):
                h2[k] += a * w2[j, k]
    for k in range(n2):
        h2[k] = max(h2[k], 0.0)


def _card_logits(x: Any, legal: int, w0: Any, h2: Any, w3: Any, b3: Any, logits: Any) -> None:
    """The logit of each ``legal`` card: the output layer's, plus the linear path from
    the inputs that are set."""
    n2 = h2.shape[0]
    for card in range(52):
        if legal >> card & 1:
            total = b3[card]
            for k in range(n2):
                total += h2[k] * w3[card, k]
            logits[card] = total
    for i in range(x.shape[0]):
        v = x[i]
        if v != 0.0:
            for card in range(52):
                if legal >> card & 1:
                    logits[card] += v * w0[i, card]


def net_card(
    state: Any, contract: int, trump: int, flags: int, w0: Any, w1: Any, b1: Any,
    w2: Any, b2: Any, w3: Any, b3: Any, x: Any, h1: Any, h2: Any, logits: Any,
) -> int:  # fmt: skip
    """The card the network plays for the seat to move: its most likely legal card."""
    legal = legal_now(state, contract, trump, flags)
    if not legal & (legal - 1):
        return highest(legal)
    rule = rule_card(state, contract, trump, flags)
    encode(state, contract, trump, flags, rule, x)
    net_logits(x, legal, w0, w1, b1, w2, b2, w3, b3, h1, h2, logits)
    best = -1
    for card in range(52):
        if legal >> card & 1 and (best < 0 or logits[card] > logits[best]):
            best = card
    return best


def net_probabilities(
    state: Any, contract: int, trump: int, flags: int, w0: Any, w1: Any, b1: Any,
    w2: Any, b2: Any, w3: Any, b3: Any, x: Any, h1: Any, h2: Any, logits: Any, out: Any,
) -> int:  # fmt: skip
    """The network's probability of each legal card of the seat to move into ``out``
    (52; zero for the others); returns the legal cards as a mask."""
    legal = legal_now(state, contract, trump, flags)
    for card in range(52):
        out[card] = 0.0
    rule = rule_card(state, contract, trump, flags)
    encode(state, contract, trump, flags, rule, x)
    net_logits(x, legal, w0, w1, b1, w2, b2, w3, b3, h1, h2, logits)
    top = -1e30
    for card in range(52):
        if legal >> card & 1 and logits[card] > top:
            top = logits[card]
    total = 0.0
    for card in range(52):
        if legal >> card & 1:
            out[card] = np.exp(logits[card] - top)
            total += out[card]
    for card in range(52):
        out[card] /= total
    return legal
