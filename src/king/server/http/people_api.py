"""The HTTP API of accounts, history, statistics and ratings (``/api/me``,
``/api/accounts``, ``/api/login``, ``/api/players/…``, ``/api/leaderboard``) and the
session cookie that names the person at every other request.

The cookie (``king_session``) is HttpOnly, SameSite=Lax, and Secure when the request
came over HTTPS; it holds a random token whose hash is the session's key.  A request
that changes something and carries an ``Origin`` of another site is refused, so another
page cannot act with a visitor's cookie.
"""

from __future__ import annotations

import asyncio
import datetime
import secrets
import urllib.parse
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import FastAPI, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from king.server.people.accounts import MAX_PASSWORD, Account, AccountError
from king.server.people.ledger import BOT_PREFIX, HistoryRow, bot_player
from king.server.people.names import MAX_NAME
from king.server.people.ratings import Rating, shown
from king.server.people.service import HOUSE_BOTS, People
from king.server.tables.registry import Registry
from king.server.tables.table import ActionError, Origin

if TYPE_CHECKING:
    from king.server.tables.shared import SharedTables

__all__ = [
    "DEVICE_COOKIE",
    "SESSION_COOKIE",
    "add_people_api",
    "current_account",
    "give_session",
    "origin_of",
    "seated_account",
]

SESSION_COOKIE = "king_session"
#: A random id per browser, kept for a rated table's "one person, one seat" rule.
DEVICE_COOKIE = "king_device"
_COOKIE_SECONDS = 60 * 86400
_DEVICE_SECONDS = 400 * 86400
_STATUS = {
    "bad_login": 401,
    "too_many_attempts": 429,
    "busy": 503,
    "name_taken": 409,
    "not_logged_in": 401,
    "local": 403,
    "cross_site": 403,
}


class Credentials(BaseModel):
    """``POST /api/accounts`` and ``POST /api/login``."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: Annotated[str, Field(min_length=1, max_length=4 * MAX_NAME)]
    password: Annotated[str, Field(min_length=1, max_length=MAX_PASSWORD)]


def _people(request: Request) -> People:
    people: People = request.app.state.people
    return people


def _error(status: int, code: str, message: str, retry: float | None = None) -> JSONResponse:
    headers = {"Retry-After": str(round(retry))} if retry is not None else None
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=headers
    )


def _refused(error: AccountError) -> JSONResponse:
    return _error(_STATUS.get(error.code, 422), error.code, error.message, error.retry_after)


def _address(request: Request) -> str | None:
    return request.client.host if request.client is not None else None


def cross_site(request: Request) -> JSONResponse | None:
    """The 403 for a request that another site's page sent (its ``Origin`` is not this
    server), else None."""
    origin = request.headers.get("origin")
    if origin is None or (origin == "null" and request.method == "GET"):
        return None
    if not _same_origin(origin, request.headers.get("host", "")):
        return _error(403, "cross_site", "a request from another site's page is refused")
    return None


#: The port a browser leaves out of an address, by its scheme.
_DEFAULT_PORTS = {"http": 80, "https": 443}


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


#: The addresses of this machine itself: only they are the local ``king``'s person.
_THIS_MACHINE = ("127.0.0.1", "::1")


def current_account(request: Request) -> Account | None:
    """The account of the request's session: at the local ``king``, the local player for
    requests from this machine (a phone on the home network, ``king --lan``, comes as a
    visitor, and plays as a guest)."""
    people = _people(request)
    local = request.app.state.settings.local_player
    client = request.client.host if request.client is not None else None
    if local is not None and client in _THIS_MACHINE:
        return people.accounts.local(local)
    token = request.cookies.get(SESSION_COOKIE)
    return people.accounts.session(token) if token else None


def _set_session(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=_COOKIE_SECONDS,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def seated_account(request: Request) -> tuple[Account, bool]:
    """The account that takes a seat: the session's, or a new guest's (``True``: made
    for this request and not yet written; the registry writes it once the seat is sure,
    then :func:`give_session` sets its cookie)."""
    account = current_account(request)
    if account is not None:
        return account, False
    return _people(request).accounts.new_guest(), True


def give_session(request: Request, response: Response, guest: Account) -> None:
    """The session cookie of a guest made for this request, if it was written (a
    request that seated nobody wrote nothing and sets no cookie)."""
    people = _people(request)
    if people.accounts.get(guest.id) is not None:
        _set_session(request, response, people.accounts.open_session(guest))


def device_id(request: Request, response: Response) -> str:
    """This browser's device id (a new one, in a cookie, the first time)."""
    known = request.cookies.get(DEVICE_COOKIE, "")
    if 16 <= len(known) <= 64 and known.isascii():
        return known
    fresh = secrets.token_urlsafe(18)
    response.set_cookie(
        DEVICE_COOKIE,
        fresh,
        max_age=_DEVICE_SECONDS,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )
    return fresh


def origin_of(request: Request, response: Response) -> Origin:
    """Where a request to sit comes from, hashed: its address and its browser."""
    return Origin.of(_address(request), device_id(request, response))


def _me(people: People, account: Account | None) -> dict[str, Any]:
    if account is None:
        return {"account": None}
    ratings = people.ledger.ratings([account.id])
    rating = ratings.get(account.id)
    return {
        "account": {
            "name": account.name,
            "kind": account.kind,
            "rating": None if rating is None else shown(rating[0]),
            "provisional": rating is None or rating[0].provisional,
            "rated_games": 0 if rating is None else rating[1],
        },
        "sessions": people.accounts.sessions(account),
    }


def _day(text: str, what: str) -> float:
    try:
        day = datetime.date.fromisoformat(text)
    except ValueError:
        raise ActionError("invalid", f"{what}: a day is written YYYY-MM-DD, not {text!r}") from None
    moment = datetime.datetime.combine(day, datetime.time(), tzinfo=datetime.UTC)
    return moment.timestamp()


def _rating_json(rating: Rating | None, games: int = 0) -> dict[str, Any]:
    return {
        "rating": None if rating is None else shown(rating),
        "provisional": rating is None or rating.provisional,
        "mu": None if rating is None else round(rating.mu, 3),
        "sigma": None if rating is None else round(rating.sigma, 3),
        "rated_games": games,
    }


class _Player:
    """A player named in an address: a registered name, or ``bot:<spec>``."""

    def __init__(self, player_id: str, name: str, kind: str, account: Account | None) -> None:
        self.id = player_id
        self.name = name
        self.kind = kind
        self.account = account


def _player(request: Request, ref: str) -> _Player:
    people = _people(request)
    if ref.startswith(BOT_PREFIX):
        spec = ref[len(BOT_PREFIX) :]
        known = spec in HOUSE_BOTS or (
            0 < len(spec) <= 64 and people.ledger.has_played(bot_player(spec))
        )
        if not known:  # a bot is a player once it has played here (the house bots always)
            raise ActionError("not_found", f"there is no player {ref!r}")
        return _Player(bot_player(spec), spec, "bot", None)
    account = people.accounts.find(ref) if len(ref) <= 4 * MAX_NAME else None
    if account is None:
        local = request.app.state.settings.local_player
        if local is not None and ref == local:
            account = people.accounts.local(local)
    if account is None or account.name is None:
        raise ActionError("not_found", f"there is no player {ref!r}")
    return _Player(account.id, account.name, account.kind, account)


def _game_json(
    registry: Registry, row: HistoryRow, seats: dict[str, list[Any]], people: People
) -> dict[str, Any]:
    finished = seats.get(row.table)
    rated = row.rated
    if finished is not None:
        refs = people.refs(line.player for line in finished)
        listed = [
            {
                "seat": line.seat,
                "name": line.name,
                "player": ref.ref if (ref := refs.get(line.player or "")) is not None else None,
                # An account with no page: a guest.
                "guest": line.player is not None and ref is None,
                "points": line.points,
                "place": line.place,
            }
            for line in finished
        ]
    else:
        table = registry.get(row.table)
        listed = []
        if table is not None:
            rated = table.rated
            for seat in table.seats:
                profile = table.profiles.get(seat.number)
                listed.append(
                    {
                        "seat": seat.number,
                        "name": seat.player_name,
                        "player": profile.player if profile is not None else None,
                        "guest": seat.kind == "human"
                        and seat.claimed
                        and (profile is None or profile.player is None),
                        "points": table.game.totals[seat.number],
                        "place": None,
                    }
                )
    return {
        "table": row.table,
        "seat": row.seat,
        "status": row.status,
        "when": row.when,
        "points": row.points,
        "place": row.place,
        "rated": rated,
        "seats": listed,
    }


async def _take_seats_back(request: Request, account: Account) -> list[dict[str, Any]]:
    """Every seat of the account at an unfinished table, taken back to this device with
    a new token (the other devices' tokens stop working and their connections close)."""
    people = _people(request)
    registry: Registry = request.app.state.registry
    shared: SharedTables | None = getattr(request.app.state, "shared", None)
    rows = people.ledger.history(account.id, finished_only=False, limit=_MOST_SEATS)
    seats = []
    for row in rows:
        if row.status not in ("waiting", "playing"):
            continue
        try:
            if shared is not None:
                answer = await shared.ask(row.table, "take_back", {"account": account.id})
                seat, token = int(answer["seat"]), str(answer["token"])
            else:
                table = registry.get(row.table)
                if table is None:
                    continue
                seat, token = table.take_back(account.id)
        except ActionError:
            continue  # over or closed meanwhile: its token opens nothing any more
        seats.append({"table": row.table, "seat": seat, "token": token})
    return seats


#: The unfinished tables "log out everywhere" looks through (the most recent first).
_MOST_SEATS = 200


def add_people_api(app: FastAPI) -> None:
    """The account, history, statistics and rating endpoints."""

    @app.get("/api/me")
    async def me(request: Request) -> Any:
        return _me(_people(request), current_account(request))

    @app.post("/api/accounts", status_code=201)
    async def register(request: Request, body: Credentials) -> Response:
        refused = cross_site(request)
        if refused is not None:
            return refused
        if request.app.state.settings.local_player is not None:
            return _error(
                403, "local", "the local game has one player: there is no account to make"
            )
        people = _people(request)
        current = current_account(request)
        guest = current if current is not None and current.kind == "guest" else None
        try:
            account = await asyncio.to_thread(
                people.accounts.register, body.name, body.password, _address(request), guest
            )
        except AccountError as error:
            return _refused(error)
        # A new session: the guest's token (which another may have seen) ends.
        token = people.accounts.open_session(account, ending=request.cookies.get(SESSION_COOKIE))
        response = JSONResponse(_me(people, account), status_code=201)
        _set_session(request, response, token)
        return response

    @app.post("/api/login")
    async def login(request: Request, body: Credentials) -> Response:
        refused = cross_site(request)
        if refused is not None:
            return refused
        if request.app.state.settings.local_player is not None:
            return _error(403, "local", "the local game has one player: nobody logs in")
        people = _people(request)
        try:
            account = await asyncio.to_thread(
                people.accounts.login, body.name, body.password, _address(request)
            )
        except AccountError as error:
            return _refused(error)
        token = people.accounts.open_session(account, ending=request.cookies.get(SESSION_COOKIE))
        response = JSONResponse(_me(people, account))
        _set_session(request, response, token)
        return response

    @app.post("/api/logout")
    async def logout(request: Request) -> Response:
        refused = cross_site(request)
        if refused is not None:
            return refused
        token = request.cookies.get(SESSION_COOKIE)
        if token:
            _people(request).accounts.close_session(token)
        response = JSONResponse({"account": None})
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    @app.post("/api/logout/everywhere")
    async def logout_everywhere(request: Request) -> Response:
        refused = cross_site(request)
        if refused is not None:
            return refused
        account = current_account(request)
        if account is None or request.app.state.settings.local_player is not None:
            return _error(401, "not_logged_in", "log in first")
        ended = _people(request).accounts.close_sessions(account)
        seats = await _take_seats_back(request, account)
        response = JSONResponse({"account": None, "ended": ended, "seats": seats})
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    @app.get("/api/players/{ref}")
    async def player(request: Request, ref: str) -> Response:
        try:
            found = _player(request, ref)
        except ActionError as error:
            return _error(404, error.code, error.message)
        people = _people(request)
        rating = people.ledger.ratings([found.id]).get(found.id)
        me = current_account(request)
        body = {
            "name": found.name,
            "kind": found.kind,
            "ref": found.name if found.kind != "bot" else found.id,
            "me": me is not None and found.account is not None and me.id == found.account.id,
            "house": found.kind == "bot" and found.name in HOUSE_BOTS,
            "since": found.account.created if found.account is not None else None,
            **_rating_json(*(rating if rating is not None else (None, 0))),
        }
        return JSONResponse(body)

    @app.get("/api/players/{ref}/stats")
    async def stats(
        request: Request,
        ref: str,
        since: Annotated[str | None, Query(max_length=10)] = None,
        until: Annotated[str | None, Query(max_length=10)] = None,
    ) -> Response:
        """Figures over finished games, ``since`` and ``until`` days (UTC) included."""
        try:
            found = _player(request, ref)
            start = None if since is None else _day(since, "since")
            end = None if until is None else _day(until, "until") + 86400
        except ActionError as error:
            return _error(404 if error.code == "not_found" else 422, error.code, error.message)
        if start is not None and end is not None and start >= end:
            return _error(422, "invalid", "since is after until")
        figures = _people(request).ledger.stats(found.id, start, end)
        return JSONResponse(
            {"player": found.name, "since": since, "until": until, **figures.to_json()}
        )

    @app.get("/api/players/{ref}/games")
    async def games(
        request: Request,
        ref: str,
        offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
        limit: Annotated[int, Query(ge=1, le=100)] = 20,
    ) -> Response:
        """A player's games, the most recent first: their own unfinished ones only to
        themselves."""
        try:
            found = _player(request, ref)
        except ActionError as error:
            return _error(404, error.code, error.message)
        people = _people(request)
        if found.kind == "bot":
            rows = people.ledger.bot_history(found.id, offset, limit + 1)
        else:
            me = current_account(request)
            own = me is not None and me.id == found.id
            rows = people.ledger.history(
                found.id, finished_only=not own, offset=offset, limit=limit + 1
            )
        more = len(rows) > limit
        rows = rows[:limit]
        seats = people.ledger.seats_of([r.table for r in rows if r.status == "over"])
        registry: Registry = request.app.state.registry
        listed = [_game_json(registry, row, seats, people) for row in rows]
        return JSONResponse({"games": listed, "next": offset + limit if more else None})

    @app.get("/api/leaderboard")
    async def leaderboard(
        request: Request, limit: Annotated[int, Query(ge=1, le=500)] = 100
    ) -> Response:
        people = _people(request)
        standings = people.ledger.leaderboard(limit)
        refs = people.refs(s.player for s in standings)
        lines = [
            {
                "name": ref.name,
                "ref": ref.ref,
                "kind": ref.kind,
                **_rating_json(standing.rating, standing.games),
            }
            for standing in standings
            if (ref := refs.get(standing.player)) is not None
        ]
        return JSONResponse({"players": lines})

    @app.get("/api/tables/{table_id}/ratings")
    async def rating_changes(request: Request, table_id: str) -> Response:
        """How a finished rated game moved its players' ratings."""
        people = _people(request)
        changes = people.ledger.rating_changes(table_id)
        refs = people.refs(c.player for c in changes)
        listed = [
            {
                "name": ref.name,
                "ref": ref.ref,
                "before": shown(change.before),
                "after": shown(change.after),
            }
            for change in changes
            if (ref := refs.get(change.player)) is not None
        ]
        return JSONResponse({"changes": listed})
