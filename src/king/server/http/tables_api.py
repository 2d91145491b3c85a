"""The lobby and the tables over HTTP: open a table, take a seat, take one's seat back
from another device, play again.  Play itself goes over the table's WebSocket
(:mod:`king.server.http.socket`).

A table's changes stay on the event loop: a table applies a change and writes it to its
log in one step that nothing interleaves (the write is one short transaction); what
only reads or writes accounts (the session's account, a guest's cookie) runs off it.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from king.server.access import Access
from king.server.http.errors import error_response, table_refusal
from king.server.http.identity import (
    CurrentAccount,
    SameOrigin,
    Seated,
    SeatedAccount,
    address_of,
    give_session,
    origin_of,
    seat_for,
)
from king.server.http.services import Services, ServicesDep
from king.server.people.accounts import Account
from king.server.protocol import (
    AgainRequest,
    CreateTableRequest,
    JoinRequest,
    LobbyInfo,
    SeatClaim,
    TableInfo,
)
from king.server.tables.seats import Origin
from king.server.tables.table import Table
from king.table.rules import RefusedError

__all__ = ["find_table", "router"]

router = APIRouter()


@router.get("/api/tables")
async def lobby(request: Request, parts: ServicesDep) -> LobbyInfo:
    if parts.shared is not None:
        return await parts.shared.lobby()
    return parts.registry.lobby(access=Access.of(parts.settings, address_of(request)))


@router.post("/api/tables", status_code=201, response_model=SeatClaim, dependencies=[SameOrigin])
async def create(
    request: Request,
    response: Response,
    body: CreateTableRequest,
    parts: ServicesDep,
    account: CurrentAccount,
) -> Any:
    seated = seat_for(parts, account) if body.seat is not None else None
    origin = origin_of(request, response)
    sitting = seated.account if seated is not None else account
    try:
        table, seat, token = parts.registry.create(body, address_of(request), sitting, origin)
    except RefusedError as error:
        await _give_guest_session(request, response, parts, seated)
        return _keep_cookie(table_refusal(error), response)
    await _give_guest_session(request, response, parts, seated)
    return SeatClaim(table=table.id, seat=seat, token=token, invite=f"/t/{table.id}")


@router.get("/api/tables/{table_id}")
async def table_info(parts: ServicesDep, table_id: str) -> Any:
    if parts.shared is None:
        return find_table(parts, table_id).info()
    try:
        return TableInfo.model_validate(await parts.shared.ask(table_id, "info", {}))
    except RefusedError as error:
        if error.code == "not_found":
            raise HTTPException(404, f"there is no table {table_id!r}") from None
        return table_refusal(error)


@router.post("/api/tables/{table_id}/join", response_model=SeatClaim, dependencies=[SameOrigin])
async def join(
    request: Request,
    response: Response,
    table_id: str,
    body: JoinRequest,
    parts: ServicesDep,
    seated: SeatedAccount,
) -> Any:
    origin = origin_of(request, response)
    try:
        if parts.shared is not None:
            claim = await _join_shared(request, parts, table_id, body, seated, origin)
        else:
            table = find_table(parts, table_id)
            seat, token = parts.registry.claim(
                table, body.name, body.seat, seated.account, origin, address_of(request)
            )
            claim = SeatClaim(table=table.id, seat=seat, token=token, invite=f"/t/{table.id}")
    except RefusedError as error:
        await _give_guest_session(request, response, parts, seated)
        return _keep_cookie(table_refusal(error), response)
    await _give_guest_session(request, response, parts, seated)
    return claim


@router.post("/api/tables/{table_id}/seat", response_model=SeatClaim, dependencies=[SameOrigin])
async def take_back(parts: ServicesDep, table_id: str, account: CurrentAccount) -> Any:
    """The seat the logged-in account took at this unfinished table, with a new
    token: a person comes back to their game from another device."""
    if account is None:
        return error_response(401, "not_logged_in", "log in to take your seat back")
    try:
        if parts.shared is not None:
            claim = await parts.shared.ask(table_id, "take_back", {"account": account.id})
            return _claim(claim)
        table = find_table(parts, table_id)
        seat, token = table.take_back(account.id)
    except RefusedError as error:
        return table_refusal(error)
    return SeatClaim(table=table.id, seat=seat, token=token, invite=f"/t/{table.id}")


@router.post(
    "/api/tables/{table_id}/again",
    status_code=201,
    response_model=SeatClaim,
    dependencies=[SameOrigin],
)
async def again(request: Request, parts: ServicesDep, table_id: str, body: AgainRequest) -> Any:
    address = address_of(request)
    try:
        if parts.shared is not None:
            claim = await parts.shared.ask(
                table_id, "again", {"token": body.token, "address": address}
            )
            return _claim(claim)
        table = find_table(parts, table_id)
        following, seat, token = parts.registry.again(table, body.token, address)
    except RefusedError as error:
        return table_refusal(error)
    return SeatClaim(table=following.id, seat=seat, token=token, invite=f"/t/{following.id}")


def find_table(parts: Services, table_id: str) -> Table:
    """A table of this process, or the 404 that says there is none."""
    table = parts.registry.get(table_id)
    if table is None:
        raise HTTPException(404, f"there is no table {table_id!r}")
    return table


async def _give_guest_session(
    request: Request, response: Response, parts: Services, seated: Seated | None
) -> None:
    """The cookie of a guest made for this request, once the registry has written it."""
    if seated is not None and seated.fresh:
        await run_in_threadpool(give_session, request, response, parts, seated.account)


def _save_guest(parts: Services, table_id: str, guest: Account, address: str | None) -> None:
    """Write a guest made for this request, once the table is known to exist."""
    if not parts.registry.store.exists(table_id):
        raise RefusedError("not_found", f"there is no table {table_id!r}")
    parts.registry.save_guest(guest, address)


def _keep_cookie(answer: JSONResponse, response: Response) -> JSONResponse:
    """A refusal that still sets the guest's new session cookie (their account exists)."""
    for key, value in response.headers.items():
        if key == "set-cookie":
            answer.headers.append(key, value)
    return answer


def _claim(answer: dict[str, Any]) -> SeatClaim:
    """A seat given by whichever process owns the table."""
    table = str(answer["table"])
    return SeatClaim(table=table, seat=answer["seat"], token=answer["token"], invite=f"/t/{table}")


async def _join_shared(
    request: Request,
    parts: Services,
    table_id: str,
    body: JoinRequest,
    seated: Seated,
    origin: Origin,
) -> SeatClaim:
    """A seat at a table that any process may own: a guest made for this request is
    written first (the owner reads it from the database), once the table is known."""
    assert parts.shared is not None
    if seated.fresh:
        await run_in_threadpool(_save_guest, parts, table_id, seated.account, address_of(request))
    answer = await parts.shared.ask(
        table_id,
        "join",
        {
            "name": body.name,
            "seat": body.seat,
            "account": seated.account.id,
            "origin": origin.to_json(),
        },
    )
    return _claim(answer)
