"""The real services the tests start and ask: a database's rows, three server processes
sharing tables, the local ``king`` and ``king serve`` in child processes."""

from __future__ import annotations

import itertools
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.backends import lease_holders
from benchmarks.server_process import ServerProcess, free_port
from king.server.store.event_log import Database


def query(database: Database, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows of a query (or a change) on a server's database, from outside the server.  Write it
    for SQLite (``?`` and the tables ``tables`` and ``events``); on PostgreSQL the names
    become king's own (``king_tables``, ``king_events``)."""
    if isinstance(database, Path):
        import sqlite3

        db = sqlite3.connect(database)
        try:
            with db:
                return list(db.execute(sql, params).fetchall())
        finally:
            db.close()
    import re

    import psycopg

    translated = re.sub(r"\b(tables|events)\b", r"king_\1", sql).replace("?", "%s")
    with psycopg.connect(database, autocommit=True) as db:
        cursor = db.execute(translated, params)  # type: ignore[call-overload]
        return [] if cursor.description is None else list(cursor.fetchall())


_redis_databases = itertools.count(1)


@dataclass
class Cluster:
    """Three server processes sharing one PostgreSQL database and one Redis."""

    db: str
    redis: str
    processes: list[ServerProcess]
    lease: float | None = None
    #: More ``king serve`` options for the process at a port (its own --metrics …).
    extra: Callable[[int], tuple[str, ...]] | None = None

    def spawn(self, port: int | None = None) -> ServerProcess:
        port = port if port is not None else free_port()
        more = () if self.extra is None else self.extra(port)
        process = ServerProcess(
            self.db,
            port=port,
            redis=self.redis,
            bot_pause=0.0,
            lease=self.lease,
            # --log-level info: what each did with a table, for a failure.
            extra=("--log-level", "info", *more),
        )
        return process.start()

    @property
    def urls(self) -> list[str]:
        return [p.url for p in self.processes]

    def owners(self) -> dict[str, str]:
        """Each table's owner now (the process name in its lease)."""
        return lease_holders(self.redis)

    def process_of(self, owner: str) -> ServerProcess | None:
        """The server process whose pid is in an owner's name."""
        for process in self.processes:
            if process.pid is not None and f"-{process.pid}-" in owner:
                return process
        return None


def start_cluster(
    postgres_server: Any,
    redis_server: Any,
    lease: float | None = None,
    extra: Callable[[int], tuple[str, ...]] | None = None,
) -> Iterator[Cluster]:
    """Three server processes with their own database and Redis database, stopped at
    the end (``lease``: seconds, the server's default if None; ``extra``: more options
    for the process at a port)."""
    number = next(_redis_databases) % 16
    address = f"{redis_server.address}/{number}"
    import redis

    redis.Redis.from_url(address).flushdb()
    shared = Cluster(postgres_server.create_database(), address, [], lease, extra)
    try:
        for _ in range(3):
            shared.processes.append(shared.spawn())
        yield shared
    finally:
        for process in shared.processes:
            process.signal(signal.SIGCONT)
            process.kill()


ADDRESS = re.compile(r"(http://127\.0\.0\.1:\d+)/t/([\w-]+)#token=([\w-]+)")


def start_local(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """Run ``king ARGS`` until it prints the table's address; returns it.  On a free port
    unless ARGS name one: the local game's own port (8765) is the one test's that checks
    it (tests/cli/test_lan.py), which a test beside it must not take meanwhile."""
    if "--port" not in args:
        args = (*args, "--port", str(free_port()))
    process, lines = start_king(*args, until="your table is at", env=env)
    return process, lines[-1]


def start_king(
    *args: str, until: str, env: dict[str, str] | None = None, timeout: float = 60
) -> tuple[subprocess.Popen[str], list[str]]:
    """Run ``king ARGS`` until it prints a line holding ``until`` (killed after
    ``timeout`` seconds without it); returns the process and its lines so far (that one
    last)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "king", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **(env or {})},
    )
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if until in line:
            break
    timer.cancel()
    assert lines and until in lines[-1], "".join(lines)
    return process, lines


def run_king(*args: str) -> subprocess.CompletedProcess[str]:
    """``king ARGS`` to its end, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "king", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def stop(process: subprocess.Popen[str]) -> int:
    """Ctrl-C: the server shuts down cleanly (exit 130, as after any interrupt)."""
    process.send_signal(signal.SIGINT)
    try:
        code = process.wait(20)
    finally:
        process.kill()
    assert process.stdout is not None
    assert "Traceback" not in process.stdout.read()
    return code


LEASE = 1.5  # the server's default


@contextmanager
def local_king(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None, bots: bool = True
) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """``king ARGS`` (no browser, its own database) until it says how it stops; with
    ``rule`` bots unless ``--bots`` is given or ``bots`` is false (its own default)."""
    chosen = ["--bots", "rule,rule,rule"] if bots and "--bots" not in args else []
    database = ["--no-browser", "--db", str(tmp_path / "k.db")]
    process, lines = start_king(
        *database, *chosen, *args, until="Ctrl-C stops", env=env, timeout=90
    )
    try:
        yield process, [line.rstrip("\n") for line in lines]
    finally:
        stop(process)
