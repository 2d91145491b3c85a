"""The ``king`` command line.

Every command catches the errors a user can cause and prints one clear line: no
traceback ever reaches the user.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import typer

from king import __version__
from king.bots.base import bot_names
from king.record import RecordError, ReplayReport, replay
from king.rules import Rules, RulesError
from king.server.config import ServerSettings

if TYPE_CHECKING:
    from king.arena import ArenaConfig, PlayResult
    from king.server.store.database import CopyReport

#: What a mistake on the command line raises: Typer's own (it may bundle Click) and,
#: where Click is installed, Click's.
_USAGE_ERRORS: tuple[type[Exception], ...] = (typer.TyperException,)
try:
    import click

    _USAGE_ERRORS += (click.ClickException,)
except ImportError:  # pragma: no cover - Typer without Click
    pass

app = typer.Typer(
    name="king",
    help="King (Turkish King, Rıfkı): the rules, computer players and tools.",
    no_args_is_help=False,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
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
    bots: Annotated[
        str | None,
        typer.Option(
            "--bots",
            metavar="BOTS",
            help=f"Without a command: the three computer players, comma-separated, or one "
            f"for all three: {bot_names()} (default: the level chosen in the page, Medium "
            "until then).",
        ),
    ] = None,
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules",
            metavar="NAME",
            help="Without a command: classic, pagat or turkish (default: classic).",
        ),
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option(
            "--db", metavar="FILE", help="Without a command: the SQLite file of the games."
        ),
    ] = None,
    new: Annotated[
        bool, typer.Option("--new", help="Start a new game instead of resuming the last one.")
    ] = False,
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
        typer.Option(
            "--lang",
            metavar="LANG",
            help="Without a command: the page's language: en, tr, es, fr or th "
            "(default: the browser's).",
        ),
    ] = None,
    bot_pause: Annotated[
        float,
        typer.Option(
            "--bot-pause",
            metavar="SECONDS",
            min=0,
            max=10,
            help="Without a command: the computer players' pause before each move (the "
            "page's speed setting scales it).",
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
        typer.Option(
            "--port",
            metavar="PORT",
            min=1,
            max=65535,
            help="Without a command: the port (default 8765, or a free one when it is taken).",
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
        raise _fail(f"--bots needs one bot, or three separated by commas, not {bots!r}", 2)
    try:
        specs = [check_bot_spec(spec) for spec in specs]  # nothing compiles yet
        preset = Rules.preset(rules or "classic")
    except (BotSpecError, RulesError) as error:
        raise _fail(str(error), 2) from None
    language = None if lang is None else _language(lang)
    settings = ServerSettings(
        db=database,
        language=language or "en",
        bot_pause=bot_pause,
    )
    try:
        run_local(
            settings,
            specs,
            preset,
            open_browser=not no_browser,
            new=new,
            language=language,
            hints=hints,
            echo=typer.echo,
            port=port,
            lan=lan,
            asked=[flag for flag, given in (("--bots", bots), ("--rules", rules)) if given],
        )
    except ServeError as error:
        raise _fail(str(error), 1) from None


# -- king serve ------------------------------------------------------------------------

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
        raise _fail(str(error), 2) from None
    params = {p.name: p for p in ctx.command.params if p.name and p.name != "config"}
    defaults: dict[str, Any] = {}
    for name, value in options.items():
        param = params.get(name)
        if param is None:
            known = ", ".join(sorted(n.replace("_", "-") for n in params))
            raise _fail(f"{path}: {name.replace('_', '-')} is not an option of serve ({known})", 2)
        try:
            defaults[name] = param.process_value(ctx, value)
        except typer.BadParameter as error:
            raise _fail(
                f"{path}: {name.replace('_', '-')} = {value!r}: {error.message}", 2
            ) from None
    if "db" in defaults and "@" in str(defaults["db"]) and readable_by_others(path):
        typer.echo(f"king: warning: {path} holds a password and others may read it", err=True)
    ctx.default_map = {**(ctx.default_map or {}), **defaults}
    return path


@app.command("serve")
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
    port: Annotated[
        int, typer.Option("--port", metavar="PORT", min=0, max=65535, help="The port (0-65535).")
    ] = 8000,
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
        float,
        typer.Option(
            "--bot-pause",
            metavar="SECONDS",
            min=0,
            max=10,
            help="Seconds a bot waits before it moves (0-10).",
        ),
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
        typer.Option(
            "--lang",
            metavar="LANG",
            help="The page's language for browsers that ask for none of en, tr, es, fr, th "
            "(default: English).",
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
        raise _fail(str(error), 2) from None
    if log_level.lower() not in LOG_LEVELS:
        raise _fail(f"--log-level takes {', '.join(LOG_LEVELS)}, not {log_level!r}", 2)
    try:
        stand_in = check_bot_spec(stand_in)
    except BotSpecError as error:
        raise _fail(f"--stand-in: {error}", 2) from None
    try:
        settings = ServerSettings(
            db=database,
            bot_pause=bot_pause,
            away_after=away_after,
            stand_in=stand_in,
            language="en" if lang is None else _language(lang),
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
        raise _fail(str(error), 2) from None
    try:
        serve(settings, host, port, echo=typer.echo, log_level=log_level.lower())
    except ServeError as error:
        raise _fail(str(error), 1) from None


# -- king play -------------------------------------------------------------------------


@app.command("play")
def play_command(
    bots: Annotated[
        str | None,
        typer.Option(
            "--bots",
            metavar="BOTS",
            help=f"The three computer players, comma-separated, in seat order after yours: "
            f"{bot_names()}, or cmd:COMMAND (default: the strongest bot in every seat).",
        ),
    ] = None,
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules", metavar="NAME", help=RULES_HELP.removesuffix(".") + " (default: classic)."
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option("--seed", metavar="N", min=0, max=SEED_MAX, help="The seed of the deals."),
    ] = None,
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
    new: Annotated[
        bool,
        typer.Option("--new", help="Start a new game instead of going on with the last one."),
    ] = False,
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
    force: Annotated[
        bool,
        typer.Option("--force", help="Let --save replace a file that is not a game record."),
    ] = False,
    lang: Annotated[str | None, typer.Option("--lang", metavar="LANG", help=LANG_HELP)] = None,
) -> None:
    """Play a whole game in the terminal against three computer players.

    The last unfinished game goes on by itself (as with king in the browser); --new
    starts another, --resume FILE goes on with the game saved in FILE.
    """
    # Without --lang: the resumed game's language, else the locale's (run_play decides).
    language = None if lang is None else _language(lang)
    from king.bots import strongest_bot

    specs = _bot_specs(",".join([strongest_bot()] * 3) if bots is None else bots, 3)
    preset = _preset(rules or "classic")
    if new and resume is not None:
        raise _fail("--new starts a new game and --resume goes on with a saved one: give one", 2)
    if resume is not None and not resume.is_file():
        raise _fail(f"{resume}: no such file to resume", 2)
    if save is not None:
        _check_overwrite(save, force, "--save")
    from king.tui.app import PlayError, run_play

    given = (("--bots", bots), ("--rules", rules), ("--seed", seed), ("--seat", seat))
    try:
        run_play(
            bots=specs,
            rules=preset,
            seed=seed,
            seat=0 if seat is None else seat,
            resume=resume,
            save=save,
            lang=language,
            new=new,
            asked=[flag for flag, value in (*given, ("--save", save)) if value is not None],
        )
    except PlayError as error:
        raise _fail(str(error), 2) from None


# -- king replay -----------------------------------------------------------------------


def _fail(message: str, code: int) -> typer.Exit:
    typer.echo(f"king: {message}", err=True)
    return typer.Exit(code)


def _language(value: str | None) -> str:
    """The language chosen with ``--lang``, or the terminal locale's when none is given;
    an unknown one is refused with the choices (exit status 2)."""
    from king.i18n import UnknownLanguageError, detect_language, parse_language

    if value is None:
        return detect_language()
    try:
        return parse_language(value)
    except UnknownLanguageError as error:
        raise _fail(f"--lang: {error}", 2) from None


#: Help for every ``--lang`` option.
LANG_HELP = "The language: en, tr, es, fr or th (default: the locale's, else English)."
#: Help for every ``--rules`` option.
RULES_HELP = "The rules: classic, pagat or turkish."
#: The largest seed accepted (a seed is stored as a 64-bit integer).
SEED_MAX = 2**63 - 1
#: ``king arena`` plays this many single deals unless told otherwise.
DEFAULT_DEALS = 100


def _check_overwrite(path: Path, force: bool, flag: str) -> None:
    """Refuse to write over a file that is not a game record of ours (or JSON lines of
    them) unless ``--force`` says so: a mistyped path must not eat a document."""
    from king.record import is_record_file

    if path.is_dir():
        raise _fail(f"{flag} {path}: is a folder, not a file", 2)
    if path.exists() and not force and not is_record_file(path):
        raise _fail(
            f"{flag} {path}: the file exists and is not a game record; "
            "give --force to replace it, or choose another file",
            2,
        )


def _bot_specs(text: str, count: int) -> list[str]:
    """``count`` comma-separated bot specifications, each checked by building the bot."""
    from king.bots import BotSpecError

    specs = [b.strip() for b in text.split(",")]
    if len(specs) != count or not all(specs):
        raise _fail(f"--bots needs {count} bots separated by commas, not {text!r}", 2)
    try:
        _with_notice(lambda: _build_each(specs), specs)
    except BotSpecError as error:
        raise _fail(str(error), 2) from None
    return specs


def _build_each(specs: list[str]) -> None:
    """Build (and close) each bot once: checks its options, compiles what it needs."""
    from king.bots import make_bot

    for spec in dict.fromkeys(specs):
        make_bot(spec).close()


T = TypeVar("T")


def _with_notice(work: Callable[[], T], specs: Sequence[str] = ()) -> T:
    """Run ``work`` (building the bots in ``specs``), saying so first when it compiles
    the search bot's kernels: once after an install, 20 s to a minute of silence
    otherwise.  Exceptions reach the caller as if ``work`` ran here."""
    compiling: bool | None = False
    if any(_is_search(spec) for spec in specs):
        from king.bots.search import needs_compiling

        compiling = needs_compiling()
    if compiling:
        typer.echo(
            "king: compiling the search bot for this machine, once after each install "
            "(20 s to a minute)…",
            err=True,
        )
        return work()
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as error:  # re-raised in the caller's thread
            failure.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(3.0)
    if worker.is_alive():  # numba could not tell us, or the machine is slow: say why
        typer.echo("king: preparing the computer players…", err=True)
        worker.join()
    if failure:
        raise failure[0]
    return outcome[0]


def _is_search(spec: str) -> bool:
    """Whether ``spec`` plays with the search bot (itself, or a level of it)."""
    from king.bots import BotSpecError, parse_spec
    from king.bots.levels import level_of

    try:
        name = parse_spec(spec)[0]
    except BotSpecError:
        return False
    level = level_of(name)
    return name == "search" or (level is not None and level.compiled)


def _preset(name: str) -> Rules:
    """The rules preset named on the command line."""
    try:
        return Rules.preset(name)
    except RulesError as error:
        raise _fail(str(error), 2) from None


def _read_records(path: Path) -> list[ReplayReport]:
    """Replay the record in ``path`` ('-' for standard input); a file of JSON lines
    (as ``king arena --out`` writes) gives one report per line."""
    if str(path) == "-":
        data = sys.stdin.buffer.read()
    else:
        if not path.exists():
            raise _fail(f"{path}: no such file", 2)
        if path.is_dir():
            raise _fail(f"{path}: is a folder, not a record file", 2)
        try:
            data = path.read_bytes()
        except OSError as error:
            raise _fail(f"{path}: cannot read it: {error.strerror}", 2) from None
    try:
        return [replay(data)]
    except RecordError as error:
        lines = [line for line in data.splitlines() if line.strip()]
        if len(lines) < 2 or "Extra data" not in str(error):
            raise _fail(f"{path}: {error}", 2) from None
    reports = []
    for number, line in enumerate(lines, start=1):
        try:
            reports.append(replay(line))
        except RecordError as error:
            raise _fail(f"{path}, line {number}: {error}", 2) from None
    return reports


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


@app.command("replay")
def replay_command(
    file: Annotated[
        Path,
        typer.Argument(help="A king-record/1 file, or JSON lines of them ('-' for stdin)."),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as JSON (docs/record.md).")
    ] = False,
) -> None:
    """Check a game record and show its deals, points and totals.

    Exit status: 0 valid, 1 invalid (the first fault is located), 2 not a record.
    """
    reports = _read_records(file)
    for number, report in enumerate(reports):
        if as_json:
            indent = 1 if len(reports) == 1 else None
            typer.echo(json.dumps(report.to_json(), indent=indent, ensure_ascii=False))
        else:
            if len(reports) > 1:
                typer.echo(f"{'' if number == 0 else chr(10)}record {number + 1}:")
            typer.echo(_table(report))
    raise typer.Exit(0 if all(r.valid for r in reports) else 1)


# -- king analyze ----------------------------------------------------------------------


@app.command("analyze")
def analyze_command(
    file: Annotated[Path, typer.Argument(help="A king-record/1 file ('-' for stdin).")],
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print the record with its analysis section (docs/record.md)."),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="FILE", help="Also write the annotated record here."),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Let --out replace a file that is not a game record.")
    ] = False,
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
    seed: Annotated[
        int, typer.Option("--seed", metavar="N", min=0, max=SEED_MAX, help="The engine's seed.")
    ] = 0,
) -> None:
    """Evaluate every decision of a game from its player's view: each choice's value, the
    loss of the one made, and the points each player lost to clear mistakes."""
    from king.bots import BotSpecError
    from king.bots.analysis import AnalysisOptions, analyze
    from king.record import InvalidRecordError, to_record

    if out is not None:
        _check_overwrite(out, force, "--out")
    reports = _read_records(file)
    if len(reports) != 1:
        raise _fail(f"{file}: give one record, not {len(reports)}", 2)
    report = reports[0]
    if not report.valid:
        raise _fail(f"{file}: the record is not valid: {report.fault}", 1)
    source = report.game
    names = list(report.players) if report.players else None
    record = to_record(source, names)
    progress = _Progress(1, "decisions")

    def step(done: int, total: int) -> None:
        progress.total = total
        progress.update(done)

    try:
        annotated = analyze(record, AnalysisOptions(bot, seconds, seed), step)
    except (BotSpecError, InvalidRecordError) as error:
        raise _fail(str(error), 2) from None
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


# -- king arena ------------------------------------------------------------------------


class _Progress:
    """A progress bar on standard error (a line every 10% when it is not a terminal)."""

    def __init__(self, total: int, unit: str) -> None:
        self.total = total
        self.unit = unit
        self.tty = sys.stderr.isatty()
        self.last_tenth = -1

    def update(self, done: int) -> None:
        if self.tty:
            width = 30
            filled = width * done // self.total
            bar = "#" * filled + "." * (width - filled)
            sys.stderr.write(f"\r[{bar}] {done}/{self.total} {self.unit}")
            if done == self.total:
                sys.stderr.write("\n")
            sys.stderr.flush()
            return
        tenth = 10 * done // self.total
        if tenth != self.last_tenth:
            self.last_tenth = tenth
            sys.stderr.write(f"{done}/{self.total} {self.unit}\n")
            sys.stderr.flush()


@app.command("arena")
def arena_command(
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            metavar="BOTS",
            help=f"Four bots, comma-separated, in seat order: {bot_names()}, or "
            "cmd:COMMAND for an external program (docs/bot-protocol.md).",
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
    seed: Annotated[
        int, typer.Option("--seed", metavar="N", min=0, max=SEED_MAX, help="The seed of the deals.")
    ] = 1,
    jobs: Annotated[
        int, typer.Option("--jobs", metavar="N", min=1, max=256, help="Processes (1-256).")
    ] = 1,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            metavar="auto|ADDRESS",
            help='Run the sets as tasks on a Ray cluster (pip install "king[cluster]"): '
            "auto for the one this machine joined, or its address; the figures are those "
            "of --jobs.",
        ),
    ] = None,
    rules: Annotated[str, typer.Option("--rules", metavar="NAME", help=RULES_HELP)] = "classic",
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="FILE", help="Write every game or deal as JSON lines."),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Let --out replace a file that is not game records.")
    ] = False,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Go on from the games already in --out (a run of the same match that "
            "stopped, or a shorter one): whole sets are counted as they were, the rest "
            "played; the figures are those of one uninterrupted run.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
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
    from king.arena import ArenaConfig, ClusterError, run_arena

    if resume and out is None:
        raise _fail("--resume goes on from the games in --out FILE: give --out", 2)
    if games is not None and deals is not None:
        raise _fail("give --games or --deals, not both", 2)
    if ray is not None and jobs != 1:
        raise _fail("give --ray or --jobs, not both (the cluster decides how many run)", 2)
    if ray is not None and not ray.strip():
        raise _fail("--ray takes auto or a Ray cluster's address", 2)
    if out is not None and not resume:
        _check_overwrite(out, force, "--out")
    specs = _bot_specs(bots, 4)
    preset = _preset(rules)
    mode: Literal["games", "deals"] = "games" if games is not None else "deals"
    count = games if games is not None else (deals if deals is not None else DEFAULT_DEALS)
    config = ArenaConfig(
        (specs[0], specs[1], specs[2], specs[3]),
        mode,
        count,
        seed,
        preset,
        jobs,
        bot_timeout,
        ray,
    )
    done = _played_before(out, config) if resume and out is not None else {}
    sink = None
    if out is not None:
        try:
            sink = out.open("a" if done else "w", encoding="utf-8")
        except OSError as error:
            raise _fail(f"cannot write {out}: {error.strerror}", 2) from None
    progress = _Progress(count, mode)
    if done:
        progress.update(len(done))

    def on_set(index: int, plays: list[PlayResult]) -> None:
        if sink is not None:
            for play in plays:
                sink.write(json.dumps(play.record, ensure_ascii=False) + "\n")
            sink.flush()
        progress.update(index + 1)

    try:
        report = run_arena(config, on_set, done)
    except ClusterError as error:
        raise _fail(str(error), 1) from None
    finally:
        if sink is not None:
            sink.close()
    if as_json:
        typer.echo(json.dumps(report.to_json()))
    else:
        typer.echo(report.table())
    if report.abandoned:
        played = count * 4
        failures = dict.fromkeys(f"bot {a['bot']!r} {a['what']}" for a in report.abandoned)
        reasons = "; ".join(list(failures)[:3]) + ("; …" if len(failures) > 3 else "")
        raise _fail(
            f"{len(report.abandoned)} of {played} {mode} were abandoned, so the figures are "
            f"not a fair comparison: {reasons}",
            1,
        )


def _played_before(out: Path, config: ArenaConfig) -> dict[int, list[PlayResult]]:
    """The whole sets an earlier run left in ``out``, which is rewritten to hold just
    them (atomically: a set cut short, or a game abandoned, is played again)."""
    from king.arena import ResumeError, played_sets

    if not out.exists():
        return {}
    if out.is_dir():
        raise _fail(f"--out {out}: is a folder, not a file", 2)
    try:
        lines = out.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise _fail(f"--resume {out}: cannot be read: {error}", 2) from None
    try:
        done = played_sets(lines, config)
    except ResumeError as error:
        raise _fail(f"--resume {out}: {error}; the file is left as it was", 2) from None
    kept = out.with_name(f".{out.name}.resume")
    try:
        with kept.open("w", encoding="utf-8") as sink:
            for index in sorted(done):
                for play in done[index]:
                    sink.write(json.dumps(play.record, ensure_ascii=False) + "\n")
        os.replace(kept, out)
    except OSError as error:
        kept.unlink(missing_ok=True)
        raise _fail(f"cannot write {out}: {error.strerror}", 2) from None
    unit = "games" if config.mode == "games" else "deals"
    typer.echo(f"going on: {len(done)} of {config.count} {unit} were played in {out}", err=True)
    return done


# -- king train ------------------------------------------------------------------------


@app.command("train")
def train_command(
    out: Annotated[
        Path, typer.Option("--out", metavar="FILE", help="Where to write the model (.npz).")
    ] = Path("net.npz"),
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
    seed: Annotated[
        int, typer.Option("--seed", metavar="N", min=0, max=SEED_MAX, help="The seed of it all.")
    ] = 0,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            metavar="auto|ADDRESS",
            help="Make the labelled positions as tasks on a Ray cluster, one per chunk "
            "(the same data as in this process).",
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
    force: Annotated[
        bool, typer.Option("--force", help="Let --out replace a file that is not a model.")
    ] = False,
) -> None:
    """Train the learned policy (the net bot, and the search bot's rollouts) from
    self-play positions labelled by the search bot; print how it does on held-out ones."""
    from functools import partial

    from king.bots.net import ModelFileError, NetModel
    from king.cluster import ClusterError, check_address, ray_map
    from king.training import (
        Declarations,
        Figures,
        Positions,
        calibrate_threshold,
        fit,
        fit_declarations,
        generate,
        generate_declarations,
        inference_loss,
        measure,
        measure_declarations,
    )

    try:
        sizes = tuple(int(part) for part in hidden.split(","))
    except ValueError:
        sizes = ()
    if objective not in ("gain", "decision"):
        raise _fail(f"--objective is gain or decision, not {objective!r}", 2)
    if len(sizes) != 2 or not all(1 <= size <= 4096 for size in sizes):
        raise _fail(f"--hidden is two sizes 1-4096 such as 128,64, not {hidden!r}", 2)
    if out.exists() and not force:
        try:
            NetModel.load(out)
        except ModelFileError:
            raise _fail(f"{out} exists and is not a model: use --force to replace it", 2) from None
    if data is not None and data.exists():
        try:
            labelled = Positions.load(data)
        except (OSError, ValueError, KeyError) as error:
            raise _fail(f"cannot read positions from {data}: {error}", 2) from None
        typer.echo(f"{len(labelled):,} positions read from {data}", err=True)
    else:
        progress = _Progress(positions, "positions")
        if ray is not None:
            try:
                check_address(ray)
            except ClusterError as error:
                raise _fail(str(error), 1) from None
        try:
            labelled = _with_notice(
                lambda: generate(
                    positions,
                    seed=seed,
                    budget=budget,
                    progress=lambda done: (
                        progress.update(done) if done % 100 == 0 or done == positions else None
                    ),
                    map_chunks=None if ray is None else partial(ray_map, address=ray),
                ),
                ["search"],
            )
        except ClusterError as error:
            raise _fail(str(error), 1) from None
        if data is not None:
            labelled.save(data)
    declared: Declarations | None = None
    declare_data = data.with_name(data.stem + "-declarations.npz") if data is not None else None
    if declare_data is not None and declare_data.exists():
        try:
            declared = Declarations.load(declare_data)
        except (OSError, ValueError, KeyError) as error:
            raise _fail(f"cannot read declarations from {declare_data}: {error}", 2) from None
        typer.echo(f"{len(declared):,} declarations read from {declare_data}", err=True)
    elif declarations:
        progress = _Progress(declarations, "declarations")
        declared = generate_declarations(
            declarations,
            seed=seed,
            progress=lambda done: (
                progress.update(done) if done % 100 == 0 or done == declarations else None
            ),
        )
        if declare_data is not None:
            declared.save(declare_data)
    train_set, held = labelled.split(0.1, seed)
    # Half the held-out positions choose the gain threshold, the other half measure.
    tuning, held_out = held.split(0.5, seed + 1)

    def report(epoch: int, figures: Figures | None) -> None:
        if figures is not None:
            typer.echo(f"epoch {epoch:>3}: {figures.line()}", err=True)

    model = fit(
        train_set,
        hidden=(sizes[0], sizes[1]),
        epochs=epochs,
        seed=seed,
        objective=objective,
        held_out=held_out if objective != "gain" else None,
        progress=report,
    )
    threshold = None
    if objective == "gain":
        threshold, model = calibrate_threshold(model, tuning)
        typer.echo(f"gain threshold: {threshold} (x 5 points)", err=True)
    figures = measure(model, held_out)
    declare_net = None
    if declared is not None:
        declare_train, declare_held = declared.split(0.1, seed)
        declare_net = fit_declarations(declare_train, seed=seed)
        declare_figures = measure_declarations(declare_net, declare_held)
        typer.echo(f"declarations held out: {declare_figures.line()}")
    about: dict[str, Any] = {
        "trained": {
            "positions": len(labelled),
            "held_out": len(held_out),
            "budget": budget,
            "epochs": epochs,
            "hidden": list(sizes),
            "seed": seed,
            "objective": objective,
            "gain_threshold": threshold,
            "data": "single deals of self-play, the ten declarations in turn, 10% pagat "
            "and 10% turkish rules; each decision labelled by the search bot's rollout "
            "values from that seat's view (and their standard errors against the rule "
            "card); the search bot's card played (margin 2), a random one 5% of the time",
            "target": (
                "each legal card's value less the rule card's, in steps of 5 points, "
                "clipped to 20 (mean squared error); the rule card's logit raised by the "
                "threshold that makes the held-out tuning half's cards worth most"
                if objective == "gain"
                else "the search bot's card (margin 2), label smoothing 0.1"
            ),
        },
        "held_out": {
            "positions": len(held_out),
            "loss": round(figures.loss, 4),
            "search_card": round(figures.agreement, 4),
            "regret_points": round(figures.regret, 3),
            "rule_is_search_card": round(figures.rule_agreement, 4),
            "rule_regret_points": round(figures.rule_regret, 3),
        },
    }
    if inference_deals:
        typer.echo("measuring inference …", err=True)
        loss = inference_loss(model, deals=inference_deals, seed=seed + 1)
        about["inference"] = {
            "deals": inference_deals,
            "player": "search:time=0.02",
            "by_trick": {
                str(t): {
                    "uniform": round(u, 4),
                    "rule": round(r, 4),
                    "net": round(n, 4),
                    "rule_alike": round(a, 4),
                }
                for t, u, r, n, a in zip(
                    loss.tricks, loss.uniform, loss.rule, loss.net, loss.alike, strict=True
                )
            },
        }
        typer.echo(loss.table())
    if declared is not None:
        about["declarations"] = {
            "labelled": len(declared),
            "held_out": len(declare_held),
            "data": "whole games of the rule bot's card play; each declaration with a choice "
            "labelled by the search bot's evaluation of every allowed one; the search bot's "
            "made, a random one 10% of the time",
            "search_declaration": round(declare_figures.agreement, 4),
            "regret_points": round(declare_figures.regret, 3),
            "rule_is_search_declaration": round(declare_figures.rule_agreement, 4),
            "rule_regret_points": round(declare_figures.rule_regret, 3),
        }
    NetModel.of(list(model.arrays), about, declare_net).save(out)
    typer.echo(f"held out: {figures.line()}")
    typer.echo(f"model written to {out}")


# -- king bench ------------------------------------------------------------------------

BENCHMARKS = ("engine", "search", "solver", "load", "cluster", "env", "offline")


def _benchmark_module(name: str) -> ModuleType:
    """Import ``benchmarks/NAME.py`` from the package (wheel) or the source checkout; the
    folder is a package, so a benchmark imports its neighbours (``from .engine import``)."""
    here = Path(__file__).resolve().parent
    if (here / "_benchmarks" / f"{name}.py").is_file():
        return importlib.import_module(f"king._benchmarks.{name}")
    folder = here.parent.parent / "benchmarks"
    if not (folder / f"{name}.py").is_file():
        raise _fail(f"the benchmark {name!r} is not installed with this copy of king", 2)
    if "king_benchmarks" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "king_benchmarks", folder / "__init__.py", submodule_search_locations=[str(folder)]
        )
        if spec is None or spec.loader is None:
            raise _fail(f"cannot load the benchmarks from {folder}", 2)
        package = importlib.util.module_from_spec(spec)
        sys.modules["king_benchmarks"] = package  # dataclasses and pickling look it up
        spec.loader.exec_module(package)
    return importlib.import_module(f"king_benchmarks.{name}")


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
    """Measure speed: the engine, the search bot and its kernels, the server under load
    and the RL environment, each as a ratio against a baseline run alongside it."""
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
    if not results:
        raise _fail("no figures: the benchmarks chosen could not run here", 1)
    width = max(len(k) for k in results)
    for key, value in results.items():
        typer.echo(f"{key:<{width}}  {value:>12,}")


db_app = typer.Typer(
    name="db",
    help="The server's database: copy its games from one database to another.",
    no_args_is_help=True,
)
app.add_typer(db_app)


@db_app.command("copy")
def db_copy_command(
    source: Annotated[
        str, typer.Argument(metavar="FROM", help="The database to copy from: a file or URL.")
    ],
    target: Annotated[
        str, typer.Argument(metavar="TO", help="The database to copy into: a file or URL.")
    ],
    skip_different: Annotated[
        bool,
        typer.Option(
            "--skip-different",
            help="Copy the rest when some tables hold different events in FROM and TO, "
            "leaving those as TO has them (without it nothing is copied).",
        ),
    ] = False,
) -> None:
    """Copy every table, finished or not, with all its events, from one database to
    another (a SQLite server's games into PostgreSQL, say).  Run it with every server of
    both stopped (it refuses a database in use), and again as often as you like: a table
    TO already has is left as it is, or brought up to date when TO's events are the
    start of FROM's."""
    from king.server.store.database import copy_people, copy_tables, open_for_copy
    from king.server.store.event_log import StoreError, describe, parse_database

    try:
        places = parse_database(source), parse_database(target)
    except ValueError as error:
        raise _fail(str(error), 2) from None
    if isinstance(places[0], Path) and not places[0].is_file():
        raise _fail(f"{places[0]}: no such database file", 1)
    if describe(places[0]) == describe(places[1]):
        raise _fail("FROM and TO are the same database", 2)
    try:
        stores = [open_for_copy(places[0])]
        try:
            stores.append(open_for_copy(places[1]))
            report = copy_tables(stores[0], stores[1], skip_different=skip_different)
            accounts = copy_people(stores[0], stores[1])
        finally:
            for store in stores:
                store.close()
    except StoreError as error:
        raise _fail(str(error), 1) from None
    for line in _copy_lines(report, accounts, describe(places[1])):
        typer.echo(f"king: {line}")


def _copy_lines(report: CopyReport, accounts: int, target: str) -> list[str]:
    """What ``king db copy`` did, in a line, and a line for each kind of table left."""
    lines = [
        f"copied {len(report.copied)} tables into {target} ({len(report.brought)} brought "
        f"up to date, {len(report.same)} were there already, with the same events) and "
        f"{accounts} accounts with their games' results and ratings"
    ]
    if report.ahead:
        lines.append(
            f"{len(report.ahead)} tables went on further in {target} and were left as they "
            f"are there: {_some(report.ahead)}"
        )
    if report.different:
        lines.append(
            f"{len(report.different)} tables hold different events in the two and were left "
            f"as they are in {target}: {_some(report.different)}"
        )
    return lines


def _some(names: tuple[str, ...], shown: int = 10) -> str:
    """Names for a line: the first ``shown`` of them, and how many more."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def run(argv: list[str] | None = None) -> None:
    """The console-script entry point.  A mistake on the command line (an unknown
    option, a value out of range) is one line that names it, with exit status 2."""
    command = typer.main.get_command(app)
    try:
        code = command.main(args=argv, prog_name="king", standalone_mode=False)
    except _USAGE_ERRORS as error:
        raise SystemExit(_usage_error(error)) from None
    except (KeyboardInterrupt, typer.Abort):
        typer.echo("king: interrupted", err=True)
        raise SystemExit(130) from None
    raise SystemExit(code if isinstance(code, int) else 0)


def _usage_error(error: Exception) -> int:
    """Say what was wrong on the command line in one line; the exit status."""
    context = getattr(error, "ctx", None)
    path = getattr(context, "command_path", None) or "king"
    format_message = getattr(error, "format_message", None)
    message = str(format_message() if format_message is not None else error).strip()
    message = " ".join(message.split()).rstrip(".")
    code = getattr(error, "exit_code", 2)
    hint = f" (see '{path} --help')" if code == 2 else ""
    typer.echo(f"king: {message[:1].lower()}{message[1:]}{hint}", err=True)
    return code if isinstance(code, int) else 2
