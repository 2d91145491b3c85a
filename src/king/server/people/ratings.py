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
    "BOT_MARGIN",
    "DEFAULT",
    "HOUSE_RATINGS",
    "LEVEL_OVER_RULE",
    "PROVISIONAL_SIGMA",
    "Rating",
    "capped",
    "conservative",
    "rate",
    "shown",
]

#: Points of the shown scale per unit of ``mu``; a new player shows 25 × 60 = 1500.
SCALE = 60.0
#: Above this uncertainty a rating is shown as provisional (a new player's is 8.33).
PROVISIONAL_SIGMA = 4.0
#: How far ``search`` stands above ``rule`` (shown points), from their games against
#: each other: 192 games of one search against three rule bots, 48 duplicate sets
#: (``scripts/rate_house_bots.py``: +941, 95% +808 to +1079; docs/players.md).
SEARCH_OVER_RULE = 940


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


#: The house bots' ratings at rated tables, measured from their own games against each
#: other (``rule`` is the scale's anchor, a new player's 1500; docs/players.md says how
#: ``search`` was measured).  Fixed: no run of games against people moves them, so that
#: what a person gains against bots is measured against an honest yardstick.
HOUSE_RATINGS: dict[str, Rating] = {
    "rule": Rating(25.0, 1.0),
    "search": Rating(25.0 + SEARCH_OVER_RULE / SCALE, 1.0),
}
#: Each level's distance from ``rule`` (shown points), measured the same way: 192 games
#: of one level against three rule bots, 48 duplicate sets (``king arena --bots
#: LEVEL,rule,rule,rule --games 48 --seed 7``, then ``scripts/rate_house_bots.py
#: --strong LEVEL``; docs/players.md).  Medium is ``rule`` itself; Expert's run is
#: 48 games, 12 sets (``--games 12``: an hour for 48 sets on two cores).
LEVEL_OVER_RULE: dict[str, int] = {
    "beginner": -966,
    "easy": -300,
    "medium": 0,
    "hard": 572,
    "expert": 879,
}
HOUSE_RATINGS.update(
    {name: Rating(25.0 + over / SCALE, 1.0) for name, over in LEVEL_OVER_RULE.items()}
)
#: How far above the best other player at a table with bots a game there may lift a
#: person (shown points): beating bots proves skill up to theirs, not past it.
BOT_MARGIN = 100


def capped(before: list[Rating], after: list[Rating], bots: list[bool]) -> list[Rating]:
    """The ratings after a game with bots at the table: no person ends higher than
    :data:`BOT_MARGIN` above the best of the others before it (unless they already
    were: then they gain nothing).  Losses are not capped; a game with no bot is left
    as it is.

    >>> rule = HOUSE_RATINGS["rule"]
    >>> strong = Rating(rule.mu + 3, 1.0)
    >>> after = capped([strong, rule, rule, rule], [Rating(strong.mu + 1, 1.0)] + [rule] * 3,
    ...                [False, True, True, True])
    >>> shown(after[0]) == shown(strong)
    True
    """
    if not any(bots):
        return list(after)
    result = []
    for seat, (old, new) in enumerate(zip(before, after, strict=True)):
        if bots[seat] or new.mu <= old.mu:
            result.append(new)
            continue
        best = max(r.mu for other, r in enumerate(before) if other != seat)
        ceiling = max(old.mu, best + BOT_MARGIN / SCALE)
        result.append(Rating(min(new.mu, ceiling), new.sigma))
    return result


def shown(rating: Rating) -> int:
    """The rating as people see it.

    >>> shown(DEFAULT)
    1500
    """
    return round(rating.mu * SCALE)


def conservative(rating: Rating) -> float:
    """What the leaderboard orders by: skill at least this, with good confidence."""
    return rating.mu - 3 * rating.sigma
