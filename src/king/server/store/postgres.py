"""The PostgreSQL event log: one row per event, unique per table and number, for servers
past one machine.

An event is appended in its own transaction, and :meth:`PostgresEventStore.append`
returns only once it has committed, so an acknowledged move is in the database.  Each
transaction takes a connection of its own from a pool (psycopg's), so the transactions
of two threads never share one.  The schema is versioned (``king_schema``) and migrated
in place under an advisory lock, so processes starting together never migrate twice.
Every store holds one session advisory lock on its database for as long as it is open,
on a connection of its own: exclusively for a server alone on it (and for ``king db
copy``), shared (``exclusive=False``) for the processes that share tables by leases.  So
the two kinds never meet on one database: whichever comes second fails at once, saying
which kind holds it.

psycopg (``pip install "king[postgres]"``) is imported only when a PostgreSQL address
is given.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any, TypeVar

from king.server.store.event_log import (
    Bounds,
    Sql,
    StoredEvent,
    StoredTable,
    StoreError,
    StoreLockedError,
    describe,
    dumps,
    fenced,
    parse_events,
)
from king.server.store.schema import LIMIT_MARKS, people_schema

if TYPE_CHECKING:
    import psycopg
    import psycopg_pool

__all__ = ["MIGRATIONS", "PostgresEventStore"]

T = TypeVar("T")

#: The schema, one step per version: a database at version n runs steps n+1 onwards.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE king_tables (
        id       TEXT PRIMARY KEY,
        status   TEXT NOT NULL,
        created  DOUBLE PRECISION NOT NULL,
        updated  DOUBLE PRECISION NOT NULL,
        fence    BIGINT NOT NULL DEFAULT 0
    );
    CREATE TABLE king_events (
        table_id TEXT NOT NULL REFERENCES king_tables(id),
        number   INTEGER NOT NULL,
        kind     TEXT NOT NULL,
        data     TEXT NOT NULL,
        at       DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (table_id, number)
    );
    CREATE INDEX king_tables_by_status ON king_tables(status, updated);
    """,
    # 2: the fencing number each event was written under (NULL: written unfenced), so
    # that who wrote what after a takeover can be read back.
    "ALTER TABLE king_events ADD COLUMN fence BIGINT;",
    # 3: accounts, sessions, seats, results and ratings (king.server.store.schema).
    people_schema("DOUBLE PRECISION"),
    # 4: a mark on each count against a limit (king.server.store.schema).
    LIMIT_MARKS,
    # 5: one row per version (pg_restore into a live database appended a second copy of
    # every row): the duplicates go, then the key keeps them out.
    """
    DELETE FROM king_schema AS a USING king_schema AS b
        WHERE a.version = b.version AND a.ctid > b.ctid;
    ALTER TABLE king_schema ADD PRIMARY KEY (version);
    """,
)

#: Advisory lock keys (any two 64-bit numbers no other program is likely to use).
_MIGRATION_LOCK = 0x6B696E67_00000001
_SERVER_LOCK = 0x6B696E67_00000002


class PostgresEventStore:
    """The event log of one server process in a PostgreSQL database.

    ``pool_size`` bounds the connections its transactions use at once (a transaction
    waits up to ``timeout`` seconds for one); one more holds the server lock (exclusive,
    or shared when not ``exclusive``) and runs nothing else.
    """

    def __init__(
        self,
        address: str,
        *,
        exclusive: bool = True,
        timeout: float = 10.0,
        pool_size: int = 8,
    ) -> None:
        try:
            import psycopg
            import psycopg_pool
        except ImportError:
            raise StoreError(
                'a postgresql:// database needs psycopg: pip install "king[postgres]"'
            ) from None
        del psycopg  # imported where it is used; here only to fail early
        self._address = address
        self._exclusive = exclusive
        self._timeout = timeout
        self.where = describe(address)
        self._closed = False
        #: Whether this thread is inside a transaction of this store now.
        self._local = threading.local()
        #: Guards the connection that holds the server lock.
        self._guard = threading.Lock()
        self._holder: psycopg.Connection[Any] | None = None
        with self._guard:
            first = self._connect()
            try:
                # The lock first: a database in use by the other kind is left untouched.
                _take_server_lock(first, self.where, exclusive)
                _migrate(first, self.where)
            except BaseException:
                first.close()
                raise
            self._holder = first
        self._pool: psycopg_pool.ConnectionPool[psycopg.Connection[Any]] = (
            psycopg_pool.ConnectionPool(
                address,
                kwargs=self._connect_options(),
                min_size=1,
                max_size=max(1, pool_size),
                timeout=timeout,
                configure=self._configure,
                name="king",
                open=False,
            )
        )
        self._pool.open(wait=False)

    def _connect_options(self) -> dict[str, Any]:
        return {
            "autocommit": True,
            "connect_timeout": max(1, round(self._timeout)),
            "application_name": "king",
        }

    def _connect(self) -> psycopg.Connection[Any]:
        import psycopg

        try:
            return psycopg.connect(self._address, **self._connect_options())
        except psycopg.Error as error:
            raise StoreError(f"cannot connect to {self.where}: {_reason(error)}") from None

    def _configure(self, db: psycopg.Connection[Any]) -> None:
        """A new pooled connection's settings."""
        if not self._exclusive:
            # Processes share the tables: one frozen in the middle of an append must
            # not keep the table's row locked from the process that takes it over.
            db.execute("SET idle_in_transaction_session_timeout = '2s'")

    def _hold(self) -> None:
        """The server lock still held (taken again on a new connection if the one that
        held it was lost: :class:`StoreLockedError` if a server of the other kind, or
        another one alone, has taken it since)."""
        with self._guard:
            held = self._holder
            if held is not None and not held.closed and not held.broken:
                return
            if held is not None:
                held.close()
                self._holder = None
            db = self._connect()
            try:
                _take_server_lock(db, self.where, self._exclusive)
            except BaseException:
                db.close()
                raise
            self._holder = db

    def _lost(self) -> None:
        """After a connection failed: drop the pool's dead connections and find out
        whether the server lock's connection is gone too (taken again at the next
        transaction), so that one failure is all a restarted database costs."""
        import psycopg

        with suppress(psycopg.Error):
            self._pool.check()
        with self._guard:
            held = self._holder
            if held is None or held.closed:
                return
            try:
                held.execute("SELECT 1")
            except psycopg.Error:
                held.close()
                self._holder = None

    def _run(self, action: str, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """Run ``work`` in one transaction on a pooled connection (read-only when the
        ``action`` is ``read``); a database error becomes a :class:`StoreError` that
        says what failed."""
        import psycopg

        if self._closed:
            raise StoreError(f"the event log {self.where} is closed")
        if getattr(self._local, "busy", False):
            # On another pooled connection it would be no part of this one, and could
            # wait forever on a lock this one holds.
            raise StoreError("a transaction of the event log was begun inside another one")
        self._hold()
        self._local.busy = True
        try:
            with self._pool.connection() as db, db.transaction():
                if action == "read":
                    db.execute("SET TRANSACTION READ ONLY")
                return work(db)
        except psycopg.Error as error:
            if isinstance(error, psycopg.OperationalError) and not self._closed:
                self._lost()
            raise StoreError(
                f"the event log {self.where} could not be {action}: {_reason(error)}"
            ) from None
        finally:
            self._local.busy = False

    def create_table(self, table_id: str, data: dict[str, Any]) -> float:
        now = time.time()

        def work(db: psycopg.Connection[Any]) -> None:
            db.execute(
                "INSERT INTO king_tables (id, status, created, updated) "
                "VALUES (%s, 'waiting', %s, %s)",
                (table_id, now, now),
            )
            db.execute(
                "INSERT INTO king_events (table_id, number, kind, data, at) "
                "VALUES (%s, 0, 'table', %s, %s)",
                (table_id, dumps(data), now),
            )

        self._run("written", work)
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
        now = time.time()

        def work(db: psycopg.Connection[Any]) -> None:
            if fence is not None:  # the row stays locked until the write commits
                held = db.execute(
                    "SELECT fence FROM king_tables WHERE id = %s FOR UPDATE", (table_id,)
                )
                fenced(table_id, fence, held.fetchone())
            db.execute(
                "INSERT INTO king_events (table_id, number, kind, data, at, fence) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                (table_id, number, kind, dumps(data), now, fence),
            )
            db.execute(
                "UPDATE king_tables SET updated = %s, status = COALESCE(%s, status) WHERE id = %s",
                (now, status, table_id),
            )

        self._run("written", work)

    def claim(self, table_id: str, fence: int) -> bool:
        changed = self._run(
            "written",
            lambda db: (
                db.execute(
                    "UPDATE king_tables SET fence = %s WHERE id = %s AND fence < %s",
                    (fence, table_id, fence),
                ).rowcount
            ),
        )
        return changed == 1

    def fence(self, table_id: str) -> int:
        row = self._run(
            "read",
            lambda db: db.execute(
                "SELECT fence FROM king_tables WHERE id = %s", (table_id,)
            ).fetchone(),
        )
        return 0 if row is None else int(row[0])

    def set_status(self, table_id: str, status: str) -> None:
        self._run(
            "written",
            lambda db: db.execute(
                "UPDATE king_tables SET status = %s, updated = %s WHERE id = %s",
                (status, time.time(), table_id),
            ),
        )

    def events(self, table_id: str) -> list[StoredEvent]:
        rows = self._run(
            "read",
            lambda db: db.execute(
                "SELECT number, kind, data, at FROM king_events WHERE table_id = %s "
                "ORDER BY number",
                (table_id,),
            ).fetchall(),
        )
        return parse_events(table_id, rows)

    def table_ids(self, status: str, limit: int | None = None) -> list[str]:
        rows = self._run(
            "read",
            lambda db: db.execute(
                "SELECT id FROM king_tables WHERE status = %s ORDER BY updated DESC LIMIT %s",
                (status, limit),
            ).fetchall(),
        )
        return [row[0] for row in rows]

    def tables(self) -> list[StoredTable]:
        rows = self._run(
            "read",
            lambda db: db.execute(
                "SELECT id, status, created, updated FROM king_tables ORDER BY created, id"
            ).fetchall(),
        )
        return [StoredTable(*row) for row in rows]

    def exists(self, table_id: str) -> bool:
        row = self._run(
            "read",
            lambda db: db.execute(
                "SELECT 1 FROM king_tables WHERE id = %s", (table_id,)
            ).fetchone(),
        )
        return row is not None

    def add_table(self, table: StoredTable, events: list[StoredEvent]) -> None:
        def work(db: psycopg.Connection[Any]) -> None:
            db.execute(
                "INSERT INTO king_tables (id, status, created, updated) VALUES (%s, %s, %s, %s)",
                (table.id, table.status, table.created, table.updated),
            )
            with db.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO king_events (table_id, number, kind, data, at) "
                    "VALUES (%s, %s, %s, %s, %s)",
                    [(table.id, e.number, e.kind, dumps(e.data), e.at) for e in events],
                )

        self._run("written", work)

    def extend_table(self, table: StoredTable, events: list[StoredEvent]) -> None:
        def work(db: psycopg.Connection[Any]) -> None:
            with db.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO king_events (table_id, number, kind, data, at) "
                    "VALUES (%s, %s, %s, %s, %s)",
                    [(table.id, e.number, e.kind, dumps(e.data), e.at) for e in events],
                )
            db.execute(
                "UPDATE king_tables SET status = %s, updated = %s WHERE id = %s",
                (table.status, table.updated, table.id),
            )

        self._run("written", work)

    def run(self, work: Callable[[Sql], T]) -> T:
        return self._run("written", lambda db: _bounded(db, work))

    def read(self, work: Callable[[Sql], T]) -> T:
        return self._run("read", lambda db: _bounded(db, work))

    def close(self) -> None:
        """Close the pool and the server lock's connection (which releases the lock);
        idempotent."""
        self._closed = True
        self._pool.close()
        with self._guard:
            if self._holder is not None:
                # Released here, not left to the server's end of the closed connection:
                # that ends a moment later, and a server opened at once after this one
                # (a restart) would find the lock still held.
                import psycopg

                with suppress(psycopg.Error):
                    self._holder.execute("SELECT pg_advisory_unlock_all()")
                self._holder.close()
                self._holder = None


def _bounded(db: psycopg.Connection[Any], work: Callable[[Sql], T]) -> T:
    sql = _PostgresSql(db)
    try:
        return work(sql)
    finally:
        sql.bounds.end()


class _PostgresSql:
    """:class:`~king.server.store.event_log.Sql` on one PostgreSQL connection in a transaction:
    ``?`` placeholders become psycopg's."""

    tables = "king_tables"

    def __init__(self, db: psycopg.Connection[Any]) -> None:
        self._db = db
        self.bounds = Bounds()

    def lock(self, key: str) -> None:
        """A transaction-scoped advisory lock named by ``key``."""
        self.bounds.check()
        self._db.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (key,))

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self.bounds.check()
        cursor = self._db.execute(sql.replace("?", "%s"), tuple(params))
        return [] if cursor.description is None else [tuple(row) for row in cursor.fetchall()]

    def change(self, sql: str, params: Sequence[Any] = ()) -> int:
        self.bounds.check()
        cursor = self._db.execute(sql.replace("?", "%s"), tuple(params))
        return cursor.rowcount


def schema_version(db: psycopg.Connection[Any]) -> int:
    """The version of king's schema in this database (0: none yet)."""
    row = db.execute("SELECT to_regclass('king_schema') IS NOT NULL").fetchone()
    if row is None or not row[0]:
        return 0
    row = db.execute("SELECT max(version) FROM king_schema").fetchone()
    return 0 if row is None or row[0] is None else int(row[0])


def _migrate(db: psycopg.Connection[Any], where: str) -> None:
    """Bring the schema to this version of king, one step per transaction, under an
    advisory lock so that two processes starting together take turns."""
    with _transaction(db):
        db.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        version = schema_version(db)
        if version > len(MIGRATIONS):
            raise StoreError(
                f"{where} was written by a newer king (schema {version}); upgrade king"
            )
        if version == 0:
            db.execute("CREATE TABLE king_schema (version INTEGER NOT NULL, at DOUBLE PRECISION)")
        for number in range(version + 1, len(MIGRATIONS) + 1):
            db.execute(MIGRATIONS[number - 1])
            db.execute(
                "INSERT INTO king_schema (version, at) VALUES (%s, %s)", (number, time.time())
            )


def _take_server_lock(db: psycopg.Connection[Any], where: str, exclusive: bool) -> None:
    """Hold the server lock on this connection's session (exclusively, or shared with
    the other processes that share tables), or refuse, saying who holds it."""
    take = "pg_try_advisory_lock" if exclusive else "pg_try_advisory_lock_shared"
    row = db.execute(f"SELECT {take}(%s)", (_SERVER_LOCK,)).fetchone()
    if row is None or not row[0]:
        raise StoreLockedError(_refusal(where, exclusive, _holding(db)))


def _holding(db: psycopg.Connection[Any]) -> set[str]:
    """How the server lock of this database is held now: ``ShareLock`` (processes that
    share tables), ``ExclusiveLock`` (a server alone, or a copy), or neither any more."""
    rows = db.execute(
        "SELECT DISTINCT mode FROM pg_locks WHERE locktype = 'advisory' AND granted "
        "AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = %s "
        "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        (_SERVER_LOCK,),
    ).fetchall()
    return {str(row[0]) for row in rows}


def _refusal(where: str, exclusive: bool, held: set[str]) -> str:
    """Why a server cannot use ``where`` now, and what to do, in one line."""
    if exclusive and "ShareLock" in held:
        return (
            f"king serve processes with --redis share the tables of {where}; start this one "
            "with the same --redis, or stop them all first"
        )
    if exclusive:
        return (
            f"another king server (or a king db copy) is using {where}; stop it first "
            "(one server per database without --redis)"
        )
    return (
        f"a king server without --redis (or a king db copy) is using {where} alone; stop "
        "it first, or start every process on this database with --redis"
    )


@contextmanager
def _transaction(db: psycopg.Connection[Any]) -> Iterator[None]:
    import psycopg

    try:
        with db.transaction():
            yield
    except psycopg.Error as error:
        raise StoreError(f"cannot set up the database: {_reason(error)}") from None


def _reason(error: Exception) -> str:
    """A database error in one line (psycopg's messages may span several)."""
    return " ".join(str(error).split()) or type(error).__name__
