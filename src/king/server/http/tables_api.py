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
from king.server.http.services import Services, ServicesDep, TablesDep
from king.server.protocol import (
    AgainRequest,
    CreateTableRequest,
    JoinRequest,
    LobbyInfo,
    SeatClaim,
    TableInfo,
    model_of,
)
from king.table.rules import RefusedError

__all__ = ["router"]

router = APIRouter()


@router.get("/api/tables", response_model=model_of(LobbyInfo))
async def lobby(request: Request, parts: ServicesDep, tables: TablesDep) -> Any:
    return await tables.lobby(Access.of(parts.settings, address_of(request)))


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


@router.get("/api/tables/{table_id}", response_model=model_of(TableInfo))
async def table_info(tables: TablesDep, table_id: str) -> Any:
    try:
        return await tables.info(table_id)
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
    tables: TablesDep,
    seated: SeatedAccount,
) -> Any:
    origin = origin_of(request, response)
    try:
        claim = await tables.join(
            table_id, body.name, body.seat, seated.account, origin, address_of(request)
        )
    except RefusedError as error:
        await _give_guest_session(request, response, parts, seated)
        return _keep_cookie(_found(error, table_id), response)
    await _give_guest_session(request, response, parts, seated)
    return claim


@router.post("/api/tables/{table_id}/seat", response_model=SeatClaim, dependencies=[SameOrigin])
async def take_back(tables: TablesDep, table_id: str, account: CurrentAccount) -> Any:
    """The seat the logged-in account took at this unfinished table, with a new
    token: a person comes back to their game from another device."""
    if account is None:
        return error_response(401, "not_logged_in", "log in to take your seat back")
    try:
        return await tables.take_back(table_id, account.id)
    except RefusedError as error:
        return _found(error, table_id)


@router.post(
    "/api/tables/{table_id}/again",
    status_code=201,
    response_model=SeatClaim,
    dependencies=[SameOrigin],
)
async def again(request: Request, tables: TablesDep, table_id: str, body: AgainRequest) -> Any:
    try:
        return await tables.again(table_id, body.token, address_of(request))
    except RefusedError as error:
        return _found(error, table_id)


def _found(error: RefusedError, table_id: str) -> JSONResponse:
    """A refusal's answer; a table that does not exist is a 404."""
    if error.code == "not_found":
        raise HTTPException(404, f"there is no table {table_id!r}")
    return table_refusal(error)


async def _give_guest_session(
    request: Request, response: Response, parts: Services, seated: Seated | None
) -> None:
    """The cookie of a guest made for this request, once the registry has written it."""
    if seated is not None and seated.fresh:
        await run_in_threadpool(give_session, request, response, parts, seated.account)


def _keep_cookie(answer: JSONResponse, response: Response) -> JSONResponse:
    """A refusal that still sets the guest's new session cookie (their account exists)."""
    for key, value in response.headers.items():
        if key == "set-cookie":
            answer.headers.append(key, value)
    return answer
