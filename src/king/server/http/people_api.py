"""The HTTP API of accounts, history, statistics and ratings (``/api/me``,
``/api/accounts``, ``/api/login``, ``/api/players/…``, ``/api/leaderboard``).  Who is
asking comes from the session cookie (:mod:`king.server.http.identity`).

Everything here reads or writes accounts and the ledger, never a table in play: the
database work runs off the event loop (the handlers are plain functions, which FastAPI
runs in its thread pool, or hand the work to it)."""

from __future__ import annotations

import asyncio
import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from king.server.http.errors import account_refusal, error_response
from king.server.http.identity import (
    SESSION_COOKIE,
    CurrentAccount,
    SameOrigin,
    address_of,
    set_session,
)
from king.server.http.services import Services, ServicesDep
from king.server.people.accounts import MAX_PASSWORD, Account, AccountError
from king.server.people.ledger import BOT_PREFIX, HistoryRow, bot_player
from king.server.people.names import MAX_NAME
from king.server.people.ratings import Rating, shown
from king.server.people.service import HOUSE_BOTS, People
from king.server.tables.registry import Registry
from king.table.rules import RefusedError

__all__ = ["Credentials", "router"]

router = APIRouter()


class Credentials(BaseModel):
    """``POST /api/accounts`` and ``POST /api/login``."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: Annotated[str, Field(min_length=1, max_length=4 * MAX_NAME)]
    password: Annotated[str, Field(min_length=1, max_length=MAX_PASSWORD)]


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
        raise RefusedError(
            "invalid", f"{what}: a day is written YYYY-MM-DD, not {text!r}"
        ) from None
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


def _player(parts: Services, ref: str) -> _Player:
    people = parts.people
    if ref.startswith(BOT_PREFIX):
        spec = ref[len(BOT_PREFIX) :]
        known = spec in HOUSE_BOTS or (
            0 < len(spec) <= 64 and people.ledger.has_played(bot_player(spec))
        )
        if not known:  # a bot is a player once it has played here (the house bots always)
            raise RefusedError("not_found", f"there is no player {ref!r}")
        return _Player(bot_player(spec), spec, "bot", None)
    account = people.accounts.find(ref) if len(ref) <= 4 * MAX_NAME else None
    if account is None:
        local = parts.settings.local_player
        if local is not None and ref == local:
            account = people.accounts.local(local)
    if account is None or account.name is None:
        raise RefusedError("not_found", f"there is no player {ref!r}")
    return _Player(account.id, account.name, account.kind, account)


def _game_json(row: HistoryRow, rated: bool, seats: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "table": row.table,
        "seat": row.seat,
        "status": row.status,
        "when": row.when,
        "points": row.points,
        "place": row.place,
        "rated": rated,
        "seats": seats,
    }


def _finished_seats(lines: list[Any], people: People) -> list[dict[str, Any]]:
    """A finished game's seats, from the ledger (it reads the database)."""
    refs = people.refs(line.player for line in lines)
    return [
        {
            "seat": line.seat,
            "name": line.name,
            "player": ref.ref if (ref := refs.get(line.player or "")) is not None else None,
            # An account with no page: a guest.
            "guest": line.player is not None and ref is None,
            "points": line.points,
            "place": line.place,
        }
        for line in lines
    ]


def _live_seats(registry: Registry, row: HistoryRow) -> tuple[bool, list[dict[str, Any]]]:
    """Whether an unfinished game is rated, and its seats now, from its table (on the
    event loop, which owns the tables); none when this process does not hold it."""
    table = registry.get(row.table)
    if table is None:
        return row.rated, []
    listed = []
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
    return table.rated, listed


async def _take_seats_back(parts: Services, account: Account) -> list[dict[str, Any]]:
    """Every seat of the account at an unfinished table, taken back to this device with
    a new token (the other devices' tokens stop working and their connections close)."""
    rows = await run_in_threadpool(
        parts.people.ledger.history, account.id, finished_only=False, limit=_MOST_SEATS
    )
    seats = []
    for row in rows:
        if row.status not in ("waiting", "playing"):
            continue
        try:
            claim = await parts.tables.take_back(row.table, account.id)
        except RefusedError:
            continue  # over, closed or gone meanwhile: its token opens nothing any more
        seats.append({"table": row.table, "seat": claim.seat, "token": claim.token})
    return seats


#: The unfinished tables "log out everywhere" looks through (the most recent first).
_MOST_SEATS = 200


@router.get("/api/me")
def me(parts: ServicesDep, account: CurrentAccount) -> Any:
    return _me(parts.people, account)


@router.post("/api/accounts", status_code=201, dependencies=[SameOrigin])
async def register(
    request: Request, body: Credentials, parts: ServicesDep, current: CurrentAccount
) -> Response:
    if parts.settings.local_player is not None:
        return error_response(
            403, "local", "the local game has one player: there is no account to make"
        )
    guest = current if current is not None and current.kind == "guest" else None
    try:
        account = await asyncio.to_thread(
            parts.people.accounts.register, body.name, body.password, address_of(request), guest
        )
    except AccountError as error:
        return account_refusal(error)
    return await run_in_threadpool(_logged_in, request, parts, account, 201)


@router.post("/api/login", dependencies=[SameOrigin])
async def login(request: Request, body: Credentials, parts: ServicesDep) -> Response:
    if parts.settings.local_player is not None:
        return error_response(403, "local", "the local game has one player: nobody logs in")
    try:
        account = await asyncio.to_thread(
            parts.people.accounts.login, body.name, body.password, address_of(request)
        )
    except AccountError as error:
        return account_refusal(error)
    return await run_in_threadpool(_logged_in, request, parts, account, 200)


def _logged_in(request: Request, parts: Services, account: Account, status: int) -> Response:
    """A new session for the account: the old token of this browser (a guest's, which
    another may have seen) ends."""
    people = parts.people
    token = people.accounts.open_session(account, ending=request.cookies.get(SESSION_COOKIE))
    response = JSONResponse(_me(people, account), status_code=status)
    set_session(request, response, token)
    return response


@router.post("/api/logout", dependencies=[SameOrigin])
def logout(request: Request, parts: ServicesDep) -> Response:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        parts.people.accounts.close_session(token)
    response = JSONResponse({"account": None})
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.post("/api/logout/everywhere", dependencies=[SameOrigin])
async def logout_everywhere(parts: ServicesDep, account: CurrentAccount) -> Response:
    if account is None or parts.settings.local_player is not None:
        return error_response(401, "not_logged_in", "log in first")
    ended = await run_in_threadpool(parts.people.accounts.close_sessions, account)
    seats = await _take_seats_back(parts, account)
    response = JSONResponse({"account": None, "ended": ended, "seats": seats})
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.get("/api/players/{ref}")
def player(parts: ServicesDep, ref: str, me: CurrentAccount) -> Response:
    try:
        found = _player(parts, ref)
    except RefusedError as error:
        return error_response(404, error.code, error.message)
    rating = parts.people.ledger.ratings([found.id]).get(found.id)
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


@router.get("/api/players/{ref}/stats")
def stats(
    parts: ServicesDep,
    ref: str,
    since: Annotated[str | None, Query(max_length=10)] = None,
    until: Annotated[str | None, Query(max_length=10)] = None,
) -> Response:
    """Figures over finished games, ``since`` and ``until`` days (UTC) included."""
    try:
        found = _player(parts, ref)
        start = None if since is None else _day(since, "since")
        end = None if until is None else _day(until, "until") + 86400
    except RefusedError as error:
        return error_response(404 if error.code == "not_found" else 422, error.code, error.message)
    if start is not None and end is not None and start >= end:
        return error_response(422, "invalid", "since is after until")
    figures = parts.people.ledger.stats(found.id, start, end)
    return JSONResponse({"player": found.name, "since": since, "until": until, **figures.to_json()})


@router.get("/api/players/{ref}/games")
async def games(
    parts: ServicesDep,
    ref: str,
    me: CurrentAccount,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> Response:
    """A player's games, the most recent first: their own unfinished ones only to
    themselves."""
    try:
        rows, finished = await run_in_threadpool(_games, parts, ref, me, offset, limit)
    except RefusedError as error:
        return error_response(404, error.code, error.message)
    listed = []
    for row in rows[:limit]:
        seats = finished.get(row.table)
        if seats is None:
            listed.append(_game_json(row, *_live_seats(parts.registry, row)))
        else:
            listed.append(_game_json(row, row.rated, seats))
    more = len(rows) > limit
    return JSONResponse({"games": listed, "next": offset + limit if more else None})


def _games(
    parts: Services, ref: str, me: Account | None, offset: int, limit: int
) -> tuple[list[HistoryRow], dict[str, list[dict[str, Any]]]]:
    """One more row of the player's games than asked for (to know whether there are
    more), and the seats of the finished ones: the database's part of a page of games."""
    found = _player(parts, ref)
    ledger = parts.people.ledger
    if found.kind == "bot":
        rows = ledger.bot_history(found.id, offset, limit + 1)
    else:
        own = me is not None and me.id == found.id
        rows = ledger.history(found.id, finished_only=not own, offset=offset, limit=limit + 1)
    lines = ledger.seats_of([r.table for r in rows[:limit] if r.status == "over"])
    return rows, {table: _finished_seats(seats, parts.people) for table, seats in lines.items()}


@router.get("/api/leaderboard")
def leaderboard(parts: ServicesDep, limit: Annotated[int, Query(ge=1, le=500)] = 100) -> Response:
    people = parts.people
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


@router.get("/api/tables/{table_id}/ratings")
def rating_changes(parts: ServicesDep, table_id: str) -> Response:
    """How a finished rated game moved its players' ratings."""
    people = parts.people
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
