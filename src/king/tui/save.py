"""Saving and resuming a terminal game as a ``king-record/1`` file.

The saved file is an ordinary record (so ``king replay`` reads it) with one addition under
``"extra"``: ``{"king_play": {"seat": N, "bots": [...]}}``, which says which seat the person
holds and which bots play the others, so ``king play --resume`` can set the table again.
Every write goes to a temporary file first and then replaces the old one, so a crash or a
quit in the middle of a write never leaves half a record behind.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from king.game import Game
from king.record import InvalidRecordError, RecordError, load, parse, to_record

__all__ = [
    "EXTRA_KEY",
    "PlayError",
    "SavedGame",
    "default_save_path",
    "games_folder",
    "read_saved",
    "record_of",
    "write_atomic",
]

#: The key under the record's ``"extra"`` that holds the table setup.
EXTRA_KEY = "king_play"


class PlayError(ValueError):
    """Something the user asked of ``king play`` cannot be done (a resume file that is
    not a valid record, a save path that cannot be written); the message says why."""


@dataclass(frozen=True, slots=True)
class SavedGame:
    """A game read back from a saved file, with the table setup if the file had one."""

    game: Game
    seat: int | None
    bots: tuple[str, str, str] | None


def games_folder(environ: Mapping[str, str] | None = None) -> Path:
    """Where saved games go by default: ``$XDG_DATA_HOME/king/games`` (or
    ``~/.local/share/king/games`` when it is unset), as the XDG convention says."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "share"
    return root / "king" / "games"


def default_save_path(
    now: datetime | None = None, environ: Mapping[str, str] | None = None
) -> Path:
    """A new file in :func:`games_folder` named by date and time; never an existing one."""
    stamp = (now or datetime.now()).strftime("%Y-%m-%d_%H-%M-%S")
    folder = games_folder(environ)
    path = folder / f"{stamp}.json"
    number = 2
    while path.exists():
        path = folder / f"{stamp}-{number}.json"
        number += 1
    return path


def record_of(game: Game, players: Sequence[str], seat: int, bots: Sequence[str]) -> dict[str, Any]:
    """The record of ``game`` with the table setup under ``extra``."""
    record = to_record(game, players)
    record["extra"] = {EXTRA_KEY: {"seat": seat, "bots": list(bots)}}
    return record


def write_atomic(path: Path, text: str, *, durable: bool = True) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and
    :func:`os.replace`, so the file is always either the old or the new record.
    ``durable`` also flushes it to the disk first, so a power cut cannot lose it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def read_saved(path: Path) -> SavedGame:
    """Read a saved game to play on.  Raises :class:`PlayError` that says what is
    wrong with the file: unreadable, not a record, breaking the rules, or finished."""
    try:
        data = parse(path)
    except RecordError as error:
        raise PlayError(f"{path} is not a game record: {error}") from None
    try:
        loaded = load(data, live=True)
    except InvalidRecordError as error:
        raise PlayError(f"{path} is not a valid game record: {error}") from None
    except RecordError as error:  # pragma: no cover - parse() already checked the shape
        raise PlayError(f"{path} is not a game record: {error}") from None
    if loaded.game.is_over:
        raise PlayError(f"the game in {path} is finished; see it with: king replay {path}")
    seat, bots = _table_setup(path, data.get("extra"))
    return SavedGame(loaded.game, seat, bots)


def _table_setup(path: Path, extra: object) -> tuple[int | None, tuple[str, str, str] | None]:
    if not isinstance(extra, Mapping) or EXTRA_KEY not in extra:
        return None, None
    setup = extra[EXTRA_KEY]
    if not isinstance(setup, Mapping):
        raise PlayError(f"{path}: extra.{EXTRA_KEY} must be an object with 'seat' and 'bots'")
    seat = setup.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
        raise PlayError(f"{path}: extra.{EXTRA_KEY}.seat must be a seat 0-3, not {seat!r}")
    bots = setup.get("bots")
    if not isinstance(bots, list) or len(bots) != 3 or not all(isinstance(b, str) for b in bots):
        raise PlayError(f"{path}: extra.{EXTRA_KEY}.bots must be a list of three bot names")
    return seat, (bots[0], bots[1], bots[2])
