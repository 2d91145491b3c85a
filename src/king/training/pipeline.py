"""``king train`` from end to end: the labelled positions and declarations (made, or read
back from the data files), the networks fitted and measured on held-out ones, and the
model file written with what it was made from and what it measured."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from king.bots.net.bot import NetModel
from king.bots.net.declare import DeclareNet
from king.cluster import check_address, ray_map
from king.errors import KingError
from king.training.about import declarations_about, inference_about, policy_about
from king.training.declarations import (
    Declarations,
    DeclareFigures,
    fit_declarations,
    generate_declarations,
    measure_declarations,
)
from king.training.figures import Figures, measure
from king.training.fitting import calibrate_threshold, fit
from king.training.inference import InferenceLoss, inference_loss
from king.training.options import TrainOptions
from king.training.positions import Positions
from king.training.selfplay import generate

__all__ = ["QUIET", "Output", "Trained", "TrainingDataError", "train"]


class TrainingDataError(KingError, ValueError):
    """A file of labelled positions or declarations that cannot be read back."""


class Output(Protocol):
    """Where a training run says how it goes (the command line prints it)."""

    def result(self, line: str) -> None:
        """A line of what was measured (``king train``: standard output)."""

    def note(self, line: str) -> None:
        """A line about the run on the way (``king train``: standard error)."""

    def progress(self, total: int, unit: str) -> Callable[[int], None]:
        """A function told how many of ``total`` are done."""


class _Quiet:
    """An :class:`Output` that says nothing."""

    def result(self, line: str) -> None:
        pass

    def note(self, line: str) -> None:
        pass

    def progress(self, total: int, unit: str) -> Callable[[int], None]:
        return lambda done: None


#: The output of a run that prints nothing.
QUIET: Output = _Quiet()


@dataclass(frozen=True)
class Trained:
    """What a run made (the model, as written to the options' ``out``) and measured."""

    model: NetModel
    figures: Figures
    declarations: DeclareFigures | None
    inference: InferenceLoss | None


def train(options: TrainOptions, output: Output = QUIET) -> Trained:
    """Label (or read back) the data, fit the networks, measure them on held-out data
    and write the model file.  Raises :class:`TrainingDataError` for a data file that
    cannot be read and :class:`~king.cluster.ClusterError` when the cluster fails."""
    labelled = _positions(options, output)
    declared = _declarations(options, output)
    train_set, held = labelled.split(0.1, options.seed)
    # Half the held-out positions choose the gain threshold, the other half measure.
    tuning, held_out = held.split(0.5, options.seed + 1)
    model, threshold = _fit_policy(options, train_set, tuning, held_out, output)
    figures = measure(model, held_out)
    declaring = None if declared is None else _fit_declarations(declared, options.seed)
    if declaring is not None:
        output.result(f"declarations held out: {declaring.figures.line()}")
    about = policy_about(
        options,
        positions=len(labelled),
        held_out=len(held_out),
        threshold=threshold,
        figures=figures,
    )
    loss = None
    if options.inference_deals:
        output.note("measuring inference …")
        loss = inference_loss(model, deals=options.inference_deals, seed=options.seed + 1)
        about["inference"] = inference_about(loss, options.inference_deals)
        output.result(loss.table())
    declare_net = None
    if declaring is not None:
        about["declarations"] = declarations_about(
            declaring.labelled, declaring.held_out, declaring.figures
        )
        declare_net = declaring.net
    made = NetModel.of(list(model.arrays), about, declare_net)
    made.save(options.out)
    output.result(f"held out: {figures.line()}")
    output.result(f"model written to {options.out}")
    return Trained(made, figures, None if declaring is None else declaring.figures, loss)


def _positions(options: TrainOptions, output: Output) -> Positions:
    """The labelled positions: read from the data file when it exists, else made (on
    the cluster, when the options name one) and written there."""
    data = options.data
    if data is not None and data.exists():
        try:
            labelled = Positions.load(data)
        except (OSError, ValueError, KeyError) as error:
            raise TrainingDataError(f"cannot read positions from {data}: {error}") from None
        output.note(f"{len(labelled):,} positions read from {data}")
        return labelled
    progress = _every_hundred(output.progress(options.positions, "positions"), options.positions)
    address = options.ray
    if address is not None:
        check_address(address)
    labelled = generate(
        options.positions,
        seed=options.seed,
        budget=options.budget,
        progress=progress,
        map_chunks=None if address is None else partial(ray_map, address=address),
    )
    if data is not None:
        labelled.save(data)
    return labelled


def _declarations(options: TrainOptions, output: Output) -> Declarations | None:
    """The labelled declarations: read from their file beside the positions' when it
    exists, else made (when the options ask for any) and written there."""
    path = options.declarations_file
    if path is not None and path.exists():
        try:
            declared = Declarations.load(path)
        except (OSError, ValueError, KeyError) as error:
            raise TrainingDataError(f"cannot read declarations from {path}: {error}") from None
        output.note(f"{len(declared):,} declarations read from {path}")
        return declared
    if not options.declarations:
        return None
    count = options.declarations
    progress = _every_hundred(output.progress(count, "declarations"), count)
    declared = generate_declarations(count, seed=options.seed, progress=progress)
    if path is not None:
        declared.save(path)
    return declared


def _fit_policy(
    options: TrainOptions,
    train_set: Positions,
    tuning: Positions,
    held_out: Positions,
    output: Output,
) -> tuple[NetModel, float | None]:
    """The policy network fitted to ``train_set`` (and, for the gain objective, its
    threshold chosen on ``tuning``), each epoch's figures on ``held_out`` noted."""

    def report(epoch: int, figures: Figures | None) -> None:
        if figures is not None:
            output.note(f"epoch {epoch:>3}: {figures.line()}")

    model = fit(
        train_set,
        hidden=options.hidden,
        epochs=options.epochs,
        seed=options.seed,
        objective=options.objective,
        held_out=held_out if options.objective != "gain" else None,
        progress=report,
    )
    if options.objective != "gain":
        return model, None
    threshold, model = calibrate_threshold(model, tuning)
    output.note(f"gain threshold: {threshold} (x 5 points)")
    return model, threshold


@dataclass(frozen=True)
class _DeclarationsFit:
    """The declaration network, how many declarations were labelled, how many of them
    were held out and its figures on those."""

    net: DeclareNet
    labelled: int
    held_out: int
    figures: DeclareFigures


def _fit_declarations(declared: Declarations, seed: int) -> _DeclarationsFit:
    """The declaration network fitted to nine tenths of ``declared`` and measured on the
    tenth held out."""
    declare_train, declare_held = declared.split(0.1, seed)
    net = fit_declarations(declare_train, seed=seed)
    figures = measure_declarations(net, declare_held)
    return _DeclarationsFit(net, len(declared), len(declare_held), figures)


def _every_hundred(update: Callable[[int], None], total: int) -> Callable[[int], None]:
    """``update`` told every hundredth count and the last (a line per item is too many)."""

    def counted(done: int) -> None:
        if done % 100 == 0 or done == total:
            update(done)

    return counted
