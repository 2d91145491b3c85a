"""The ledger of who played what: seats taken by accounts, finished games' results,
statistics over them, and ratings.  SQL written once for both backends
(:class:`~king.server.store.event_log.Sql`); the tables are :mod:`king.server.store.schema`'s.

A game's results are written once (their key is the table and seat), and its rating
change with them in one transaction, so a game finished while its table changes hands
is never counted twice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from king.cards import Seat
from king.game import Game
from king.server.people.ratings import (
    DEFAULT,
    HOUSE_RATINGS,
    Rating,
    capped,
    conservative,
    rate,
    shown,
)
from king.server.people.results import game_result
from king.server.store.event_log import EventStore, Sql

__all__ = [
    "BOT_PREFIX",
    "ContractFigures",
    "HistoryRow",
    "Ledger",
    "RatingChange",
    "Standing",
    "Stats",
    "bot_player",
]

#: A bot's player id: ``bot:`` and its spec (``bot:search``).
BOT_PREFIX = "bot:"


def bot_player(spec: str) -> str:
    return BOT_PREFIX + spec


@dataclass(frozen=True, slots=True)
class RatingChange:
    player: str
    before: Rating
    after: Rating


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One game of a player's history: where they sat and how it ended (points and
    place None while it is not over)."""

    table: str
    seat: Seat
    status: str
    when: float
    points: int | None
    place: int | None
    rated: bool


@dataclass(frozen=True, slots=True)
class SeatLine:
    """One seat of a finished game, as its results keep it."""

    seat: Seat
    player: str | None
    name: str
    points: int
    place: int


@dataclass(slots=True)
class ContractFigures:
    """One contract's (or one trump suit's) figures for one player."""

    declared: int = 0
    declarer_deals: int = 0
    declarer_points: float = 0.0
    defender_deals: int = 0
    defender_points: float = 0.0

    @property
    def declarer_average(self) -> float | None:
        return self.declarer_points / self.declarer_deals if self.declarer_deals else None

    @property
    def defender_average(self) -> float | None:
        return self.defender_points / self.defender_deals if self.defender_deals else None

    def to_json(self) -> dict[str, Any]:
        return {
            "declared": self.declared,
            "declarer_deals": self.declarer_deals,
            "declarer_average": _round(self.declarer_average),
            "defender_deals": self.defender_deals,
            "defender_average": _round(self.defender_average),
        }


@dataclass(slots=True)
class Stats:
    """A player's figures over their finished games (in a period)."""

    games: int = 0
    wins: int = 0
    places: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    points: int = 0
    contracts: dict[str, ContractFigures] = field(default_factory=dict)
    trumps: dict[str, ContractFigures] = field(default_factory=dict)

    @property
    def average(self) -> float | None:
        return self.points / self.games if self.games else None

    def to_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "wins": self.wins,
            "places": self.places,
            "points": self.points,
            "average": _round(self.average),
            "contracts": {name: f.to_json() for name, f in self.contracts.items()},
            "trumps": {suit: f.to_json() for suit, f in self.trumps.items()},
        }


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the leaderboard."""

    player: str
    rating: Rating
    games: int


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


class Ledger:
    """The seats, results, statistics and ratings of one server's database."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    # -- writing ----------------------------------------------------------------------

    def note_seat(self, table_id: str, seat: Seat, account: str, joined: float) -> None:
        """Index that ``account`` sits at ``seat`` (again: nothing changes)."""
        self.store.run(
            lambda sql: sql.change(
                "INSERT INTO king_seats (table_id, seat, account, joined) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (table_id, seat) DO NOTHING",
                (table_id, seat, account, joined),
            )
        )

    def recorded(self, table_id: str) -> bool:
        """Whether a finished game's results are written."""
        rows = self.store.run(
            lambda sql: sql.rows("SELECT 1 FROM king_results WHERE table_id = ?", (table_id,))
        )
        return bool(rows)

    def record_game(
        self,
        table_id: str,
        game: Game,
        *,
        players: list[str | None],
        names: list[str],
        rules: str,
        rated: bool,
        finished: float | None = None,
    ) -> list[RatingChange]:
        """Write a finished game's results and deal lines and, for a rated game whose
        four players are all known, rate it.  Writing a game twice changes nothing the
        second time (and returns no change)."""
        result = game_result(game)
        at = time.time() if finished is None else finished
        rate_it = rated and all(p is not None for p in players)

        def work(sql: Sql) -> list[RatingChange]:
            first = True
            for line in result.seats:
                changed = sql.change(
                    "INSERT INTO king_results (table_id, seat, player, name, points, place, "
                    "rated, rules, finished) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (table_id, seat) DO NOTHING",
                    (
                        table_id,
                        line.seat,
                        players[line.seat],
                        names[line.seat],
                        line.points,
                        line.place,
                        1 if rate_it else 0,
                        rules,
                        at,
                    ),
                )
                if first and changed == 0:
                    return []  # written before
                first = False
            for deal in result.deals:
                sql.change(
                    "INSERT INTO king_deal_results (table_id, deal, seat, player, declarer, "
                    "contract, trump, points, finished) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        table_id,
                        deal.deal,
                        deal.seat,
                        players[deal.seat],
                        1 if deal.declarer else 0,
                        deal.contract,
                        deal.trump,
                        deal.points,
                        at,
                    ),
                )
            if not rate_it:
                return []
            known = [p for p in players if p is not None]
            return _rate(sql, table_id, known, [s.place for s in result.seats], at)

        return self.store.run(work)

    # -- reading ----------------------------------------------------------------------

    def ratings(self, players: list[str]) -> dict[str, tuple[Rating, int]]:
        """The rating and rated games of each of these players that has one."""
        if not players:
            return {}
        marks = ", ".join("?" for _ in players)
        rows = self.store.run(
            lambda sql: sql.rows(
                f"SELECT player, mu, sigma, games FROM king_ratings WHERE player IN ({marks})",
                list(players),
            )
        )
        return {str(r[0]): (Rating(float(r[1]), float(r[2])), int(r[3])) for r in rows}

    def rating_changes(self, table_id: str) -> list[RatingChange]:
        rows = self.store.run(
            lambda sql: sql.rows(
                "SELECT player, mu_before, sigma_before, mu_after, sigma_after "
                "FROM king_rating_changes WHERE table_id = ?",
                (table_id,),
            )
        )
        return [
            RatingChange(
                str(r[0]), Rating(float(r[1]), float(r[2])), Rating(float(r[3]), float(r[4]))
            )
            for r in rows
        ]

    def leaderboard(self, limit: int = 100) -> list[Standing]:
        """Rated players, the best first (by :func:`~king.server.people.ratings.conservative`)."""
        rows = self.store.run(
            lambda sql: sql.rows("SELECT player, mu, sigma, games FROM king_ratings")
        )
        standings = [Standing(str(r[0]), Rating(float(r[1]), float(r[2])), int(r[3])) for r in rows]
        standings.sort(key=lambda s: (-conservative(s.rating), -shown(s.rating), s.player))
        return standings[:limit]

    def history(
        self, account: str, *, finished_only: bool, offset: int = 0, limit: int = 20
    ) -> list[HistoryRow]:
        """An account's games, the most recently active first (only the finished ones
        when another person looks)."""

        def work(sql: Sql) -> list[tuple[Any, ...]]:
            only = " AND t.status = 'over'" if finished_only else ""
            return sql.rows(
                "SELECT s.table_id, s.seat, t.status, t.updated, r.points, r.place, r.rated "
                f"FROM king_seats s JOIN {sql.tables} t ON t.id = s.table_id "
                "LEFT JOIN king_results r ON r.table_id = s.table_id AND r.seat = s.seat "
                f"WHERE s.account = ?{only} ORDER BY t.updated DESC, s.table_id "
                "LIMIT ? OFFSET ?",
                (account, limit, offset),
            )

        return [_history_row(row) for row in self.store.run(work)]

    def has_played(self, player: str) -> bool:
        """Whether ``player`` has a finished game here (a bot is somebody once it has)."""
        rows = self.store.run(
            lambda sql: sql.rows("SELECT 1 FROM king_results WHERE player = ? LIMIT 1", (player,))
        )
        return bool(rows)

    def bot_history(self, player: str, offset: int = 0, limit: int = 20) -> list[HistoryRow]:
        """A bot's finished games, the latest first."""
        rows = self.store.run(
            lambda sql: sql.rows(
                "SELECT table_id, seat, 'over', finished, points, place, rated FROM king_results "
                "WHERE player = ? ORDER BY finished DESC, table_id LIMIT ? OFFSET ?",
                (player, limit, offset),
            )
        )
        return [_history_row(row) for row in rows]

    def seats_of(self, table_ids: list[str]) -> dict[str, list[SeatLine]]:
        """The four seats of each of these finished games, as their results keep them."""
        if not table_ids:
            return {}
        marks = ", ".join("?" for _ in table_ids)
        rows = self.store.run(
            lambda sql: sql.rows(
                "SELECT table_id, seat, player, name, points, place FROM king_results "
                f"WHERE table_id IN ({marks}) ORDER BY table_id, seat",
                table_ids,
            )
        )
        found: dict[str, list[SeatLine]] = {}
        for r in rows:
            found.setdefault(str(r[0]), []).append(
                SeatLine(
                    int(r[1]), None if r[2] is None else str(r[2]), str(r[3]), int(r[4]), int(r[5])
                )
            )
        return found

    def stats(self, player: str, since: float | None = None, until: float | None = None) -> Stats:
        """A player's figures over their finished games, in ``[since, until)`` when
        given (seconds since the epoch)."""
        start = float("-inf") if since is None else since
        end = float("inf") if until is None else until
        low, high = max(start, -1e18), min(end, 1e18)

        def work(sql: Sql) -> tuple[list[tuple[Any, ...]], ...]:
            games = sql.rows(
                "SELECT place, COUNT(*), SUM(points) FROM king_results "
                "WHERE player = ? AND finished >= ? AND finished < ? GROUP BY place",
                (player, low, high),
            )
            contracts = sql.rows(
                "SELECT contract, declarer, COUNT(*), SUM(points) FROM king_deal_results "
                "WHERE player = ? AND finished >= ? AND finished < ? GROUP BY contract, declarer",
                (player, low, high),
            )
            trumps = sql.rows(
                "SELECT trump, declarer, COUNT(*), SUM(points) FROM king_deal_results "
                "WHERE player = ? AND contract = 'trumps' AND finished >= ? AND finished < ? "
                "GROUP BY trump, declarer",
                (player, low, high),
            )
            return games, contracts, trumps

        games, contracts, trumps = self.store.run(work)
        stats = Stats()
        for place, count, points in games:
            stats.games += int(count)
            stats.points += int(points)
            stats.places[int(place) - 1] += int(count)
        stats.wins = stats.places[0]
        for rows, into in ((contracts, stats.contracts), (trumps, stats.trumps)):
            for key, declarer, count, points in rows:
                figures = into.setdefault(str(key), ContractFigures())
                if int(declarer):
                    figures.declared += int(count)
                    figures.declarer_deals += int(count)
                    figures.declarer_points += float(points)
                else:
                    figures.defender_deals += int(count)
                    figures.defender_points += float(points)
        return stats


def _house(player: str) -> Rating | None:
    """A house bot's fixed rating, if ``player`` is one."""
    if not player.startswith(BOT_PREFIX):
        return None
    return HOUSE_RATINGS.get(player[len(BOT_PREFIX) :])


def _history_row(row: tuple[Any, ...]) -> HistoryRow:
    return HistoryRow(
        table=str(row[0]),
        seat=int(row[1]),
        status=str(row[2]),
        when=float(row[3]),
        points=None if row[4] is None else int(row[4]),
        place=None if row[5] is None else int(row[5]),
        rated=bool(row[6]),
    )


def _rate(
    sql: Sql, table_id: str, players: list[str], places: list[int], at: float
) -> list[RatingChange]:
    """Rate one game inside the transaction that writes its results.  The rows are read
    in a fixed order with a lock on PostgreSQL, so two games finishing at once with a
    player in common take turns instead of losing one's change."""
    lock = "" if sql.tables == "tables" else " FOR UPDATE"
    before: dict[str, tuple[Rating, int]] = {}
    for player in sorted(set(players)):
        rows = sql.rows(
            f"SELECT mu, sigma, games FROM king_ratings WHERE player = ?{lock}", (player,)
        )
        games = int(rows[0][2]) if rows else 0
        house = _house(player)
        if house is not None:
            before[player] = (house, games)
        elif rows:
            before[player] = (Rating(float(rows[0][0]), float(rows[0][1])), games)
        else:
            before[player] = (DEFAULT, 0)
    ratings = [before[p][0] for p in players]
    bots = [p.startswith(BOT_PREFIX) for p in players]
    after = capped(ratings, rate(ratings, places), bots)
    # A player at two seats (three ``rule`` bots are one player) moves by the mean of
    # its seats' moves, once; a house bot does not move (its rating is measured).
    moved: dict[str, list[Rating]] = {}
    for player, rating in zip(players, after, strict=True):
        moved.setdefault(player, []).append(before[player][0] if _house(player) else rating)
    changes = []
    for player, seats in moved.items():
        old, games = before[player]
        rating = Rating(
            old.mu + sum(r.mu - old.mu for r in seats) / len(seats),
            sum(r.sigma for r in seats) / len(seats),
        )
        sql.change(
            "INSERT INTO king_ratings (player, mu, sigma, games, updated) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (player) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
            "games = excluded.games, updated = excluded.updated",
            (player, rating.mu, rating.sigma, games + 1, at),
        )
        sql.change(
            "INSERT INTO king_rating_changes (table_id, player, mu_before, sigma_before, "
            "mu_after, sigma_after, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (table_id, player, old.mu, old.sigma, rating.mu, rating.sigma, at),
        )
        changes.append(RatingChange(player, old, rating))
    return changes
