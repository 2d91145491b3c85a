"""The metrics a host's Prometheus scrapes (``king serve --metrics ADDRESS:PORT``), read
from real server processes over real HTTP after real play over WebSockets: the moves
counted by kind and by who made them agree with the table's log, a person's every move
is timed, the gauges show the tables, connections and bot queue of the moment, and a
process that takes a dead owner's table over counts it."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import ClientConnection, connect

from benchmarks.server_process import ServerProcess, free_port
from tests.support.services import Cluster, query, run_king, start_cluster
from tests.support.table_players import create_table, seat_players

#: The people's seats of :func:`create_table` (the others are random bots).
PEOPLE = (0, 2)
#: Every metric a process serves, with its type.
FAMILIES = {
    "king_moves": "counter",
    "king_move_latency_seconds": "histogram",
    "king_tables": "gauge",
    "king_takeovers": "counter",
    "king_tables_given_up": "counter",
    "king_bot_queue": "gauge",
    "king_bot_move_seconds": "histogram",
    "king_connections": "gauge",
}


@dataclass
class Scrape:
    """One scrape of a process's metrics: each sample by its name and labels."""

    samples: dict[tuple[str, frozenset[tuple[str, str]]], float]
    families: dict[str, tuple[str, str]]

    def value(self, name: str, **labels: str) -> float:
        return self.samples[(name, frozenset(labels.items()))]


def scrape(port: int) -> Scrape:
    answer = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10)
    assert answer.status_code == 200, answer.text
    samples: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    families: dict[str, tuple[str, str]] = {}
    for family in text_string_to_metric_families(answer.text):
        families[family.name] = (family.type, family.documentation)
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return Scrape(samples, families)


def eventually(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.05)


@dataclass
class Game:
    """Two people who play until they have made ``target`` moves between them, then
    stop and leave the table waiting for one of them (so that nothing moves on)."""

    target: int
    made: int = 0
    #: The last state each person heard: its number and who was to act.
    heard: dict[int, tuple[int, int | None]] = field(default_factory=dict)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    async def person(self, ws: ClientConnection, seat: int, rng: random.Random) -> None:
        async for text in ws:
            message = json.loads(text)
            if message["type"] == "error":
                raise AssertionError(message)
            if message["type"] != "state":
                continue
            to_act = message["view"]["to_act"]
            self.heard[seat] = (message["seq"], to_act)
            if to_act != seat or self.made >= self.target:
                continue
            self.made += 1
            if message["declarations"]:
                choice = rng.choice([d for d in message["declarations"] if d["allowed"]])
                move = {"type": "declare", "contract": choice["contract"]}
                if choice["trump"]:
                    move["trump"] = choice["trump"]
            else:
                move = {"type": "play", "card": rng.choice(message["legal"])}
            await ws.send(json.dumps({"v": 1, **move}))

    @property
    def quiet(self) -> bool:
        """Both have heard the same last state, in which one of them is to act."""
        last = set(self.heard.values())
        if self.made < self.target or len(self.heard) != len(PEOPLE) or len(last) != 1:
            return False
        _, to_act = last.pop()
        return to_act in PEOPLE


def logged_moves(db: Path | str, table: str) -> dict[tuple[str, str], int]:
    """The moves in the table's log, counted by kind and by a person or a bot."""
    counts = {(kind, by): 0 for kind in ("play", "declare") for by in ("person", "bot")}
    rows = query(
        db,
        "SELECT kind, data FROM events WHERE table_id = ? AND kind IN ('play', 'declare')",
        (table,),
    )
    for kind, data in rows:
        by = "person" if json.loads(data)["seat"] in PEOPLE else "bot"
        counts[(kind, by)] += 1
    return counts


@pytest.mark.slow
def test_the_metrics_count_what_was_played(tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "king.db"
    with ServerProcess(db, extra=("--metrics", f"127.0.0.1:{port}")) as server:
        assert f"metrics for Prometheus at http://127.0.0.1:{port}/metrics" in server.output()
        before = scrape(port)
        # (Each counter and histogram also has the library's ``_created`` time.)
        served = {n: f for n, f in before.families.items() if not n.endswith("_created")}
        assert {name: kind for name, (kind, _) in served.items()} == FAMILIES
        assert all(len(helped) > 20 for _, helped in served.values())
        table, tokens = create_table(server.url, seed=41)
        waiting = httpx.post(
            f"{server.url}/api/tables",
            json={"name": "Cy", "seats": [{"kind": "human"}] * 4, "seat": 0},
            timeout=10,
        )
        assert waiting.status_code == 201, waiting.text
        game = Game(target=30)  # over a deal: both kinds of move, by both

        async def play() -> None:
            sockets = [await connect(f"{server.ws_url}/api/tables/{table}/ws") for _ in PEOPLE]
            for ws, token in zip(sockets, tokens, strict=True):
                await ws.send(json.dumps({"v": 1, "type": "hello", "token": token}))
            rngs = [random.Random(seat) for seat in PEOPLE]
            game.tasks = [
                asyncio.create_task(game.person(ws, seat, rng))
                for ws, seat, rng in zip(sockets, PEOPLE, rngs, strict=True)
            ]
            deadline = time.monotonic() + 60
            while not game.quiet:
                assert time.monotonic() < deadline, "the game did not get there"
                assert not any(task.done() for task in game.tasks), game.tasks
                await asyncio.sleep(0.02)
            # Both people connected, straight to the table's owner (this process).
            during = await asyncio.to_thread(scrape, port)
            assert during.value("king_connections", route="direct") == 2
            assert during.value("king_connections", route="relayed") == 0
            for task in game.tasks:
                task.cancel()
            for ws in sockets:
                await ws.close()

        asyncio.run(play())
        logged = logged_moves(db, table)
        assert logged[("play", "person")] + logged[("declare", "person")] == game.target
        assert logged[("declare", "person")] + logged[("declare", "bot")] >= 2
        eventually(lambda: scrape(port).value("king_connections", route="direct") == 0)
        after = scrape(port)
        for (kind, by), count in logged.items():
            assert after.value("king_moves_total", kind=kind, by=by) == count, (kind, by)
        assert after.value("king_move_latency_seconds_count") == game.target
        assert 0 < after.value("king_move_latency_seconds_sum") < game.target * 2
        bot_moves = logged[("play", "bot")] + logged[("declare", "bot")]
        assert after.value("king_bot_move_seconds_count") == bot_moves
        assert after.value("king_tables", state="playing") == 1
        assert after.value("king_tables", state="waiting") == 1
        assert after.value("king_bot_queue") == 0
        assert after.value("king_takeovers_total") == 0


@dataclass
class Metered:
    """Three processes sharing tables, and the metrics port of each (by its own port)."""

    cluster: Cluster
    ports: dict[int, int]


@pytest.fixture
def metered(postgres_server: Any, redis_server: Any) -> Iterator[Metered]:
    ports: dict[int, int] = {}

    def metrics(port: int) -> tuple[str, ...]:
        ports[port] = free_port()
        return ("--metrics", f"127.0.0.1:{ports[port]}")

    for cluster in start_cluster(postgres_server, redis_server, extra=metrics):
        yield Metered(cluster, ports)


@pytest.mark.slow
def test_a_process_that_takes_a_dead_owners_table_over_counts_it(metered: Metered) -> None:
    cluster, ports = metered.cluster, metered.ports
    owner, relay, *_ = cluster.processes
    table, tokens = create_table(owner.url, seed=77)  # its creator owns it
    assert cluster.process_of(cluster.owners()[table]) is owner

    async def run() -> None:
        players = seat_players(cluster, [(table, tokens)], think=0.05, seed=5)
        stop = asyncio.Event()
        tasks = [asyncio.create_task(p.play(stop)) for p in players]
        try:
            # A spectator at another process is relayed to the owner.
            async with connect(f"{relay.ws_url}/api/tables/{table}/ws") as watcher:
                await watcher.send(json.dumps({"v": 1, "type": "watch"}))
                assert json.loads(await watcher.recv())["type"] == "welcome"
                seen = await asyncio.to_thread(scrape, ports[relay.port])
                assert seen.value("king_connections", route="relayed") >= 1
            await asyncio.sleep(1.0)
            at_owner = await asyncio.to_thread(scrape, ports[owner.port])
            assert at_owner.value("king_tables", state="playing") == 1
            assert at_owner.value("king_moves_total", kind="play", by="person") > 0
            survivors = [p for p in cluster.processes if p is not owner]
            for process in survivors:
                them = await asyncio.to_thread(scrape, ports[process.port])
                assert them.value("king_takeovers_total") == 0
            owner.kill()  # kill -9
            heir = await asyncio.to_thread(new_owner, cluster, table, survivors)
            taken = await asyncio.to_thread(scrape, ports[heir.port])
            assert taken.value("king_takeovers_total") >= 1
            assert taken.value("king_tables", state="playing") == 1
            moved = taken.value("king_moves_total", kind="play", by="person")
            # Play goes on at the heir, which counts the moves now.
            await asyncio.to_thread(
                eventually,
                lambda: (
                    scrape(ports[heir.port]).value("king_moves_total", kind="play", by="person")
                    > moved
                ),
            )
        finally:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(run())


def new_owner(cluster: Cluster, table: str, survivors: list[ServerProcess]) -> ServerProcess:
    """The survivor that has taken the table over (waited for)."""
    found: list[ServerProcess] = []

    def taken() -> bool:
        holder = cluster.owners().get(table)
        process = None if holder is None else cluster.process_of(holder)
        if process in survivors:
            found.append(process)
        return bool(found)

    eventually(taken, timeout=15)
    return found[0]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("9100", "--metrics takes ADDRESS:PORT"),
        (":9100", "--metrics takes ADDRESS:PORT"),
        ("127.0.0.1:http", "a port from 1 to 65535"),
        ("127.0.0.1:70000", "a port from 1 to 65535"),
    ],
)
def test_a_bad_metrics_address_is_refused_in_one_line(
    value: str, said: str, tmp_path: Path
) -> None:
    result = run_king("serve", "--port", "0", "--db", str(tmp_path / "k.db"), "--metrics", value)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("king: ") and said in result.stderr
    assert repr(value) in result.stderr


def test_a_metrics_port_in_use_is_refused_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_king(
            "serve",
            "--port",
            "0",
            "--db",
            str(tmp_path / "king.db"),
            "--metrics",
            f"127.0.0.1:{port}",
        )
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"king: cannot serve the metrics on 127.0.0.1:{port}: Address already in use"
    ]
