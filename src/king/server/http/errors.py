"""Every refusal over HTTP is one JSON object that names what was wrong,
``{"error": {"code": "...", "message": "..."}}``: the one place that writes it, the
status of each code, and the handlers that turn exceptions into it."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from king.errors import KingError
from king.server.people.accounts import AccountError
from king.server.relay.lease import LeaseError
from king.server.store.event_log import StoreError
from king.table.rules import RefusedError

__all__ = [
    "Refused",
    "account_refusal",
    "add_error_handlers",
    "error_response",
    "table_refusal",
]

log = logging.getLogger("king.server")

#: The HTTP status of each refusal's code (a table's refusals are 409 unless listed, an
#: account's 422).
STATUS = {
    "not_found": 404,
    "invalid": 422,
    "seat_taken": 409,
    "bot_seat": 409,
    "full": 409,
    "started": 409,
    "not_over": 409,
    "bad_token": 403,
    "limit": 422,
    "too_many_tables": 429,
    "closed": 409,
    "busy": 503,
    "server": 503,
    "account_needed": 403,
    "seated": 409,
    "not_your_seat": 403,
    "game_over": 409,
    "too_many_attempts": 429,
    "name_taken": 409,
    "bad_login": 401,
    "not_logged_in": 401,
    "local": 403,
    "cross_site": 403,
}
#: The code of a refusal by the framework itself, by its status.
_CODES = {400: "bad_request", 404: "not_found", 405: "method", 413: "too_large", 422: "invalid"}


def error_response(
    status: int, code: str, message: str, retry: float | None = None
) -> JSONResponse:
    """The refusal, with ``Retry-After`` when the client may try again later."""
    headers = {"Retry-After": str(round(retry))} if retry is not None else None
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=headers
    )


def table_refusal(error: RefusedError) -> JSONResponse:
    """What a table (or the registry) refused, as an answer."""
    return error_response(STATUS.get(error.code, 409), error.code, error.message)


def account_refusal(error: AccountError) -> JSONResponse:
    """What the accounts refused, as an answer."""
    return error_response(STATUS.get(error.code, 422), error.code, error.message, error.retry_after)


class Refused(KingError, ValueError):
    """A refusal raised where returning it is awkward (a dependency): the handler
    answers it as :func:`error_response` would."""

    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status if status is not None else STATUS.get(code, 409)


def add_error_handlers(app: FastAPI) -> None:
    """Refusals, invalid bodies, the framework's own errors and a database or Redis that
    cannot be reached, each as one JSON error."""
    app.add_exception_handler(Refused, _refused)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(StoreError, _store_error)
    app.add_exception_handler(LeaseError, _lease_error)


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return error_response(exc.status, exc.code, exc.message)


async def _invalid(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    parts = []
    for item in exc.errors():
        where = ".".join(str(p) for p in item.get("loc", ()) if p != "body")
        parts.append(f"{where or 'body'}: {item.get('msg', 'invalid')}")
    return error_response(422, "invalid", "; ".join(parts))


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = _CODES.get(exc.status_code, "error")
    return error_response(exc.status_code, code, str(exc.detail))


async def _store_error(request: Request, exc: Exception) -> Response:
    log.error("%s", exc)
    return error_response(503, "server", "the server could not read or write its tables")


async def _lease_error(request: Request, exc: Exception) -> Response:
    log.error("%s", exc)
    return error_response(503, "server", "the server could not reach the other server processes")
