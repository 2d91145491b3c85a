"""``king`` without a command: a game in the browser against three computer players, on
this machine (and, with ``--lan``, the home network)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from king import __version__
from king.bots.registry import bot_names
from king.cli.common import fail, language
from king.cli.options import (
    NewGame,
    bot_pause_option,
    bots_option,
    lang_option,
    port_option,
    rules_option,
)
from king.rules import Rules, RulesError

__all__ = ["main"]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"king {__version__}")
        raise typer.Exit()


def main(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
    bots: Annotated[
        str | None,
        bots_option(
            f"Without a command: the three computer players, comma-separated, or one "
            f"for all three: {bot_names()} (default: the level chosen in the page, Medium "
            "until then)."
        ),
    ] = None,
    rules: Annotated[
        str | None,
        rules_option("Without a command: classic, pagat or turkish (default: classic)."),
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option(
            "--db", metavar="FILE", help="Without a command: the SQLite file of the games."
        ),
    ] = None,
    new: NewGame = False,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Print the address but open no browser.")
    ] = False,
    hints: Annotated[
        bool,
        typer.Option(
            "--hints",
            help="Without a command: a new game in which you may ask the engine for hints.",
        ),
    ] = False,
    lang: Annotated[
        str | None,
        lang_option(
            "Without a command: the page's language: en, tr, es, fr or th (default: the browser's)."
        ),
    ] = None,
    bot_pause: Annotated[
        float,
        bot_pause_option(
            "Without a command: the computer players' pause before each move (the "
            "page's speed setting scales it)."
        ),
    ] = 0.7,
    lan: Annotated[
        bool,
        typer.Option(
            "--lan",
            help="Without a command: serve the home network too, and print the address "
            "(and QR code) a phone on the same Wi-Fi opens.",
        ),
    ] = False,
    port: Annotated[
        int | None,
        port_option(
            1, "Without a command: the port (default 8765, or a free one when it is taken)."
        ),
    ] = None,
) -> None:
    """King (Turkish King, Rıfkı): the rules, computer players and tools.

    Without a command, play in the browser against three computer players.
    """
    if ctx.invoked_subcommand is not None:
        return
    from king.bots import BotSpecError
    from king.bots.levels import DEFAULT_LEVEL
    from king.server.config import ServerSettings
    from king.server.engine.players import check_bot_spec
    from king.server.run import ServeError, run_local
    from king.server.store.event_log import default_db_path
    from king.server.tables.local_game import saved_level

    database = db if db is not None else default_db_path()
    level = saved_level(database.with_name("local-table.json")) or DEFAULT_LEVEL
    specs = [level] * 3 if bots is None else [b.strip() for b in bots.split(",")]
    if len(specs) == 1:
        specs *= 3  # one bot for all three seats
    if len(specs) != 3 or not all(specs):
        raise fail(f"--bots needs one bot, or three separated by commas, not {bots!r}", 2)
    try:
        specs = [check_bot_spec(spec) for spec in specs]  # nothing compiles yet
        preset = Rules.preset(rules or "classic")
    except (BotSpecError, RulesError) as error:
        raise fail(str(error), 2) from None
    chosen = None if lang is None else language(lang)
    settings = ServerSettings(
        db=database,
        language=chosen or "en",
        bot_pause=bot_pause,
    )
    try:
        run_local(
            settings,
            specs,
            preset,
            open_browser=not no_browser,
            new=new,
            language=chosen,
            hints=hints,
            echo=typer.echo,
            port=port,
            lan=lan,
            asked=[flag for flag, given in (("--bots", bots), ("--rules", rules)) if given],
        )
    except ServeError as error:
        raise fail(str(error), 1) from None
