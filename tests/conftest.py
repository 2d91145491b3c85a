"""Shared helpers for the tests."""

from __future__ import annotations

import itertools
import os
import random
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from king.game import Game, Phase
from king.rules import Rules
from king.server.process import ServerProcess
from king.server.store import Database

#: Debian's Chromium, the only browser the tests drive (nothing is downloaded).
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]

#: The project's copies of the example records of RECORD.md.
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def play_random_game(rules: Rules, seed: int) -> Game:
    """A whole game with uniformly random legal declarations and plays."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    while not game.is_over:
        if game.phase is Phase.DECLARING:
            game.declare(rng.choice(game.allowed_declarations()))
        else:
            deal = game.deal
            assert deal is not None
            game.play(rng.choice(deal.legal_moves()))
    return game


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian's Chromium through Playwright, with a throwaway HOME; one per test module."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        if os.environ.get("CI"):  # CI installs it (.ci/run): a skip there would hide a failure
            pytest.fail("Debian's chromium is missing: apt-get install -y chromium")
        pytest.skip("Debian's chromium is missing: apt-get install -y chromium")
    home = tmp_path_factory.mktemp("home")
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            env={**os.environ, "HOME": str(home)},
        )
        yield chromium
        chromium.close()


#: The event log's backends: every server test runs against each.
BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    """One real PostgreSQL server for the whole run (a fresh database per test)."""
    from king.server.services import PostgresServer, ServiceMissingError

    try:
        server = PostgresServer().start()
    except ServiceMissingError as error:
        pytest.fail(str(error))  # CI installs it (.ci/run); never a skip
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[Any]:
    """One real Redis for the whole run (tests keep apart by their own key prefixes or
    their own databases)."""
    from king.server.services import RedisServer, ServiceMissingError

    try:
        server = RedisServer().start()
    except ServiceMissingError as error:
        pytest.fail(str(error))  # CI installs it (.ci/run); never a skip
    yield server
    server.stop()


def _database(request: pytest.FixtureRequest, folder: Path) -> Database:
    if request.param == "sqlite":
        return folder / "king.db"
    address: str = request.getfixturevalue("postgres_server").create_database()
    return address


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Database:
    """An empty database for one test: a SQLite file, or a new PostgreSQL database."""
    return _database(request, tmp_path)


@pytest.fixture(scope="module", params=BACKENDS)
def module_database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Database:
    """An empty database for one test module, in each backend."""
    return _database(request, tmp_path_factory.mktemp("db"))


@pytest.fixture(params=BACKENDS)
def databases(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Database]:
    """Makes empty databases of one backend, for a test that needs several."""
    made = itertools.count()

    def make() -> Database:
        if request.param == "sqlite":
            return tmp_path / f"king-{next(made)}.db"
        address: str = request.getfixturevalue("postgres_server").create_database()
        return address

    return make


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

    def spawn(self, port: int | None = None) -> ServerProcess:
        process = ServerProcess(
            self.db, port=port, redis=self.redis, bot_pause=0.0, lease=self.lease
        )
        return process.start()

    @property
    def urls(self) -> list[str]:
        return [p.url for p in self.processes]

    def owners(self) -> dict[str, str]:
        """Each table's owner now (the process name in its lease)."""
        import redis

        client = redis.Redis.from_url(self.redis)
        try:
            owners: dict[str, str] = {}
            for key in client.scan_iter("king:lease:*"):
                value = client.get(key)
                if value is not None:
                    owners[key.decode().split(":", 2)[2]] = value.decode().rsplit(":", 1)[0]
            return owners
        finally:
            client.close()

    def process_of(self, owner: str) -> ServerProcess | None:
        """The server process whose pid is in an owner's name."""
        for process in self.processes:
            if process.pid is not None and f"-{process.pid}-" in owner:
                return process
        return None


@pytest.fixture
def cluster(postgres_server: Any, redis_server: Any) -> Iterator[Cluster]:
    """Three server processes sharing tables (each test its own database and Redis)."""
    yield from start_cluster(postgres_server, redis_server)


def start_cluster(
    postgres_server: Any, redis_server: Any, lease: float | None = None
) -> Iterator[Cluster]:
    """Three server processes with their own database and Redis database, stopped at
    the end (``lease``: seconds, the server's default if None)."""
    number = next(_redis_databases) % 16
    address = f"{redis_server.address}/{number}"
    import redis

    redis.Redis.from_url(address).flushdb()
    shared = Cluster(postgres_server.create_database(), address, [], lease)
    try:
        for _ in range(3):
            shared.processes.append(shared.spawn())
        yield shared
    finally:
        for process in shared.processes:
            process.signal(signal.SIGCONT)
            process.kill()
