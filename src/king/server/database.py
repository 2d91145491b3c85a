"""Opening the event log that a ``--db`` value names, and copying tables between logs
(``king db copy``): the one place that knows both backends."""

from __future__ import annotations

from pathlib import Path

from king.server.store import Database, EventStore, StoreError, dumps
from king.server.store_postgres import PostgresEventStore
from king.server.store_sqlite import SqliteEventStore

__all__ = ["copy_tables", "open_store"]


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
