"""What every command shares: a refusal in one line with its exit status, the language
and the rules named on the command line, and the guard against writing over a file."""

from __future__ import annotations

from pathlib import Path

import typer

from king.rules import Rules, RulesError

__all__ = ["check_overwrite", "fail", "language", "preset"]


def fail(message: str, code: int) -> typer.Exit:
    """Print ``king: message`` on standard error; the exit to raise, with ``code``."""
    typer.echo(f"king: {message}", err=True)
    return typer.Exit(code)


def language(value: str | None) -> str:
    """The language chosen with ``--lang``, or the terminal locale's when none is given;
    an unknown one is refused with the choices (exit status 2)."""
    from king.i18n import UnknownLanguageError, detect_language, parse_language

    if value is None:
        return detect_language()
    try:
        return parse_language(value)
    except UnknownLanguageError as error:
        raise fail(f"--lang: {error}", 2) from None


def preset(name: str) -> Rules:
    """The rules preset named on the command line."""
    try:
        return Rules.preset(name)
    except RulesError as error:
        raise fail(str(error), 2) from None


def check_overwrite(path: Path, force: bool, flag: str) -> None:
    """Refuse to write over a file that is not a game record of ours (or JSON lines of
    them) unless ``--force`` says so: a mistyped path must not eat a document."""
    from king.record import is_record_file

    if path.is_dir():
        raise fail(f"{flag} {path}: is a folder, not a file", 2)
    if path.exists() and not force and not is_record_file(path):
        raise fail(
            f"{flag} {path}: the file exists and is not a game record; "
            "give --force to replace it, or choose another file",
            2,
        )
