"""The one small protocol every computer player speaks.

A bot is given a :class:`~king.view.SeatView` (never the game) and answers a
:class:`~king.rules.Declaration` when its seat must declare, or a
:class:`~king.cards.Card` when it must play.  Bots are deterministic given their seed,
so a match can be replayed exactly.  The bots are named in :mod:`king.bots.registry`.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass

from king.bots.levels import level_word
from king.cards import Card, Seat
from king.errors import KingError
from king.game import Action
from king.rules import Declaration
from king.view import SeatView

__all__ = [
    "Bot",
    "BotDemand",
    "BotError",
    "BotSpecError",
    "bot_player_name",
    "bot_seed",
]


def bot_seed(table_seed: int, seat: Seat, stand_in: bool = False) -> int:
    """A bot's seed at a table, derived from the table's seed and the seat (a stand-in
    for an absent person has its own), the same at every table that seats bots."""
    return (table_seed * 8 + seat * 2 + (1 if stand_in else 0)) % 2**63


def bot_player_name(spec: str, seat: Seat) -> str:
    """A bot's name in a table's game record, as the page shows it in English (``Medium
    bot 2``: its level's word, else its spec): two bots of one kind stay apart."""
    word = level_word(spec)
    return f"{spec if word is None else word.capitalize()} bot {seat}"


class BotError(KingError, RuntimeError):
    """A bot failed to give a legal answer: it answered an illegal move, garbage,
    nothing in time, or crashed.  The message names the bot and says what it did."""

    def __init__(self, bot: str, what: str):
        super().__init__(f"bot {bot!r} {what}")
        self.bot = bot
        self.what = what


class BotSpecError(KingError, ValueError):
    """A bot specification (``--bots`` entry) that names no bot or has bad options."""


class Bot(ABC):
    """A computer player.  Subclasses implement :meth:`declare` and :meth:`play`."""

    #: The registered name (``random``, ``rule``, …).
    name: str = "bot"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    @abstractmethod
    def declare(self, view: SeatView) -> Declaration:
        """Choose one of ``view.legal_declarations``."""

    @abstractmethod
    def play(self, view: SeatView) -> Card:
        """Choose one of ``view.legal_cards``."""

    def act(self, view: SeatView) -> Action:
        """Declare or play, whichever the view asks for."""
        if view.legal_declarations:
            return self.declare(view)
        return self.play(view)

    def demand(self) -> BotDemand:
        """What one decision of this bot may cost at most, for a server that bounds what
        a visitor may ask for (the default: a quick bot that thinks for no set time)."""
        return BotDemand()

    def close(self) -> None:  # noqa: B027 - most bots hold nothing to release
        """Release what the bot holds (an external process, a pool); idempotent."""

    def __enter__(self) -> Bot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} seed={self.seed}>"


@dataclass(frozen=True, slots=True)
class BotDemand:
    """The most one decision may cost: seconds of thinking (its budget), threads, sampled
    worlds, and tricks searched exactly to the end (an exact search grows exponentially
    with them, whatever the budget says)."""

    seconds: float = 0.0
    threads: int = 1
    worlds: int = 0
    exact_tricks: int = 0
