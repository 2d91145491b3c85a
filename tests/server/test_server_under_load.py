"""Games go on, exactly as acknowledged, while strangers hammer the accounts: a real
server (both backends) plays two games of four people, every seat driven by the test,
while other clients, from several threads and addresses, send wrong and right
passwords, registrations, joins with no cookie and history requests as fast as the
server answers.  Every move the server acknowledged is in the log once and in order, no
refused move is in it, and both games finish."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from benchmarks.server_process import ServerProcess
from king.server.store.event_log import Database
from tests.support.peers import Peer
from tests.support.services import query

PASSWORD = "a long and secret phrase"
Move = tuple[int, str, str]


@pytest.fixture(scope="module")
def server(module_database: Database) -> Iterator[ServerProcess]:
    with ServerProcess(module_database, bot_pause=0) as process:
        yield process


def client(server: ServerProcess, address: str) -> httpx.Client:
    """A client from ``address`` (as the proxy on 127.0.0.1 that uvicorn trusts says)."""
    return httpx.Client(base_url=server.url, timeout=60, headers={"X-Forwarded-For": address})


def four_people(server: ServerProcess, seed: int) -> tuple[str, list[str]]:
    """A table of four people, every seat taken by this test: its id and the tokens."""
    host = client(server, f"10.50.{seed}.1")
    body = {"seats": [{"kind": "human"}] * 4, "seat": 0, "name": f"Host {seed}", "seed": seed}
    claim = host.post("/api/tables", json=body).json()
    tokens = [claim["token"]]
    for seat in (1, 2, 3):
        other = client(server, f"10.50.{seed}.{seat + 1}")
        joined = other.post(f"/api/tables/{claim['table']}/join", json={"name": f"P{seat}"})
        assert joined.status_code == 200, joined.text
        tokens.append(joined.json()["token"])
    return claim["table"], tokens


def move_of(state: dict[str, Any]) -> tuple[dict[str, Any], str, str]:
    """The first legal move of a seat's state: the message, its kind and what it is."""
    if state["declarations"]:
        choice = next(d for d in state["declarations"] if d["allowed"])
        what = (
            choice["contract"]
            if choice["trump"] is None
            else f"{choice['contract']} {choice['trump']}"
        )
        message = {"type": "declare", "contract": choice["contract"], "trump": choice["trump"]}
        return message, "declare", what
    card = state["legal"][0]
    return {"type": "play", "card": card}, "play", card


class Game:
    """One table's game, every seat played by the test; every move sent is noted with
    whether the server acknowledged it."""

    def __init__(self, server: ServerProcess, table: str, tokens: list[str]) -> None:
        self.table = table
        self.peers = []
        for token in tokens:
            peer = Peer(server, table)
            peer.send({"type": "hello", "token": token})
            assert peer.next()["type"] == "welcome"
            self.peers.append(peer)
        self.acknowledged: list[Move] = []
        #: The latest state each seat's connection has read.
        self.latest: dict[int, dict[str, Any]] = {}
        self.refused: list[tuple[Move, str]] = []
        self.error: BaseException | None = None

    def play(self, deadline: float) -> None:
        try:
            state = self.peers[0].state()
            while state["view"]["phase"] != "over":
                assert time.monotonic() < deadline, "the game stalled"
                state = self._turn(state)
        except BaseException as error:
            self.error = error
        finally:
            for peer in self.peers:
                peer.close()

    def _turn(self, state: dict[str, Any]) -> dict[str, Any]:
        seat, seq = state["view"]["to_act"], state["seq"]
        peer = self.peers[seat]
        mine = self.latest.get(seat)
        if mine is None or mine["seq"] < seq:
            mine = peer.until(lambda m: m["type"] == "state" and m["seq"] >= seq, timeout=60)
        message, kind, what = move_of(mine)
        peer.send(message)
        reply = peer.until(lambda m: m["type"] in ("state", "error"), timeout=60)
        if reply["type"] == "error":
            self.refused.append(((seat, kind, what), reply["code"]))
            time.sleep(0.05)
            return mine
        assert reply["event"]["seat"] == seat and reply["seq"] > seq, reply
        self.acknowledged.append((seat, kind, what))
        self.latest[seat] = reply
        return reply


def logged_moves(server: ServerProcess, table: str) -> list[Move]:
    """The declarations and plays in the table's log, in order."""
    moves = []
    for kind, data in query(
        server.db,
        "SELECT kind, data FROM events WHERE table_id = ? AND kind IN ('declare', 'play') "
        "ORDER BY number",
        (table,),
    ):
        event = json.loads(data)
        if kind == "declare":
            trump = event.get("trump")
            what = event["contract"] if trump is None else f"{event['contract']} {trump}"
        else:
            what = event["card"]
        moves.append((int(event["seat"]), kind, what))
    return moves


class Hammer:
    """Strangers at the accounts, one thread each from an address of its own."""

    def __init__(self, server: ServerProcess, threads: int, table: str) -> None:
        self.server = server
        self.table = table
        self.stop = threading.Event()
        self.statuses: Counter[tuple[str, int]] = Counter()
        self.lock = threading.Lock()
        self.errors: list[str] = []
        self.threads = [
            threading.Thread(target=self._run, args=(index,), daemon=True)
            for index in range(threads)
        ]

    def __enter__(self) -> Hammer:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(60)

    def _note(self, what: str, answer: httpx.Response) -> None:
        with self.lock:
            self.statuses[(what, answer.status_code)] += 1
            if answer.status_code >= 500 and answer.json()["error"]["code"] != "busy":
                self.errors.append(f"{what}: {answer.status_code} {answer.text}")

    def _run(self, index: int) -> None:
        with client(self.server, f"10.77.{index}.1") as http:
            number = 0
            while not self.stop.is_set():
                number += 1
                self._round(http, index, number)

    def _round(self, http: httpx.Client, index: int, number: int) -> None:
        wrong = {"name": "Target_1", "password": "not the password"}
        self._note("wrong login", http.post("/api/login", json=wrong))
        right = {"name": "Target_1", "password": PASSWORD}
        self._note("login", http.post("/api/login", json=right))
        fresh = {"name": f"Spam{index}x{number}", "password": PASSWORD}
        self._note("register", http.post("/api/accounts", json=fresh))
        self._note("register taken", http.post("/api/accounts", json=right))
        bare = httpx.post(
            f"{self.server.url}/api/tables/NoSuch{number}/join",
            json={"name": "x"},
            headers={"X-Forwarded-For": f"10.78.{index}.{number % 250}"},
        )
        self._note("join missing", bare)
        self._note("join started", http.post(f"/api/tables/{self.table}/join", json={"name": "y"}))
        self._note("history", http.get("/api/players/Target_1/games"))
        self._note("stats", http.get("/api/players/Target_1/stats"))
        self._note("leaderboard", http.get("/api/leaderboard"))


@pytest.mark.slow
def test_two_games_are_logged_exactly_as_acknowledged_while_logins_are_hammered(
    server: ServerProcess,
) -> None:
    target = client(server, "10.60.0.1")
    assert (
        target.post("/api/accounts", json={"name": "Target_1", "password": PASSWORD}).status_code
        == 201
    )
    games = [Game(server, *four_people(server, seed)) for seed in (1, 2)]
    accounts_before = int(query(server.db, "SELECT COUNT(*) FROM king_accounts")[0][0])
    deadline = time.monotonic() + 600
    with Hammer(server, threads=3, table=games[0].table) as hammer:
        players = [threading.Thread(target=game.play, args=(deadline,)) for game in games]
        for thread in players:
            thread.start()
        for thread in players:
            thread.join()
    for game in games:
        assert game.error is None, repr(game.error)
        info = httpx.get(f"{server.url}/api/tables/{game.table}").json()
        assert info["status"] == "over"
        # Every acknowledged move is in the log, once, in order; no refused one is.
        assert logged_moves(server, game.table) == game.acknowledged
        assert len(game.acknowledged) == 20 + 20 * 52
    refused = [why for game in games for _, why in game.refused]
    assert refused == [], refused  # nothing the hammering did refused a move
    assert hammer.errors == []
    sent = sum(hammer.statuses.values())
    assert sent > 200, hammer.statuses
    limited = sum(n for (what, status), n in hammer.statuses.items() if status in (429, 503))
    assert limited > 0, hammer.statuses
    # The joins that seated nobody wrote no guest; only the registrations wrote accounts.
    registered = sum(
        n for (what, status), n in hammer.statuses.items() if what == "register" and status == 201
    )
    accounts_after = int(query(server.db, "SELECT COUNT(*) FROM king_accounts")[0][0])
    assert accounts_after == accounts_before + registered
    log = server.output()
    for trouble in ("UNIQUE constraint", "within a transaction", "Traceback", "not saved"):
        assert trouble not in log, trouble
