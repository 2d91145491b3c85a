"""The ``king`` command put together: the Typer app with its commands in the order its
help lists them, and the entry point that turns a mistake on the command line into one
line with exit status 2."""

from __future__ import annotations

import typer

from king.cli import analyze, arena, bench, db, local, play, replay, serve, site, train

__all__ = ["app", "run"]

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
app.callback(invoke_without_command=True)(local.main)
app.command("serve")(serve.serve_command)
app.command("play")(play.play_command)
app.command("replay")(replay.replay_command)
app.command("analyze")(analyze.analyze_command)
app.command("arena")(arena.arena_command)
app.command("train")(train.train_command)
app.command("bench")(bench.bench_command)
app.command("site")(site.site_command)

db_app = typer.Typer(name="db", help=db.DB_HELP, no_args_is_help=True)
db_app.command("copy")(db.copy_command)
app.add_typer(db_app)


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
