"""Ratings for four-player results: OpenSkill's Plackett–Luce model (Weng and Lin's
Bayesian approximation, a maintained, open relative of TrueSkill).

Each player has a skill estimate ``mu`` and an uncertainty ``sigma``; a game's places
(ties shared) move the four together, more when the result was unexpected: beating
higher-rated players gains more than beating lower-rated ones.  People see
:func:`shown`, ``mu`` on a familiar scale (a new player is 1500), marked provisional
until ``sigma`` has shrunk; the leaderboard orders by :func:`conservative`
(``mu - 3 sigma``, which a new player cannot top by one lucky game).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = [
    "DEFAULT",
    "PROVISIONAL_SIGMA",
    "Rating",
    "conservative",
    "rate",
    "shown",
]

#: Points of the shown scale per unit of ``mu``; a new player shows 25 × 60 = 1500.
SCALE = 60.0
#: Above this uncertainty a rating is shown as provisional (a new player's is 8.33).
PROVISIONAL_SIGMA = 4.0


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float

    @property
    def provisional(self) -> bool:
        return self.sigma > PROVISIONAL_SIGMA


#: A player never rated before.
DEFAULT = Rating(25.0, 25.0 / 3.0)


@cache
def _model() -> Any:
    from openskill.models import PlackettLuce

    return PlackettLuce()


def rate(before: list[Rating], places: list[int]) -> list[Rating]:
    """The ratings after one game of these players finishing in these places (1 first;
    equal places are ties).

    >>> after = rate([DEFAULT] * 4, [1, 2, 3, 4])
    >>> after[0].mu > DEFAULT.mu > after[3].mu
    True
    """
    model = _model()
    teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    rated = model.rate(teams, ranks=list(places))
    return [Rating(float(team[0].mu), float(team[0].sigma)) for team in rated]


def shown(rating: Rating) -> int:
    """The rating as people see it.

    >>> shown(DEFAULT)
    1500
    """
    return round(rating.mu * SCALE)


def conservative(rating: Rating) -> float:
    """What the leaderboard orders by: skill at least this, with good confidence."""
    return rating.mu - 3 * rating.sigma
