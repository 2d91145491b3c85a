"""People at shared tables, played by WebSocket clients that behave as the page does:
each reconnects (to another server process) when its connection drops or goes quiet
even to a ping, and resends nothing it was told was made.  With what each saw, a
table's log can be checked against every acknowledged move, and how long a table stood
still measured."""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.frames import CloseCode

from benchmarks.server_process import ServerProcess
from king.events import apply, from_json
from king.game import Game
from king.rules import Rules
from tests.support.services import Cluster, query

#: The page's timings (``js/connection.js``): quiet this long, a ping; this long, a new
#: connection.
PING_AFTER = 0.5
GIVE_UP_AFTER = 1.5


def create_table(url: str, seed: int) -> tuple[str, list[str]]:
    """A table with two people's seats (0 and 2) and two random bots; their tokens."""
    seats = [
        {"kind": "human"},
        {"kind": "bot", "bot": "random"},
        {"kind": "human"},
        {"kind": "bot", "bot": "random"},
    ]
    made = httpx.post(
        f"{url}/api/tables", json={"name": "Ada", "seats": seats, "seat": 0, "seed": seed}
    )
    assert made.status_code == 201, made.text
    claim = made.json()
    joined = httpx.post(f"{url}/api/tables/{claim['table']}/join", json={"name": "Bo", "seat": 2})
    assert joined.status_code == 200, joined.text
    return claim["table"], [claim["token"], joined.json()["token"]]


@dataclass
class Player:
    """One person's seat, played by a client that reconnects to any process when its
    connection drops or goes silent, and resends a move it was not told was made."""

    table: str
    seat: int
    token: str
    urls: list[str]
    think: float
    rng: random.Random
    #: The moves the server acknowledged: event number -> (kind, what).
    acked: dict[int, tuple[str, str]] = field(default_factory=dict)
    #: Every state's event number seen, with when (time.monotonic()).
    seen: list[tuple[int, float]] = field(default_factory=list)
    last_view: dict[str, Any] | None = None
    over: bool = False
    reconnects: int = 0
    refused: list[str] = field(default_factory=list)
    #: What happened lately (wall-clock time, what), to tell in a failure.
    trace: list[tuple[float, str]] = field(default_factory=list)

    def note(self, what: str) -> None:
        self.trace.append((round(time.time() % 1000, 3), what))
        del self.trace[:-400]

    async def play(self, stop: asyncio.Event) -> None:
        where = self.rng.randrange(len(self.urls))
        while not self.over and not stop.is_set():
            url = self.urls[where % len(self.urls)].replace("http://", "ws://")
            self.note(f"connect {url}")
            moved = False
            try:
                # Like the page's: a connection that does not open within the give-up
                # time is given up, and one given up is not waited for.
                async with connect(
                    f"{url}/api/tables/{self.table}/ws",
                    open_timeout=GIVE_UP_AFTER,
                    close_timeout=0.05,
                ) as ws:
                    await ws.send(json.dumps({"v": 1, "type": "hello", "token": self.token}))
                    moved = await self._conversation(ws, stop)
            except ConnectionClosed as error:
                self.note(repr(error)[:80])
                moved = error.rcvd is not None and error.rcvd.code == CloseCode.SERVICE_RESTART
            except (OSError, TimeoutError, WebSocketException) as error:
                self.note(repr(error)[:80])
                moved = False
            if self.over or stop.is_set():
                return
            self.reconnects += 1
            if not moved:  # the page's address would lead to another process
                where += 1 + self.rng.randrange(len(self.urls) - 1)
            # A process that said the table moved is alive: it finds the table again.
            await asyncio.sleep(0.05)

    async def _conversation(self, ws: ClientConnection, stop: asyncio.Event) -> bool:
        """Play on this connection until it fails; returns whether the (live) server
        said the table moved, so that the same process is asked again."""
        heard = time.monotonic()
        pinged = False
        while not stop.is_set():
            # As the page does (js/connection.js): a quiet connection is pinged, and
            # given up for a new one when even that brings nothing (a frozen process
            # keeps its sockets open).
            quiet = time.monotonic() - heard
            if quiet >= GIVE_UP_AFTER:
                self.note("silent: giving the connection up")
                return False
            if quiet >= PING_AFTER and not pinged:
                pinged = True
                await ws.send(json.dumps({"v": 1, "type": "ping"}))
            wait = (PING_AFTER if not pinged else GIVE_UP_AFTER) - quiet
            try:
                text = await asyncio.wait_for(ws.recv(), timeout=max(0.01, wait))
            except TimeoutError:
                continue
            heard = time.monotonic()
            pinged = False
            message = json.loads(text)
            self.note(f"{message['type']} {message.get('seq', '')} {message.get('code', '')}")
            if message["type"] == "error":
                self.refused.append(message["code"])
                if message["code"] in ("moved", "busy", "server", "unavailable"):
                    return message["code"] in ("moved", "unavailable")
                continue
            if message["type"] != "state":
                continue
            number = message["seq"] - 1  # the event this state follows
            self.seen.append((number, time.monotonic()))
            event = message["event"]
            if event["kind"] == "play" and event["seat"] == self.seat:
                self.acked[number] = ("play", event["card"])
            elif event["kind"] == "declare" and event["seat"] == self.seat:
                self.acked[number] = ("declare", event["contract"])
            view = message["view"]
            self.last_view = view
            if view["phase"] == "over":
                self.over = True
                return True
            if view["to_act"] == self.seat:
                await asyncio.sleep(self.think)
                if message["declarations"]:
                    allowed = [d for d in message["declarations"] if d["allowed"]]
                    choice = self.rng.choice(allowed)
                    action = {"type": "declare", "contract": choice["contract"]}
                    if choice["trump"]:
                        action["trump"] = choice["trump"]
                else:
                    action = {"type": "play", "card": self.rng.choice(message["legal"])}
                self.note(f"sent {action}")
                await ws.send(json.dumps({"v": 1, **action}))
        return False


def seat_players(
    cluster: Cluster, tables: list[tuple[str, list[str]]], think: float, seed: int
) -> list[Player]:
    """A client for each person's seat (0 and 2) of each table, spread over the processes."""
    rng = random.Random(seed)
    return [
        Player(table, seat, token, cluster.urls, think=think, rng=random.Random(rng.random()))
        for table, tokens in tables
        for seat, token in zip((0, 2), tokens, strict=True)
    ]


def check_log(cluster: Cluster, table: str, players: list[Player]) -> int:
    """Every acknowledged move is in the table's log at its number, and the log replays
    by the rules (so no move is in it twice).  Returns how many events it has."""
    rows = query(
        cluster.db,
        "SELECT number, kind, data FROM events WHERE table_id = ? ORDER BY number",
        (table,),
    )
    numbers = [row[0] for row in rows]
    assert numbers == list(range(len(rows))), f"table {table}: the log has gaps"
    header = json.loads(rows[0][2])
    game = Game(Rules.from_spec(header["rules"]), int(header["seed"]), auto_deal=False)
    for _, kind, data in rows:
        if kind in ("deal", "declare", "play"):
            apply(game, from_json(kind, json.loads(data)))  # raises on a move made twice
    by_number = {row[0]: (row[1], json.loads(row[2])) for row in rows}
    for player in players:
        for after, (kind, what) in player.acked.items():
            # The state follows the move, or the next deal when the move ended one.
            number = after - 1 if by_number[after][0] == "deal" and kind == "play" else after
            logged_kind, data = by_number[number]
            assert logged_kind == kind, (table, number, kind, logged_kind)
            assert data["seat"] == player.seat
            assert what == (data["card"] if kind == "play" else data["contract"])
    return len(rows)


def busiest_owner(cluster: Cluster, players: list[Player]) -> tuple[ServerProcess, list[str]]:
    """The process that owns the most tables in the middle of a trick, and its tables."""
    owners = cluster.owners()
    mid_trick: dict[str, list[str]] = {}
    for player in players:
        view = player.last_view
        owner = owners.get(player.table)
        if owner is None or view is None or player.over or player.seat != 0:
            continue
        if view["phase"] == "playing" and view["trick"]:
            mid_trick.setdefault(owner, []).append(player.table)
    live = [(o, t) for o, t in mid_trick.items() if cluster.process_of(o) is not None]
    assert live, "no process owns a table in the middle of a trick"
    owner, _ = max(live, key=lambda item: len(item[1]))
    process = cluster.process_of(owner)
    assert process is not None
    return process, [t for t, o in owners.items() if o == owner]


def last_seen(players: list[Player], table: str) -> int:
    return max((n for p in players if p.table == table for n, _ in p.seen), default=-1)


def went_on_at(players: list[Player], table: str, after: int) -> float | None:
    times = [t for p in players if p.table == table for n, t in p.seen if n > after]
    return min(times) if times else None


def table_story(
    players: list[Player], table: str, processes: list[ServerProcess], wall: float
) -> list[str]:
    """What a table's clients and the servers said of it around the wall-clock moment
    ``wall`` (``time.time() % 1000``, as in the clients' traces): to tell in a failure."""
    lines = []
    for player in (p for p in players if p.table == table):
        before = [entry for entry in player.trace if entry[0] < wall][-6:]
        after = [entry for entry in player.trace if entry[0] >= wall][:20]
        lines.append(f"seat {player.seat}: {before} | {after}")
    for process in processes:
        said = [line for line in process.output().splitlines() if table in line]
        lines.extend(f"  {process.port}: {line}" for line in said[-12:])
    return lines
