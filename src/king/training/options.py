"""What one training run is asked for: ``king train``'s options, checked, as a value."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["OBJECTIVES", "Objective", "TrainOptions"]

#: What the policy network may fit (:func:`king.training.fitting.fit`'s objectives that
#: ``king train`` offers).
Objective = Literal["gain", "decision"]
OBJECTIVES: tuple[Objective, ...] = ("gain", "decision")


@dataclass(frozen=True)
class TrainOptions:
    """A training run: how many positions and declarations to label (and with how much
    search), how to fit the policy network, where its data and its model file go."""

    #: Where the model file is written.
    out: Path = Path("net.npz")
    #: Self-play positions to label.
    positions: int = 200_000
    #: The search bot's time per label, as a count of rollouts (machine-independent).
    budget: float = 0.04
    #: Passes over the positions.
    epochs: int = 30
    #: The policy network's two hidden layers.
    hidden: tuple[int, int] = (128, 64)
    #: The seed of it all: the same options make the same model.
    seed: int = 0
    #: A Ray cluster to label the positions on (``auto`` or its address), or none.
    ray: str | None = None
    #: The labelled positions: read from this file when it exists, else made and
    #: written there (and the declarations beside it, :attr:`declarations_file`).
    data: Path | None = None
    #: What the policy network fits.
    objective: Objective = "gain"
    #: Declarations from whole games to label (0: the model declares as the rule bot).
    declarations: int = 20_000
    #: Deals on which to measure how well the model places the hidden cards (0: none).
    inference_deals: int = 60

    @property
    def declarations_file(self) -> Path | None:
        """Where the labelled declarations are kept: ``FILE-declarations.npz`` beside
        the positions' ``FILE.npz``."""
        if self.data is None:
            return None
        return self.data.with_name(self.data.stem + "-declarations.npz")
