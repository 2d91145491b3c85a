"""docs/deploy.md's upgrade, followed with three real processes on PostgreSQL and Redis
while people play: a process of another version is refused beside the running ones;
then every process stopped (SIGTERM), the database dumped, and the processes started
again one after another at their ports: every unfinished table plays on from where it
was, with nothing acknowledged lost.

The versions are the test's: an "older release" is a process that says so, as a
running one does (its version in Redis, under a name someone listens on).  The schema's
own migration from the previous release is tests/server/test_release_migration.py's."""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path

import pytest
import redis

from benchmarks.backends import postgres_programs
from king import __version__
from king.server.relay.lease import inbox
from king.server.relay.members import versions_key
from tests.support.documented import documented_block
from tests.support.services import Cluster, run_king
from tests.support.table_players import (
    Player,
    check_log,
    create_table,
    last_seen,
    seat_players,
    went_on_at,
)


def test_a_process_of_another_version_is_refused_beside_the_running_ones(
    cluster: Cluster,
) -> None:
    client = redis.Redis.from_url(cluster.redis)
    listener = client.pubsub()
    listener.subscribe(inbox("king", "older-1"))  # a running process of another release
    try:
        client.hset(versions_key("king"), "older-1", "0.0.9")
        client.hset(versions_key("king"), "killed-2", "0.0.8")  # nobody listens: gone
        result = run_king("serve", "--port", "0", "--db", cluster.db, "--redis", cluster.redis)
        assert result.returncode == 1, result
        assert result.stderr.strip().splitlines() == [
            "king: processes of king 0.0.9 share these tables (older-1): this king "
            f"{__version__} cannot join them; stop them all, then start this version "
            "(docs/deploy.md, Upgrading)"
        ]
        assert client.hget(versions_key("king"), "killed-2") is None  # swept
    finally:
        listener.close()
    # The release that runs there is written by each of its processes, and is joined.
    running = {k.decode(): v.decode() for k, v in client.hgetall(versions_key("king")).items()}
    names = [name for name in running if name != "older-1"]
    assert len(names) == 3 and {running[n] for n in names} == {__version__}
    joined = cluster.spawn()
    assert joined.pid is not None
    joined.stop()


def dump(database: str, folder: Path) -> Path:
    """The documented backup before an upgrade (pg_dump, custom format)."""
    step = next(line for line in documented_block("upgrade").splitlines() if "pg_dump" in line)
    assert "--format=custom" in step, step
    path = folder / "king-before-upgrade.dump"
    made = subprocess.run(
        [str(postgres_programs() / "pg_dump"), "--format=custom", "--file", str(path), database],
        capture_output=True,
        text=True,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    return path


@pytest.mark.slow
def test_the_documented_upgrade_stops_the_world_and_every_table_plays_on(
    cluster: Cluster, tmp_path: Path
) -> None:
    steps = documented_block("upgrade")
    assert "systemctl stop 'king@*'" in steps and "systemctl start king@8001" in steps
    tables = [create_table(cluster.urls[n % 3], seed=700 + n) for n in range(6)]

    async def run() -> list[Player]:
        players = seat_players(cluster, tables, think=0.05, seed=11)
        stop = asyncio.Event()
        tasks = [asyncio.create_task(p.play(stop)) for p in players]
        try:
            await asyncio.sleep(2)
            # systemctl stop 'king@*': every process at once.
            await asyncio.gather(*(asyncio.to_thread(p.stop) for p in cluster.processes))
            before = {t: last_seen(players, t) for t, _ in tables}
            backup = await asyncio.to_thread(dump, cluster.db, tmp_path)
            assert backup.stat().st_size > 0
            # (pip install --upgrade king: this test's release stays what it is.)
            # The first process, then the others, each at its old port.
            ports = [p.port for p in cluster.processes]
            started = time.monotonic()
            cluster.processes[0] = await asyncio.to_thread(cluster.spawn, ports[0])
            for index in (1, 2):
                cluster.processes[index] = await asyncio.to_thread(cluster.spawn, ports[index])
            for table, _ in tables:
                while went_on_at(players, table, before[table]) is None:
                    assert time.monotonic() - started < 30, f"table {table} stood still"
                    await asyncio.sleep(0.05)
        finally:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
        return players

    players = asyncio.run(run())
    for table, _ in tables:
        acknowledged = check_log(cluster, table, [p for p in players if p.table == table])
        assert acknowledged > 0


def test_the_stopped_processes_left_no_version_behind(cluster: Cluster) -> None:
    """A process stopped cleanly takes its version out (one killed is swept later)."""
    client = redis.Redis.from_url(cluster.redis)
    victim = cluster.processes[0]
    name = next(
        k.decode() for k in client.hgetall(versions_key("king")) if f"-{victim.pid}-" in k.decode()
    )
    victim.stop()
    deadline = time.monotonic() + 5
    while client.hget(versions_key("king"), name) is not None:
        assert time.monotonic() < deadline, "the stopped process's version stayed"
        time.sleep(0.05)
