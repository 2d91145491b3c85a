"""Measure how far one house bot stands above another on the rating scale, from whole
games they played against each other (``king arena --games N --out FILE``): the
difference of ``mu`` that makes the places they reached most likely under the very
model the server rates with (OpenSkill's Plackett-Luce, both bots at the sigma the
server gives them), with a 95% likelihood interval, in shown points.

    king arena --bots search,rule,rule,rule --games 48 --seed 7 --out games.jsonl
    python scripts/rate_house_bots.py games.jsonl --strong search --weak rule

The server's ``SEARCH_OVER_RULE`` (king.server.people.ratings) is this figure; docs/players.md
gives the run it came from.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from king.record import RecordError, replay
from king.server.people.ratings import HOUSE_RATINGS, SCALE
from king.server.people.results import places

#: OpenSkill's default beta (its performance noise), for a mu of 25.
BETA = 25.0 / 6.0
#: The widest gap looked for (mu): one bot placing above the other in every game has no
#: finite most likely gap.
GRID = 20


def read_games(paths: list[Path], strong: str, weak: str) -> list[list[tuple[int, bool]]]:
    """Each game as (place, is the strong bot) per seat, from arena records."""
    games = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                report = replay(record)
            except (json.JSONDecodeError, RecordError) as error:
                raise SystemExit(f"{path}:{number}: not a game record: {error}") from None
            if report.fault is not None or not report.game.is_over:
                raise SystemExit(f"{path}:{number}: not a whole game")
            kinds = [str(name).split()[0] for name in record["players"]]
            if set(kinds) - {strong, weak}:
                raise SystemExit(f"{path}:{number}: players {kinds} are not {strong} and {weak}")
            games.append(
                list(zip(places(report.game.totals), [k == strong for k in kinds], strict=True))
            )
    return games


def log_likelihood(games: list[list[tuple[int, bool]]], gap: float, sigma: float) -> float:
    """The log-probability of the places under Plackett-Luce when the strong bot's mu
    is ``gap`` above the weak one's (ties ordered by seat)."""
    c = math.sqrt(4 * (sigma**2 + BETA**2))
    total = 0.0
    for game in games:
        order = sorted(game, key=lambda seat: seat[0])
        strengths = [math.exp((gap if strong else 0.0) / c) for _, strong in order]
        for index, strength in enumerate(strengths):
            total += math.log(strength / sum(strengths[index:]))
    return total


def fit(games: list[list[tuple[int, bool]]], sigma: float) -> tuple[float, float, float]:
    """The most likely gap (mu) and its 95% interval (a drop of 1.92 in log-likelihood)."""
    grid = [step / 100 for step in range(-100 * GRID, 100 * GRID + 1)]
    values = [log_likelihood(games, gap, sigma) for gap in grid]
    best = max(range(len(grid)), key=values.__getitem__)
    inside = [grid[i] for i, v in enumerate(values) if v >= values[best] - 1.92]
    return grid[best], min(inside), max(inside)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="arena records (--out) of whole games")
    parser.add_argument("--strong", default="search", help="the bot measured (default search)")
    parser.add_argument("--weak", default="rule", help="the bot it is measured against")
    args = parser.parse_args(argv)
    games = read_games(args.files, args.strong, args.weak)
    if not games:
        raise SystemExit("no games in those files")
    gap, low, high = fit(games, HOUSE_RATINGS["rule"].sigma)
    strong_places = [place for game in games for place, strong in game if strong]
    mean = sum(strong_places) / len(strong_places)
    print(f"{len(games)} games; {args.strong}'s mean place {mean:.2f}")
    if abs(gap) >= GRID:
        print(f"{args.strong} over {args.weak}: beyond {GRID * SCALE:.0f} shown points either way")
        return 1
    print(
        f"{args.strong} over {args.weak}: {gap * SCALE:+.0f} shown points "
        f"(95% {low * SCALE:+.0f} to {high * SCALE:+.0f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
