"""Saving and resuming a terminal game as a ``king-record/1`` file.

The saved file is an ordinary record (so ``king replay`` reads it) with one addition under
``"extra"``: ``{"king_play": {"seat": N, "bots": [...], "lang": "tr"}}``, which says which
seat the person holds, which bots play the others and the language of the screen, so
``king play --resume`` can set the table again.
Every write goes to a temporary file first and then replaces the old one, so a crash or a
quit in the middle of a write never leaves half a record behind.

Beside the saved games, a small note (:data:`LAST_NOTE`) names the file of the last game
played, so that a plain ``king play`` goes on with it while it is unfinished, as ``king``
does with the game in the browser.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from king.cards import Seat
from king.errors import KingError
from king.game import Game
from king.i18n import DEFAULT_LANGUAGE, LANGUAGES, Translator
from king.record import InvalidRecordError, RecordError, load, parse, to_record

__all__ = [
    "EXTRA_KEY",
    "LAST_NOTE",
    "PlayError",
    "SavedGame",
    "default_save_path",
    "games_folder",
    "last_unfinished",
    "read_saved",
    "record_of",
    "remember_last",
    "write_atomic",
]

#: The key under the record's ``"extra"`` that holds the table setup.
EXTRA_KEY = "king_play"
#: The note in :func:`games_folder` that names the last game's file (not a record, so
#: its name does not end in ``.json``).
LAST_NOTE = "last-game.txt"


class PlayError(KingError, ValueError):
    """Something the user asked of ``king play`` cannot be done (a resume file that is
    not a valid record, a save path that cannot be written); the message says why.

    The message is the catalog entry ``key`` filled with ``params``, in English unless
    ``language`` says otherwise; :meth:`in_language` words the same error in another."""

    def __init__(
        self,
        key: str,
        params: Mapping[str, object] | None = None,
        *,
        language: str = DEFAULT_LANGUAGE,
    ) -> None:
        self.key = key
        self.params: dict[str, object] = dict(params or {})
        self.language = language
        super().__init__(Translator(language)(key, **self.params))

    def in_language(self, language: str) -> PlayError:
        """The same error worded in ``language``."""
        return PlayError(self.key, self.params, language=language)


@dataclass(frozen=True, slots=True)
class SavedGame:
    """A game read back from a saved file, with the table setup if the file had one."""

    game: Game
    seat: Seat | None
    bots: tuple[str, str, str] | None
    #: The language the game was played in, if the file says.
    language: str | None = None


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


def remember_last(path: Path, environ: Mapping[str, str] | None = None) -> None:
    """Note ``path`` as the last game played, for the next ``king play`` to go on
    with.  A note that cannot be written only means that the next one starts anew."""
    note = games_folder(environ) / LAST_NOTE
    with contextlib.suppress(OSError):
        write_atomic(note, f"{path.resolve()}\n", durable=False)


def last_unfinished(environ: Mapping[str, str] | None = None) -> Path | None:
    """The file of the last game played, while it is an unfinished game to go on with;
    ``None`` when there is no note, or its game is finished, gone or unreadable (a new
    game then starts, and a damaged file stays for ``king play --resume`` to explain)."""
    note = games_folder(environ) / LAST_NOTE
    try:
        text = note.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    path = Path(text)
    if not text or not path.is_absolute() or not path.is_file():
        return None
    try:
        read_saved(path)
    except PlayError:
        return None
    return path


def record_of(
    game: Game,
    players: Sequence[str],
    seat: Seat,
    bots: Sequence[str],
    language: str | None = None,
) -> dict[str, Any]:
    """The record of ``game`` with the table setup (and the language) under ``extra``."""
    record = to_record(game, players)
    setup: dict[str, Any] = {"seat": seat, "bots": list(bots)}
    if language is not None:
        setup["lang"] = language
    record["extra"] = {EXTRA_KEY: setup}
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
        raise PlayError("tui.error.not_a_record", {"path": path, "reason": error}) from None
    try:
        loaded = load(data, live=True)
    except InvalidRecordError as error:
        raise PlayError("tui.error.invalid_record", {"path": path, "reason": error}) from None
    except RecordError as error:  # pragma: no cover - parse() already checked the shape
        raise PlayError("tui.error.not_a_record", {"path": path, "reason": error}) from None
    if loaded.game.is_over:
        raise PlayError("tui.error.finished", {"path": path})
    return _table_setup(path, loaded.game, data.get("extra"))


def _table_setup(path: Path, game: Game, extra: object) -> SavedGame:
    if not isinstance(extra, Mapping) or EXTRA_KEY not in extra:
        return SavedGame(game, None, None)
    setup = extra[EXTRA_KEY]
    where = {"path": path, "field": f"extra.{EXTRA_KEY}"}
    if not isinstance(setup, Mapping):
        raise PlayError("tui.error.setup", where)
    seat = setup.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
        raise PlayError("tui.error.setup_seat", {**where, "seat": repr(seat)})
    bots = setup.get("bots")
    if not isinstance(bots, list) or len(bots) != 3 or not all(isinstance(b, str) for b in bots):
        raise PlayError("tui.error.setup_bots", where)
    # A language this version does not ship (or no string) is left to --lang or the locale.
    language = setup.get("lang")
    known = language if isinstance(language, str) and language in LANGUAGES else None
    return SavedGame(game, seat, (bots[0], bots[1], bots[2]), known)
