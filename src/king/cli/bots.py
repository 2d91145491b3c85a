"""The bots named on the command line: checked by building each once (a blink: nothing
compiles, the engine is a WebAssembly module wasmtime loads in a tenth of a second)."""

from __future__ import annotations

from king.cli.common import fail

__all__ = ["bot_specs"]


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
        _build_each(specs)
    except BotSpecError as error:
        raise fail(str(error), 2) from None
    return specs


def _build_each(specs: list[str]) -> None:
    """Build (and close) each bot once: checks its options."""
    from king.bots import make_bot

    for spec in dict.fromkeys(specs):
        make_bot(spec).close()
