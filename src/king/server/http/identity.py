"""Who a request comes from: the session cookie that names an account, the device
cookie of a browser, and whether the page that sent it is this server's own; as FastAPI
dependencies (:data:`CurrentAccount`, :data:`SeatedAccount`, :data:`SameOrigin`).

The session cookie (``king_session``) is HttpOnly, SameSite=Lax, and Secure when the
request came over HTTPS; it holds a random token whose hash is the session's key.  A
request that changes something and carries an ``Origin`` of another site is refused,
so another page cannot act with a visitor's cookie.  Looking an account up reads the
database: the dependencies are plain functions, which FastAPI runs off the event loop.
"""

from __future__ import annotations

import secrets
import urllib.parse
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request, Response

from king.server.access import is_owner
from king.server.http.errors import Refused
from king.server.http.services import Services, services
from king.server.people.accounts import Account
from king.server.tables.seats import Origin

__all__ = [
    "DEVICE_COOKIE",
    "SESSION_COOKIE",
    "CurrentAccount",
    "SameOrigin",
    "Seated",
    "SeatedAccount",
    "address_of",
    "current_account",
    "give_session",
    "origin_of",
    "same_origin",
    "seat_for",
    "seated_account",
    "set_session",
]

SESSION_COOKIE = "king_session"
#: A random id per browser, kept for a rated table's "one person, one seat" rule.
DEVICE_COOKIE = "king_device"
_COOKIE_SECONDS = 60 * 86400
_DEVICE_SECONDS = 400 * 86400
#: The port a browser leaves out of an address, by its scheme.
_DEFAULT_PORTS = {"http": 80, "https": 443}


def address_of(request: Request) -> str | None:
    """The client's address as the server sees it."""
    return request.client.host if request.client is not None else None


def same_origin(request: Request) -> None:
    """The dependency of every route that changes something: refuse (403
    ``cross_site``) a request that another site's page sent (its ``Origin`` is not this
    server)."""
    origin = request.headers.get("origin")
    if origin is None or (origin == "null" and request.method == "GET"):
        return
    if not _same_origin(origin, request.headers.get("host", "")):
        raise Refused("cross_site", "a request from another site's page is refused")


def _same_origin(origin: str, host: str) -> bool:
    """Whether the page's ``Origin`` names the server the request came to (``Host``),
    a default port written or not (``https://h`` is ``h:443``)."""
    try:
        page = urllib.parse.urlsplit(origin)
        server = urllib.parse.urlsplit(f"//{host}")
        default = _DEFAULT_PORTS.get(page.scheme)
        page_port, server_port = page.port or default, server.port or default
    except ValueError:  # a port that is not a number
        return False
    if not page.hostname or page.hostname != server.hostname:
        return False
    return page_port == server_port


def current_account(
    request: Request, parts: Annotated[Services, Depends(services)]
) -> Account | None:
    """The account of the request's session: at the local ``king``, the local player for
    requests from this machine (a phone on the home network, ``king --lan``, comes as a
    visitor, and plays as a guest)."""
    local = parts.settings.local_player
    if local is not None and is_owner(parts.settings, address_of(request)):
        return parts.people.accounts.local(local)
    token = request.cookies.get(SESSION_COOKIE)
    return parts.people.accounts.session(token) if token else None


@dataclass(frozen=True)
class Seated:
    """The account that takes a seat; ``fresh``: a guest made for this request and not
    yet written (the registry writes it once the seat is sure, then
    :func:`give_session` sets its cookie)."""

    account: Account
    fresh: bool


def seated_account(
    parts: Annotated[Services, Depends(services)],
    account: Annotated[Account | None, Depends(current_account)],
) -> Seated:
    """The session's account, or a new guest's."""
    return seat_for(parts, account)


def seat_for(parts: Services, account: Account | None) -> Seated:
    """``account`` seated, or a new guest when nobody is logged in."""
    if account is not None:
        return Seated(account, fresh=False)
    return Seated(parts.people.accounts.new_guest(), fresh=True)


def set_session(request: Request, response: Response, token: str) -> None:
    """Set the session cookie."""
    _set_cookie(request, response, SESSION_COOKIE, token, _COOKIE_SECONDS)


def _set_cookie(request: Request, response: Response, name: str, value: str, age: int) -> None:
    """A cookie only this server reads (HttpOnly, SameSite=Lax; Secure over HTTPS)."""
    response.set_cookie(
        name,
        value,
        max_age=age,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def give_session(request: Request, response: Response, parts: Services, guest: Account) -> None:
    """The session cookie of a guest made for this request, if it was written (a
    request that seated nobody wrote nothing and sets no cookie).  It reads and writes
    the database: call it off the event loop."""
    if parts.people.accounts.get(guest.id) is not None:
        set_session(request, response, parts.people.accounts.open_session(guest))


def device_id(request: Request, response: Response) -> str:
    """This browser's device id (a new one, in a cookie, the first time)."""
    known = request.cookies.get(DEVICE_COOKIE, "")
    if 16 <= len(known) <= 64 and known.isascii():
        return known
    fresh = secrets.token_urlsafe(18)
    _set_cookie(request, response, DEVICE_COOKIE, fresh, _DEVICE_SECONDS)
    return fresh


def origin_of(request: Request, response: Response) -> Origin:
    """Where a request to sit comes from, hashed: its address and its browser."""
    return Origin.of(address_of(request), device_id(request, response))


#: The session's account (None: nobody logged in), looked up off the event loop.
CurrentAccount = Annotated[Account | None, Depends(current_account)]
#: The account that takes a seat (a new guest when nobody is logged in).
SeatedAccount = Annotated[Seated, Depends(seated_account)]
#: The route's dependency that refuses another site's page.
SameOrigin: Any = Depends(same_origin)
