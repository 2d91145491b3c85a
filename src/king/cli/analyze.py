"""``king analyze``: every decision of a game evaluated by the search bot from its
player's view, and the points each player lost to clear mistakes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from king.cli.common import check_overwrite, fail
from king.cli.options import ForceOut, json_option, out_option, seed_option
from king.cli.progress import Progress
from king.cli.records import read_records

__all__ = ["analyze_command"]


def analyze_command(
    file: Annotated[Path, typer.Argument(help="A king-record/1 file ('-' for stdin).")],
    as_json: Annotated[
        bool, json_option("Print the record with its analysis section (docs/record.md).")
    ] = False,
    out: Annotated[Path | None, out_option("Also write the annotated record here.")] = None,
    force: ForceOut = False,
    bot: Annotated[
        str,
        typer.Option("--bot", metavar="SPEC", help="The engine: a search bot spec (search:…)."),
    ] = "search",
    seconds: Annotated[
        float,
        typer.Option(
            "--time", metavar="S", min=0.01, max=60, help="Effort per decision, in seconds."
        ),
    ] = 0.2,
    seed: Annotated[int, seed_option("The engine's seed.")] = 0,
) -> None:
    """Evaluate every decision of a game from its player's view: each choice's value, the
    loss of the one made, and the points each player lost to clear mistakes."""
    from king.bots import BotSpecError
    from king.bots.analysis import AnalysisOptions, analyze
    from king.record import InvalidRecordError, to_record

    if out is not None:
        check_overwrite(out, force, "--out")
    reports = read_records(file)
    if len(reports) != 1:
        raise fail(f"{file}: give one record, not {len(reports)}", 2)
    report = reports[0]
    if not report.valid:
        raise fail(f"{file}: the record is not valid: {report.fault}", 1)
    source = report.game
    names = list(report.players) if report.players else None
    record = to_record(source, names)
    progress = Progress(1, "decisions")

    def step(done: int, total: int) -> None:
        progress.total = total
        progress.update(done)

    try:
        annotated = analyze(record, AnalysisOptions(bot, seconds, seed), step)
    except (BotSpecError, InvalidRecordError) as error:
        raise fail(str(error), 2) from None
    text = json.dumps(annotated, indent=1, ensure_ascii=False)
    if out is not None:
        out.write_text(text + "\n", encoding="utf-8")
    if as_json:
        typer.echo(text)
        return
    typer.echo(_analysis_table(annotated, names or ["seat 0", "seat 1", "seat 2", "seat 3"]))


def _analysis_table(record: dict[str, Any], names: list[str]) -> str:
    """Points lost to mistakes per deal and player, then each deal's clear mistakes."""
    analysis = record["analysis"]
    width = max(8, *(len(n) for n in names))
    head = "deal  contract       " + "".join(f"{n:>{width + 2}}" for n in names)
    lines = [f"analysis by {analysis['engine']}: points lost to clear mistakes", head]
    lines.append("-" * len(head))
    mistakes: list[str] = []
    for number, (deal, entry) in enumerate(zip(record["deals"], analysis["deals"], strict=False)):
        contract = deal.get("contract", "") + (f" {deal['trump']}" if deal.get("trump") else "")
        lost = "".join(f"{x:>{width + 2}.0f}" for x in entry["lost"])
        lines.append(f"{number:>4}  {contract:<13}{lost}")
        # Each deal's three biggest mistakes (all of them are in the --json record).
        worst = sorted((d for d in entry["decisions"] if d["mistake"]), key=lambda d: -d["loss"])
        for d in worst[:3]:
            if d["kind"] == "declare":
                what = f"{names[d['seat']]} declared {d['chosen']}"
            else:
                what = f"trick {d['play'] // 4 + 1}: {names[d['seat']]} played {d['chosen']}"
            mistakes.append(
                f"  deal {number + 1}, {what}; {d['best']} was better by {d['loss']:.0f} "
                f"(± {d['error']:.0f})"
            )
    lines.append("-" * len(head))
    lines.append("total" + " " * 16 + "".join(f"{x:>{width + 2}.0f}" for x in analysis["lost"]))
    if mistakes:
        lines += ["", "the biggest clear mistakes (loss over twice its standard error):"]
        lines += mistakes
    else:
        lines += ["", "no clear mistake."]
    return "\n".join(lines)
