"""Training the learned policy (``king train``): self-play positions labelled by the
search bot, networks fitted to them with numpy alone, and the model file that says how.

One module per step: :mod:`~king.training.selfplay` makes the labelled positions
(:mod:`~king.training.positions` holds them), :mod:`~king.training.fitting` fits the
policy network and :mod:`~king.training.figures` measures it,
:mod:`~king.training.declarations` does both for the declaration network,
:mod:`~king.training.inference` measures how well each model places the hidden cards,
:mod:`~king.training.about` words what the model file says of itself, and
:mod:`~king.training.pipeline` runs them in turn for a :class:`TrainOptions`.  It sits
beside the other adapters, above :mod:`king.cluster`, which makes the positions on a Ray
cluster when asked.

Everything is seeded: the same options make the same model on any machine (up to the
floating-point order of the machine's BLAS).
"""

from __future__ import annotations

from king.training.declarations import (
    Declarations,
    DeclareFigures,
    fit_declarations,
    generate_declarations,
    measure_declarations,
)
from king.training.figures import Figures, measure
from king.training.fitting import calibrate_threshold, fit, with_threshold
from king.training.inference import InferenceLoss, inference_loss
from king.training.options import Objective, TrainOptions
from king.training.pipeline import QUIET, Output, Trained, TrainingDataError, train
from king.training.positions import Positions
from king.training.selfplay import generate

__all__ = [
    "QUIET",
    "DeclareFigures",
    "Declarations",
    "Figures",
    "InferenceLoss",
    "Objective",
    "Output",
    "Positions",
    "TrainOptions",
    "Trained",
    "TrainingDataError",
    "calibrate_threshold",
    "fit",
    "fit_declarations",
    "generate",
    "generate_declarations",
    "inference_loss",
    "measure",
    "measure_declarations",
    "train",
    "with_threshold",
]
