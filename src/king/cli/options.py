"""The options several commands share, each declared once: its flag, its metavar and its
bounds in a function of the help (each command words what the option means to it), and
an alias where the commands mean the same by it."""

from __future__ import annotations

from typing import Annotated, TypeVar

import typer
from typer.models import OptionInfo

__all__ = [
    "LANG_HELP",
    "RULES_HELP",
    "SEED_MAX",
    "DealSeed",
    "ForceOut",
    "Json",
    "Language",
    "NewGame",
    "RulesName",
    "bot_pause_option",
    "bots_option",
    "force_option",
    "json_option",
    "lang_option",
    "out_option",
    "port_option",
    "ray_option",
    "rules_option",
    "seed_option",
]

#: Help for the ``--lang`` of the terminal.
LANG_HELP = "The language: en, tr, es, fr or th (default: the locale's, else English)."
#: Help for the ``--rules`` of the commands that play.
RULES_HELP = "The rules: classic, pagat or turkish."
#: The largest seed accepted (a seed is stored as a 64-bit integer).
SEED_MAX = 2**63 - 1

T = TypeVar("T")


def seed_option(help: str) -> OptionInfo:
    """``--seed N``, from 0 to :data:`SEED_MAX`."""
    option: OptionInfo = typer.Option("--seed", metavar="N", min=0, max=SEED_MAX, help=help)
    return option


def bots_option(help: str) -> OptionInfo:
    """``--bots BOTS``: bot specifications, comma-separated."""
    option: OptionInfo = typer.Option("--bots", metavar="BOTS", help=help)
    return option


def rules_option(help: str) -> OptionInfo:
    """``--rules NAME``: a preset of the rules."""
    option: OptionInfo = typer.Option("--rules", metavar="NAME", help=help)
    return option


def lang_option(help: str) -> OptionInfo:
    """``--lang LANG``: a language the page and the terminal speak."""
    option: OptionInfo = typer.Option("--lang", metavar="LANG", help=help)
    return option


def out_option(help: str) -> OptionInfo:
    """``--out FILE``: where a command writes what it made."""
    option: OptionInfo = typer.Option("--out", metavar="FILE", help=help)
    return option


def force_option(flag: str, kind: str = "a game record") -> OptionInfo:
    """``--force``: let the file of ``flag`` be replaced though it is not ``kind``."""
    option: OptionInfo = typer.Option(
        "--force", help=f"Let {flag} replace a file that is not {kind}."
    )
    return option


def json_option(help: str) -> OptionInfo:
    """``--json``: print JSON rather than a table."""
    option: OptionInfo = typer.Option("--json", help=help)
    return option


def ray_option(help: str) -> OptionInfo:
    """``--ray auto|ADDRESS``: a Ray cluster to run on."""
    option: OptionInfo = typer.Option("--ray", metavar="auto|ADDRESS", help=help)
    return option


def bot_pause_option(help: str) -> OptionInfo:
    """``--bot-pause SECONDS``, from 0 to 10."""
    option: OptionInfo = typer.Option("--bot-pause", metavar="SECONDS", min=0, max=10, help=help)
    return option


def port_option(lowest: int, help: str) -> OptionInfo:
    """``--port PORT``, from ``lowest`` to 65535."""
    option: OptionInfo = typer.Option("--port", metavar="PORT", min=lowest, max=65535, help=help)
    return option


#: ``--seed`` of the deals a command plays: ``DealSeed[int]`` with a default seed
#: (``king arena``), ``DealSeed[int | None]`` where none leaves it unset (``king play``).
DealSeed = Annotated[T, seed_option("The seed of the deals.")]
#: ``--rules`` with a default preset, which the help shows (``king arena``).
RulesName = Annotated[str, rules_option(RULES_HELP)]
#: ``--lang`` of the terminal (``king play``).
Language = Annotated[str | None, lang_option(LANG_HELP)]
#: ``--new``: a new game rather than the last unfinished one (``king``, ``king play``).
NewGame = Annotated[
    bool, typer.Option("--new", help="Start a new game instead of going on with the last one.")
]
#: ``--force`` for an ``--out`` file of game records (``king analyze``, ``king arena``).
ForceOut = Annotated[bool, force_option("--out")]
#: ``--json``: one JSON object on standard output (``king arena``, ``king bench``).
Json = Annotated[bool, json_option("Print one JSON object.")]
