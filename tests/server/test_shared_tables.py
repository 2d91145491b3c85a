"""Tables shared by three real server processes (``king serve --db postgresql://…
--redis redis://…``) on one real PostgreSQL and one real Redis, played by real WebSocket
clients spread over the processes.

A frozen owner (SIGSTOP past its lease) writes nothing once it is woken and gives its
connections up; one stopped with SIGTERM hands its tables over; people at any process
join, play and play again.  (Owners killed mid-trick, and every other fault, are in
``test_shared_faults.py``.)"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from benchmarks.backends import PostgresServer
from tests.support.services import LEASE, Cluster, query, start_cluster
from tests.support.table_players import (
    Player,
    busiest_owner,
    check_log,
    create_table,
    last_seen,
    seat_players,
    table_story,
    went_on_at,
)


@pytest.mark.slow
def test_a_frozen_owner_writes_nothing_after_its_lease_and_drops_its_connections(
    cluster: Cluster,
) -> None:
    tables = [create_table(cluster.urls[n % 3], seed=300 + n) for n in range(6)]

    async def run() -> None:
        players = seat_players(cluster, tables, think=0.1, seed=8)
        stop = asyncio.Event()
        tasks = [asyncio.create_task(p.play(stop)) for p in players]
        try:
            await asyncio.sleep(2)
            victim, owned = busiest_owner(cluster, players)
            # A spectator on the frozen process, who does not reconnect.
            url = victim.ws_url
            async with connect(f"{url}/api/tables/{owned[0]}/ws") as watcher:
                await watcher.send(json.dumps({"v": 1, "type": "watch"}))
                assert json.loads(await watcher.recv())["type"] == "welcome"
                fences = {
                    t: query(cluster.db, "SELECT fence FROM tables WHERE id = ?", (t,))[0][0]
                    for t in owned
                }
                victim.signal(signal.SIGSTOP)
                stopped = time.monotonic()
                await asyncio.sleep(LEASE * 3)  # past the lease: the others take over
                # What the frozen owner wrote, taken while it cannot write.
                written = written_under(cluster, fences)
                owners = cluster.owners()
                assert all(owners.get(t) not in (None, "") for t in owned)
                assert not any(cluster.process_of(owners[t]) is victim for t in owned)
                victim.signal(signal.SIGCONT)
                woken = time.monotonic()
                # It gives its connections up: the spectator is closed within a lease.
                with contextlib.suppress(ConnectionClosed):
                    while True:
                        await asyncio.wait_for(watcher.recv(), timeout=LEASE * 2)
                assert watcher.close_code == 1012, watcher.close_code
                assert time.monotonic() - woken < LEASE * 2
                await asyncio.sleep(1.0)  # it had moves queued in its sockets: let it try
                assert written_under(cluster, fences) == written
                assert stopped < woken
                assert "giving it up" in victim.output()
            # Play goes on at every table.
            marks = {table: last_seen(players, table) for table, _ in tables}
            await asyncio.sleep(1.5)
            for table, _ in tables:
                done = all(p.over for p in players if p.table == table)
                assert done or last_seen(players, table) > marks[table], table
        finally:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
        for table, _ in tables:
            check_log(cluster, table, [p for p in players if p.table == table])

    asyncio.run(run())


def written_under(cluster: Cluster, fences: dict[str, int]) -> list[tuple[str, int]]:
    """The events written under these tables' fencing numbers."""
    rows: list[tuple[str, int]] = []
    for table, fence in fences.items():
        found = query(
            cluster.db,
            "SELECT table_id, number FROM events WHERE table_id = ? AND fence = ? ORDER BY number",
            (table, fence),
        )
        rows.extend((str(t), int(n)) for t, n in found)
    return rows


#: The lease of the SIGTERM test: long enough that a table going on sooner than it
#: passes was released, and that a busy machine's stall does not cost a lease first.
LONG_LEASE = 5.0


@pytest.fixture
def long_lease_cluster(postgres_server: Any, redis_server: Any) -> Iterator[Cluster]:
    yield from start_cluster(postgres_server, redis_server, lease=LONG_LEASE)


@pytest.mark.slow
def test_a_process_stopped_with_sigterm_hands_its_tables_over(
    long_lease_cluster: Cluster,
) -> None:
    cluster = long_lease_cluster
    tables = [create_table(cluster.urls[n % 3], seed=500 + n) for n in range(6)]

    async def run() -> None:
        players = seat_players(cluster, tables, think=0.1, seed=3)
        stop = asyncio.Event()
        tasks = [asyncio.create_task(p.play(stop)) for p in players]
        try:
            await asyncio.sleep(2)
            victim, owned = busiest_owner(cluster, players)
            before = {t: last_seen(players, t) for t in owned}
            asked = time.monotonic()
            wall = round(time.time() % 1000, 3)
            await asyncio.to_thread(victim.stop)
            # Released, not left to pass: the tables go on well within a lease.
            for table in owned:
                while went_on_at(players, table, before[table]) is None:
                    if time.monotonic() - asked > LONG_LEASE - 1:
                        story = table_story(players, table, cluster.processes, wall)
                        story += victim.output().splitlines()[-25:]
                        pytest.fail(f"table {table} stood still:\n" + "\n".join(story))
                    await asyncio.sleep(0.05)
            gone = [went_on_at(players, t, before[t]) for t in owned]
            assert all(g is not None for g in gone)
            assert "handed" in victim.output()
        finally:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
        for table, _ in tables:
            check_log(cluster, table, [p for p in players if p.table == table])

    asyncio.run(run())


@pytest.mark.slow
def test_bad_redis_settings_are_refused_in_one_line(
    postgres_server: PostgresServer, tmp_path: Any
) -> None:
    """``--redis`` needs a PostgreSQL database and a Redis address that answers; each
    mistake is one line that says what was wrong, before anything is served."""
    from benchmarks.server_process import free_port
    from tests.support.services import run_king

    database = postgres_server.create_database()
    cases = [
        (["--db", str(tmp_path / "king.db"), "--redis", "redis://127.0.0.1:6379"], 2, "PostgreSQL"),
        (["--db", database, "--redis", "localhost:6379"], 2, "redis://HOST:PORT"),
        (
            ["--db", database, "--redis", f"redis://127.0.0.1:{free_port()}/0"],
            1,
            "cannot reach Redis",
        ),
        (
            ["--db", database, "--redis", "redis://:secret@127.0.0.1:1/0", "--lease", "0.1"],
            2,
            "--lease",
        ),
    ]
    for args, code, expected in cases:
        result = run_king("serve", "--port", "0", *args)
        assert result.returncode == code, (args, result.stdout, result.stderr)
        assert expected in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr and "secret" not in result.stderr


def play_together(table: str, seats: list[tuple[int, str, str]]) -> list[Player]:
    """People at these seats (seat, token, the process each connects to) play the game
    to its end at once."""

    async def play() -> list[Player]:
        players = [
            Player(table, seat, token, [url], think=0.0, rng=random.Random(seat))
            for seat, token, url in seats
        ]
        stop = asyncio.Event()
        await asyncio.wait_for(asyncio.gather(*(p.play(stop) for p in players)), timeout=240)
        return players

    return asyncio.run(play())


@pytest.mark.slow
def test_a_person_at_any_process_sees_joins_plays_and_plays_again(cluster: Cluster) -> None:
    """The lobby, a table's information, joining, playing and playing again all work the
    same at a process that does not own the table (it asks the owner)."""
    bot = {"kind": "bot", "bot": "random"}
    seats = [{"kind": "human"}, {"kind": "human"}, bot, bot]
    made = httpx.post(
        f"{cluster.urls[0]}/api/tables", json={"name": "Ada", "seats": seats, "seat": 0, "seed": 7}
    )
    table, ada = made.json()["table"], made.json()["token"]
    owner = cluster.process_of(cluster.owners()[table])
    assert owner is cluster.processes[0]
    for url in cluster.urls[1:]:
        lobby = httpx.get(f"{url}/api/tables").json()
        assert [t["id"] for t in lobby["open"]] == [table]
        info = httpx.get(f"{url}/api/tables/{table}").json()
        assert info["seats"][0]["name"] == "Ada" and info["status"] == "waiting"
    assert httpx.get(f"{cluster.urls[1]}/api/tables/nosuchtable").status_code == 404
    joined = httpx.post(f"{cluster.urls[2]}/api/tables/{table}/join", json={"name": "Bo"})
    assert joined.status_code == 200 and joined.json()["seat"] == 1, joined.text
    taken = httpx.post(f"{cluster.urls[1]}/api/tables/{table}/join", json={"name": "Cy", "seat": 1})
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "started", taken.text
    info = httpx.get(f"{cluster.urls[1]}/api/tables/{table}").json()
    assert info["status"] == "playing" and info["seats"][1]["name"] == "Bo"

    players = play_together(
        table, [(0, ada, cluster.urls[1]), (1, joined.json()["token"], cluster.urls[2])]
    )
    assert all(p.over for p in players) and all(not p.reconnects for p in players)
    check_log(cluster, table, players)
    # Both ask to play again at processes that do not own the table: one new table,
    # each in their own seat.
    first = httpx.post(f"{cluster.urls[2]}/api/tables/{table}/again", json={"token": ada})
    assert first.status_code == 201, first.text
    second = httpx.post(
        f"{cluster.urls[1]}/api/tables/{table}/again", json={"token": joined.json()["token"]}
    )
    assert second.status_code == 201, second.text
    assert first.json()["table"] == second.json()["table"] != table
    assert (first.json()["seat"], second.json()["seat"]) == (0, 1)
    following = httpx.get(f"{cluster.urls[0]}/api/tables/{first.json()['table']}").json()
    assert following["status"] == "playing"
    record = httpx.get(f"{cluster.urls[2]}/api/tables/{table}/record")
    assert record.status_code == 200 and record.json()["format"] == "king-record/1"


@pytest.mark.slow
def test_the_cluster_benchmark_measures_one_two_and_three_processes() -> None:
    """``king bench --only cluster``, small: every figure is there and no move was refused."""
    from benchmarks import cluster

    figures = cluster.run(0.5, tables=4, kills=1)
    for count in (1, 2, 3):
        assert figures[f"cluster_{count}_moves_per_s"] > 0, figures
        assert (
            0 < figures[f"cluster_{count}_rtt_median_ms"] <= figures[f"cluster_{count}_rtt_p99_ms"]
        )
        assert figures[f"cluster_{count}_errors"] == 0, figures
    assert figures["cluster_3_vs_1_moves"] > 0
    # A killed owner's tables all found a new owner, none after the 30 s the run waits.
    assert figures["cluster_takeovers"] > 0, figures
    median, p99 = figures["cluster_takeover_median_ms"], figures["cluster_takeover_p99_ms"]
    assert 0 < median <= p99 <= figures["cluster_takeover_max_ms"] < 30_000, figures


@pytest.mark.slow
def test_accounts_sessions_and_rated_games_work_at_any_process(cluster: Cluster) -> None:
    """Logins made at one process hold at the others (sessions live in PostgreSQL);
    a registered player joins, takes a seat back and plays again through processes that
    do not own the table; the rated game's results are written once, by its owner."""
    secret = "a phrase long enough"
    ada = httpx.Client(base_url=cluster.urls[0], timeout=20)
    assert ada.post("/api/accounts", json={"name": "Ada", "password": secret}).status_code == 201
    # Another person: another address (as the proxy on 127.0.0.1 says) and browser.
    bo = httpx.Client(
        base_url=cluster.urls[2], timeout=20, headers={"X-Forwarded-For": "10.20.0.2"}
    )
    assert bo.post("/api/accounts", json={"name": "Bo_2", "password": secret}).status_code == 201
    cookie = {"king_session": ada.cookies["king_session"]}
    elsewhere = httpx.Client(base_url=cluster.urls[1], cookies=cookie, timeout=20)
    assert elsewhere.get("/api/me").json()["account"]["name"] == "Ada"
    bot = {"kind": "bot", "bot": "rule"}
    seats = [{"kind": "human"}, {"kind": "human"}, bot, bot]
    made = ada.post("/api/tables", json={"seats": seats, "seat": 0, "rated": True, "seed": 3})
    assert made.status_code == 201, made.text
    table = made.json()["table"]
    assert cluster.process_of(cluster.owners()[table]) is cluster.processes[0]
    joined = bo.post(f"/api/tables/{table}/join", json={"name": "ignored"})
    assert joined.status_code == 200 and joined.json()["seat"] == 1, joined.text
    info = httpx.get(f"{cluster.urls[1]}/api/tables/{table}").json()
    assert [s["player"] for s in info["seats"]] == ["Ada", "Bo_2", "bot:rule", "bot:rule"]
    # Ada takes her seat back at a process that does not own the table.
    taken = elsewhere.post(f"/api/tables/{table}/seat")
    assert taken.status_code == 200, taken.text
    assert taken.json()["token"] != made.json()["token"]
    mine = elsewhere.get("/api/players/Ada/games").json()["games"]
    assert [(g["table"], g["status"]) for g in mine] == [(table, "playing")]

    players = play_together(
        table,
        [(0, taken.json()["token"], cluster.urls[2]), (1, joined.json()["token"], cluster.urls[1])],
    )
    assert all(p.over for p in players)
    changes = httpx.get(f"{cluster.urls[2]}/api/tables/{table}/ratings").json()["changes"]
    assert sorted(c["name"] for c in changes) == ["Ada", "Bo_2", "rule"]
    rows = query(cluster.db, "SELECT COUNT(*) FROM king_results WHERE table_id = ?", (table,))
    assert rows == [(4,)]
    assert bo.get("/api/players/Bo_2").json()["rated_games"] == 1
    again = elsewhere.post(f"/api/tables/{table}/again", json={"token": taken.json()["token"]})
    assert again.status_code == 201, again.text
    following = httpx.get(f"{cluster.urls[0]}/api/tables/{again.json()['table']}").json()
    assert following["rated"] is True and following["seats"][0]["player"] == "Ada"
