"""The settings of one server process, in one place so that tests can turn the dials."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from king.i18n import DEFAULT_LANGUAGE, parse_language

__all__ = ["ServerSettings"]


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """How a server behaves.

    ``bot_pause`` is the wait before each bot move (twice that after a trick is complete)
    so that people can follow the play; tests set it to 0.  ``away_after`` is how long
    a person may be gone before ``stand_in`` (a bot) plays for them.  ``language`` is
    the page's language for a browser that names none of the shipped ones.
    """

    db: Path
    bot_pause: float = 0.7
    away_after: float = 45.0
    stand_in: str = "rule"
    bot_threads: int = 4
    durable: bool = False
    max_tables: int = 2000
    max_spectators: int = 64
    language: str = DEFAULT_LANGUAGE

    def __post_init__(self) -> None:
        if not 0 <= self.bot_pause <= 10:
            raise ValueError(f"the bot pause must be 0-10 seconds, not {self.bot_pause}")
        if not 0 <= self.away_after <= 86400:
            raise ValueError(f"away_after must be 0-86400 seconds, not {self.away_after}")
        if not 1 <= self.bot_threads <= 64:
            raise ValueError(f"bot_threads must be 1-64, not {self.bot_threads}")
        object.__setattr__(self, "language", parse_language(self.language))
