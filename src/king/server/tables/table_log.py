"""A table's event log as the table writes it: each event appended before the table
applies it (and before anyone is told), the log read back after a write whose fate is
unknown, and a table's stored events replayed into it."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from king.server.store.event_log import EventStore, StoredEvent, StoreError, StoreFencedError, dumps

if TYPE_CHECKING:
    from king.server.relay.lease import Lease

__all__ = ["Fold", "TableLog"]

log = logging.getLogger("king.server")

#: How the table takes in one event: its kind, its data and when it was written
#: (seconds since the epoch; None: now, for an event just written).
Fold = Callable[[str, dict[str, Any], float | None], None]


class TableLog:
    """The writing side of one table's log: the number of its next event, the lease it
    is written under, and the one step that writes an event and folds it in.  Nothing
    here awaits: a table changes and its log is written in one step on the event loop."""

    def __init__(
        self, table_id: str, store: EventStore, fold: Fold, on_fenced: Callable[[], None]
    ) -> None:
        """``fold`` applies an event to the table; ``on_fenced`` is called when the log
        refused a write because another process has taken the table over."""
        self.table_id = table_id
        self.store = store
        #: The number of the next event (event 0 is the header).
        self.seq = 1
        #: This process's lease on the table, when server processes share tables: every
        #: write carries its fencing number and none is made once it has passed.
        self.lease: Lease | None = None
        self._fold = fold
        self._on_fenced = on_fenced
        #: Set when a write failed in a way that may have kept it (see :meth:`append`).
        self._unsure = False

    @property
    def writable(self) -> bool:
        """Whether this process may write the table's log now: always, unless processes
        share tables and this one's lease has passed."""
        return self.lease is None or self.lease.valid()

    @property
    def unsure(self) -> bool:
        """Whether a write's fate is unknown until the log is read back."""
        return self._unsure

    def _write(self, kind: str, data: dict[str, Any], status: str | None = None) -> None:
        """Write the next event, as the table's owner if processes share tables (the
        table has not applied it yet, or applies it itself: :meth:`write_applied`)."""
        lease = self.lease
        try:
            if lease is not None and not lease.valid():
                raise StoreFencedError(
                    f"table {self.table_id}: this process's lease on it has passed"
                )
            self.store.append(
                self.table_id,
                self.seq,
                kind,
                data,
                status,
                fence=None if lease is None else lease.fence,
            )
        except StoreFencedError:
            self._on_fenced()
            raise

    def append(self, kind: str, data: dict[str, Any], status: str | None = None) -> None:
        """Append an event to the log, then fold it into the table; a failed write
        changes nothing.

        A write can fail after the database has kept it (a connection lost at the
        commit): then the table reads its log back before it answers, and the event
        counts as made exactly when it is there.  Until it could read the log, the table
        takes no further event, so memory and log never part."""
        self.catch_up()
        number = self.seq
        try:
            self._write(kind, data, status)
        except StoreFencedError:
            raise
        except StoreError:
            self._unsure = True
            found = {event.number: event for event in self.catch_up()}
            mine = found.get(number)
            if mine is None or (mine.kind, mine.data) != (kind, json.loads(dumps(data))):
                raise
            return
        self.seq += 1
        self._fold(kind, data, None)

    def catch_up(self) -> list[StoredEvent]:
        """After a write whose fate was unknown, fold in what the log holds beyond what
        the table has applied, and return it (raises :class:`StoreError` while the log
        cannot be read)."""
        if not self._unsure:
            return []
        events = self.store.events(self.table_id)[self.seq :]
        for event in events:
            self._fold(event.kind, event.data, event.at)
            self.seq += 1
        self._unsure = False
        if events:
            log.warning("table %s: read %d event(s) back from its log", self.table_id, len(events))
        return events

    def replay(self, events: Sequence[StoredEvent]) -> None:
        """Fold the stored events that follow the header into the table, in order.
        Raises :class:`StoreError` for one that does not replay."""
        for event in events:
            try:
                self._fold(event.kind, event.data, event.at)
            except (KeyError, TypeError, ValueError, IndexError) as error:
                raise StoreError(
                    f"table {self.table_id}: event {event.number} ({event.kind}) does not "
                    f"replay: {error}"
                ) from None
            self.seq += 1

    def write_applied(self, kind: str, data: dict[str, Any]) -> None:
        """Write an event the table has applied already (a deal: the game deals it
        before the log hears of it)."""
        self._write(kind, data)
        self.seq += 1

    def write_unless_kept(self, kind: str, data: dict[str, Any]) -> None:
        """Write an event the table has applied already whose write failed, unless the
        log kept it after all."""
        if not self.store.events(self.table_id)[self.seq :]:
            self._write(kind, data)
        self.seq += 1

    def note_status(self, status: str) -> None:
        """Keep the table's status beside its log, if this process may write it; a
        failure is only logged (the events hold the truth, and a restart mends it)."""
        if not self.writable:
            return
        try:
            self.store.set_status(self.table_id, status)
        except StoreError as error:
            log.error("table %s: %s", self.table_id, error)
