"""Where a game stands (:class:`Phase`) and what a finished deal contributed
(:class:`DealResult`): the small types that the game and the seats' views share, kept
apart so that :mod:`king.view` needs nothing of :mod:`king.game`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from king.cards import Seat
from king.rules import Declaration

__all__ = ["DealResult", "Phase"]


class Phase(Enum):
    """Where a game stands."""

    DEALING = "dealing"  # between deals of a game rebuilt from a record
    DECLARING = "declaring"
    PLAYING = "playing"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class DealResult:
    """What a finished deal contributed: who declared what, and each seat's points."""

    number: int
    declarer: Seat
    declaration: Declaration
    points: tuple[int, int, int, int]
