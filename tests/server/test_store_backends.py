"""The two event logs behind one interface: what SQLite keeps, PostgreSQL keeps the same
way; a PostgreSQL schema is versioned; a database moves from SQLite into PostgreSQL
with `king db copy`, and every game in it is still there and playable."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from benchmarks.backends import PostgresServer, postgres_programs
from benchmarks.server_process import ServerProcess
from king.record import replay
from king.server.store.database import (
    CopyReport,
    copy_people,
    copy_tables,
    open_for_copy,
    open_store,
)
from king.server.store.event_log import (
    Database,
    Sql,
    StoreError,
    StoreFencedError,
    StoreLockedError,
    describe,
    parse_database,
)
from king.server.store.postgres import MIGRATIONS, PostgresEventStore
from king.server.store.sqlite import MIGRATIONS as MIGRATIONS_SQLITE
from tests.support.peers import table_socket
from tests.support.services import query


def king(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "king", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_each_backend_keeps_events_in_order_and_refuses_a_number_twice(
    database: Database,
) -> None:
    store = open_store(database)
    try:
        store.create_table("T1", {"rules": "classic"})
        store.append("T1", 1, "join", {"seat": 2, "name": "Ayşe"}, "playing")
        with pytest.raises(StoreError, match="could not be written"):
            store.append("T1", 1, "join", {"seat": 3, "name": "Bo"})
        events = store.events("T1")
        assert [(e.number, e.kind) for e in events] == [(0, "table"), (1, "join")]
        assert events[1].data == {"seat": 2, "name": "Ayşe"}
        assert store.table_ids("playing") == ["T1"]
        assert store.table_ids("waiting") == []
        assert [t.id for t in store.tables()] == ["T1"]
        assert store.exists("T1") and not store.exists("T2")
        assert store.events("T2") == []
    finally:
        store.close()
        store.close()  # idempotent


def test_a_database_address_is_told_apart_from_a_file_and_its_password_is_never_shown() -> None:
    assert parse_database("postgres://u@h/d") == "postgres://u@h/d"
    assert parse_database("king.db") == Path("king.db")
    with pytest.raises(ValueError, match="not a redis:// address"):
        parse_database("redis://localhost")
    assert describe("postgresql://king:s3cret@127.0.0.1:5/k") == "postgresql://king@127.0.0.1:5/k"
    result = king("serve", "--db", "mysql://root@localhost/king")
    assert result.returncode == 2
    assert "not a mysql:// address" in result.stderr


def test_an_unreachable_or_newer_postgres_database_is_refused_in_one_line(
    postgres_server: PostgresServer,
) -> None:
    with pytest.raises(
        StoreError, match=r"cannot connect to postgresql://king@127\.0\.0\.1:1/none"
    ):
        PostgresEventStore("postgresql://king:pw@127.0.0.1:1/none", timeout=1)
    address = postgres_server.create_database()
    open_store(address).close()
    with psycopg.connect(address, autocommit=True) as db:
        db.execute("INSERT INTO king_schema (version, at) VALUES (%s, 0)", (len(MIGRATIONS) + 1,))
    with pytest.raises(StoreError, match="written by a newer king"):
        open_store(address)
    result = king("serve", "--db", address.replace("king@", "king:hidden@"), "--port", "0")
    assert result.returncode == 1
    assert "written by a newer king" in result.stderr
    assert "hidden" not in result.stderr + result.stdout


def test_processes_starting_together_migrate_once(postgres_server: PostgresServer) -> None:
    address = postgres_server.create_database()
    stores = [PostgresEventStore(address, exclusive=False) for _ in range(3)]
    for store in stores:
        store.close()
    rows = query(address, "SELECT version FROM king_schema ORDER BY version")
    assert rows == [(n,) for n in range(1, len(MIGRATIONS) + 1)]
    with pytest.raises(StoreLockedError, match="one server per database"):
        first = open_store(address)
        try:
            open_store(address)
        finally:
            first.close()


def test_a_lost_connection_fails_one_write_and_the_next_reconnects(
    postgres_server: PostgresServer,
) -> None:
    address = postgres_server.create_database()
    store = open_store(address)
    try:
        store.create_table("T1", {"rules": "classic"})
        pids = query(address, "SELECT pid FROM pg_stat_activity WHERE application_name = 'king'")
        assert len(pids) >= 2  # the server lock's connection and the pool's
        for (pid,) in pids:  # as a restart of the database would
            query(address, "SELECT pg_terminate_backend(?)", (pid,))
        with pytest.raises(StoreError, match="could not be"):
            store.append("T1", 1, "start", {})
        store.append("T1", 1, "start", {})  # new connections, the lock taken again
        assert [e.kind for e in store.events("T1")] == ["table", "start"]
        with pytest.raises(StoreLockedError, match="one server per database"):
            open_store(address)
    finally:
        store.close()


def play_some(server: ServerProcess, finished: int, unfinished: int) -> list[str]:
    """Tables of four bots played to the end, and tables of people part-way through."""
    tables = []
    bots = [{"kind": "bot", "bot": "random"}] * 4
    for seed in range(finished):
        answer = httpx.post(
            f"{server.url}/api/tables", json={"seats": bots, "seat": None, "seed": seed}
        )
        tables.append(answer.json()["table"])
    with ExitStack() as watchers:  # bots play only while somebody watches: all at once
        for table in tables:
            peer = watchers.enter_context(table_socket(server, table))
            peer.send(json.dumps({"v": 1, "type": "watch"}))
        deadline = time.monotonic() + 90
        for table in tables:
            while httpx.get(f"{server.url}/api/tables/{table}").json()["status"] != "over":
                assert time.monotonic() < deadline, "the bots did not finish their games"
                time.sleep(0.2)
    for seed in range(unfinished):
        body = {"seats": [{"kind": "human"}] * 4, "name": "Ada", "seed": 100 + seed}
        tables.append(httpx.post(f"{server.url}/api/tables", json=body).json()["table"])
    return tables


def records(server: ServerProcess, tables: list[str]) -> dict[str, Any]:
    return {t: httpx.get(f"{server.url}/api/tables/{t}/record").text for t in tables}


@pytest.mark.slow
def test_king_db_copy_moves_a_sqlite_servers_games_into_postgres(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    source = tmp_path / "king.db"
    with ServerProcess(source, bot_pause=0) as server:
        tables = play_some(server, finished=2, unfinished=2)
        before = records(server, tables)
        ayse = httpx.Client(base_url=server.url)
        login = {"name": "Ayşe", "password": "a long secret"}
        assert ayse.post("/api/accounts", json=login).status_code == 201
        seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "rule"}] * 3
        hers = ayse.post("/api/tables", json={"seats": seats, "rated": True}).json()["table"]
        bot_stats = httpx.get(f"{server.url}/api/players/bot:random/stats").json()
    assert bot_stats["games"] == 8
    assert all(replay(before[t]).complete for t in tables[:2])
    target = postgres_server.create_database()
    result = king("db", "copy", str(source), target)
    assert result.returncode == 0, result.stderr
    assert "copied 5 tables" in result.stdout and "and 3 accounts" in result.stdout  # 2 guests
    again = king("db", "copy", str(source), target)  # again: nothing new, nothing doubled
    assert again.returncode == 0, again.stderr
    assert "copied 0 tables" in again.stdout and "5 were there already" in again.stdout
    assert "and 0 accounts" in again.stdout
    with ServerProcess(target, bot_pause=0, log=tmp_path / "pg.log") as server:
        assert records(server, tables) == before
        # Her account, her seat and the bots' figures came along.
        back = httpx.Client(base_url=server.url)
        assert back.post("/api/login", json=login).status_code == 200
        games = back.get("/api/players/Ayşe/games").json()["games"]
        assert [(g["table"], g["status"]) for g in games] == [(hers, "playing")]
        assert httpx.get(f"{server.url}/api/players/bot:random/stats").json() == bot_stats
        lobby = httpx.get(f"{server.url}/api/tables").json()
        assert {t["id"] for t in lobby["open"]} == {*tables[2:], hers}
        # An unfinished table plays on: its first seat's person joins and is welcomed.
        answer = httpx.post(f"{server.url}/api/tables/{tables[2]}/join", json={"name": "Bo"})
        assert answer.status_code == 200, answer.text
    # Copied back, the table played on in PostgreSQL is brought up to date in SQLite.
    store = open_store(target)
    store.append(tables[2], len(store.events(tables[2])), "close", {}, "closed")
    played = [(e.number, e.kind, e.data) for e in store.events(tables[2])]
    store.close()
    copy_back = king("db", "copy", target, str(source))
    assert copy_back.returncode == 0, copy_back.stderr
    # (Ayşe's table too: the PostgreSQL server logged its resume when it restored it.)
    assert "copied 0 tables" in copy_back.stdout and "2 brought up to date" in copy_back.stdout
    store = open_store(source)
    assert [(e.number, e.kind, e.data) for e in store.events(tables[2])] == played
    assert {t.id: t.status for t in store.tables()}[tables[2]] == "closed"
    # A table that then goes different ways in the two is refused, and nothing is copied.
    store.append(tables[2], len(played), "note", {"here": "sqlite"})
    store.close()
    store = open_store(target)
    store.append(tables[2], len(played), "note", {"here": "postgres"})
    store.close()
    refused = king("db", "copy", target.replace("king@", "king:hidden@"), str(source))
    assert refused.returncode == 1
    assert (
        f"table {tables[2]} is in both" in refused.stderr and "--skip-different" in refused.stderr
    )
    assert "hidden" not in refused.stderr


def test_copy_tables_checks_before_it_copies(tmp_path: Path) -> None:
    first, second = open_store(tmp_path / "a.db"), open_store(tmp_path / "b.db")
    try:
        first.create_table("A", {"n": 1})
        first.create_table("B", {"n": 2})
        second.create_table("B", {"n": 3})
        with pytest.raises(StoreError, match="table B is in both"):
            copy_tables(first, second)
        assert [t.id for t in second.tables()] == ["B"]  # A was not copied either
    finally:
        first.close()
        second.close()


def test_a_copy_again_after_play_brings_tables_up_to_date_and_names_those_that_differ(
    databases: Callable[[], Database],
) -> None:
    """What an operator copying again wants: tables played on in FROM get the events
    played since, tables played on in TO only (it has served them) stay as they are, and
    a table played differently in the two stops the copy, named, unless told to skip it."""
    source, target = open_store(databases()), open_store(databases())
    try:
        for name in "ABCD":
            source.create_table(name, {"name": name})
        assert copy_tables(source, target).copied == ("A", "B", "C", "D")
        source.append("B", 1, "start", {}, "playing")
        target.append("C", 1, "start", {}, "playing")
        source.append("D", 1, "join", {"seat": 1})
        target.append("D", 1, "join", {"seat": 2})
        source.create_table("E", {"name": "E"})
        with pytest.raises(StoreError, match=r"table D is in both .* nothing was copied"):
            copy_tables(source, target)
        assert not target.exists("E") and len(target.events("B")) == 1
        report = copy_tables(source, target, skip_different=True)
        assert report == CopyReport(
            copied=("E",), brought=("B",), same=("A",), ahead=("C",), different=("D",)
        )
        assert target.events("B") == source.events("B")
        assert {t.id: t.status for t in target.tables()}["B"] == "playing"
        assert [e.data for e in target.events("D")][1] == {"seat": 2}  # left as TO has it
        assert len(target.events("C")) == 2
        again = copy_tables(source, target, skip_different=True)
        assert again == CopyReport(same=("A", "B", "E"), ahead=("C",), different=("D",))
    finally:
        source.close()
        target.close()


def test_a_rating_that_moved_on_in_the_source_replaces_the_older_copy(
    databases: Callable[[], Database],
) -> None:
    source, target = open_store(databases()), open_store(databases())
    insert = "INSERT INTO king_ratings (player, mu, sigma, games, updated) VALUES (?, ?, ?, ?, ?)"
    try:
        source.run(lambda sql: sql.change(insert, ("bot:rule", 25.0, 8.0, 1, 100.0)))
        source.run(lambda sql: sql.change(insert, ("bot:random", 20.0, 8.0, 1, 100.0)))
        copy_people(source, target)
        source.run(lambda sql: sql.change("UPDATE king_ratings SET games = 2, updated = 200"))
        source.run(
            lambda sql: sql.change("UPDATE king_ratings SET mu = 27 WHERE player = 'bot:rule'")
        )
        target.run(
            lambda sql: sql.change("UPDATE king_ratings SET games = 3 WHERE player = 'bot:random'")
        )
        copy_people(source, target)
        rows = target.read(lambda sql: sql.rows("SELECT player, mu, games FROM king_ratings"))
        # bot:random counts more games in TO: rated there since, so TO's is kept.
        assert sorted(rows) == [("bot:random", 20.0, 3), ("bot:rule", 27.0, 2)]
    finally:
        source.close()
        target.close()


def test_the_schema_table_is_keyed_and_loses_the_duplicates_a_restore_left(
    postgres_server: PostgresServer,
) -> None:
    """A database of schema 4 into which pg_restore appended every king_schema row a
    second time: the next start removes the copies and keys the table."""
    address = postgres_server.create_database()
    with psycopg.connect(address, autocommit=True) as db:
        db.execute("CREATE TABLE king_schema (version INTEGER NOT NULL, at DOUBLE PRECISION)")
        for number, step in enumerate(MIGRATIONS[:4], 1):
            db.execute(step)
            for at in (1.0, 2.0):  # the first start, then the restore
                db.execute("INSERT INTO king_schema (version, at) VALUES (%s, %s)", (number, at))
    assert len(query(address, "SELECT version FROM king_schema")) == 8
    open_store(address).close()
    rows = query(address, "SELECT version FROM king_schema ORDER BY version")
    assert rows == [(n,) for n in range(1, len(MIGRATIONS) + 1)]
    assert query(address, "SELECT at FROM king_schema WHERE version = 1") == [(1.0,)]
    with pytest.raises(psycopg.errors.UniqueViolation):
        query(address, "INSERT INTO king_schema (version, at) VALUES (1, 3)")


def test_pg_restore_into_the_live_database_doubles_nothing(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    """The backup of docs/deploy.md restored by mistake over the database it came from:
    every table of king's refuses the rows it already has."""
    address = postgres_server.create_database()
    store = open_store(address)
    store.create_table("T1", {"rules": "classic"})
    store.close()
    programs = postgres_programs()
    dump = tmp_path / "king.dump"
    made = subprocess.run(
        [str(programs / "pg_dump"), "--format=custom", "--file", str(dump), address],
        capture_output=True,
        text=True,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    restored = subprocess.run(
        [str(programs / "pg_restore"), "--dbname", address, str(dump)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert restored.returncode != 0 and "already exists" in restored.stderr
    rows = query(address, "SELECT version FROM king_schema ORDER BY version")
    assert rows == [(n,) for n in range(1, len(MIGRATIONS) + 1)]
    assert query(address, "SELECT COUNT(*) FROM events") == [(1,)]
    assert query(address, "SELECT COUNT(*) FROM tables") == [(1,)]


def _server_lock(address: str) -> list[str]:
    """How king's server lock on this database is held now (one mode per session)."""
    rows = query(
        address,
        "SELECT mode FROM pg_locks WHERE locktype = 'advisory' AND granted "
        "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
        "AND objid = 2 ORDER BY mode",
    )
    return [str(row[0]) for row in rows]


def test_a_member_keeps_its_shared_lock_and_takes_it_again_after_losing_it(
    postgres_server: PostgresServer,
) -> None:
    """Processes that share tables hold the server lock shared, so a server alone (or a
    copy) is refused beside them; a member whose connection is lost takes it again,
    unless a server alone took the database in between."""
    address = postgres_server.create_database()
    member, other = (PostgresEventStore(address, exclusive=False) for _ in range(2))
    try:
        member.create_table("T1", {})
        assert _server_lock(address) == ["ShareLock", "ShareLock"]
        with pytest.raises(StoreLockedError, match="processes with --redis share the tables"):
            open_store(address)
        with pytest.raises(StoreLockedError, match="in use by a running king server"):
            open_for_copy(address)
        other.close()
        for (pid,) in query(
            address, "SELECT pid FROM pg_stat_activity WHERE application_name = 'king'"
        ):
            query(address, "SELECT pg_terminate_backend(?)", (pid,))  # as a restart would
        alone = open_store(address)  # nobody holds the lock now
        try:
            with pytest.raises(StoreError, match="could not be written"):
                member.append("T1", 1, "start", {})
            with pytest.raises(StoreLockedError, match=r"without --redis .* is using .* alone"):
                member.append("T1", 1, "start", {})
        finally:
            alone.close()
        member.append("T1", 1, "start", {})
        assert _server_lock(address) == ["ShareLock"]
    finally:
        member.close()
        other.close()


def test_a_write_from_an_owner_whose_fence_has_passed_is_refused(database: Database) -> None:
    store = open_store(database)
    try:
        store.create_table("T1", {"rules": "classic"})
        assert store.fence("T1") == 0
        assert store.claim("T1", 1)
        store.append("T1", 1, "start", {}, fence=1)
        assert store.claim("T1", 2)  # a new owner took over
        assert not store.claim("T1", 2) and not store.claim("T1", 1)
        with pytest.raises(StoreFencedError, match="fencing number 1 was refused"):
            store.append("T1", 2, "deal", {"hands": []}, fence=1)
        store.append("T1", 2, "deal", {"hands": []}, fence=2)
        assert [e.kind for e in store.events("T1")] == ["table", "start", "deal"]
        assert store.fence("T1") == 2
    finally:
        store.close()


def test_the_fence_holds_between_two_connections_to_postgres(
    postgres_server: PostgresServer,
) -> None:
    address = postgres_server.create_database()
    old, new = (PostgresEventStore(address, exclusive=False) for _ in range(2))
    try:
        old.create_table("T1", {})
        assert old.claim("T1", 7)
        old.append("T1", 1, "start", {}, fence=7)
        assert new.claim("T1", 8)
        with pytest.raises(StoreFencedError):
            old.append("T1", 2, "close", {}, "closed", fence=7)
        assert [e.kind for e in new.events("T1")] == ["table", "start"]
        assert query(address, "SELECT status FROM tables WHERE id = 'T1'") == [("waiting",)]
    finally:
        old.close()
        new.close()


@pytest.mark.slow
def test_a_sqlite_file_of_the_previous_schema_upgrades_in_place(tmp_path: Path) -> None:
    """A file as the release before fencing wrote it (schema 1, with a table in
    progress and a finished one) opens at the current schema with every event kept, and
    the server brings the unfinished table back."""
    source = tmp_path / "made-now.db"
    with ServerProcess(source, bot_pause=0) as server:
        tables = play_some(server, finished=1, unfinished=1)
        before = records(server, tables)
    old = tmp_path / "old.db"
    db = sqlite3.connect(old)
    db.executescript(MIGRATIONS_SQLITE[0])
    db.execute("ATTACH DATABASE ? AS made", (str(source),))
    with db:
        db.execute("INSERT INTO tables SELECT id, status, created, updated FROM made.tables")
        db.execute("INSERT INTO events SELECT table_id, number, kind, data, at FROM made.events")
    db.close()
    query(old, "PRAGMA user_version = 1")
    assert query(old, "PRAGMA user_version") == [(1,)]
    count = query(old, "SELECT COUNT(*) FROM events")
    with ServerProcess(old, bot_pause=0) as server:
        assert records(server, tables) == before
        lobby = httpx.get(f"{server.url}/api/tables").json()
        assert [t["id"] for t in lobby["open"]] == [tables[1]]
        answer = httpx.post(f"{server.url}/api/tables/{tables[1]}/join", json={"name": "Bo"})
        assert answer.status_code == 200, answer.text
    assert query(old, "PRAGMA user_version") == [(len(MIGRATIONS_SQLITE),)]
    assert query(old, "SELECT COUNT(*) FROM events")[0][0] == count[0][0] + 1  # the join
    assert query(old, "SELECT DISTINCT fence FROM tables") == [(0,)]
    assert query(old, "SELECT DISTINCT fence FROM events") == [(None,)]  # written unfenced


def test_appends_and_other_threads_transactions_never_interleave(database: Database) -> None:
    """The freeze a login flood caused: accounts' transactions in worker threads shared
    the tables' connection, so an append could be acknowledged and not kept, or kept and
    reported failed.  Here one thread appends while three others read and write: every
    acknowledged append is in the log, every refused one is not."""
    store = open_store(database)
    store.create_table("Tbusy1", {"rules": "classic"})
    stop = threading.Event()
    failures: list[str] = []

    def busy(index: int) -> None:
        count = 0
        while not stop.is_set():
            count += 1
            try:
                store.read(lambda sql: sql.rows("SELECT COUNT(*) FROM king_login_failures"))
                row = (f"busy:{index}", float(count))
                store.run(
                    lambda sql, row=row: sql.change(
                        "INSERT INTO king_login_failures (subject, at) VALUES (?, ?)", row
                    )
                )
                store.events("Tbusy1")
            except StoreError as error:
                failures.append(str(error))

    others = [threading.Thread(target=busy, args=(i,)) for i in range(3)]
    for thread in others:
        thread.start()
    acknowledged = refused = 0
    try:
        for number in range(1, 401):
            try:
                store.append("Tbusy1", acknowledged + 1, "note", {"n": number})
                acknowledged += 1
            except StoreError:
                refused += 1
    finally:
        stop.set()
        for thread in others:
            thread.join()
    events = store.events("Tbusy1")
    store.close()
    assert refused == 0 and failures == []
    assert [e.number for e in events] == list(range(acknowledged + 1))
    assert [e.data["n"] for e in events[1:]] == list(range(1, 401))


def test_a_transaction_refuses_another_thread_and_use_after_its_end(database: Database) -> None:
    store = open_store(database)
    kept: list[Sql] = []

    def leak(sql: Sql) -> int:
        kept.append(sql)
        errors: list[BaseException] = []

        def elsewhere() -> None:
            try:
                sql.rows("SELECT 1")
            except StoreError as error:
                errors.append(error)

        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
        assert len(errors) == 1 and "another thread" in str(errors[0])
        return 1

    assert store.run(leak) == 1
    with pytest.raises(StoreError, match="after its transaction had ended"):
        kept[0].change("DELETE FROM king_sessions")
    # A read-only transaction refuses to write.
    with pytest.raises(StoreError):
        store.read(lambda sql: sql.change("DELETE FROM king_sessions"))
    # A transaction begun inside another is refused, not nested into it.
    with pytest.raises(StoreError, match="inside another"):
        store.run(lambda sql: store.run(lambda inner: inner.rows("SELECT 1")))
    store.close()
