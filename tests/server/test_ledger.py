"""Results, statistics and ratings: checked by hand on the example game, on both
backends, and ratings that move the way a player expects."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from king.game import Game
from king.record import replay
from king.server.people.ledger import Ledger
from king.server.people.ratings import (
    BOT_MARGIN,
    DEFAULT,
    HOUSE_RATINGS,
    Rating,
    capped,
    rate,
    shown,
)
from king.server.people.results import game_result, places
from king.server.store.database import open_store
from king.server.store.event_log import Database, EventStore
from tests.support.games import EXAMPLES

DAY = 86400.0
PLAYERS: list[str | None] = ["ada", "bora", "cem", "deniz"]


@pytest.fixture
def store(database: Database) -> Iterator[EventStore]:
    opened = open_store(database)
    yield opened
    opened.close()


def example_game() -> Game:
    report = replay(EXAMPLES / "game-classic.json")
    assert report.fault is None and report.game.is_over
    return report.game


def record(ledger: Ledger, table_id: str, at: float, rated: bool = False) -> None:
    ledger.store.create_table(table_id, {"rules": "classic", "seed": 42, "seats": []})
    ledger.record_game(
        table_id,
        example_game(),
        players=PLAYERS,
        names=["Ada", "Bora", "Cem", "Deniz"],
        rules="classic",
        rated=rated,
        finished=at,
    )


def test_places_share_ties() -> None:
    assert places([10, 10, 10, 10]) == [1, 1, 1, 1]
    assert places([-5, 20, 20, 0]) == [4, 1, 1, 3]


def test_the_example_game_figures_checked_by_hand(store: EventStore) -> None:
    """examples/game-classic.expected.json, read by hand: totals -910, 530, 10, 370; Ada
    declared no-last-two (0), no-queens (-100), no-boys (-240) and Trumps in clubs
    twice (200, 100); in the other players' Trumps she took 100 and 50 (diamonds), 150
    and 50 (hearts), 300 and 300 (clubs)."""
    ledger = Ledger(store)
    record(ledger, "Tgame1", time.time())
    ada = ledger.stats("ada")
    assert (ada.games, ada.wins, ada.places, ada.points) == (1, 0, [0, 0, 0, 1], -910)
    trumps = ada.contracts["trumps"]
    assert (trumps.declared, trumps.declarer_average) == (2, 150.0)
    assert trumps.defender_deals == 6
    assert trumps.defender_average == pytest.approx(950 / 6)
    assert ada.contracts["no-boys"].to_json() == {
        "declared": 1,
        "declarer_deals": 1,
        "declarer_average": -240.0,
        "defender_deals": 1,
        "defender_average": -360.0,
    }
    assert ada.contracts["no-king"].declared == 0
    assert ada.contracts["no-king"].defender_average == -160.0
    assert ada.contracts["no-queens"].declarer_average == -100.0
    assert {suit: f.declared for suit, f in ada.trumps.items()} == {"C": 2, "D": 0, "H": 0}
    assert ada.trumps["C"].declarer_average == 150.0
    assert ada.trumps["C"].defender_average == 300.0
    assert ada.trumps["D"].defender_average == 75.0
    assert ada.trumps["H"].defender_average == 100.0
    bora = ledger.stats("bora")
    assert (bora.games, bora.wins, bora.average) == (1, 1, 530.0)
    declared = {name: f.declared for name, f in bora.contracts.items() if f.declared}
    assert declared == {"no-tricks": 1, "no-last-two": 1, "no-king": 1, "trumps": 2}
    assert bora.contracts["no-tricks"].declarer_average == -100.0
    # Every seat's deal lines add up to its total, and the deals to zero.
    result = game_result(example_game())
    assert [s.points for s in result.seats] == [-910, 530, 10, 370]
    assert sum(line.points for line in result.deals) == 0


def test_statistics_over_a_period(store: EventStore) -> None:
    ledger = Ledger(store)
    now = time.time()
    record(ledger, "Told01", now - 40 * DAY)
    record(ledger, "Tnew01", now)
    assert ledger.stats("ada").games == 2
    assert ledger.stats("ada", since=now - 7 * DAY).games == 1
    assert ledger.stats("ada", until=now - 7 * DAY).games == 1
    assert ledger.stats("ada", since=now - 50 * DAY, until=now - 30 * DAY).points == -910
    assert ledger.stats("ada", since=now + DAY).games == 0
    assert ledger.stats("nobody").to_json()["average"] is None


def test_a_game_is_written_and_rated_once(store: EventStore) -> None:
    ledger = Ledger(store)
    record(ledger, "Trated", time.time(), rated=True)
    first = ledger.ratings(["ada", "bora"])
    again = ledger.record_game(
        "Trated",
        example_game(),
        players=PLAYERS,
        names=["Ada", "Bora", "Cem", "Deniz"],
        rules="classic",
        rated=True,
    )
    assert again == []
    assert ledger.ratings(["ada", "bora"]) == first
    assert ledger.stats("ada").games == 1
    # Bora won (530) and gains; Ada came last (-910) and loses.
    assert first["bora"][0].mu > DEFAULT.mu > first["ada"][0].mu
    assert first["bora"][1] == first["ada"][1] == 1
    board = [s.player for s in ledger.leaderboard()]
    assert board == ["bora", "deniz", "cem", "ada"]
    changes = {c.player: c for c in ledger.rating_changes("Trated")}
    assert changes["bora"].before == DEFAULT and changes["bora"].after == first["bora"][0]


def test_one_bot_at_three_seats_is_rated_once(store: EventStore) -> None:
    ledger = Ledger(store)
    store.create_table("Tbots1", {"rules": "classic", "seed": 42, "seats": []})
    changes = ledger.record_game(
        "Tbots1",
        example_game(),
        players=["ada", "bot:rule", "bot:rule", "bot:rule"],
        names=["Ada", "Medium bot 1", "Medium bot 2", "Medium bot 3"],
        rules="classic",
        rated=True,
    )
    assert sorted(c.player for c in changes) == ["ada", "bot:rule"]
    assert ledger.ratings(["bot:rule"])["bot:rule"][1] == 1
    assert ledger.stats("bot:rule").games == 3  # a game per seat it played


def test_winning_against_stronger_players_gains_more() -> None:
    strong, weak, me = Rating(35.0, 3.0), Rating(15.0, 3.0), Rating(25.0, 3.0)
    against_strong = rate([me, strong, strong, strong], [1, 2, 3, 4])[0]
    against_weak = rate([me, weak, weak, weak], [1, 2, 3, 4])[0]
    assert against_strong.mu > against_weak.mu > me.mu
    # Losing to weaker players costs more than losing to stronger ones.
    lost_to_weak = rate([me, weak, weak, weak], [4, 1, 2, 3])[0]
    lost_to_strong = rate([me, strong, strong, strong], [4, 1, 2, 3])[0]
    assert lost_to_weak.mu < lost_to_strong.mu < me.mu
    # Every game makes the estimate surer; a tie of equals moves nobody's skill.
    assert against_strong.sigma < me.sigma
    tied = rate([DEFAULT] * 4, [1, 1, 1, 1])
    assert all(r.mu == pytest.approx(DEFAULT.mu) for r in tied)
    assert shown(DEFAULT) == 1500


def test_winning_every_game_against_bots_lifts_a_person_to_the_bots_and_no_further(
    store: EventStore,
) -> None:
    """The farm the old ledger allowed: a person who always wins against bots climbed to
    thousands.  Now the house bots' ratings stay as measured, and no person ends more than
    BOT_MARGIN above the best of the others at a table with bots."""
    ledger = Ledger(store)
    game = example_game()
    winner = places(game.totals).index(1)
    seats = ["bot:rule"] * 4
    seats[winner] = "farmer"
    for number in range(50):
        table = f"Tfarm{number}"
        store.create_table(table, {"rules": "classic", "seed": 42, "seats": []})
        ledger.record_game(
            table,
            game,
            players=list(seats),
            names=["a", "b", "c", "d"],
            rules="classic",
            rated=True,
        )
    ratings = ledger.ratings(["farmer", "bot:rule"])
    rule = HOUSE_RATINGS["rule"]
    assert ratings["bot:rule"] == (rule, 50)
    assert shown(ratings["farmer"][0]) == shown(rule) + BOT_MARGIN
    # Against search, the same wins lift the person further: beating it proves more.
    seats = ["bot:search"] * 4
    seats[winner] = "farmer"
    store.create_table("Tsearch", {"rules": "classic", "seed": 42, "seats": []})
    ledger.record_game(
        "Tsearch", game, players=seats, names=["a", "b", "c", "d"], rules="classic", rated=True
    )
    assert shown(ledger.ratings(["farmer"])["farmer"][0]) > shown(rule) + BOT_MARGIN
    # Among people only, nothing is capped.
    assert capped([DEFAULT] * 4, rate([DEFAULT] * 4, [1, 2, 3, 4]), [False] * 4) == rate(
        [DEFAULT] * 4, [1, 2, 3, 4]
    )
