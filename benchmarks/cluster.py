"""Load on server processes that share the tables: the same load as ``load`` (every seat
a random player on its own WebSocket) on one, two and three ``king serve`` processes
sharing one real PostgreSQL database and one real Redis (``--db postgresql://…
--redis …``), started here on 127.0.0.1.

Each table is created at one process and its seats connect to all of them in turn, as a
reverse proxy would spread them: so most seats are relayed to the table's owner.
Reported for each count of processes: moves per second, and the median and
99th-percentile round trip of a move; and the ratio of three processes' moves per second
to one's.  Every process runs on the same machine as the load, the database and Redis:
the ratio says what sharing costs or gains on this machine, not what separate machines
would give.

Then takeovers: three processes own 30 tables between them; the one that owns the most
is killed (``kill -9``) five times (restarted at its port after each), and each of its
tables is timed from the kill until a live process holds its lease: the median, 99th
percentile and slowest of those times (how long a dead owner's table has no owner; the
players' reconnection comes on top, ``tests/server/test_shared_faults.py``).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

from . import load
from .backends import (
    PostgresServer,
    RedisServer,
    ServiceMissingError,
    lease_holders,
)
from .server_process import ServerProcess

TABLES = 60


def _measure(
    postgres: PostgresServer, redis: RedisServer, count: int, seconds: float, tables: int
) -> dict[str, float]:
    database = postgres.create_database()
    servers = [
        ServerProcess(database, redis=f"{redis.address}/{count}", bot_pause=0.0)
        for _ in range(count)
    ]
    try:
        for server in servers:
            server.start()
        claimed = load.claim_tables([s.url for s in servers], tables)
        stats = asyncio.run(load.play_tables([s.ws_url for s in servers], claimed, seconds))
    finally:
        for server in servers:
            server.stop()
    moves = len(stats.rtts)
    key = f"cluster_{count}"
    return {
        f"{key}_moves_per_s": round(moves / seconds, 1),
        f"{key}_rtt_median_ms": round(load.percentile(stats.rtts, 0.5) * 1000, 2),
        f"{key}_rtt_p99_ms": round(load.percentile(stats.rtts, 0.99) * 1000, 2),
        f"{key}_errors": stats.errors,
    }


def _owner_pid(name: str) -> int:
    """The process id in a process name (``host-PID-random``)."""
    return int(name.rsplit("-", 2)[1])


def _takeovers(postgres: PostgresServer, redis: RedisServer, kills: int = 5) -> dict[str, float]:
    address = f"{redis.address}/4"
    database = postgres.create_database()
    servers = [ServerProcess(database, redis=address, bot_pause=0.0) for _ in range(3)]
    times: list[float] = []
    try:
        for server in servers:
            server.start()
        load.claim_tables([s.url for s in servers], 30)
        for _ in range(kills):
            holders = lease_holders(address)
            pids = [server.pid for server in servers]
            counts = {pid: sum(_owner_pid(h) == pid for h in holders.values()) for pid in pids}
            index = pids.index(max(counts, key=lambda pid: counts[pid]))
            victim = servers[index]
            owned = [t for t, h in holders.items() if _owner_pid(h) == victim.pid]
            killed = time.monotonic()
            victim.kill()
            waiting = set(owned)
            while waiting and time.monotonic() < killed + 30:
                now = lease_holders(address)
                for table in list(waiting):
                    holder = now.get(table)
                    if holder is not None and _owner_pid(holder) != pids[index]:
                        times.append(time.monotonic() - killed)
                        waiting.discard(table)
                time.sleep(0.01)
            times.extend(30.0 for _ in waiting)  # never taken over: counted as 30 s
            servers[index] = ServerProcess(
                database, port=victim.port, redis=address, bot_pause=0.0
            ).start()
    finally:
        for server in servers:
            server.kill()
    return {
        "cluster_takeovers": len(times),
        "cluster_takeover_median_ms": round(load.percentile(times, 0.5) * 1000, 1),
        "cluster_takeover_p99_ms": round(load.percentile(times, 0.99) * 1000, 1),
        "cluster_takeover_max_ms": round(max(times, default=0.0) * 1000, 1),
    }


def run(seconds: float = 2.0, tables: int = TABLES, kills: int = 5) -> dict[str, float]:
    """The figures, or none (with the reason on stderr) where PostgreSQL or Redis is
    not installed."""
    try:
        postgres = PostgresServer().start()
    except ServiceMissingError as error:
        print(f"cluster: {error}", file=sys.stderr)
        return {}
    try:
        with RedisServer() as redis:
            results: dict[str, float] = {"cluster_tables": tables}
            for count in (1, 2, 3):
                results.update(_measure(postgres, redis, count, seconds, tables))
            results.update(_takeovers(postgres, redis, kills))
    except ServiceMissingError as error:
        print(f"cluster: {error}", file=sys.stderr)
        return {}
    finally:
        postgres.stop()
    one = results["cluster_1_moves_per_s"]
    results["cluster_3_vs_1_moves"] = round(results["cluster_3_moves_per_s"] / one, 2) if one else 0
    return results


if __name__ == "__main__":
    print(json.dumps(run()))
