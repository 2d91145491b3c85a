"""How a policy network does on labelled positions: how often it plays the search bot's
card, and how many points per decision its card gives up against the best evaluated
card (its *regret*), next to the rule card's.  On positions the model never saw, the
mean value of the card it chooses is an unbiased estimate of what it is worth."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from king.bots.net.bot import NetModel
from king.training.positions import Positions

__all__ = ["Figures", "legal_rows", "measure"]


def legal_rows(legal: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Each position's legal cards (a 52-bit mask) as a row of 52 booleans."""
    bits = (legal[:, None] >> np.arange(52, dtype=np.int64)[None, :]) & 1
    out: NDArray[np.bool_] = bits.astype(bool)
    return out


@dataclass(frozen=True)
class Figures:
    """How a model does on labelled positions: its cross-entropy against the search
    bot's card (margin 2), how often it plays that card (and how often the rule card
    is that card, for scale), and the points per decision its card gives up against
    the best evaluated card (and the rule card's)."""

    loss: float
    agreement: float
    regret: float
    rule_agreement: float
    rule_regret: float

    def line(self) -> str:
        return (
            f"loss {self.loss:.3f}  search's card {100 * self.agreement:.1f}% "
            f"(rule {100 * self.rule_agreement:.1f}%)  regret {self.regret:.2f} points "
            f"(rule {self.rule_regret:.2f})"
        )


def measure(model: NetModel, data: Positions, margin: float = 2.0) -> Figures:
    """The figures of ``model`` on ``data``."""
    mask = legal_rows(data.legal)
    logits = np.where(mask, model.logits(data.x), -np.inf)
    shifted = logits - logits.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    rows = np.arange(len(data))
    decided = data.decisions(margin)
    values = np.where(mask, data.values, -np.inf)
    best = values.max(axis=1)
    chosen = logits.argmax(axis=1)
    rule = data.rule_cards
    return Figures(
        loss=float(-logp[rows, decided].mean()),
        agreement=float((chosen == decided).mean()),
        regret=float((best - values[rows, chosen]).mean()),
        rule_agreement=float((rule == decided).mean()),
        rule_regret=float((best - values[rows, rule]).mean()),
    )
