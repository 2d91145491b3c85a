"""The ``king`` command line.

Every command catches the errors a user can cause and prints one clear line: no
traceback ever reaches the user.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any, Literal, TypeVar

import typer

from king import __version__
from king.record import RecordError, ReplayReport, replay
from king.rules import Rules, RulesError

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
    bots: Annotated[
        str | None,
        typer.Option(
            "--bots",
            help="Without a command: the three computer players, comma-separated "
            "(default: the strongest bot in every seat).",
        ),
    ] = None,
    rules: Annotated[
        str, typer.Option("--rules", help="Without a command: classic, pagat or turkish.")
    ] = "classic",
    db: Annotated[
        Path | None,
        typer.Option("--db", help="Without a command: the SQLite file of the games."),
    ] = None,
    new: Annotated[
        bool, typer.Option("--new", help="Start a new game instead of resuming the last one.")
    ] = False,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Print the address but open no browser.")
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            help="Without a command: the page's language: en, tr, es, fr or th "
            "(default: the browser's).",
        ),
    ] = None,
) -> None:
    """King (Turkish King, Rıfkı): the rules, computer players and tools.

    Without a command, play in the browser against three computer players.
    """
    if ctx.invoked_subcommand is not None:
        return
    from king.bots import BotSpecError, strongest_bot
    from king.server.config import ServerSettings
    from king.server.players import check_bot_spec
    from king.server.run import ServeError, run_local
    from king.server.store import default_db_path

    specs = [strongest_bot()] * 3 if bots is None else [b.strip() for b in bots.split(",")]
    if len(specs) != 3 or not all(specs):
        raise _fail(f"--bots needs three bots separated by commas, not {bots!r}", 2)
    try:
        specs = _with_notice(lambda: [check_bot_spec(spec) for spec in specs])
        preset = Rules.preset(rules)
    except (BotSpecError, RulesError) as error:
        raise _fail(str(error), 2) from None
    language = None if lang is None else _language(lang)
    settings = ServerSettings(
        db=db if db is not None else default_db_path(), language=language or "en"
    )
    try:
        run_local(
            settings,
            specs,
            preset,
            open_browser=not no_browser,
            new=new,
            language=language,
            echo=typer.echo,
        )
    except ServeError as error:
        raise _fail(str(error), 1) from None


# -- king serve ------------------------------------------------------------------------


@app.command("serve")
def serve_command(
    host: Annotated[
        str, typer.Option("--host", help="The address to listen on (0.0.0.0: every one).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="The port.")] = 8000,
    db: Annotated[
        Path | None,
        typer.Option("--db", help="The SQLite file of the tables (default: the user data folder)."),
    ] = None,
    bot_pause: Annotated[
        float,
        typer.Option("--bot-pause", min=0, max=10, help="Seconds a bot waits before it moves."),
    ] = 0.7,
    away_after: Annotated[
        float,
        typer.Option(
            "--away-after",
            min=0,
            max=86400,
            help="Seconds before a bot plays for a person who has left (while others wait).",
        ),
    ] = 45.0,
    stand_in: Annotated[
        str, typer.Option("--stand-in", help="The bot that plays for an absent person.")
    ] = "rule",
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            help="The page's language for browsers that ask for none of en, tr, es, fr, th "
            "(default: English).",
        ),
    ] = None,
) -> None:
    """Serve tables in the browser for people to join with an invite link."""
    from king.bots import BotSpecError, strongest_bot
    from king.server.config import ServerSettings
    from king.server.players import check_bot_spec
    from king.server.run import ServeError, serve
    from king.server.store import default_db_path

    try:
        stand_in = check_bot_spec(stand_in)
    except BotSpecError as error:
        raise _fail(f"--stand-in: {error}", 2) from None
    # The lobby offers the strongest bot first: have it ready before the first table.
    _with_notice(lambda: _build_each([strongest_bot()]))
    settings = ServerSettings(
        db=db if db is not None else default_db_path(),
        bot_pause=bot_pause,
        away_after=away_after,
        stand_in=stand_in,
        language="en" if lang is None else _language(lang),
    )
    try:
        serve(settings, host, port, echo=typer.echo)
    except ServeError as error:
        raise _fail(str(error), 1) from None


# -- king play -------------------------------------------------------------------------


@app.command("play")
def play_command(
    bots: Annotated[
        str | None,
        typer.Option(
            "--bots",
            help="The three computer players, comma-separated, in seat order after yours "
            "(default: the strongest bot in every seat).",
        ),
    ] = None,
    rules: Annotated[str, typer.Option("--rules", help="classic, pagat or turkish.")] = "classic",
    seed: Annotated[int | None, typer.Option("--seed", help="The seed of the deals.")] = None,
    seat: Annotated[int, typer.Option("--seat", min=0, max=3, help="Your seat, 0-3.")] = 0,
    resume: Annotated[
        Path | None, typer.Option("--resume", help="Continue the game saved in this record.")
    ] = None,
    save: Annotated[
        Path | None,
        typer.Option(
            "--save", help="Where to save the game (default: a new file in the user data folder)."
        ),
    ] = None,
    lang: Annotated[str | None, typer.Option("--lang", help=LANG_HELP)] = None,
) -> None:
    """Play a whole game in the terminal against three computer players."""
    # Without --lang: the resumed game's language, else the locale's (run_play decides).
    language = None if lang is None else _language(lang)
    from king.bots import strongest_bot

    specs = _bot_specs(",".join([strongest_bot()] * 3) if bots is None else bots, 3)
    preset = _preset(rules)
    if resume is not None and not resume.is_file():
        raise _fail(f"{resume}: no such file to resume", 2)
    from king.tui.app import PlayError, run_play

    try:
        run_play(
            bots=specs,
            rules=preset,
            seed=seed,
            seat=seat,
            resume=resume,
            save=save,
            lang=language,
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


def _bot_specs(text: str, count: int) -> list[str]:
    """``count`` comma-separated bot specifications, each checked by building the bot."""
    from king.bots import BotSpecError

    specs = [b.strip() for b in text.split(",")]
    if len(specs) != count or not all(specs):
        raise _fail(f"--bots needs {count} bots separated by commas, not {text!r}", 2)
    try:
        _with_notice(lambda: _build_each(specs))
    except BotSpecError as error:
        raise _fail(str(error), 2) from None
    return specs


def _build_each(specs: list[str]) -> None:
    """Build (and close) each bot once: checks its options, compiles what it needs."""
    from king.bots import make_bot

    for spec in dict.fromkeys(specs):
        make_bot(spec).close()


T = TypeVar("T")


def _with_notice(work: Callable[[], T]) -> T:
    """Run ``work`` (building bots), saying so if it takes a while: the first run after
    an install compiles the search bot's kernels, about half a minute of silence
    otherwise.  Exceptions reach the caller as if ``work`` ran here."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as error:  # re-raised in the caller's thread
            failure.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(0.5)
    if worker.is_alive():
        typer.echo(
            "king: preparing the computer players (the first run compiles them, "
            "about half a minute)…",
            err=True,
        )
        worker.join()
    if failure:
        raise failure[0]
    return outcome[0]


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
            f"{number:>4}  {declarer:<10}  {deal.declaration.title:<12}"
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
        bool, typer.Option("--json", help="Print the report as JSON (RECORD.md).")
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
            help="Four bots, comma-separated, in seat order: random, rule, or "
            "cmd:COMMAND for an external program (docs/bot-protocol.md).",
        ),
    ],
    games: Annotated[
        int | None, typer.Option("--games", min=1, help="Play this many whole games.")
    ] = None,
    deals: Annotated[
        int | None,
        typer.Option("--deals", min=1, help="Play this many single deals (all contracts)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="The seed of the deals.")] = 1,
    jobs: Annotated[int, typer.Option("--jobs", min=1, max=256, help="Processes.")] = 1,
    rules: Annotated[str, typer.Option("--rules", help="classic, pagat or turkish.")] = "classic",
    out: Annotated[
        Path | None, typer.Option("--out", help="Write every game or deal as JSON lines.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    bot_timeout: Annotated[
        float, typer.Option("--bot-timeout", min=0.01, help="Seconds an external bot may think.")
    ] = 5.0,
) -> None:
    """Play bots against each other on duplicate deals and report who is stronger."""
    from king.arena import ArenaConfig, PlayResult, run_arena

    if games is not None and deals is not None:
        raise _fail("give --games or --deals, not both", 2)
    specs = _bot_specs(bots, 4)
    preset = _preset(rules)
    mode: Literal["games", "deals"] = "games" if games is not None else "deals"
    count = games if games is not None else (deals if deals is not None else 100)
    config = ArenaConfig(
        (specs[0], specs[1], specs[2], specs[3]),
        mode,
        count,
        seed,
        preset,
        jobs,
        bot_timeout,
    )
    sink = None
    if out is not None:
        try:
            sink = out.open("w", encoding="utf-8")
        except OSError as error:
            raise _fail(f"cannot write {out}: {error.strerror}", 2) from None
    progress = _Progress(count, mode)

    def on_set(index: int, plays: list[PlayResult]) -> None:
        if sink is not None:
            for play in plays:
                sink.write(json.dumps(play.record, ensure_ascii=False) + "\n")
            sink.flush()
        progress.update(index + 1)

    try:
        report = run_arena(config, on_set)
    finally:
        if sink is not None:
            sink.close()
    if as_json:
        typer.echo(json.dumps(report.to_json()))
    else:
        typer.echo(report.table())


# -- king bench ------------------------------------------------------------------------

BENCHMARKS = ("engine", "search", "load", "env")


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
            sys.modules[spec.name] = module  # dataclasses and pickling look modules up here
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
    if not results:
        raise _fail("no figures: the benchmarks chosen could not run here", 1)
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
