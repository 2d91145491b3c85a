"""``king serve --config FILE``: the server's options in a TOML file, an alternative to
flags (a systemd unit keeps one line; a database password stays out of ``ps``).

The file's ``[serve]`` table holds the options by their flag names (``bot-pause =
0.7``; ``bot_pause`` is read the same); a flag given on the command line wins over
the file.  This module reads and checks the file's shape; which names and values are
good is the command's to say (:mod:`king.cli`)."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path
from typing import Any

from king.errors import KingError

__all__ = ["ConfigFileError", "read_config", "readable_by_others"]

#: The table of the file that holds ``king serve``'s options.
SECTION = "serve"


class ConfigFileError(KingError, ValueError):
    """The file cannot be read, is not TOML, or is not shaped as a configuration."""


def read_config(path: Path) -> dict[str, Any]:
    """The ``[serve]`` options of the file at ``path``, by their Python names
    (``bot-pause`` → ``bot_pause``); a file with no ``[serve]`` table is refused, as
    it is surely not the file meant."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigFileError(f"cannot read {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ConfigFileError(f"{path} is not UTF-8 text") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigFileError(f"{path} is not TOML: {error}") from None
    section = document.get(SECTION)
    others = sorted(set(document) - {SECTION})
    if not isinstance(section, dict):
        raise ConfigFileError(f"{path} has no [{SECTION}] table of options")
    if others:
        raise ConfigFileError(f"{path}: only a [{SECTION}] table is read, not {', '.join(others)}")
    options: dict[str, Any] = {}
    for key, value in section.items():
        name = key.replace("-", "_")
        if name in options:
            raise ConfigFileError(f"{path}: {key} is given twice")
        if isinstance(value, dict | list):
            raise ConfigFileError(f"{path}: {key} takes one value, not a table or a list")
        options[name] = value
    return options


def readable_by_others(path: Path) -> bool:
    """Whether people other than the file's owner and group may read it (a password in
    it should not be)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return bool(mode & stat.S_IROTH)
