"""The move clock of a rated table.

Each person has a reserve of seconds for the whole game and some free seconds every
turn (a delay, as chess clocks have): time a turn takes beyond its free seconds comes
out of the reserve, and once both are spent the table's stand-in makes the move for
them (and for every later turn that runs past its free seconds).  Bots have no clock.

The clock is a fold of the table's log, like everything else at a table: a turn begins
at the event before it (the start, a deal, the last move, or a ``resume`` written when
a server brings the table back, so that time a server was down is nobody's), and each
person's move takes what it used out of their reserve.  Times are the log's: seconds
since the epoch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from king.cards import Seat

__all__ = ["Clock", "ClockRules"]


@dataclass(frozen=True, slots=True)
class ClockRules:
    """A table's clock, as its header states it: ``reserve`` seconds per person for
    the game and ``per_move`` free seconds every turn."""

    reserve: float
    per_move: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.reserve) and 0 <= self.reserve <= 86400):
            raise ValueError(f"a clock's reserve is 0-86400 seconds, not {self.reserve}")
        if not (math.isfinite(self.per_move) and 1 <= self.per_move <= 3600):
            raise ValueError(f"a clock's seconds a move are 1-3600, not {self.per_move}")

    def to_json(self) -> dict[str, float]:
        return {"reserve": self.reserve, "per_move": self.per_move}

    @classmethod
    def from_json(cls, data: Any) -> ClockRules:
        """What :meth:`to_json` wrote; ``ValueError`` for anything else."""
        if not isinstance(data, dict):
            raise ValueError("a clock is an object with reserve and per_move")
        reserve, per_move = data.get("reserve"), data.get("per_move")
        if not isinstance(reserve, int | float) or not isinstance(per_move, int | float):
            raise ValueError("a clock's reserve and per_move are numbers of seconds")
        return cls(float(reserve), float(per_move))


class Clock:
    """The clocks of one table's people (``timed[seat]``: a person's seat).

    >>> clock = Clock(ClockRules(reserve=60, per_move=10), [True, False, False, False])
    >>> clock.turn_began(1000.0)
    >>> clock.deadline(0)
    1070.0
    >>> clock.moved(0, 1025.0)  # 25 s: 10 free, 15 from the reserve
    >>> clock.left[0], clock.deadline(0)
    (45.0, 1080.0)
    """

    def __init__(self, rules: ClockRules, timed: Sequence[bool]) -> None:
        self.rules = rules
        self.timed = tuple(timed)
        #: Each person's reserve left (seconds); a bot's stays as it was.
        self.left = [rules.reserve for _ in self.timed]
        #: When the turn in progress began (None: no turn yet).
        self.since: float | None = None

    def turn_began(self, at: float) -> None:
        """A turn begins ``at`` (a deal, the start, a server bringing the table back)."""
        self.since = at

    def moved(self, seat: Seat, at: float) -> None:
        """``seat`` moved ``at``: a person's time past the free seconds comes out of
        their reserve; the next turn begins now."""
        if self.timed[seat] and self.since is not None:
            over = max(0.0, at - self.since - self.rules.per_move)
            self.left[seat] = max(0.0, self.left[seat] - over)
        self.since = at

    def deadline(self, seat: Seat) -> float | None:
        """When the stand-in moves for ``seat`` if it is to act now (None: a bot's seat,
        or no turn yet)."""
        if not self.timed[seat] or self.since is None:
            return None
        return self.since + self.rules.per_move + self.left[seat]
