"""What a finished game leaves for history and statistics: each seat's points and
place, and each deal's declarer, contract and points.  Pure: read from the game, so the
same function checks a record by hand in the tests."""

from __future__ import annotations

from dataclasses import dataclass

from king.cards import Seat
from king.game import Game

__all__ = ["DealLine", "GameResult", "SeatResult", "game_result", "places"]


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat's end of a game."""

    seat: Seat
    points: int
    #: 1–4; tied totals share the better place (1, 1, 3, 4).
    place: int


@dataclass(frozen=True, slots=True)
class DealLine:
    """One seat's part in one deal."""

    deal: int
    seat: Seat
    declarer: bool
    contract: str
    #: The trump suit's letter in Trumps, else None.
    trump: str | None
    points: int


@dataclass(frozen=True, slots=True)
class GameResult:
    seats: tuple[SeatResult, ...]
    deals: tuple[DealLine, ...]


def places(totals: list[int]) -> list[int]:
    """Each total's place, ties sharing the better one.

    >>> places([300, -100, 300, -500])
    [1, 3, 1, 4]
    """
    return [1 + sum(1 for other in totals if other > total) for total in totals]


def game_result(game: Game) -> GameResult:
    """The places and the deal lines of a finished game (or of the deals played so far)."""
    totals = game.totals
    seat_results = tuple(
        SeatResult(seat, points, place)
        for seat, (points, place) in enumerate(zip(totals, places(totals), strict=True))
    )
    lines = []
    for result in game.results:
        declaration = result.declaration
        trump = None if declaration.trump is None else declaration.trump.letter
        for seat in range(4):
            lines.append(
                DealLine(
                    result.number,
                    seat,
                    seat == result.declarer,
                    declaration.contract.value,
                    trump,
                    result.points[seat],
                )
            )
    return GameResult(seat_results, tuple(lines))
