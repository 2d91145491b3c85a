"""``king play``: a whole game in the terminal against three computer players, saved as
it goes and taken up again where it stopped."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from king.bots.registry import bot_names
from king.cli.bots import bot_specs
from king.cli.common import check_overwrite, fail, language, preset
from king.cli.options import (
    RULES_HELP,
    DealSeed,
    Language,
    NewGame,
    bots_option,
    force_option,
    rules_option,
)

__all__ = ["play_command"]


def play_command(
    bots: Annotated[
        str | None,
        bots_option(
            f"The three computer players, comma-separated, in seat order after yours, or "
            f"one for all three: {bot_names()}, or cmd:COMMAND (default: the strongest bot "
            f"in every seat)."
        ),
    ] = None,
    rules: Annotated[
        str | None, rules_option(RULES_HELP.removesuffix(".") + " (default: classic).")
    ] = None,
    seed: DealSeed[int | None] = None,
    seat: Annotated[
        int | None,
        typer.Option(
            "--seat",
            metavar="SEAT",
            min=0,
            max=3,
            help="Your seat by its index, 0-3 (the screen counts seats from 1; default: 0).",
        ),
    ] = None,
    new: NewGame = False,
    resume: Annotated[
        Path | None,
        typer.Option("--resume", metavar="FILE", help="Continue the game saved in this record."),
    ] = None,
    save: Annotated[
        Path | None,
        typer.Option(
            "--save",
            metavar="FILE",
            help="Where to save a new game (default: a new file in the user data folder).",
        ),
    ] = None,
    force: Annotated[bool, force_option("--save")] = False,
    lang: Language = None,
) -> None:
    """Play a whole game in the terminal against three computer players.

    The last unfinished game goes on by itself (as with king in the browser); --new
    starts another, --resume FILE goes on with the game saved in FILE.
    """
    # Without --lang: the resumed game's language, else the locale's (run_play decides).
    chosen = None if lang is None else language(lang)
    from king.bots import strongest_bot

    specs = bot_specs(strongest_bot() if bots is None else bots, 3, one_for_all=True)
    rules_preset = preset(rules or "classic")
    if new and resume is not None:
        raise fail("--new starts a new game and --resume goes on with a saved one: give one", 2)
    if resume is not None and not resume.is_file():
        raise fail(f"{resume}: no such file to resume", 2)
    if save is not None:
        check_overwrite(save, force, "--save")
    from king.tui.app import PlayError, run_play

    given = (("--bots", bots), ("--rules", rules), ("--seed", seed), ("--seat", seat))
    try:
        run_play(
            bots=specs,
            rules=rules_preset,
            seed=seed,
            seat=0 if seat is None else seat,
            resume=resume,
            save=save,
            lang=chosen,
            new=new,
            asked=[flag for flag, value in (*given, ("--save", save)) if value is not None],
        )
    except PlayError as error:
        raise fail(str(error), 2) from None
