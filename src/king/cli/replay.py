"""``king replay``: check a game record (or JSON lines of them) and show its deals,
points and totals, or the report as JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from king.cli.options import json_option
from king.cli.records import read_records
from king.record import ReplayReport

__all__ = ["replay_command"]


def _table(report: ReplayReport) -> str:
    """The record as a table: each deal's declarer, contract and points with the running
    totals, then whether it is valid (and where it is not) and who won."""
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
        lines.append(
            "INVALID" + (f" at {fault.where}" if fault.where else "") + f": {fault.reason}"
        )
    elif game.is_over:
        winners = ", ".join(names[s] for s in game.winners())
        lines.append(f"complete game ({game.rules.name}); winner: {winners}")
    else:
        done = game.deal_number
        lines.append(
            f"valid, unfinished ({game.rules.name}): {done} deal{'' if done == 1 else 's'} done"
        )
    return "\n".join(lines)


def replay_command(
    file: Annotated[
        Path,
        typer.Argument(help="A king-record/1 file, or JSON lines of them ('-' for stdin)."),
    ],
    as_json: Annotated[bool, json_option("Print the report as JSON (docs/record.md).")] = False,
) -> None:
    """Check a game record and show its deals, points and totals.

    Exit status: 0 valid, 1 invalid (the first fault is located), 2 not a record.
    """
    reports = read_records(file)
    for number, report in enumerate(reports):
        if as_json:
            indent = 1 if len(reports) == 1 else None
            typer.echo(json.dumps(report.to_json(), indent=indent, ensure_ascii=False))
        else:
            if len(reports) > 1:
                typer.echo(f"{'' if number == 0 else chr(10)}record {number + 1}:")
            typer.echo(_table(report))
    raise typer.Exit(0 if all(r.valid for r in reports) else 1)
