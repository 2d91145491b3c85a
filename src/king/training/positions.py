"""The labelled positions the policy network learns from: each decision's input, its
legal cards, each legal card's value as the search bot judged it and the standard error
of its difference from the rule card's; saved and read back as one ``.npz`` file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from king.bots.net.play import I_RULE

__all__ = ["Positions"]


@dataclass(frozen=True, eq=False)
class Positions:
    """Labelled positions: the input of each (``x``), its legal cards as a mask, each
    legal card's value in points (``values``, NaN for cards not legal) and the contract
    code."""

    x: NDArray[np.float32]
    legal: NDArray[np.int64]
    values: NDArray[np.float32]
    contract: NDArray[np.int8]
    #: The standard error of each card's value less the rule card's, over the same
    #: worlds (0 for the rule card, NaN for cards not legal).
    errors: NDArray[np.float32]

    def __len__(self) -> int:
        return len(self.legal)

    def save(self, path: str | Path) -> None:
        np.savez_compressed(
            path,
            x=self.x,
            legal=self.legal,
            values=self.values,
            contract=self.contract,
            errors=self.errors,
        )

    @staticmethod
    def load(path: str | Path) -> Positions:
        with np.load(path, allow_pickle=False) as data:
            return Positions(
                data["x"], data["legal"], data["values"], data["contract"], data["errors"]
            )

    @staticmethod
    def join(parts: list[Positions]) -> Positions:
        return Positions(
            np.concatenate([p.x for p in parts]),
            np.concatenate([p.legal for p in parts]),
            np.concatenate([p.values for p in parts]),
            np.concatenate([p.contract for p in parts]),
            np.concatenate([p.errors for p in parts]),
        )

    def split(self, share: float, seed: int) -> tuple[Positions, Positions]:
        """A random ``share`` held out, and the rest."""
        order = np.random.default_rng(seed).permutation(len(self))
        cut = int(len(self) * share)
        return self.take(order[cut:]), self.take(order[:cut])

    def take(self, rows: NDArray[np.int64]) -> Positions:
        return Positions(
            self.x[rows],
            self.legal[rows],
            self.values[rows],
            self.contract[rows],
            self.errors[rows],
        )

    @property
    def rule_cards(self) -> NDArray[np.int64]:
        """The rule policy's card in each position (it is part of the input)."""
        out: NDArray[np.int64] = self.x[:, I_RULE : I_RULE + 52].argmax(axis=1)
        return out

    def decisions(self, margin: float) -> NDArray[np.int64]:
        """The search bot's card in each position: the best card when it beats the rule
        card by ``margin`` standard errors of the paired difference, else the rule card
        (as :class:`~king.bots.search.bot.SearchBot` decides)."""
        rows = np.arange(len(self))
        rule = self.rule_cards
        values = np.where(np.isnan(self.values), -np.inf, self.values)
        best = values.argmax(axis=1)
        gain = values[rows, best] - values[rows, rule]
        clear = gain > margin * np.nan_to_num(self.errors[rows, best])
        out: NDArray[np.int64] = np.where(clear & (best != rule), best, rule)
        return out
