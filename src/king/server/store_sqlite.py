"""The SQLite event log (WAL): the embedded default, one server process per file.

One process owns the file: a lock beside it makes a second server fail at once instead
of corrupting the tables the first one holds in memory.
"""

from __future__ import annotations

import fcntl
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

from king.server.people_schema import people_schema
from king.server.store import (
    Sql,
    StoredEvent,
    StoredTable,
    StoreError,
    StoreLockedError,
    dumps,
    fenced,
    parse_events,
)

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
    # 4: accounts, sessions, seats, results and ratings (king.server.people_schema).
    people_schema("REAL"),
)


class SqliteEventStore:
    """The SQLite event log of one server process.

    ``durable=True`` asks SQLite to sync every commit to the disk (``synchronous=FULL``);
    the default (``NORMAL`` in WAL mode) already survives the process being killed at
    any moment, and loses at most the last commits on a power cut.
    """

    def __init__(self, path: Path, *, durable: bool = False) -> None:
        self.path = path
        self.where = str(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"cannot create the folder {path.parent}: {error.strerror}") from None
        self._lock = _lock(path)
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            self._db.execute("PRAGMA foreign_keys=ON")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                raise StoreError(
                    f"{path} was written by a newer king (schema {version}); upgrade king"
                )
            for number in range(version + 1, len(MIGRATIONS) + 1):
                # executescript commits first; the script is one transaction of its own.
                self._db.executescript(
                    f"BEGIN IMMEDIATE; {MIGRATIONS[number - 1]} PRAGMA user_version={number}; "
                    "COMMIT;"
                )
        except sqlite3.DatabaseError as error:
            self._lock.close()
            raise StoreError(f"{path} is not a usable king database: {error}") from None
        except StoreError:
            self._lock.close()
            raise

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        except sqlite3.Error as error:
            raise StoreError(f"the event log {self.path} could not be written: {error}") from None

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
        with self._transaction() as db:
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
        try:
            rows = self._db.execute(
                "SELECT number, kind, data, at FROM events WHERE table_id = ? ORDER BY number",
                (table_id,),
            ).fetchall()
        except sqlite3.Error as error:
            raise StoreError(f"the event log {self.path} could not be read: {error}") from None
        return parse_events(table_id, rows)

    def table_ids(self, status: str, limit: int | None = None) -> list[str]:
        """Ids of the tables with this status, the most recently active first."""
        query = "SELECT id FROM tables WHERE status = ? ORDER BY updated DESC"
        params: tuple[Any, ...] = (status,)
        if limit is not None:
            query += " LIMIT ?"
            params = (status, limit)
        try:
            return [row[0] for row in self._db.execute(query, params)]
        except sqlite3.Error as error:
            raise StoreError(f"the event log {self.path} could not be read: {error}") from None

    def tables(self) -> list[StoredTable]:
        """Every table of the log, the oldest first."""
        query = "SELECT id, status, created, updated FROM tables ORDER BY created, id"
        try:
            return [StoredTable(*row) for row in self._db.execute(query)]
        except sqlite3.Error as error:
            raise StoreError(f"the event log {self.path} could not be read: {error}") from None

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

    def exists(self, table_id: str) -> bool:
        """Whether a table of this id was ever created."""
        row = self._db.execute("SELECT 1 FROM tables WHERE id = ?", (table_id,)).fetchone()
        return row is not None

    def run(self, work: Callable[[Sql], T]) -> T:
        """Run ``work`` in one transaction (``BEGIN IMMEDIATE``: writers take turns)."""
        with self._transaction() as db:
            return work(_SqliteSql(db))

    def close(self) -> None:
        """Close the database and release the lock; idempotent."""
        try:
            self._db.close()
        finally:
            self._lock.close()


class _SqliteSql:
    """:class:`~king.server.store.Sql` on one SQLite connection in a transaction."""

    tables = "tables"

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in self._db.execute(sql, tuple(params)).fetchall()]

    def change(self, sql: str, params: Sequence[Any] = ()) -> int:
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
