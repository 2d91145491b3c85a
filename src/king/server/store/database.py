"""Opening the event log that a ``--db`` value names, and copying tables between logs
(``king db copy``): the one place that knows both backends."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from king.server.store.event_log import (
    Database,
    EventStore,
    Sql,
    StoreError,
    StoreLockedError,
    describe,
    dumps,
)
from king.server.store.postgres import PostgresEventStore
from king.server.store.schema import COPIED
from king.server.store.sqlite import SqliteEventStore

__all__ = ["CopyReport", "copy_people", "copy_tables", "open_for_copy", "open_store"]


def open_store(database: Database, *, durable: bool = False, shared: bool = False) -> EventStore:
    """The event log at ``database``: SQLite for a path, PostgreSQL for an address (which
    needs the ``postgres`` extra: ``pip install "king[postgres]"``).  A PostgreSQL log
    is one server's alone unless ``shared`` (processes that share tables by leases)."""
    if isinstance(database, Path):
        return SqliteEventStore(database, durable=durable)
    return PostgresEventStore(database, exclusive=not shared)


@dataclass(frozen=True, slots=True)
class CopyReport:
    """What :func:`copy_tables` did with each table of the source, by id."""

    #: Not in the target before: copied whole.
    copied: tuple[str, ...] = ()
    #: The target's log was the start of the source's: the events played since appended.
    brought: tuple[str, ...] = ()
    #: Already in the target with the same events.
    same: tuple[str, ...] = ()
    #: The target's log goes on past the source's (it was played on there): left as is.
    ahead: tuple[str, ...] = ()
    #: Different events in the two (only with ``skip_different``): left as the target has them.
    different: tuple[str, ...] = ()


#: What :func:`copy_tables` compares: each event's number, kind and data (not its time).
_Signature = list[tuple[int, str, str]]


def copy_tables(
    source: EventStore, target: EventStore, *, skip_different: bool = False
) -> CopyReport:
    """Copy every table of ``source`` that ``target`` lacks, with its events, and bring
    up to date each one whose log in ``target`` is the start of the source's, so that a
    copy can be run again after more play.  A table whose events differ in the two
    raises :class:`StoreError` naming it before anything is copied, unless
    ``skip_different`` leaves it as ``target`` has it."""
    present = {table.id for table in target.tables()}
    tables = source.tables()
    standing = {t.id: _standing(source, target, t.id) for t in tables if t.id in present}
    different = _named(standing, "different")
    if different and not skip_different:
        raise StoreError(_different(different, source.where, target.where))
    for table in tables:
        how, held = standing.get(table.id, ("new", 0))
        if how == "new":
            target.add_table(table, source.events(table.id))
        elif how == "behind":
            target.extend_table(table, source.events(table.id)[held:])
    return CopyReport(
        copied=tuple(t.id for t in tables if t.id not in present),
        brought=_named(standing, "behind"),
        same=_named(standing, "same"),
        ahead=_named(standing, "ahead"),
        different=different,
    )


def _named(standing: dict[str, tuple[str, int]], how: str) -> tuple[str, ...]:
    return tuple(table for table, (its, _) in standing.items() if its == how)


def _standing(source: EventStore, target: EventStore, table_id: str) -> tuple[str, int]:
    """How a table's log in ``target`` stands to the one in ``source`` (``same``,
    ``behind``: a start of it, ``ahead``: goes on from it, or ``different``), with the
    number of events ``target`` holds."""
    ours, theirs = _signature(source, table_id), _signature(target, table_id)
    shorter = min(len(ours), len(theirs))
    if ours[:shorter] != theirs[:shorter]:
        return "different", len(theirs)
    if len(ours) == len(theirs):
        return "same", len(theirs)
    return ("behind" if len(theirs) < len(ours) else "ahead"), len(theirs)


def _different(tables: tuple[str, ...], source: str, target: str) -> str:
    """The refusal of a copy whose tables differ in the two databases, naming them."""
    shown = ", ".join(tables[:10]) + (f" and {len(tables) - 10} more" if len(tables) > 10 else "")
    what = f"table {shown} is" if len(tables) == 1 else f"tables {shown} are"
    return (
        f"{what} in both {source} and {target} with different events; nothing was copied "
        "(--skip-different copies the rest and leaves these as they are)"
    )


def _signature(store: EventStore, table_id: str) -> _Signature:
    return [(e.number, e.kind, dumps(e.data)) for e in store.events(table_id)]


def open_for_copy(database: Database) -> EventStore:
    """A database for ``king db copy``, held as a server alone holds it, until closed:
    refused while any server uses it (alone or sharing tables), so that no table moves
    on under the copy, and no server starts on it before the copy is done."""
    try:
        return open_store(database)
    except StoreLockedError:
        raise StoreLockedError(
            f"{describe(database)} is in use by a running king server (or another king db "
            "copy); stop every king serve on it, then copy"
        ) from None


def copy_people(source: EventStore, target: EventStore) -> int:
    """Copy the accounts, sessions, seats, results and ratings of ``source`` that
    ``target`` lacks (after :func:`copy_tables`); returns how many accounts were new.
    An account name taken by another account in ``target`` raises :class:`StoreError`
    before anything is copied; a player's rating already in ``target`` is kept unless
    the source's counts more games and is more recent."""
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


#: A player's rating in the target is replaced by the source's when the source's counts
#: more games and is more recent (games were rated there after an earlier copy).
_NEWER = {
    "king_ratings": "ON CONFLICT (player) DO UPDATE SET mu = excluded.mu, "
    "sigma = excluded.sigma, games = excluded.games, updated = excluded.updated "
    "WHERE king_ratings.games < excluded.games AND king_ratings.updated < excluded.updated"
}


def _count(store: EventStore, table: str) -> int:
    return int(store.run(lambda sql: sql.rows(f"SELECT COUNT(*) FROM {table}"))[0][0])


def _copy_rows(
    source: EventStore, target: EventStore, table: str, columns: tuple[str, ...]
) -> None:
    """The rows of one table that ``target`` lacks, copied in one transaction (and the
    ratings that moved on in ``source``: :data:`_NEWER`)."""
    listed = ", ".join(columns)
    rows = source.run(lambda sql: sql.rows(f"SELECT {listed} FROM {table}"))
    marks = ", ".join("?" for _ in columns)
    conflict = _NEWER.get(table, "ON CONFLICT DO NOTHING")

    def insert(sql: Sql) -> None:
        for row in rows:
            sql.change(f"INSERT INTO {table} ({listed}) VALUES ({marks}) {conflict}", row)

    target.run(insert)
