"""Fitting the policy network to labelled positions by Adam, in plain numpy.

The default objective (``gain``) is a regression of each legal card's value less the
rule card's: the size of a departure is learnt, not only its sign, and the noise of the
values averages out; the rule card's logit is then raised by the threshold that makes
the chosen cards worth most on held-out positions, so that the network departs from the
rule card only where it predicts a clear gain.  ``decision`` fits the search bot's card
itself (cross-entropy, label smoothing); ``softmax`` the softmax of the values, which
was measured weaker than the rule bot (every card that looked better in a few hundred
noisy rollouts becomes a target).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from king.bots.net.bot import NetModel
from king.bots.net.play import I_RULE
from king.training.figures import Figures, legal_rows, measure
from king.training.positions import Positions

__all__ = ["Adam", "calibrate_threshold", "fit", "one_hot", "with_threshold"]


def _targets(values: NDArray[np.float32], temperature: float) -> NDArray[np.float32]:
    """Soft targets: the softmax of each legal card's value over ``temperature``."""
    scaled = np.where(np.isnan(values), -np.inf, values / temperature)
    scaled -= scaled.max(axis=1, keepdims=True)
    weights = np.exp(scaled)
    out: NDArray[np.float32] = (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


def _gains(data: Positions, scale: float) -> NDArray[np.float32]:
    """Each legal card's value less the rule card's, in ``scale`` points, clipped to 20
    (one king swing should not drown a hundred ordinary decisions); 0 elsewhere."""
    rows = np.arange(len(data))
    base = data.values[rows, data.rule_cards][:, None]
    gain = np.clip((data.values - base) / scale, -20.0, 20.0)
    out: NDArray[np.float32] = np.nan_to_num(gain, nan=0.0).astype(np.float32)
    return out


def with_threshold(model: NetModel, threshold: float) -> NetModel:
    """The model with ``threshold`` added to the rule card's logit: a regression of
    gains then departs from the rule card only where it predicts more than that."""
    w0 = model.w0.copy()
    for card in range(52):
        w0[I_RULE + card, card] += threshold
    return NetModel.of([w0, *model.arrays[1:]], model.about, model.declare)


def calibrate_threshold(
    model: NetModel, held_out: Positions, thresholds: tuple[float, ...] = (0, 0.5, 1, 1.5, 2, 3, 4)
) -> tuple[float, NetModel]:
    """The threshold (and the model with it) whose cards are worth most on
    ``held_out``: the mean value of the card chosen, which the model never saw."""
    best: tuple[float, float, NetModel] | None = None
    for threshold in thresholds:
        candidate = with_threshold(model, threshold)
        regret = measure(candidate, held_out).regret
        if best is None or regret < best[0]:
            best = (regret, threshold, candidate)
    assert best is not None
    return best[1], best[2]


def one_hot(
    cards: NDArray[np.int64], mask: NDArray[np.bool_], smoothing: float
) -> NDArray[np.float32]:
    """Targets that put ``1 - smoothing`` on each position's card and share the rest
    among its legal cards."""
    share = smoothing / mask.sum(axis=1, keepdims=True)
    out = np.where(mask, share, 0.0)
    out[np.arange(len(cards)), cards] += 1.0 - smoothing
    result: NDArray[np.float32] = out.astype(np.float32)
    return result


class Adam:
    """Adam on a list of float32 arrays, updated in place, with weight decay on the
    arrays named by index (the weights, not the biases)."""

    def __init__(
        self, params: list[NDArray[np.float32]], decay: float, decayed: tuple[int, ...]
    ) -> None:
        self.params = params
        self.decay = decay
        self.decayed = decayed
        self.moments = [np.zeros_like(p) for p in params]
        self.squares = [np.zeros_like(p) for p in params]
        self.steps = 0

    def step(self, grads: list[NDArray[np.float32]], rate: float) -> None:
        self.steps += 1
        for i, grad in enumerate(grads):
            g = grad + self.decay * self.params[i] if i in self.decayed else grad
            self.moments[i] = 0.9 * self.moments[i] + 0.1 * g
            self.squares[i] = 0.999 * self.squares[i] + 0.001 * g * g
            m = self.moments[i] / (1 - 0.9**self.steps)
            v = self.squares[i] / (1 - 0.999**self.steps)
            self.params[i][...] = self.params[i] - rate * m / (np.sqrt(v) + 1e-8)


def fit(
    data: Positions,
    *,
    hidden: tuple[int, int] = (128, 64),
    epochs: int = 30,
    batch: int = 256,
    rate: float = 1e-3,
    decay: float = 1e-5,
    temperature: float = 5.0,
    objective: str = "decision",
    margin: float = 2.0,
    smoothing: float = 0.1,
    seed: int = 0,
    held_out: Positions | None = None,
    progress: Callable[[int, Figures | None], None] | None = None,
) -> NetModel:
    """Fit a network to ``data`` by Adam (plain numpy backpropagation), the learning
    rate falling as a cosine over the epochs."""
    model = NetModel.random(seed, hidden)
    params = [a.copy() for a in model.arrays]
    adam = Adam(params, decay, (0, 1, 3, 5))
    mask_all = legal_rows(data.legal)
    if objective == "decision":
        target_all = one_hot(data.decisions(margin), mask_all, smoothing)
    elif objective == "softmax":
        target_all = _targets(data.values, temperature)
    elif objective == "gain":
        target_all = _gains(data, temperature)
    else:
        raise ValueError(f"the objective is decision, softmax or gain, not {objective!r}")
    rng = np.random.default_rng(seed)
    steps = epochs * math.ceil(len(data) / batch)
    for epoch in range(epochs):
        order = rng.permutation(len(data))
        for start in range(0, len(data), batch):
            rows = order[start : start + batch]
            x, mask, target = data.x[rows], mask_all[rows], target_all[rows]
            w0, w1, b1, w2, b2, w3, b3 = params
            z1 = x @ w1 + b1
            a1 = np.maximum(z1, 0.0)
            z2 = a1 @ w2 + b2
            a2 = np.maximum(z2, 0.0)
            out = a2 @ w3.T + b3 + x @ w0
            if objective == "gain":
                # Regression: each legal card's gain over the rule card, so that the
                # size of a departure, not only its sign, is learnt.
                n = mask.sum(axis=1, keepdims=True)
                d3 = (2.0 * np.where(mask, out - target, 0.0) / n / len(rows)).astype(np.float32)
            else:
                logits = np.where(mask, out, -np.inf)
                logits -= logits.max(axis=1, keepdims=True)
                p = np.exp(logits)
                p /= p.sum(axis=1, keepdims=True)
                d3 = ((p - target) / len(rows)).astype(np.float32)
            da2 = d3 @ w3
            d2 = da2 * (z2 > 0)
            da1 = d2 @ w2.T
            d1 = da1 * (z1 > 0)
            grads = [x.T @ d3, x.T @ d1, d1.sum(0), a1.T @ d2, d2.sum(0), d3.T @ a2, d3.sum(0)]
            adam.step(grads, rate * 0.5 * (1 + math.cos(math.pi * adam.steps / steps)))
        if progress is not None:
            current = NetModel.of(params)
            progress(epoch + 1, measure(current, held_out, margin) if held_out else None)
    return NetModel.of(params)
