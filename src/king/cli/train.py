"""``king train``: the command line of :mod:`king.training`, its options checked and
what the run says printed (results on standard output, the rest on standard error)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from king.cli.common import fail
from king.cli.options import force_option, out_option, ray_option, seed_option
from king.cli.progress import Progress

if TYPE_CHECKING:
    from king.training import Objective, TrainOptions

__all__ = ["train_command"]


def train_command(
    out: Annotated[Path, out_option("Where to write the model (.npz).")] = Path("net.npz"),
    positions: Annotated[
        int,
        typer.Option("--positions", metavar="N", min=100, help="Self-play positions to label."),
    ] = 200_000,
    budget: Annotated[
        float,
        typer.Option(
            "--budget", metavar="SECONDS", min=0.001, max=10, help="Search time per label."
        ),
    ] = 0.04,
    epochs: Annotated[
        int, typer.Option("--epochs", metavar="N", min=1, max=1000, help="Passes over the data.")
    ] = 30,
    hidden: Annotated[
        str, typer.Option("--hidden", metavar="H1,H2", help="The two hidden layers' sizes.")
    ] = "128,64",
    seed: Annotated[int, seed_option("The seed of it all.")] = 0,
    ray: Annotated[
        str | None,
        ray_option(
            "Make the labelled positions as tasks on a Ray cluster, one per chunk "
            "(the same data as in this process)."
        ),
    ] = None,
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            metavar="FILE",
            help="Labelled positions: read from this file when it exists, else made and "
            "written there.",
        ),
    ] = None,
    objective: Annotated[
        str,
        typer.Option(
            "--objective",
            metavar="NAME",
            help="What the network fits: gain (each card's value over the rule card's) "
            "or decision (the search bot's card).",
        ),
    ] = "gain",
    declarations: Annotated[
        int,
        typer.Option(
            "--declarations",
            metavar="N",
            min=0,
            help="Declarations from whole games to label (0: the model declares as rule).",
        ),
    ] = 20_000,
    inference_deals: Annotated[
        int,
        typer.Option(
            "--inference-deals",
            metavar="N",
            min=0,
            help="Deals on which to measure how well the model places the hidden cards.",
        ),
    ] = 60,
    force: Annotated[bool, force_option("--out", "a model")] = False,
) -> None:
    """Train the learned policy (the net bot, and the search bot's rollouts) from
    self-play positions labelled by the search bot; print how it does on held-out ones."""
    from king.cluster import ClusterError
    from king.training import TrainingDataError, TrainOptions, train

    fitted = _objective(objective)
    options = TrainOptions(
        out=out,
        positions=positions,
        budget=budget,
        epochs=epochs,
        hidden=_hidden(hidden),
        seed=seed,
        ray=ray,
        data=data,
        objective=fitted,
        declarations=declarations,
        inference_deals=inference_deals,
    )
    _check_out(options, force)
    try:
        train(options, _Printed())
    except TrainingDataError as error:
        raise fail(str(error), 2) from None
    except ClusterError as error:
        raise fail(str(error), 1) from None


def _objective(name: str) -> Objective:
    """The objective named by ``--objective``."""
    from king.training.options import OBJECTIVES

    for objective in OBJECTIVES:
        if name == objective:
            return objective
    raise fail(f"--objective is gain or decision, not {name!r}", 2)


def _hidden(text: str) -> tuple[int, int]:
    """The two hidden layers' sizes of ``--hidden H1,H2``."""
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        sizes = ()
    if len(sizes) != 2 or not all(1 <= size <= 4096 for size in sizes):
        raise fail(f"--hidden is two sizes 1-4096 such as 128,64, not {text!r}", 2)
    return sizes[0], sizes[1]


def _check_out(options: TrainOptions, force: bool) -> None:
    """Refuse to write the model over a file that is not one, unless ``--force``."""
    from king.bots.net.bot import ModelFileError, NetModel

    if options.out.exists() and not force:
        try:
            NetModel.load(options.out)
        except ModelFileError:
            raise fail(
                f"{options.out} exists and is not a model: use --force to replace it", 2
            ) from None


class _Printed:
    """What the training run says, printed: results on standard output, notes and
    progress bars on standard error."""

    def result(self, line: str) -> None:
        typer.echo(line)

    def note(self, line: str) -> None:
        typer.echo(line, err=True)

    def progress(self, total: int, unit: str) -> Callable[[int], None]:
        return Progress(total, unit).update
