"""What one server process asks of the process that owns a table, over the bus, when
tables are shared (:mod:`.shared`): each request a :class:`Call`, answered at the owner
by its handler here, as ``{"ok": …}`` or ``{"error": {"code", "message"}}``."""

from __future__ import annotations

import logging
from collections.abc import Callable
from enum import StrEnum
from typing import Any

from king.server.people.accounts import Account
from king.server.store.event_log import StoreError
from king.server.tables.registry import Registry
from king.server.tables.seats import Origin
from king.server.tables.table import Table
from king.table.rules import RefusedError
from king.texts import seat_name

__all__ = ["Call", "answer_call"]

log = logging.getLogger("king.server")

Answer = dict[str, Any]


class Call(StrEnum):
    """A request to a table's owner (its value is what travels on the bus)."""

    JOIN = "join"
    TAKE_BACK = "take_back"
    AGAIN = "again"
    INFO = "info"


def answer_call(registry: Registry, table: Table, call: dict[str, Any]) -> Answer:
    """The owner's answer to ``call`` about its ``table``."""
    try:
        kind = Call(str(call.get("method")))
    except ValueError:
        return {"error": {"code": "invalid", "message": f"no such request {call.get('method')!r}"}}
    try:
        return {"ok": _HANDLERS[kind](registry, table, call)}
    except RefusedError as error:
        return {"error": {"code": error.code, "message": error.message}}
    except StoreError as error:
        log.error("%s", error)
        return {"error": {"code": "server", "message": "the table could not be written"}}


def _account(registry: Registry, account_id: object) -> Account | None:
    """The account a request from another process names (by its id)."""
    people = registry.people
    if people is None or not isinstance(account_id, str):
        return None
    return people.accounts.get(account_id)


def _join(registry: Registry, table: Table, call: dict[str, Any]) -> Answer:
    account = _account(registry, call.get("account"))
    origin = Origin.from_json(call.get("origin"))
    seat, token = registry.claim(table, str(call.get("name")), call.get("seat"), account, origin)
    return {"table": table.id, "seat": seat, "token": token}


def _take_back(registry: Registry, table: Table, call: dict[str, Any]) -> Answer:
    seat, token = table.take_back(str(call.get("account")))
    return {"table": table.id, "seat": seat, "token": token}


def _again(registry: Registry, table: Table, call: dict[str, Any]) -> Answer:
    asker = table.authenticate(str(call.get("token")))
    following_id = table.next
    if asker is not None and following_id is not None and registry.local(following_id) is None:
        # The next game is owned elsewhere: the asker joins it there.
        name = table.seats[asker].name or seat_name(asker)
        account_id = table.seats[asker].account
        return {"join": following_id, "seat": asker, "name": name, "account": account_id}
    address = call.get("address")
    following, seat, token = registry.again(
        table, str(call.get("token")), address if isinstance(address, str) else None
    )
    return {"table": following.id, "seat": seat, "token": token}


def _info(registry: Registry, table: Table, call: dict[str, Any]) -> Answer:
    return dict(table.info())


_HANDLERS: dict[Call, Callable[[Registry, Table, dict[str, Any]], Answer]] = {
    Call.JOIN: _join,
    Call.TAKE_BACK: _take_back,
    Call.AGAIN: _again,
    Call.INFO: _info,
}
