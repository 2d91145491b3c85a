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
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from king.server.process import ServerProcess
from king.server.services import PostgresServer, RedisServer, ServiceMissingError

TABLES = 60


def _load_module() -> ModuleType:
    """The ``load`` benchmark beside this one (whose players this one reuses)."""
    name = "king_benchmarks_load"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("load.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _measure(
    postgres: PostgresServer, redis: RedisServer, count: int, seconds: float, tables: int
) -> dict[str, float]:
    load = _load_module()
    database = postgres.create_database()
    servers = [
        ServerProcess(database, redis=f"{redis.address}/{count}", bot_pause=0.0)
        for _ in range(count)
    ]
    try:
        for server in servers:
            server.start()
        claimed = load._tables([s.url for s in servers], tables)
        stats = asyncio.run(load._play([s.ws_url for s in servers], claimed, seconds))
    finally:
        for server in servers:
            server.stop()
    moves = len(stats.rtts)
    key = f"cluster_{count}"
    return {
        f"{key}_moves_per_s": round(moves / seconds, 1),
        f"{key}_rtt_median_ms": round(load._percentile(stats.rtts, 0.5) * 1000, 2),
        f"{key}_rtt_p99_ms": round(load._percentile(stats.rtts, 0.99) * 1000, 2),
        f"{key}_errors": stats.errors,
    }


def run(seconds: float = 2.0, tables: int = TABLES) -> dict[str, float]:
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
