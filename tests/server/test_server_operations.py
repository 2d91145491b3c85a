"""What docs/deploy.md promises an operator, checked on real ``king serve`` processes,
a real PostgreSQL and a real Redis: the kinds of server never meet on one database,
``king db copy`` keeps off a database in use, readiness follows the database and Redis,
and the log says when, how grave and where."""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from benchmarks.backends import PostgresServer, RedisServer
from benchmarks.server_process import ServerProcess, free_port
from king.server.store.database import open_store
from tests.support.cli import king_here
from tests.support.services import Cluster, query, run_king


def refused(result: subprocess.CompletedProcess[str], *words: str) -> None:
    """A refusal as docs/deploy.md describes it: one line on stderr saying what and what
    to do, a non-zero exit status, no traceback, nothing served."""
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("king: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    assert "serving tables" not in result.stdout


def serve_alone(db: str) -> subprocess.CompletedProcess[str]:
    return run_king("serve", "--port", str(free_port()), "--db", db)


@pytest.mark.slow
def test_a_server_alone_and_processes_sharing_tables_refuse_each_other(
    cluster: Cluster, tmp_path: Path
) -> None:
    """Three processes share the tables of one database: a fourth without --redis is
    refused, and so is a copy; once they are gone, a server alone holds the database, and
    a process with --redis and a copy are refused in turn."""
    tables = [
        httpx.post(f"{url}/api/tables", json={"seats": [{"kind": "human"}] * 4}).json()["table"]
        for url in cluster.urls
    ]
    refused(serve_alone(cluster.db), "--redis share the tables of", "same --redis")
    copy = tmp_path / "copy.db"
    refused(king_here("db", "copy", cluster.db, str(copy)), "in use by a running king server")
    other = tmp_path / "other.db"
    open_store(other).close()
    refused(king_here("db", "copy", str(other), cluster.db), "in use by a running king server")
    for process in cluster.processes:
        process.stop()
    with ServerProcess(cluster.db, log=tmp_path / "alone.log") as alone:
        lobby = httpx.get(f"{alone.url}/api/tables").json()
        assert {t["id"] for t in lobby["open"]} == set(tables)
        member = run_king("serve", "--port", "0", "--db", cluster.db, "--redis", cluster.redis)
        refused(member, "without --redis", "alone", "start every process on this database")
        refused(king_here("db", "copy", cluster.db, str(copy)), "in use by a running king server")
    copied = king_here("db", "copy", cluster.db, str(copy))
    assert copied.returncode == 0, copied.stderr
    assert "copied 3 tables" in copied.stdout


def test_king_db_copy_refuses_a_sqlite_file_that_a_server_holds(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    source = tmp_path / "king.db"
    target = postgres_server.create_database()
    with ServerProcess(source) as server:
        httpx.post(f"{server.url}/api/tables", json={"seats": [{"kind": "human"}] * 4})
        refused(king_here("db", "copy", str(source), target), "in use by a running king server")
        assert query(target, "SELECT to_regclass('king_tables') IS NULL") == [(True,)]
    copied = king_here("db", "copy", str(source), target)
    assert copied.returncode == 0, copied.stderr
    assert "copied 1 tables" in copied.stdout


def probe(server: ServerProcess, path: str) -> tuple[int, Any]:
    answer = httpx.get(f"{server.url}{path}", timeout=10)
    return answer.status_code, answer.json()


def until(server: ServerProcess, status: int, seconds: float = 20) -> dict[str, Any]:
    """``/api/ready``'s answer once it has the status (its body), within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        got, body = probe(server, "/api/ready")
        if got == status:
            assert isinstance(body, dict)
            return body
        assert time.monotonic() < deadline, (got, body, server.output()[-3000:])
        time.sleep(0.2)


def on_database(postgres_server: PostgresServer, address: str, sql: str) -> None:
    """A statement on the cluster's own database (to act on the server's database from
    outside it)."""
    query(postgres_server.address(), sql.format(name=address.rsplit("/", 1)[1]))


def test_readiness_follows_redis_and_the_database_and_liveness_does_not(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    """The process stays up through both outages; ``/api/ready`` names the part that
    fails (503) and is 200 again once it answers; ``/api/live`` and ``/api/health``
    answer throughout."""
    address = postgres_server.create_database()
    ok = {"ready": True, "failed": [], "checks": {"database": "ok", "redis": "ok"}}
    restarted: list[RedisServer] = []
    with RedisServer() as redis:
        server = ServerProcess(address, redis=redis.address, log=tmp_path / "server.log").start()
        try:
            assert probe(server, "/api/ready") == (200, ok)
            redis.stop()
            body = until(server, 503)
            assert body["failed"] == ["redis"] and body["checks"]["database"] == "ok"
            for path in ("/api/live", "/api/health"):
                assert probe(server, path)[1]["ok"] is True
            restarted.append(RedisServer(port=redis.port).start())
            assert until(server, 200) == ok
            on_database(postgres_server, address, 'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
            on_database(
                postgres_server,
                address,
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'",
            )
            body = until(server, 503)
            assert body["failed"] == ["database"] and body["checks"]["redis"] == "ok"
            assert probe(server, "/api/live")[0] == 200
            on_database(postgres_server, address, 'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
            assert until(server, 200) == ok
        finally:
            server.stop()
            for again in restarted:
                again.stop()
    log = server.output()
    for line in (
        "not ready: the redis failed",
        "ready again: the redis answers",
        "not ready: the database failed",
        "ready again: the database answers",
    ):
        assert log.count(line) == 1, (line, log[-3000:])
    assert "Traceback" not in log


#: A line of ``king serve``'s own log: time (ISO 8601 with its offset), level, logger.
STAMPED = re.compile(
    r"(?P<at>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d) "
    r"(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) (?P<logger>[\w.]+): (?P<message>.+)"
)
#: An access log line's message: address, method and path, status, duration.
ACCESS = re.compile(
    r'(?P<client>\S+) "(?P<method>[A-Z]+) (?P<path>\S+)" (?P<status>\d{3}) (?P<ms>[\d.]+) ms'
)


def logged(server: ServerProcess, done: Callable[[str], bool]) -> list[re.Match[str]]:
    """The server's log lines, once ``done`` says the output has what is awaited; every
    one but the address it prints is stamped."""
    deadline = time.monotonic() + 10
    while not done(server.output()):
        assert time.monotonic() < deadline, server.output()
        time.sleep(0.05)
    lines = [line for line in server.output().splitlines() if not line.startswith("king: ")]
    matches = [STAMPED.fullmatch(line) for line in lines]
    assert all(matches), [line for line, match in zip(lines, matches, strict=True) if match is None]
    return [match for match in matches if match is not None]


def test_king_serve_stamps_its_log_and_writes_one_access_line_per_request(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "king.db", extra=("--log-level", "info")) as server:
        assert probe(server, "/api/ready") == (
            200,
            {"ready": True, "failed": [], "checks": {"database": "ok"}},
        )
        assert httpx.get(f"{server.url}/api/tables/nothing?token=s3cret").status_code == 404
        lines = logged(server, lambda out: "/api/tables/nothing" in out)
    at = datetime.fromisoformat(lines[0]["at"])
    assert at.utcoffset() is not None and abs(time.time() - at.timestamp()) < 120
    assert any(m["logger"] == "uvicorn.error" and m["level"] == "INFO" for m in lines)
    access = [ACCESS.fullmatch(m["message"]) for m in lines if m["logger"] == "king.access"]
    requests = [(a["client"], a["method"], a["path"], a["status"]) for a in access if a]
    assert ("127.0.0.1", "GET", "/api/ready", "200") in requests
    assert ("127.0.0.1", "GET", "/api/tables/nothing", "404") in requests
    assert len(access) == len(requests)  # every access line has the whole format
    assert "s3cret" not in server.output()


def test_king_serve_logs_warnings_only_by_default_and_can_turn_the_access_log_off(
    tmp_path: Path,
) -> None:
    with ServerProcess(tmp_path / "king.db", extra=("--no-access-log",)) as server:
        assert probe(server, "/api/live")[0] == 200
        time.sleep(0.3)
        lines = logged(server, lambda out: "serving tables" in out)
    assert lines == []  # no access line, no information
    with ServerProcess(tmp_path / "king.db") as server:
        assert probe(server, "/api/live")[0] == 200
        lines = logged(server, lambda out: "/api/live" in out)
    assert [(m["logger"], m["level"]) for m in lines] == [("king.access", "INFO")] * len(lines)
    bad = run_king("serve", "--log-level", "loud", "--db", str(tmp_path / "x.db"))
    assert bad.returncode == 2 and "--log-level takes debug, info, warning, error" in bad.stderr
    assert "Traceback" not in bad.stderr
    help_text = " ".join(run_king("serve", "--help").stdout.split())
    assert "--log-level" in help_text and "--no-access-log" in help_text
