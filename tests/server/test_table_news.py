"""What a state tells besides the cards: what each seat took this deal, the contract
board, and the bots' speed that the people at a table ask for.

The first two are checked against the rules' own scoring, deal after deal of seeded
random games; the speed against a real server, message by message."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

from benchmarks.server_process import ServerProcess
from king.game import Game
from king.rules import (
    MAX_PER_NEGATIVE,
    NEGATIVE_CONTRACTS,
    NEGATIVES_PER_PLAYER,
    POINTS_PER_UNIT,
    TRUMPS_PER_PLAYER,
    Contract,
    Rules,
)
from king.server.store.event_log import Database
from king.server.tables.messages import state_message
from tests.support.games import random_move
from tests.support.peers import Peer, create, join, player
from tests.support.services import query


def states_of_a_game(seed: int, rules: Rules | None = None) -> list[tuple[Game, dict[str, Any]]]:
    """A seeded random game, with the spectator's state after every action (the game is
    the same object throughout: read it only together with its state)."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    out: list[tuple[Game, dict[str, Any]]] = []
    while not game.is_over:
        random_move(game, rng)
        out.append((game, json.loads(state_message(game, None, len(out), None))))
    return out


@pytest.mark.parametrize(("seed", "preset"), [(3, "classic"), (8, "pagat"), (12, "turkish")])
def test_what_each_seat_took_is_what_the_rules_score(seed: int, preset: str) -> None:
    """In a card contract each seat's taken cards cost exactly its points; in the others
    its tricks are the tricks it won; every card counted was played in a trick it won."""
    checked = 0
    for _, state in states_of_a_game(seed, Rules.preset(preset)):
        taken = state["taken"]
        view = state["view"]
        assert taken is not None
        if view["phase"] == "playing":
            # While a deal is played: that deal.
            assert taken["deal"] == view["deal"]
            assert taken["contract"] == view["contract"]
            assert taken["tricks"] == view["tricks_won"]
            won: list[set[str]] = [set(), set(), set(), set()]
            for trick in view["tricks"]:
                won[trick["winner"]].update(trick["cards"])
            contract = Contract(view["contract"])
            for seat in range(4):
                cards = taken["cards"][seat]
                assert set(cards) <= won[seat]
                assert len(set(cards)) == len(cards)
                if taken["counts"] == "cards":
                    assert view["points"][seat] == POINTS_PER_UNIT[contract.code] * len(cards)
                else:
                    assert cards == []
            checked += 1
        else:
            # Between deals (and at the end): the deal just finished, as it was scored.
            assert taken["deal"] == len(view["results"]) - 1
            result = view["results"][-1]
            assert taken["contract"] == result["contract"]
            if taken["counts"] == "cards":
                unit = POINTS_PER_UNIT[Contract(result["contract"]).code]
                assert [unit * len(c) for c in taken["cards"]] == result["points"]
    assert checked > 200


def test_each_penalty_card_is_counted_once_and_every_one_by_the_deal_end() -> None:
    """No Hearts: after thirteen tricks the hearts are all taken, each by one seat
    (unless the deal ended early, when the hearts taken are those played)."""
    seen = 0
    for _, state in states_of_a_game(5):
        taken = state["taken"]
        if state["view"]["phase"] == "playing" or taken["contract"] != "no-hearts":
            continue
        cards = [card for seat in taken["cards"] for card in seat]
        assert len(cards) == len(set(cards))
        assert all(card.endswith("H") for card in cards)
        assert len(cards) == 13  # classic: every deal is played to its end
        seen += 1
    assert seen >= 1


def test_the_board_shows_who_declared_what_and_what_is_left() -> None:
    states = states_of_a_game(21)
    for _, state in states:
        board = state["board"]
        view = state["view"]
        assert [line["contract"] for line in board] == [
            *(c.value for c in NEGATIVE_CONTRACTS),
            "trumps",
        ]
        # The board agrees with the view's counts and with the results.
        for line in board:
            count = len(line["declared"])
            if line["contract"] == "trumps":
                assert line["left"] is None
                assert count == sum(view["trumps_declared"])
            else:
                assert count == view["contract_counts"].get(line["contract"], 0)
                assert line["left"] == MAX_PER_NEGATIVE - count
        entries = sorted(
            (e["deal"], e["declarer"], line["contract"]) for line in board for e in line["declared"]
        )
        played = [(n, r["declarer"], r["contract"]) for n, r in enumerate(view["results"])]
        assert entries[: len(played)] == played
        # What is left to declare, per player, is what the board has not seen yet.
        for seat in range(4):
            mine = [e for line in board for e in line["declared"] if e["declarer"] == seat]
            trumps = sum(1 for e in mine if e["trump"] is not None)
            negatives = len(mine) - trumps
            owed = [TRUMPS_PER_PLAYER - trumps, NEGATIVES_PER_PLAYER - negatives]
            assert state["obligations"][seat] == owed
    final = states[-1][1]
    assert all(line["left"] == 0 for line in final["board"][:-1])
    assert len(final["board"][-1]["declared"]) == 4 * TRUMPS_PER_PLAYER
    assert all(e["trump"] in "SHDC" for e in final["board"][-1]["declared"])


# -- the bots' speed, at a real server ------------------------------------------------


@pytest.fixture(scope="module")
def server(module_database: Database) -> Any:
    db = module_database
    with ServerProcess(db, bot_pause=0.1) as process:
        yield process


def pace(peer: Peer) -> dict[str, Any]:
    return peer.until(lambda m: m["type"] == "pace")


def test_the_table_moves_at_the_slowest_speed_its_people_ask_for(server: ServerProcess) -> None:
    claim = create(server, ["human", "human", "random", "random"], seed=4)
    table = claim["table"]
    other = join(server, table, "Bo", 1)
    ada, _ = player(server, table, claim["token"])
    assert ada.received[0]["speed"] == "normal" and ada.received[0]["bot_pause_ms"] == 100
    bo, _ = player(server, table, other)
    watcher = Peer(server, table)
    watcher.send({"type": "watch"})
    assert watcher.next()["type"] == "welcome"
    # A spectator's wish does not count while people sit at the table: told, not obeyed.
    watcher.send({"type": "speed", "speed": "slow"})
    assert pace(watcher) == {"v": 1, "type": "pace", "speed": "normal", "bot_pause_ms": 100}
    # Both people want it fast: everyone hears the new pace (0.3 of the server's pause).
    ada.send({"type": "speed", "speed": "fast"})
    assert pace(ada)["speed"] == "normal"  # Bo still asks for normal
    bo.send({"type": "speed", "speed": "fast"})
    for peer in (ada, bo, watcher):
        assert pace(peer) == {"v": 1, "type": "pace", "speed": "fast", "bot_pause_ms": 30}
    # One asks for slow: the table goes at their speed; when they leave it is fast again.
    bo.send({"type": "speed", "speed": "slow"})
    assert pace(ada)["bot_pause_ms"] == 200
    bo.close()
    assert pace(ada) == {"v": 1, "type": "pace", "speed": "fast", "bot_pause_ms": 30}
    # With nobody seated, the spectators decide.
    ada.close()
    assert pace(watcher)["speed"] == "slow"
    watcher.close()


def test_a_slow_table_waits_the_slow_pause_before_every_bot_move(server: ServerProcess) -> None:
    claim = create(server, ["random", "random", "random", "random"], seat=None, seed=9)
    watcher = Peer(server, claim["table"])
    watcher.send({"type": "watch"})
    watcher.send({"type": "speed", "speed": "slow"})
    assert watcher.next()["type"] == "welcome"
    assert pace(watcher)["bot_pause_ms"] == 200
    numbers: list[int] = []  # of the moves made once the table went slow
    while len(numbers) < 9:
        message = watcher.next(timeout=20)
        if message["type"] == "state" and message["event"]["kind"] in ("declare", "play"):
            numbers.append(message["seq"] - 1)  # a state's seq counts the events before it
    watcher.close()
    # The pause is read from the log's own times (each event's is taken as the server
    # writes it, and the next bot's pause starts only after that write): what the watcher
    # receives also carries the network's and the scheduler's jitter.
    rows = query(
        server.db,
        "SELECT number, kind, at FROM events WHERE table_id = ? ORDER BY number",
        (claim["table"],),
    )
    kinds = {number: kind for number, kind, _ in rows}
    assert all(kinds[n] in ("declare", "play") for n in numbers), (numbers, kinds)
    times = [float(at) for number, _, at in rows if number in numbers]
    assert len(times) == 9
    gaps = [b - a for a, b in itertools.pairwise(times)]
    # Each bot waits at least the slow pause (twice that after a completed trick).
    assert min(gaps) >= 0.2, gaps


def test_a_bad_speed_is_refused_and_changes_nothing(server: ServerProcess) -> None:
    claim = create(server, ["human", "random", "random", "random"], seed=2)
    ada = Peer(server, claim["table"])
    ada.send({"type": "speed", "speed": "fast"})
    assert ada.error()["code"] == "not_joined"
    ada.send({"type": "hello", "token": claim["token"]})
    assert ada.next()["type"] == "welcome"
    for bad in ("warp", "FAST", 3, None):
        ada.send({"type": "speed", "speed": bad})
        error = ada.error()
        assert error["code"] == "invalid" and "speed" in error["message"], error
    ada.send({"type": "speed", "speed": "slow"})
    assert pace(ada)["speed"] == "slow"
    ada.close()
