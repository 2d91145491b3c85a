"""The offline game as the browser keeps it (IndexedDB, after every card): the table's
settings and the game's ``king-record/1`` record, under a format name and the version
of king that wrote it.  What cannot be read back is refused with one sentence."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from king import __version__
from king.cards import Seat
from king.errors import KingError
from king.jsontext import JSONTextError, loads
from king.record import InvalidRecordError, LoadedRecord, RecordError, load
from king.rules import Rules, RulesError
from king.table.messages import dumps
from king.table.protocol import SPEED_FACTORS, SpeedChoice

__all__ = ["FORMAT", "OfflineSettings", "SavedGame", "SavedGameError", "read_saved", "write_saved"]

#: The format of a saved offline game.
FORMAT = "king-offline-game/1"


class SavedGameError(KingError, ValueError):
    """A saved game that cannot be resumed: the message is a sentence for the person,
    ``code`` a word for the page to say it in the person's language (``damaged``,
    ``foreign``: not an offline game, ``version``: made by another version)."""

    def __init__(self, code: str, sentence: str) -> None:
        super().__init__(sentence)
        self.code = code


@dataclass(frozen=True)
class OfflineSettings:
    """An offline table's settings, as a saved game keeps them: the person's seat and
    name, each seat's bot (``None`` at the person's), the bots' pause (seconds), the
    speed chosen, when the table was made, and whether the person may ask for hints."""

    seat: Seat = 0
    name: str = "You"
    bots: tuple[str | None, ...] = (None, "rule", "rule", "rule")
    bot_pause: float = 0.7
    speed: SpeedChoice = "normal"
    created: float = 0.0
    hints: bool = False


@dataclass(frozen=True)
class SavedGame:
    """What a saved game holds: the table's settings and the game so far."""

    settings: OfflineSettings
    loaded: LoadedRecord


def write_saved(record: dict[str, Any], settings: OfflineSettings) -> str:
    """The text the browser keeps for a game."""
    fields = dataclasses.asdict(settings)
    saved = {"format": FORMAT, "version": __version__, **fields, "bots": list(settings.bots)}
    return dumps({**saved, "record": record})


def read_saved(text: str) -> SavedGame:
    """A saved game read back, or :class:`SavedGameError` saying why it cannot be."""
    try:
        data = loads(text)
    except JSONTextError as error:
        raise SavedGameError(
            "damaged", f"The saved game is damaged (it is not readable JSON: {error})."
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SavedGameError("foreign", "The saved game is not a King game this page can read.")
    if data.get("version") != __version__:
        raise SavedGameError(
            "version",
            f"The saved game was made by another version of King "
            f"({data.get('version')!s:.20}; this is {__version__}), so it cannot be resumed.",
        )
    try:
        return _fields(data)
    except (KeyError, TypeError, ValueError) as error:
        raise SavedGameError("damaged", f"The saved game is damaged ({error}).") from None


def _fields(data: dict[str, Any]) -> SavedGame:
    seat, bots = data["seat"], data["bots"]
    if not isinstance(seat, int) or not 0 <= seat <= 3:
        raise ValueError("its seat is not 0-3")
    if not isinstance(bots, list) or len(bots) != 4:
        raise ValueError("it does not list four seats")
    if any(
        (spec is None) != (i == seat) or not isinstance(spec, str | None)
        for i, spec in enumerate(bots)
    ):
        raise ValueError("its seats are not one person and three bots")
    name, speed = data["name"], data["speed"]
    if not isinstance(name, str) or not 1 <= len(name) <= 32:
        raise ValueError("its player's name is not 1-32 characters")
    if speed not in SPEED_FACTORS:
        raise ValueError(f"its speed is not one of {', '.join(SPEED_FACTORS)}")
    pause, created = data["bot_pause"], data["created"]
    if not isinstance(pause, int | float) or not 0 <= pause <= 10:
        raise ValueError("its bot pause is not 0-10 seconds")
    if not isinstance(created, int | float):
        raise ValueError("its date is not a number")
    hints = data.get("hints", False)
    if not isinstance(hints, bool):
        raise ValueError("its hints are not true or false")
    try:
        loaded = load(data["record"])
        Rules.from_spec(data["record"]["rules"])
    except (RecordError, InvalidRecordError, RulesError) as error:
        raise ValueError(f"its record is not valid: {error}") from None
    settings = OfflineSettings(seat, name, tuple(bots), float(pause), speed, float(created), hints)
    return SavedGame(settings, loaded)
