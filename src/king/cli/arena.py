"""``king arena``: bots against each other on duplicate deals, in processes or on a Ray
cluster, every game written as it is played and a run that stopped taken up again."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from king.bots.registry import bot_names
from king.cli.bots import bot_specs
from king.cli.common import check_overwrite, fail, preset
from king.cli.options import (
    DealSeed,
    ForceOut,
    Json,
    RulesName,
    bots_option,
    out_option,
    ray_option,
)
from king.cli.progress import Progress

if TYPE_CHECKING:
    from king.arena import ArenaConfig, ArenaReport, PlayResult

__all__ = ["DEFAULT_DEALS", "arena_command"]

#: ``king arena`` plays this many single deals unless told otherwise.
DEFAULT_DEALS = 100


def arena_command(
    bots: Annotated[
        str,
        bots_option(
            f"Four bots, comma-separated, in seat order: {bot_names()}, or "
            "cmd:COMMAND for an external program (docs/bot-protocol.md)."
        ),
    ],
    games: Annotated[
        int | None,
        typer.Option("--games", metavar="N", min=1, help="Play this many whole games."),
    ] = None,
    deals: Annotated[
        int | None,
        typer.Option(
            "--deals",
            metavar="N",
            min=1,
            help=f"Play this many single deals, every contract in turn ({DEFAULT_DEALS} "
            "unless --games is given).",
        ),
    ] = None,
    seed: DealSeed[int] = 1,
    jobs: Annotated[
        int, typer.Option("--jobs", metavar="N", min=1, max=256, help="Processes (1-256).")
    ] = 1,
    ray: Annotated[
        str | None,
        ray_option(
            'Run the sets as tasks on a Ray cluster (pip install "king[cluster]"): '
            "auto for the one this machine joined, or its address; the figures are those "
            "of --jobs."
        ),
    ] = None,
    rules: RulesName = "classic",
    out: Annotated[Path | None, out_option("Write every game or deal as JSON lines.")] = None,
    force: ForceOut = False,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Go on from the games already in --out (a run of the same match that "
            "stopped, or a shorter one): whole sets are counted as they were, the rest "
            "played; the figures are those of one uninterrupted run.",
        ),
    ] = False,
    as_json: Json = False,
    bot_timeout: Annotated[
        float,
        typer.Option(
            "--bot-timeout",
            metavar="SECONDS",
            min=0.01,
            help="Seconds an external bot may think.",
        ),
    ] = 5.0,
) -> None:
    """Play bots against each other on duplicate deals and report who is stronger.

    Exit status: 0 when every game was played, 1 when a bot failed and games were
    abandoned (the figures leave them out, so they are not a fair comparison).
    """
    from king.arena import ArenaConfig

    _refuse_conflicts(games, deals, jobs, ray, out, resume)
    if out is not None and not resume:
        check_overwrite(out, force, "--out")
    specs = bot_specs(bots, 4)
    rules_preset = preset(rules)
    mode: Literal["games", "deals"] = "games" if games is not None else "deals"
    count = games if games is not None else (deals if deals is not None else DEFAULT_DEALS)
    config = ArenaConfig(
        (specs[0], specs[1], specs[2], specs[3]),
        mode,
        count,
        seed,
        rules_preset,
        jobs,
        bot_timeout,
        ray,
    )
    done = _played_before(out, config) if resume and out is not None else {}
    report = _play(config, out, done)
    if as_json:
        typer.echo(json.dumps(report.to_json()))
    else:
        typer.echo(report.table())
    if report.abandoned:
        played = count * 4
        failures = dict.fromkeys(f"bot {a['bot']!r} {a['what']}" for a in report.abandoned)
        reasons = "; ".join(list(failures)[:3]) + ("; …" if len(failures) > 3 else "")
        raise fail(
            f"{len(report.abandoned)} of {played} {mode} were abandoned, so the figures are "
            f"not a fair comparison: {reasons}",
            1,
        )


def _refuse_conflicts(
    games: int | None,
    deals: int | None,
    jobs: int,
    ray: str | None,
    out: Path | None,
    resume: bool,
) -> None:
    """Refuse options that cannot go together (exit status 2)."""
    if resume and out is None:
        raise fail("--resume goes on from the games in --out FILE: give --out", 2)
    if games is not None and deals is not None:
        raise fail("give --games or --deals, not both", 2)
    if ray is not None and jobs != 1:
        raise fail("give --ray or --jobs, not both (the cluster decides how many run)", 2)
    if ray is not None and not ray.strip():
        raise fail("--ray takes auto or a Ray cluster's address", 2)


def _play(config: ArenaConfig, out: Path | None, done: dict[int, list[PlayResult]]) -> ArenaReport:
    """Play the match (the sets in ``done`` counted as they were), each set's games
    appended to ``out`` as it ends, with a progress bar on standard error."""
    from king.arena import ClusterError, run_arena

    sink = None
    if out is not None:
        try:
            sink = out.open("a" if done else "w", encoding="utf-8")
        except OSError as error:
            raise fail(f"cannot write {out}: {error.strerror}", 2) from None
    progress = Progress(config.count, config.mode)
    if done:
        progress.update(len(done))

    def on_set(index: int, plays: list[PlayResult]) -> None:
        if sink is not None:
            for play in plays:
                sink.write(json.dumps(play.record, ensure_ascii=False) + "\n")
            sink.flush()
        progress.update(index + 1)

    try:
        return run_arena(config, on_set, done)
    except ClusterError as error:
        raise fail(str(error), 1) from None
    finally:
        if sink is not None:
            sink.close()


def _played_before(out: Path, config: ArenaConfig) -> dict[int, list[PlayResult]]:
    """The whole sets an earlier run left in ``out``, which is rewritten to hold just
    them (atomically: a set cut short, or a game abandoned, is played again)."""
    from king.arena import ResumeError, played_sets

    if not out.exists():
        return {}
    if out.is_dir():
        raise fail(f"--out {out}: is a folder, not a file", 2)
    try:
        lines = out.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise fail(f"--resume {out}: cannot be read: {error}", 2) from None
    try:
        done = played_sets(lines, config)
    except ResumeError as error:
        raise fail(f"--resume {out}: {error}; the file is left as it was", 2) from None
    kept = out.with_name(f".{out.name}.resume")
    try:
        with kept.open("w", encoding="utf-8") as sink:
            for index in sorted(done):
                for play in done[index]:
                    sink.write(json.dumps(play.record, ensure_ascii=False) + "\n")
        os.replace(kept, out)
    except OSError as error:
        kept.unlink(missing_ok=True)
        raise fail(f"cannot write {out}: {error.strerror}", 2) from None
    unit = "games" if config.mode == "games" else "deals"
    typer.echo(f"going on: {len(done)} of {config.count} {unit} were played in {out}", err=True)
    return done
