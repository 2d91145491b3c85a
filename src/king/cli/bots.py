"""The bots named on the command line: checked by building each once, with a word on
standard error while the search bot compiles (otherwise a silent minute)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

import typer

from king.cli.common import fail

__all__ = ["bot_specs", "with_notice"]

T = TypeVar("T")


def bot_specs(text: str, count: int, one_for_all: bool = False) -> list[str]:
    """``count`` comma-separated bot specifications (or, with ``one_for_all``, one for
    every seat), each checked by building the bot."""
    from king.bots import BotSpecError

    specs = [b.strip() for b in text.split(",")]
    if one_for_all and len(specs) == 1:
        specs *= count
    if len(specs) != count or not all(specs):
        one = "one bot, or " if one_for_all else ""
        raise fail(f"--bots needs {one}{count} bots separated by commas, not {text!r}", 2)
    try:
        with_notice(lambda: _build_each(specs), specs)
    except BotSpecError as error:
        raise fail(str(error), 2) from None
    return specs


def _build_each(specs: list[str]) -> None:
    """Build (and close) each bot once: checks its options, compiles what it needs."""
    from king.bots import make_bot

    for spec in dict.fromkeys(specs):
        make_bot(spec).close()


def with_notice(work: Callable[[], T], specs: Sequence[str] = ()) -> T:
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
