"""The ``king`` command line.

Every command catches the errors a user can cause and prints one clear line: no
traceback ever reaches the user.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import typer

from king import __version__
from king.record import RecordError, ReplayReport, replay

app = typer.Typer(
    name="king",
    help="King (Turkish King, Rıfkı): the rules, computer players and tools.",
    no_args_is_help=False,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"king {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def main(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """King (Turkish King, Rıfkı): the rules, computer players and tools."""
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


# -- king replay -----------------------------------------------------------------------


def _fail(message: str, code: int) -> typer.Exit:
    typer.echo(f"king: {message}", err=True)
    return typer.Exit(code)


def _read_record(path: Path) -> ReplayReport:
    if str(path) == "-":
        data: bytes | Path = sys.stdin.buffer.read()
    else:
        if not path.exists():
            raise _fail(f"{path}: no such file", 2)
        if path.is_dir():
            raise _fail(f"{path}: is a folder, not a record file", 2)
        data = path
    try:
        return replay(data)
    except RecordError as error:
        raise _fail(f"{path}: {error}", 2) from None


def _table(report: ReplayReport) -> str:
    players = report.players or ("seat 0", "seat 1", "seat 2", "seat 3")
    names = [p[:10] for p in players]
    lines = [
        f"{'deal':>4}  {'declarer':<10}  {'contract':<12}"
        + "".join(f"{n:>11}" for n in names)
        + "   running totals"
    ]
    lines.append("-" * len(lines[0]))
    running = [0, 0, 0, 0]
    game = report.game
    for number, deal in enumerate(game.deals):
        points = deal.points()
        for seat in range(4):
            running[seat] += points[seat]
        state = "" if deal.is_over else f"  (in play, {deal.trick_count} tricks)"
        declarer = names[deal.declarer]
        lines.append(
            f"{number + 1:>4}  {declarer:<10}  {deal.declaration.title:<12}"
            + "".join(f"{p:>11}" for p in points)
            + "   "
            + " ".join(f"{t:>6}" for t in running)
            + state
        )
    lines.append("-" * len(lines[0]))
    lines.append(f"{'':>4}  {'total':<10}  {'':<12}" + "".join(f"{t:>11}" for t in game.totals))
    fault = report.fault
    if fault is not None:
        where = []
        if fault.deal is not None:
            where.append(f"deal {fault.deal + 1}")
        if fault.play is not None:
            where.append(f"card {fault.play + 1}")
        if fault.card is not None and fault.seat is not None:
            where.append(f"seat {fault.seat} played {fault.card}")
        lines.append("INVALID" + (f" at {', '.join(where)}" if where else "") + f": {fault.reason}")
    elif game.is_over:
        winners = ", ".join(names[s] for s in game.winners())
        lines.append(f"complete game ({game.rules.name}); winner: {winners}")
    else:
        lines.append(f"valid, unfinished ({game.rules.name}): {game.deal_number} deals done")
    return "\n".join(lines)


@app.command("replay")
def replay_command(
    file: Annotated[Path, typer.Argument(help="A king-record/1 JSON file ('-' for stdin).")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as JSON (RECORD.md).")
    ] = False,
) -> None:
    """Check a game record and show its deals, points and totals.

    Exit status: 0 valid, 1 invalid (the first fault is located), 2 not a record.
    """
    report = _read_record(file)
    if as_json:
        typer.echo(json.dumps(report.to_json(), indent=1, ensure_ascii=False))
    else:
        typer.echo(_table(report))
    raise typer.Exit(0 if report.valid else 1)


# -- king bench ------------------------------------------------------------------------

BENCHMARKS = ("engine",)


def _benchmark_module(name: str) -> ModuleType:
    """Load ``benchmarks/NAME.py`` from the package (wheel) or the source checkout."""
    here = Path(__file__).resolve().parent
    for folder in (here / "_benchmarks", here.parent.parent / "benchmarks"):
        path = folder / f"{name}.py"
        if path.is_file():
            spec = importlib.util.spec_from_file_location(f"king_benchmarks_{name}", path)
            if spec is None or spec.loader is None:
                break
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    raise _fail(f"the benchmark {name!r} is not installed with this copy of king", 2)


@app.command("bench")
def bench_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    seconds: Annotated[
        float, typer.Option("--seconds", min=0.05, max=600, help="Time for each measurement.")
    ] = 2.0,
    only: Annotated[
        list[str] | None,
        typer.Option("--only", help=f"Run only these benchmarks: {', '.join(BENCHMARKS)}."),
    ] = None,
) -> None:
    """Measure the speed of the engine (and, later, bots, kernel and server)."""
    names = only or list(BENCHMARKS)
    for name in names:
        if name not in BENCHMARKS:
            raise _fail(f"unknown benchmark {name!r}: choose from {', '.join(BENCHMARKS)}", 2)
    results: dict[str, Any] = {}
    for name in names:
        if not as_json:
            typer.echo(f"running {name} …", err=True)
        results.update(_benchmark_module(name).run(seconds))
    if as_json:
        typer.echo(json.dumps(results))
        return
    width = max(len(k) for k in results)
    for key, value in results.items():
        typer.echo(f"{key:<{width}}  {value:>12,}")


def run() -> None:
    """The console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("king: interrupted", err=True)
        raise SystemExit(130) from None
