"""Opening the event log that a ``--db`` value names, and copying tables between logs
(``king db copy``): the one place that knows both backends."""

from __future__ import annotations

from pathlib import Path

from king.server.people_schema import COPIED
from king.server.store import Database, EventStore, Sql, StoreError, dumps
from king.server.store_postgres import PostgresEventStore
from king.server.store_sqlite import SqliteEventStore

__all__ = ["copy_people", "copy_tables", "open_store"]


def open_store(database: Database, *, durable: bool = False, shared: bool = False) -> EventStore:
    """The event log at ``database``: SQLite for a path, PostgreSQL for an address (which
    needs the ``postgres`` extra: ``pip install "king[postgres]"``).  A PostgreSQL log
    is one server's alone unless ``shared`` (processes that share tables by leases)."""
    if isinstance(database, Path):
        return SqliteEventStore(database, durable=durable)
    return PostgresEventStore(database, exclusive=not shared)


def copy_tables(source: EventStore, target: EventStore) -> tuple[int, int]:
    """Copy every table of ``source`` that ``target`` lacks, with its events, and check
    that the ones it has hold the same events.  Returns (copied, already there).  A
    table whose events differ raises :class:`StoreError` before anything is copied."""
    present = {table.id for table in target.tables()}
    tables = source.tables()
    for table in tables:
        if table.id in present and _signature(source, table.id) != _signature(target, table.id):
            raise StoreError(
                f"table {table.id} is in both {source.where} and {target.where} with "
                "different events; nothing was copied"
            )
    copied = 0
    for table in tables:
        if table.id not in present:
            target.add_table(table, source.events(table.id))
            copied += 1
    return copied, len(tables) - copied


def _signature(store: EventStore, table_id: str) -> list[tuple[int, str, str]]:
    return [(e.number, e.kind, dumps(e.data)) for e in store.events(table_id)]


def copy_people(source: EventStore, target: EventStore) -> int:
    """Copy the accounts, sessions, seats, results and ratings of ``source`` that
    ``target`` lacks (after :func:`copy_tables`); returns how many accounts were new.
    An account name taken by another account in ``target`` raises :class:`StoreError`
    before anything is copied; a player's rating already in ``target`` is kept."""
    theirs = dict(
        target.run(
            lambda sql: sql.rows("SELECT name, id FROM king_accounts WHERE name IS NOT NULL")
        )
    )
    for name, account_id in source.run(
        lambda sql: sql.rows("SELECT name, id FROM king_accounts WHERE name IS NOT NULL")
    ):
        if name in theirs and theirs[name] != account_id:
            raise StoreError(
                f"the name {name!r} belongs to another account in {target.where}; "
                "nothing was copied"
            )
    before = _count(target, "king_accounts")
    for table, columns in COPIED:
        _copy_rows(source, target, table, columns)
    return _count(target, "king_accounts") - before


def _count(store: EventStore, table: str) -> int:
    return int(store.run(lambda sql: sql.rows(f"SELECT COUNT(*) FROM {table}"))[0][0])


def _copy_rows(
    source: EventStore, target: EventStore, table: str, columns: tuple[str, ...]
) -> None:
    """The rows of one table that ``target`` lacks, copied in one transaction."""
    listed = ", ".join(columns)
    rows = source.run(lambda sql: sql.rows(f"SELECT {listed} FROM {table}"))
    marks = ", ".join("?" for _ in columns)

    def insert(sql: Sql) -> None:
        for row in rows:
            sql.change(
                f"INSERT INTO {table} ({listed}) VALUES ({marks}) ON CONFLICT DO NOTHING", row
            )

    target.run(insert)
