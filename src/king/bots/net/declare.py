"""The learned policy's declarations: what a declarer sees, as a small network's input,
and that network (numpy; declaring happens once a deal, never inside a rollout).

The input holds the declarer's hand, what the game still allows (each contract's
remaining uses, the seat's own obligations), the deal number, the totals so far (its
own first), the optional rules, and the rule bot's choice (:mod:`king.bots.rule.declare`),
so that, as for the cards, the network learns where to depart from it.  The output is
one logit per declaration of :data:`king.rules.ALL_DECLARATIONS`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from king.bots.rule.declare import choose_declaration
from king.rules import (
    ALL_DECLARATIONS,
    GAME_DEALS,
    MAX_PER_NEGATIVE,
    NEGATIVE_CONTRACTS,
    NEGATIVES_PER_PLAYER,
    TRUMPS_PER_PLAYER,
    Declaration,
)
from king.view import SeatView

__all__ = ["DECLARE_INPUTS", "DeclareNet", "declaration_input"]

# The layout of the input.
D_HAND = 0  # 52
D_RULE = 52  # 10: the rule bot's declaration
D_LEFT = 62  # 6: how many more times each negative contract may be declared, / 2
D_OWED = 68  # 2: the seat's trump and negative contracts still owed
D_DEAL = 70  # 1: the deal number / 20
D_TOTALS = 71  # 4: the totals so far, the seat's own first, / 1000
D_FLAGS = 75  # 4: the optional rules
DECLARE_INPUTS = 79

_INDEX = {declaration: i for i, declaration in enumerate(ALL_DECLARATIONS)}


def declaration_input(view: SeatView) -> NDArray[np.float32]:
    """The network's input for the declarer of ``view``."""
    x = np.zeros(DECLARE_INPUTS, dtype=np.float32)
    for card in view.hand:
        x[D_HAND + card.id] = 1.0
    x[D_RULE + _INDEX[choose_declaration(view)]] = 1.0
    for k, contract in enumerate(NEGATIVE_CONTRACTS):
        x[D_LEFT + k] = (MAX_PER_NEGATIVE - view.times_declared(contract)) / MAX_PER_NEGATIVE
    trumps, negatives = view.obligations(view.seat)
    x[D_OWED] = trumps / TRUMPS_PER_PLAYER
    x[D_OWED + 1] = negatives / NEGATIVES_PER_PLAYER
    x[D_DEAL] = view.deal_number / GAME_DEALS
    for k in range(4):
        x[D_TOTALS + k] = view.totals[(view.seat + k) % 4] / 1000.0
    for k in range(4):
        if view.rules.flags & (1 << k):
            x[D_FLAGS + k] = 1.0
    return x


def legal_declarations(view: SeatView) -> NDArray[np.bool_]:
    """Which of the ten declarations ``view``'s seat may make now."""
    mask = np.zeros(len(ALL_DECLARATIONS), dtype=bool)
    for declaration in view.legal_declarations:
        mask[_INDEX[declaration]] = True
    return mask


@dataclass(frozen=True, eq=False)
class DeclareNet:
    """The declaration network: a linear path ``d0[DECLARE_INPUTS, 10]`` beside one
    hidden layer (``d1[DECLARE_INPUTS, H]``, ``c1[H]``, ``d2[10, H]``, ``c2[10]``)."""

    d0: NDArray[np.float32]
    d1: NDArray[np.float32]
    c1: NDArray[np.float32]
    d2: NDArray[np.float32]
    c2: NDArray[np.float32]

    NAMES = ("d0", "d1", "c1", "d2", "c2")

    @property
    def arrays(self) -> tuple[NDArray[np.float32], ...]:
        return (self.d0, self.d1, self.c1, self.d2, self.c2)

    def shapes_ok(self) -> str | None:
        """What is wrong with the arrays' shapes, or ``None``."""
        hidden = self.d1.shape[1] if self.d1.ndim == 2 else -1
        shapes = {
            "d0": (DECLARE_INPUTS, 10),
            "d1": (DECLARE_INPUTS, hidden),
            "c1": (hidden,),
            "d2": (10, hidden),
            "c2": (10,),
        }
        for name, shape in shapes.items():
            array = getattr(self, name)
            if array.shape != shape or array.dtype != np.float32:
                found = f"{array.dtype}{list(array.shape)}"
                return f"model array {name} is {found}, not float32{list(shape)}"
            if not np.isfinite(array).all():
                return f"model array {name} holds a value that is not finite"
        return None

    @staticmethod
    def random(seed: int = 0, hidden: int = 32) -> DeclareNet:
        rng = np.random.default_rng(seed)
        return DeclareNet(
            np.zeros((DECLARE_INPUTS, 10), dtype=np.float32),
            (rng.standard_normal((DECLARE_INPUTS, hidden)) * np.sqrt(2.0 / 20)).astype(np.float32),
            np.zeros(hidden, dtype=np.float32),
            (rng.standard_normal((10, hidden)) * 0.1 / np.sqrt(hidden)).astype(np.float32),
            np.zeros(10, dtype=np.float32),
        )

    def logits(self, x: NDArray[np.float32]) -> NDArray[np.float32]:
        """The ten declaration logits of one input (or one row each of a batch)."""
        h = np.maximum(x @ self.d1 + self.c1, np.float32(0.0))
        out: NDArray[np.float32] = np.asarray(h @ self.d2.T + self.c2 + x @ self.d0, np.float32)
        return out

    def choose(self, view: SeatView) -> Declaration:
        """The most likely legal declaration."""
        logits = np.where(legal_declarations(view), self.logits(declaration_input(view)), -np.inf)
        return ALL_DECLARATIONS[int(np.argmax(logits))]
