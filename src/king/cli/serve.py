"""``king serve``: tables in the browser for people to join with an invite link, its
options given on the command line or in a TOML file (``--config``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from king.cli.common import fail, language
from king.cli.options import bot_pause_option, lang_option, port_option
from king.server.config import ServerSettings

__all__ = ["serve_command"]


#: The server's default settings, whose values ``king serve``'s options show.
_SERVE = ServerSettings(db=Path("king.db"))


def _serve_config(ctx: typer.Context, _: Any, path: Path | None) -> Path | None:
    """Read ``--config FILE`` before the other options: its values become their
    defaults (a flag on the command line still wins), each checked as its flag's."""
    from king.server.config_file import ConfigFileError, read_config, readable_by_others

    if path is None or ctx.resilient_parsing:
        return path
    try:
        options = read_config(path)
    except ConfigFileError as error:
        raise fail(str(error), 2) from None
    params = {p.name: p for p in ctx.command.params if p.name and p.name != "config"}
    defaults: dict[str, Any] = {}
    for name, value in options.items():
        param = params.get(name)
        if param is None:
            known = ", ".join(sorted(n.replace("_", "-") for n in params))
            raise fail(f"{path}: {name.replace('_', '-')} is not an option of serve ({known})", 2)
        try:
            defaults[name] = param.process_value(ctx, value)
        except typer.BadParameter as error:
            raise fail(
                f"{path}: {name.replace('_', '-')} = {value!r}: {error.message}", 2
            ) from None
    if "db" in defaults and "@" in str(defaults["db"]) and readable_by_others(path):
        typer.echo(f"king: warning: {path} holds a password and others may read it", err=True)
    ctx.default_map = {**(ctx.default_map or {}), **defaults}
    return path


def serve_command(
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            metavar="FILE",
            envvar="KING_CONFIG",
            is_eager=True,
            callback=_serve_config,
            help="A TOML file whose [serve] table gives these options by name "
            "(bot-pause = 0.7); a flag given here wins over the file.",
        ),
    ] = None,
    host: Annotated[
        str,
        typer.Option(
            "--host", metavar="ADDRESS", help="The address to listen on (0.0.0.0: every one)."
        ),
    ] = "127.0.0.1",
    port: Annotated[int, port_option(0, "The port (0-65535).")] = 8000,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            metavar="FILE|URL",
            help="The SQLite file of the tables (default: the user data folder), or a "
            "PostgreSQL address: postgresql://USER:PASSWORD@HOST:PORT/NAME.",
        ),
    ] = None,
    bot_pause: Annotated[
        float, bot_pause_option("Seconds a bot waits before it moves (0-10).")
    ] = 0.7,
    away_after: Annotated[
        float,
        typer.Option(
            "--away-after",
            metavar="SECONDS",
            min=0,
            max=86400,
            help="Seconds before a bot plays for a person who has left (while others wait).",
        ),
    ] = 45.0,
    stand_in: Annotated[
        str,
        typer.Option("--stand-in", metavar="BOT", help="The bot that plays for an absent person."),
    ] = "rule",
    lang: Annotated[
        str | None,
        lang_option(
            "The page's language for browsers that ask for none of en, tr, es, fr, th "
            "(default: English)."
        ),
    ] = None,
    max_bot_time: Annotated[
        float,
        typer.Option(
            "--max-bot-time",
            metavar="SECONDS",
            min=0.01,
            help="The most thinking time per move a table's bot may ask for.",
        ),
    ] = _SERVE.max_bot_seconds or 2.0,
    max_bot_threads: Annotated[
        int,
        typer.Option(
            "--max-bot-threads",
            metavar="N",
            min=1,
            help="The most threads a table's bot may ask for.",
        ),
    ] = _SERVE.max_bot_threads or 2,
    max_bot_worlds: Annotated[
        int,
        typer.Option(
            "--max-bot-worlds",
            metavar="N",
            min=1,
            help="The most sampled deals per move a table's bot may ask for.",
        ),
    ] = _SERVE.max_bot_worlds or 4000,
    max_bot_exact: Annotated[
        int,
        typer.Option(
            "--max-bot-exact",
            metavar="TRICKS",
            min=0,
            help="The most tricks a table's bot may search exactly to the end.",
        ),
    ] = _SERVE.max_bot_exact or 6,
    bot_threads: Annotated[
        int,
        typer.Option(
            "--bot-threads",
            metavar="N",
            min=1,
            max=64,
            help="Threads that think for every table's bots, shared fairly.",
        ),
    ] = _SERVE.bot_threads,
    max_tables: Annotated[
        int,
        typer.Option("--max-tables", metavar="N", min=1, help="The most open tables in all."),
    ] = _SERVE.max_tables,
    tables_per_address: Annotated[
        int,
        typer.Option(
            "--tables-per-address",
            metavar="N",
            min=1,
            help="The most open tables one client address may create.",
        ),
    ] = _SERVE.tables_per_address or 8,
    idle_close: Annotated[
        float,
        typer.Option(
            "--idle-close",
            metavar="SECONDS",
            min=0,
            help="Close an unfinished table after this long without a move or a visitor "
            "(its record is kept; 0: never).",
        ),
    ] = _SERVE.idle_close or 7200.0,
    redis: Annotated[
        str | None,
        typer.Option(
            "--redis",
            metavar="URL",
            help="Share the tables with other king serve processes on the same PostgreSQL "
            "--db, meeting in this Redis (redis://HOST:PORT/N).",
        ),
    ] = None,
    lease: Annotated[
        float,
        typer.Option(
            "--lease",
            metavar="SECONDS",
            min=0.2,
            max=60,
            help="With --redis: how long a table waits for a new owner when its process "
            "dies (0.2-60).",
        ),
    ] = _SERVE.lease_seconds,
    logins_per_name: Annotated[
        int,
        typer.Option(
            "--logins-per-name",
            metavar="N",
            min=1,
            help="Failed logins allowed per account name in 15 minutes.",
        ),
    ] = _SERVE.logins_per_name,
    logins_per_address: Annotated[
        int,
        typer.Option(
            "--logins-per-address",
            metavar="N",
            min=1,
            help="Failed logins (and registrations) allowed per client address in 15 minutes.",
        ),
    ] = _SERVE.logins_per_address,
    guests_per_address: Annotated[
        int,
        typer.Option(
            "--guests-per-address",
            metavar="N",
            min=1,
            help="Guest accounts one client address may make in 15 minutes.",
        ),
    ] = _SERVE.guests_per_address,
    rated_seats_per_address: Annotated[
        int,
        typer.Option(
            "--rated-seats-per-address",
            metavar="N",
            min=0,
            help="Seats one client address may take at one rated table (0: no limit; "
            "raise it for people who share an address).",
        ),
    ] = _SERVE.rated_seats_per_address or 0,
    clock_reserve: Annotated[
        float,
        typer.Option(
            "--clock-reserve",
            metavar="SECONDS",
            min=0,
            max=86400,
            help="Rated tables' move clock: each person's reserve for the whole game.",
        ),
    ] = _SERVE.clock_reserve,
    clock_per_move: Annotated[
        float,
        typer.Option(
            "--clock-per-move",
            metavar="SECONDS",
            min=1,
            max=3600,
            help="Rated tables' move clock: the free seconds of every turn (then the "
            "reserve runs; then the stand-in moves).",
        ),
    ] = _SERVE.clock_per_move,
    public_url: Annotated[
        str | None,
        typer.Option(
            "--public-url",
            metavar="URL",
            help="The address people reach this server at (https://king.example.org behind "
            "a reverse proxy): invitation links use it.",
        ),
    ] = None,
    log_level: Annotated[
        str,
        typer.Option(
            "--log-level",
            metavar="LEVEL",
            help="The least grave of the server's own log lines shown: debug, info, "
            "warning or error (the access log is apart: --no-access-log).",
        ),
    ] = "warning",
    access_log: Annotated[
        bool,
        typer.Option(
            "--access-log/--no-access-log",
            help="Log one line per HTTP request: time, address, method, path, status and "
            "how long it took.",
        ),
    ] = True,
    metrics: Annotated[
        str | None,
        typer.Option(
            "--metrics",
            metavar="ADDRESS:PORT",
            help="Serve this process's metrics for Prometheus on a listener of their own "
            "(127.0.0.1:9100; default: none), apart from the public port.",
        ),
    ] = None,
) -> None:
    """Serve tables in the browser for people to join with an invite link."""
    from king.bots import BotSpecError
    from king.server.config import ServerSettings
    from king.server.engine.players import check_bot_spec
    from king.server.logs import LOG_LEVELS
    from king.server.run import ServeError, serve
    from king.server.store.event_log import default_db_path, parse_database

    try:
        database = default_db_path() if db is None else parse_database(db)
    except ValueError as error:
        raise fail(str(error), 2) from None
    if log_level.lower() not in LOG_LEVELS:
        raise fail(f"--log-level takes {', '.join(LOG_LEVELS)}, not {log_level!r}", 2)
    try:
        stand_in = check_bot_spec(stand_in)
    except BotSpecError as error:
        raise fail(f"--stand-in: {error}", 2) from None
    try:
        settings = ServerSettings(
            db=database,
            bot_pause=bot_pause,
            away_after=away_after,
            stand_in=stand_in,
            language="en" if lang is None else language(lang),
            bot_threads=bot_threads,
            max_tables=max_tables,
            max_bot_seconds=max_bot_time,
            max_bot_threads=max_bot_threads,
            max_bot_worlds=max_bot_worlds,
            max_bot_exact=max_bot_exact,
            tables_per_address=tables_per_address,
            idle_close=idle_close or None,
            redis=redis,
            lease_seconds=lease,
            logins_per_name=logins_per_name,
            logins_per_address=logins_per_address,
            guests_per_address=guests_per_address,
            rated_seats_per_address=rated_seats_per_address or None,
            clock_reserve=clock_reserve,
            clock_per_move=clock_per_move,
            public_url=public_url,
            access_log=access_log,
            metrics=metrics,
        )
    except ValueError as error:
        raise fail(str(error), 2) from None
    try:
        serve(settings, host, port, echo=typer.echo, log_level=log_level.lower())
    except ServeError as error:
        raise fail(str(error), 1) from None
