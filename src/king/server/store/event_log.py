"""The event log: every table's events, appended before they are answered.

A table is the fold of its events (``table``, ``join``, ``start``, ``deal``, ``declare``,
``play``), so the log is all the server needs to bring every unfinished table back after
a crash.  Events are numbered per table from 0; the key (table, number) refuses a number
twice, so two writers can never interleave one table's events.

The log lives in SQLite (the embedded default, :mod:`king.server.store.sqlite`) or in
PostgreSQL (:mod:`king.server.store.postgres`, for servers past one machine); both keep
the :class:`EventStore` interface, and the server above it does not know which it has.
"""

from __future__ import annotations

import json
import os
import threading
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from king.errors import KingError
from king.jsontext import JSONTextError, loads

__all__ = [
    "Bounds",
    "Database",
    "EventStore",
    "Sql",
    "StoreError",
    "StoreFencedError",
    "StoreLockedError",
    "StoredEvent",
    "StoredTable",
    "default_db_path",
    "describe",
    "parse_database",
]

T = TypeVar("T")

#: Where a log lives: a SQLite file, or a PostgreSQL address (``postgresql://…``).
Database = Path | str

_POSTGRES_SCHEMES = ("postgresql", "postgres")


class StoreError(KingError, RuntimeError):
    """The event log could not be read or written; the message says what and where."""


class StoreLockedError(StoreError):
    """Another server process already owns this database."""


class StoreFencedError(StoreError):
    """A table's log refused a write from an owner whose fencing number is no longer the
    table's: another process has taken the table over since."""


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One event of a table's log."""

    number: int
    kind: str
    data: dict[str, Any]
    at: float


@dataclass(frozen=True, slots=True)
class StoredTable:
    """One table's row in the lobby's index: its status and when it was made and last
    active (seconds since the epoch)."""

    id: str
    status: str
    created: float
    updated: float


class Sql(Protocol):
    """Statements inside one transaction of a server's database, the same on both
    backends: ``?`` placeholders, and :attr:`tables` for the name of the tables' index
    (the other tables are ``king_…`` on both)."""

    #: The name of the tables' index in this database (``tables`` or ``king_tables``).
    tables: str

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows a statement gives (none for a change)."""
        ...

    def change(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement that changes rows; returns how many it changed."""
        ...

    def lock(self, key: str) -> None:
        """Hold a lock named ``key`` until the transaction ends, so that two
        transactions that count and then write under one key take turns (a limit
        checked and counted at once).  SQLite's writers already take turns."""
        ...


class EventStore(Protocol):
    """The event log of one server process.  Its methods may be called from any
    thread: each transaction runs on a connection no other thread is using."""

    #: Where the log is, for messages (a PostgreSQL address without its password).
    where: str

    def create_table(self, table_id: str, data: dict[str, Any]) -> float:
        """Record a new table with its first event (number 0, kind ``table``); returns
        the time it was made."""
        ...

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
        before anyone is told of it.  Raises :class:`StoreError` if it cannot, and
        :class:`StoreFencedError` if ``fence`` is given and is not the table's fencing
        number (checked in the same transaction as the write)."""
        ...

    def claim(self, table_id: str, fence: int) -> bool:
        """Make ``fence`` the table's fencing number if it is higher than the one it
        has; from then on a write with a lower one is refused.  Returns whether it was
        (a lease service hands out ever higher numbers to each new owner)."""
        ...

    def fence(self, table_id: str) -> int:
        """The table's fencing number (0 until a first claim)."""
        ...

    def set_status(self, table_id: str, status: str) -> None:
        """Set a table's status (``waiting``, ``playing``, ``over``, ``closed``)."""
        ...

    def events(self, table_id: str) -> list[StoredEvent]:
        """A table's events in order (empty for an unknown table)."""
        ...

    def table_ids(self, status: str, limit: int | None = None) -> list[str]:
        """Ids of the tables with this status, the most recently active first."""
        ...

    def tables(self) -> list[StoredTable]:
        """Every table of the log, the oldest first."""
        ...

    def exists(self, table_id: str) -> bool:
        """Whether a table of this id was ever created."""
        ...

    def add_table(self, table: StoredTable, events: list[StoredEvent]) -> None:
        """Add a whole table with its events as they are (copying a log to another)."""
        ...

    def extend_table(self, table: StoredTable, events: list[StoredEvent]) -> None:
        """Append events as they are to a table whose log ends just before the first of
        them, and take ``table``'s status and time of last activity, in one transaction
        (bringing an older copy of a log up to date)."""
        ...

    def run(self, work: Callable[[Sql], T]) -> T:
        """Run ``work`` in one transaction of the log's database (the accounts, results
        and ratings live beside the events); raises :class:`StoreError` if it fails,
        and nothing of it is kept."""
        ...

    def read(self, work: Callable[[Sql], T]) -> T:
        """Run ``work`` in one read-only transaction (it sees one moment of the
        database, waits for no writer, and any write in it is refused)."""
        ...

    def close(self) -> None:
        """Close the log and release what it holds; idempotent."""
        ...


class Bounds:
    """Where one transaction's statements may run: on the thread that began it, until
    it ends.  A statement from elsewhere is refused (a :class:`StoreError`), never run
    on a connection another thread is using."""

    def __init__(self) -> None:
        self._thread: int | None = threading.get_ident()

    def check(self) -> None:
        if self._thread is None:
            raise StoreError("a statement came after its transaction had ended")
        if threading.get_ident() != self._thread:
            raise StoreError("a transaction of the event log was used from another thread")

    def end(self) -> None:
        self._thread = None


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/king/king.db`` (``~/.local/share/king/king.db`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "king" / "king.db"


def parse_database(text: str) -> Database:
    """A ``--db`` value: a PostgreSQL address (``postgresql://user@host/name``) or the
    path of a SQLite file.  Raises ``ValueError`` for an address of another kind.

    >>> parse_database("postgresql://king@db.example/king")
    'postgresql://king@db.example/king'
    >>> parse_database("games/king.db")
    PosixPath('games/king.db')
    """
    scheme, colon, _ = text.partition("://")
    if colon and scheme.lower() in _POSTGRES_SCHEMES:
        return text
    if colon and scheme.isalpha():
        raise ValueError(
            f"--db takes a SQLite file or a postgresql:// address, not a {scheme}:// address"
        )
    if not text:
        raise ValueError("--db needs a file or a postgresql:// address")
    return Path(text)


def describe(database: Database) -> str:
    """The database for messages and logs: a path as it is, an address without its
    password.

    >>> describe("postgresql://king:secret@db.example:5432/king")
    'postgresql://king@db.example:5432/king'
    """
    if isinstance(database, Path):
        return str(database)
    parts = urllib.parse.urlsplit(database)
    if parts.password is None:
        return database
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    user = f"{parts.username}@" if parts.username else ""
    port = f":{parts.port}" if parts.port is not None else ""
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}{host}{port}"))


def dumps(data: dict[str, Any]) -> str:
    """An event's data as it is stored: compact JSON text."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def fenced(table_id: str, fence: int, row: tuple[Any, ...] | None) -> None:
    """Raise :class:`StoreFencedError` unless ``row`` (the table's fencing number, read
    in the writing transaction) is ``fence``."""
    if row is None:
        raise StoreError(f"table {table_id} is not in the log")
    if int(row[0]) != fence:
        raise StoreFencedError(
            f"table {table_id}: a write with fencing number {fence} was refused; the "
            f"table's owner now holds {row[0]}"
        )


def parse_events(table_id: str, rows: list[tuple[int, str, str, float]]) -> list[StoredEvent]:
    """A table's stored rows (number, kind, JSON text, time) as events, checking that no
    number is missing and every data is a JSON object."""
    events = []
    for expected, (number, kind, data, at) in enumerate(rows):
        if number != expected:
            raise StoreError(f"table {table_id}: event {expected} is missing from the log")
        try:
            parsed = loads(data)
        except JSONTextError as error:
            raise StoreError(f"table {table_id}: event {number} is not JSON: {error}") from None
        if not isinstance(parsed, dict):
            raise StoreError(f"table {table_id}: event {number} is not a JSON object")
        events.append(StoredEvent(number, kind, parsed, float(at)))
    return events
