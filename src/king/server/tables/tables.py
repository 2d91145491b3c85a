"""The tables as the routes reach them: one interface, :class:`Tables`, handed to every
route by FastAPI's dependency (:data:`king.server.http.services.TablesDep`), with two
implementations: :class:`ProcessTables`, for a server whose tables all live in its own
process, and :class:`~king.server.tables.shared.SharedTables`, for processes that share
them (each table played by the one that holds its lease).  A route never asks which.

Each method raises :class:`~king.table.rules.RefusedError` for what it refuses
(``not_found`` for a table that does not exist).
"""

from __future__ import annotations

from typing import Protocol

from king.cards import Seat
from king.server.access import Access
from king.server.people.accounts import Account
from king.server.protocol import LobbyInfo, SeatClaim, TableInfo
from king.server.tables.registry import Registry
from king.server.tables.seats import Origin
from king.server.tables.table import Table
from king.table.rules import RefusedError
from king.table.session import Client

__all__ = ["Connection", "ProcessTables", "Tables", "seat_claim"]


class Connection(Protocol):
    """A connection's side at a table, as the socket loop drives it: a session with the
    table itself, or one relayed to the process that owns it."""

    def receive(self, text: str) -> None:
        """Handle one message from the client."""

    def error(self, code: str, message: str) -> None:
        """Tell the client what went wrong (a message that is not text, a failure)."""

    def close(self) -> None:
        """The connection is gone."""


class Tables(Protocol):
    """What the routes do with tables, wherever they are played."""

    async def lobby(self, access: Access) -> LobbyInfo:
        """The tables open or in play, and recently finished ones, as ``access`` may see
        them."""

    async def info(self, table_id: str) -> TableInfo:
        """One table as the lobby shows it."""

    async def join(
        self,
        table_id: str,
        name: str,
        seat: Seat | None,
        account: Account,
        origin: Origin,
        address: str | None,
    ) -> SeatClaim:
        """A free seat for ``name`` (``account``: a registered player or a guest, written
        once the table is known to exist)."""

    async def take_back(self, table_id: str, account_id: str) -> SeatClaim:
        """The seat ``account_id`` took at the unfinished table, with a new token."""

    async def again(self, table_id: str, token: str, address: str | None) -> SeatClaim:
        """A seat at the finished table's next game, for the seat whose ``token`` this is."""

    def connect(self, client: Client, table_id: str) -> Connection | None:
        """A new connection's side at the table, or None when there is no such table;
        raises (a store's, a lease's or a table's error) when it cannot be reached now."""


def seat_claim(table_id: str, seat: int | None, token: str | None) -> SeatClaim:
    """A claimed seat, with the page that joins the table."""
    return SeatClaim(table=table_id, seat=seat, token=token, invite=f"/t/{table_id}")


class ProcessTables:
    """:class:`Tables` for a server whose tables all live in this process."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def _find(self, table_id: str) -> Table:
        table = self.registry.get(table_id)
        if table is None:
            raise RefusedError("not_found", f"there is no table {table_id!r}")
        return table

    async def lobby(self, access: Access) -> LobbyInfo:
        return self.registry.lobby(access=access)

    async def info(self, table_id: str) -> TableInfo:
        return self._find(table_id).info()

    async def join(
        self,
        table_id: str,
        name: str,
        seat: Seat | None,
        account: Account,
        origin: Origin,
        address: str | None,
    ) -> SeatClaim:
        table = self._find(table_id)
        number, token = self.registry.claim(table, name, seat, account, origin, address)
        return seat_claim(table.id, number, token)

    async def take_back(self, table_id: str, account_id: str) -> SeatClaim:
        number, token = self._find(table_id).take_back(account_id)
        return seat_claim(table_id, number, token)

    async def again(self, table_id: str, token: str, address: str | None) -> SeatClaim:
        following, number, seat_token = self.registry.again(self._find(table_id), token, address)
        return seat_claim(following.id, number, seat_token)

    def connect(self, client: Client, table_id: str) -> Connection | None:
        table = self.registry.locate(table_id)
        if table is None:
            return None
        if not isinstance(table, Table):
            raise RefusedError("moved", "another server process holds this table")
        return table.session(client)
