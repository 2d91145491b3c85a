"""The SQLite event log (WAL): the embedded default, one server process per file.

One process owns the file: a lock beside it makes a second server fail at once instead
of corrupting the tables the first one holds in memory.
"""

from __future__ import annotations

import fcntl
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

from king.server.store.event_log import (
    Bounds,
    Sql,
    StoredEvent,
    StoredTable,
    StoreError,
    StoreLockedError,
    dumps,
    fenced,
    parse_events,
)
from king.server.store.schema import LIMIT_MARKS, people_schema

__all__ = ["SqliteEventStore"]

T = TypeVar("T")

#: The schema, one step per version (``PRAGMA user_version``): a file at version n runs
#: steps n+1 onwards, each in one transaction, so a file made by an older king upgrades in
#: place with nothing lost.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE IF NOT EXISTS tables (
        id       TEXT PRIMARY KEY,
        status   TEXT NOT NULL,
        created  REAL NOT NULL,
        updated  REAL NOT NULL
    );
    CREATE TABLE IF NOT EXISTS events (
        table_id TEXT NOT NULL REFERENCES tables(id),
        number   INTEGER NOT NULL,
        kind     TEXT NOT NULL,
        data     TEXT NOT NULL,
        at       REAL NOT NULL,
        PRIMARY KEY (table_id, number)
    );
    CREATE INDEX IF NOT EXISTS tables_by_status ON tables(status, updated);
    """,
    # 2: the owner's fencing number per table (see EventStore.claim).
    "ALTER TABLE tables ADD COLUMN fence INTEGER NOT NULL DEFAULT 0;",
    # 3: the fencing number each event was written under (NULL: written unfenced), so
    # that who wrote what after a takeover can be read back.
    "ALTER TABLE events ADD COLUMN fence INTEGER;",
    # 4: accounts, sessions, seats, results and ratings (king.server.store.schema).
    people_schema("REAL"),
    # 5: a mark on each count against a limit (king.server.store.schema).
    LIMIT_MARKS,
)


class SqliteEventStore:
    """The SQLite event log of one server process.

    ``durable=True`` asks SQLite to sync every commit to the disk (``synchronous=FULL``);
    the default (``NORMAL`` in WAL mode) already survives the process being killed at
    any moment, and loses at most the last commits on a power cut.

    Every thread has a connection of its own (made at its first use, closed with the
    store): one ``sqlite3`` connection is never shared, so the transactions of two
    threads cannot interleave on it (a read joining another thread's open transaction,
    a ``BEGIN`` inside it).  Writers of this process take turns on one lock, so none
    waits in SQLite's busy loop behind another; readers need no lock (WAL gives each a
    snapshot).  A busy timeout covers other processes reading the file (``king db copy``).
    """

    def __init__(self, path: Path, *, durable: bool = False, busy_timeout: float = 30.0) -> None:
        self.path = path
        self.where = str(path)
        self._synchronous = "FULL" if durable else "NORMAL"
        self._busy_timeout = busy_timeout
        self._local = threading.local()
        self._opened: list[tuple[threading.Thread, sqlite3.Connection]] = []
        self._opened_lock = threading.Lock()
        self._writer = threading.Lock()
        self._writing: int | None = None
        self._closed = False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"cannot create the folder {path.parent}: {error.strerror}") from None
        self._lock = _lock(path)
        try:
            db = self._connection()
            db.execute("PRAGMA journal_mode=WAL")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                raise StoreError(
                    f"{path} was written by a newer king (schema {version}); upgrade king"
                )
            for number in range(version + 1, len(MIGRATIONS) + 1):
                # executescript commits first; the script is one transaction of its own.
                db.executescript(
                    f"BEGIN IMMEDIATE; {MIGRATIONS[number - 1]} PRAGMA user_version={number}; "
                    "COMMIT;"
                )
        except sqlite3.DatabaseError as error:
            self._close_all()
            raise StoreError(f"{path} is not a usable king database: {error}") from None
        except StoreError:
            self._close_all()
            raise

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection, opened at its first use."""
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is not None:
            return db
        if self._closed:
            raise StoreError(f"the event log {self.path} is closed")
        try:
            # check_same_thread=False only so that close() may close every thread's
            # connection; each is used by the thread that made it alone (``_local``).
            db = sqlite3.connect(
                self.path,
                isolation_level=None,
                check_same_thread=False,
                timeout=self._busy_timeout,
            )
            db.execute(f"PRAGMA synchronous={self._synchronous}")
            db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as error:
            raise StoreError(f"{self.path} is not a usable king database: {error}") from None
        self._local.db = db
        with self._opened_lock:
            for thread, other in [pair for pair in self._opened if not pair[0].is_alive()]:
                other.close()  # a connection of a thread that has ended
                self._opened.remove((thread, other))
            self._opened.append((threading.current_thread(), db))
        return db

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction on this thread's connection, this process's writers
        taking turns.  It commits or rolls back whole: a failed ``COMMIT`` is rolled
        back too, so the connection is never left inside a transaction."""
        me = threading.get_ident()
        if self._writing == me:
            raise StoreError("a transaction of the event log was begun inside another one")
        db = self._connection()
        with self._writer:
            self._writing = me
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                    db.execute("COMMIT")
                finally:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
            except sqlite3.Error as error:
                raise StoreError(
                    f"the event log {self.path} could not be written: {error}"
                ) from None
            finally:
                self._writing = None

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """One read-only transaction on this thread's connection: a snapshot, with no
        lock taken and no write possible (``query_only``)."""
        db = self._connection()
        if db.in_transaction:
            raise StoreError("a transaction of the event log was begun inside another one")
        try:
            db.execute("PRAGMA query_only=ON")
            try:
                db.execute("BEGIN DEFERRED")
                try:
                    yield db
                finally:
                    if db.in_transaction:
                        db.execute("COMMIT")
            finally:
                db.execute("PRAGMA query_only=OFF")
        except sqlite3.Error as error:
            raise StoreError(f"the event log {self.path} could not be read: {error}") from None

    def create_table(self, table_id: str, data: dict[str, Any]) -> float:
        """Record a new table with its first event (number 0, kind ``table``)."""
        now = time.time()
        with self._transaction() as db:
            db.execute(
                "INSERT INTO tables (id, status, created, updated) VALUES (?, 'waiting', ?, ?)",
                (table_id, now, now),
            )
            db.execute(
                "INSERT INTO events (table_id, number, kind, data, at) VALUES (?, 0, ?, ?, ?)",
                (table_id, "table", dumps(data), now),
            )
        return now

    def append(
        self,
        table_id: str,
        number: int,
        kind: str,
        data: dict[str, Any],
        status: str | None = None,
        fence: int | None = None,
    ) -> None:
        """Append event ``number`` to a table's log (and set its status), durably,
        before anyone is told of it.  Raises :class:`StoreError` if it cannot."""
        now = time.time()
        with self._transaction() as db:
            if fence is not None:
                held = db.execute("SELECT fence FROM tables WHERE id = ?", (table_id,))
                fenced(table_id, fence, held.fetchone())
            db.execute(
                "INSERT INTO events (table_id, number, kind, data, at, fence) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (table_id, number, kind, dumps(data), now, fence),
            )
            if status is None:
                db.execute("UPDATE tables SET updated = ? WHERE id = ?", (now, table_id))
            else:
                db.execute(
                    "UPDATE tables SET updated = ?, status = ? WHERE id = ?",
                    (now, status, table_id),
                )

    def claim(self, table_id: str, fence: int) -> bool:
        with self._transaction() as db:
            changed = db.execute(
                "UPDATE tables SET fence = ? WHERE id = ? AND fence < ?",
                (fence, table_id, fence),
            )
            return changed.rowcount == 1

    def fence(self, table_id: str) -> int:
        with self._reading() as db:
            row = db.execute("SELECT fence FROM tables WHERE id = ?", (table_id,)).fetchone()
        return 0 if row is None else int(row[0])

    def set_status(self, table_id: str, status: str) -> None:
        """Set a table's status (``waiting``, ``playing``, ``over``) for the lobby."""
        with self._transaction() as db:
            db.execute(
                "UPDATE tables SET status = ?, updated = ? WHERE id = ?",
                (status, time.time(), table_id),
            )

    def events(self, table_id: str) -> list[StoredEvent]:
        """A table's events in order (empty for an unknown table)."""
        with self._reading() as db:
            rows = db.execute(
                "SELECT number, kind, data, at FROM events WHERE table_id = ? ORDER BY number",
                (table_id,),
            ).fetchall()
        return parse_events(table_id, rows)

    def table_ids(self, status: str, limit: int | None = None) -> list[str]:
        """Ids of the tables with this status, the most recently active first."""
        query = "SELECT id FROM tables WHERE status = ? ORDER BY updated DESC"
        params: tuple[Any, ...] = (status,)
        if limit is not None:
            query += " LIMIT ?"
            params = (status, limit)
        with self._reading() as db:
            return [row[0] for row in db.execute(query, params)]

    def tables(self) -> list[StoredTable]:
        """Every table of the log, the oldest first."""
        query = "SELECT id, status, created, updated FROM tables ORDER BY created, id"
        with self._reading() as db:
            return [StoredTable(*row) for row in db.execute(query)]

    def add_table(self, table: StoredTable, events: list[StoredEvent]) -> None:
        """Add a whole table with its events as they are, in one transaction."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO tables (id, status, created, updated) VALUES (?, ?, ?, ?)",
                (table.id, table.status, table.created, table.updated),
            )
            db.executemany(
                "INSERT INTO events (table_id, number, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                [(table.id, e.number, e.kind, dumps(e.data), e.at) for e in events],
            )

    def extend_table(self, table: StoredTable, events: list[StoredEvent]) -> None:
        """Append events as they are and take ``table``'s status, in one transaction."""
        with self._transaction() as db:
            db.executemany(
                "INSERT INTO events (table_id, number, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                [(table.id, e.number, e.kind, dumps(e.data), e.at) for e in events],
            )
            db.execute(
                "UPDATE tables SET status = ?, updated = ? WHERE id = ?",
                (table.status, table.updated, table.id),
            )

    def exists(self, table_id: str) -> bool:
        """Whether a table of this id was ever created."""
        with self._reading() as db:
            row = db.execute("SELECT 1 FROM tables WHERE id = ?", (table_id,)).fetchone()
        return row is not None

    def run(self, work: Callable[[Sql], T]) -> T:
        """Run ``work`` in one transaction (``BEGIN IMMEDIATE``: writers take turns)."""
        with self._transaction() as db:
            sql = _SqliteSql(db)
            try:
                return work(sql)
            finally:
                sql.bounds.end()

    def read(self, work: Callable[[Sql], T]) -> T:
        """Run ``work`` in one read-only transaction (a snapshot; writes are refused)."""
        with self._reading() as db:
            sql = _SqliteSql(db)
            try:
                return work(sql)
            finally:
                sql.bounds.end()

    def close(self) -> None:
        """Close every thread's connection and release the lock; idempotent.  Called
        once nothing else uses the store (at shutdown)."""
        self._closed = True
        self._close_all()

    def _close_all(self) -> None:
        with self._opened_lock:
            opened, self._opened = self._opened, []
        try:
            for _, db in opened:
                db.close()
        finally:
            self._lock.close()


class _SqliteSql:
    """:class:`~king.server.store.event_log.Sql` on one SQLite connection in a transaction (which
    refuses statements from another thread or after it has ended)."""

    tables = "tables"

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self.bounds = Bounds()

    def lock(self, key: str) -> None:
        """Writers already take turns on the whole file (``BEGIN IMMEDIATE``)."""
        self.bounds.check()

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self.bounds.check()
        return [tuple(row) for row in self._db.execute(sql, tuple(params)).fetchall()]

    def change(self, sql: str, params: Sequence[Any] = ()) -> int:
        self.bounds.check()
        return self._db.execute(sql, tuple(params)).rowcount


def _lock(path: Path) -> IO[str]:
    """Hold an exclusive lock on ``PATH.lock`` for as long as the file stays open (the
    system releases it when the process dies, however it dies)."""
    lock_path = path.with_name(path.name + ".lock")
    try:
        handle = lock_path.open("a", encoding="utf-8")
    except OSError as error:
        raise StoreError(f"cannot open {lock_path}: {error.strerror}") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise StoreLockedError(
            f"another king server is using {path}; stop it or choose another file with --db"
        ) from None
    return handle
