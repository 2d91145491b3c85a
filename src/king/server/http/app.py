"""The FastAPI application: the lobby and table API over HTTP, one WebSocket per
connection for play, and the page (static files of :mod:`king.web`).

Every error, over HTTP or the socket, is one JSON object that names what was wrong:
``{"error": {"code": "...", "message": "..."}}`` over HTTP, an ``error`` message on the
socket.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import mimetypes
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from king import __version__
from king.bots import BotInfo
from king.bots.levels import PLAIN_BOTS, level_of
from king.jsontext import JSONTextError, loads
from king.record import RecordError, ReplayReport, parse, replay, to_record
from king.server.config import ServerSettings
from king.server.engine.analysis import Analyses, AnalysisBusyError
from king.server.engine.board import board_document, checked_analysis
from king.server.engine.players import table_bots
from king.server.engine.preparing import PREPARING
from king.server.http import offline
from king.server.http.lan import qr_svg
from king.server.http.languages import choose_language, language_names, page_messages
from king.server.http.local_api import add_local_api
from king.server.http.people_api import (
    add_people_api,
    cross_site,
    current_account,
    give_session,
    origin_of,
    seated_account,
)
from king.server.http.readiness import Readiness
from king.server.logs import AccessLog
from king.server.metrics import Metrics, Route
from king.server.people.accounts import Account, LoginLimits
from king.server.people.service import RATED_BOTS, People
from king.server.protocol import (
    PROTOCOL_VERSION,
    AgainRequest,
    BotInfoModel,
    CreateTableRequest,
    ErrorMessage,
    Health,
    JoinRequest,
    LobbyInfo,
    PageStrings,
    Preparing,
    Ready,
    SeatClaim,
    SiteInfo,
    TableInfo,
)
from king.server.relay.bus import Bus
from king.server.relay.lease import LeaseError, LeaseService
from king.server.store.database import open_store
from king.server.store.event_log import EventStore, StoreError, describe
from king.server.tables.registry import Elsewhere, Registry
from king.server.tables.session import Session
from king.server.tables.shared import RelayedConnection, SharedTables, process_name
from king.server.tables.table import ActionError, Origin, Table

__all__ = ["create_app", "WEB_DIR", "MAX_BODY_BYTES"]

log = logging.getLogger("king.server")

# The web app manifest ("Add to home screen") by its registered type.
mimetypes.add_type("application/manifest+json", ".webmanifest")

#: The page's static files, shipped in the package.
WEB_DIR = Path(str(resources.files("king") / "web"))
#: The largest HTTP request body accepted.
MAX_BODY_BYTES = 16 * 1024
#: A whole game record sent to be analysed (a game of 20 deals is about 35 KB).
MAX_RECORD_BYTES = 512 * 1024
#: A record shown on the board may carry its analysis (a whole game's, indented as
#: ``king analyze`` writes it, is about 600 KB).
MAX_ANNOTATED_BYTES = 2 * 1024 * 1024
#: Paths whose bodies may be larger than :data:`MAX_BODY_BYTES`.
_BODY_LIMITS = {"/api/analysis": MAX_RECORD_BYTES, "/api/board": MAX_ANNOTATED_BYTES}
#: The answer to a binary frame: the protocol is JSON text.
BINARY_REFUSED = "binary frames are not read here: send each message as a JSON text frame"
#: Messages queued for a client that does not read them before it is dropped.
MAX_QUEUED = 512

_STATUS = {
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
}
_CODES = {400: "bad_request", 404: "not_found", 405: "method", 413: "too_large", 422: "invalid"}
_CSP = (
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; "
    "script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; "
    "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'"
)


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def _refused(error: ActionError) -> JSONResponse:
    return _error(_STATUS.get(error.code, 409), error.code, error.message)


class _BodyCheck:
    """Read every request body before the application does: refuse one over
    :data:`MAX_BODY_BYTES` (413 ``too_large``) or one that is not strict JSON (400
    ``bad_json``: too deep, NaN, a repeated key, not UTF-8, …; see :mod:`king.jsontext`),
    so that no parser behind this ever meets such a body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = _BODY_LIMITS.get(scope.get("path", ""), MAX_BODY_BYTES)
        for key, value in scope.get("headers", []):
            if key == b"content-length" and value.isdigit() and int(value) > limit:
                await _too_large(scope, receive, send, limit)
                return
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break  # the client went away; the app sees that when it reads
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > limit:
                await _too_large(scope, receive, send, limit)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body.strip():
            try:
                loads(body)
            except JSONTextError as error:
                response = _error(
                    400, "bad_json", f"the body is not JSON that is read here: {error}"
                )
                await response(scope, receive, send)
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


async def _too_large(scope: Scope, receive: Receive, send: Send, limit: int) -> None:
    response = _error(413, "too_large", f"the body is over {limit} bytes")
    await response(scope, receive, send)


class SocketClient:
    """Sends a connection's messages in order from its own task, so that the table
    never waits for a slow reader; one that falls too far behind is disconnected."""

    def __init__(self, websocket: WebSocket) -> None:
        self._ws = websocket
        self._pending: collections.deque[str] = collections.deque()
        self._wake = asyncio.Event()
        self._overflow = False
        self._closing = False
        self._dropping: asyncio.Task[None] | None = None
        self._task = asyncio.get_running_loop().create_task(self._write())

    def send(self, text: str) -> None:
        if self._closing or self._overflow:
            return
        if len(self._pending) >= MAX_QUEUED:
            self._overflow = True
        else:
            self._pending.append(text)
        self._wake.set()

    async def _write(self) -> None:
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._pending:
                    await self._ws.send_text(self._pending.popleft())
                if self._overflow:
                    await self._ws.close(code=1008, reason="too slow: messages piled up")
                    return
                if self._closing:
                    return
        except Exception as error:  # the peer is gone: nothing more to send
            log.debug("a socket stopped: %r", error)

    def drop(self) -> None:
        """Close the socket (1012, "service restart") once what is queued is sent: the
        table has moved to another server process, where the client reconnects."""
        if not self._closing:
            self._dropping = asyncio.get_running_loop().create_task(self.close(code=1012))

    async def close(self, code: int = 1000) -> None:
        """Send what is queued, then close the socket."""
        self._closing = True
        self._wake.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._task, timeout=5)
        with contextlib.suppress(Exception):
            await self._ws.close(code=code)


def create_app(
    settings: ServerSettings,
    store: EventStore | None = None,
    on_ready: Callable[[Registry], Awaitable[None] | None] | None = None,
    metrics: Metrics | None = None,
) -> FastAPI:
    """The application.  It opens the event log (unless given one), restores every
    unfinished table, then calls ``on_ready`` (as the local game does to open its
    table).  It records into ``metrics`` (the process's, which ``king serve --metrics``
    serves), else into metrics of its own that nobody reads."""
    metrics = metrics if metrics is not None else Metrics()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own_store = (
            store
            if store is not None
            else open_store(
                settings.db, durable=settings.durable, shared=settings.redis is not None
            )
        )
        leases: LeaseService | None = None
        bus: Bus | None = None
        shared: SharedTables | None = None
        if settings.redis is not None:
            name = process_name()
            leases = LeaseService(settings.redis, name, presence=True)
            bus = Bus(settings.redis, name)
        people = People(
            own_store,
            LoginLimits(
                per_name=settings.logins_per_name,
                per_address=settings.logins_per_address,
                registrations=settings.logins_per_address,
                guests_per_address=settings.guests_per_address,
            ),
        )
        app.state.people = people
        app.state.readiness = Readiness(own_store, settings.redis)
        registry = Registry(own_store, settings, leases, people, metrics)
        sweeper: asyncio.Task[None] | None = None
        try:
            if leases is not None and bus is not None:
                shared = SharedTables(registry, bus, leases)
                await shared.start()
            app.state.shared = shared
            restored = registry.restore()
            if restored:
                log.warning(
                    "restored %d unfinished tables from %s", restored, describe(settings.db)
                )
            app.state.registry = registry
            app.state.analyses = Analyses(registry.runner, settings)
            sweeper = asyncio.get_running_loop().create_task(registry.sweep())
            if on_ready is not None:
                result = on_ready(registry)
                if result is not None:
                    await result
            yield
        finally:
            if sweeper is not None:
                sweeper.cancel()
            if shared is not None:
                await shared.hand_over()
            analyses = getattr(app.state, "analyses", None)
            if analyses is not None:
                analyses.close()
            registry.close()
            if leases is not None:
                leases.close()
            await app.state.readiness.close()
            own_store.close()

    app = FastAPI(
        title="king",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.settings = settings
    app.state.shared = None
    app.state.metrics = metrics
    app.add_middleware(_BodyCheck)
    if settings.access_log:  # outermost: it times and logs every answer, refusals too
        app.add_middleware(AccessLog)
    _add_error_handlers(app)
    _add_probes(app)
    _add_api(app)
    add_people_api(app)
    add_local_api(app)
    _add_socket(app)
    _add_pages(app)
    return app


def _registry(request: Request | WebSocket) -> Registry:
    registry: Registry = request.app.state.registry
    return registry


def _shared(request: Request | WebSocket) -> SharedTables | None:
    shared: SharedTables | None = request.app.state.shared
    return shared


def _add_error_handlers(app: FastAPI) -> None:
    async def invalid(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        parts = []
        for item in exc.errors():
            where = ".".join(str(p) for p in item.get("loc", ()) if p != "body")
            parts.append(f"{where or 'body'}: {item.get('msg', 'invalid')}")
        return _error(422, "invalid", "; ".join(parts))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        code = _CODES.get(exc.status_code, "error")
        return _error(exc.status_code, code, str(exc.detail))

    async def store_error(request: Request, exc: Exception) -> Response:
        log.error("%s", exc)
        return _error(503, "server", "the server could not read or write its tables")

    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(HTTPException, http_error)

    async def lease_error(request: Request, exc: Exception) -> Response:
        log.error("%s", exc)
        return _error(503, "server", "the server could not reach the other server processes")

    app.add_exception_handler(StoreError, store_error)
    app.add_exception_handler(LeaseError, lease_error)


def _analyses(request: Request) -> Analyses:
    analyses: Analyses = request.app.state.analyses
    return analyses


def _analysis(request: Request, record: dict[str, Any]) -> Response:
    """Start (or find) the analysis of a record: 202 while it runs, 200 when done."""
    try:
        job = _analyses(request).start(record)
    except AnalysisBusyError as error:
        return _error(503, "busy", str(error))
    return JSONResponse(job.to_json(), status_code=200 if job.state == "done" else 202)


async def _sent_record(request: Request) -> tuple[Mapping[str, Any], ReplayReport] | Response:
    """The record in a request's body and its replay, or the 422 that says why it is not
    a valid one."""
    try:
        source = parse(await request.body())
        report = replay(source)
    except RecordError as error:
        return _error(422, "invalid", f"not a game record: {error}")
    if report.fault is not None:
        return _error(422, "invalid", f"the record is not valid: {report.fault}")
    return source, report


def _board(report: ReplayReport, section: object) -> Response:
    """A valid game laid out for the board, with its own analysis section when it brings
    a well-formed one (else why it was set aside)."""
    if not report.game.deals:
        return _error(422, "invalid", "the record has no declared deal to show")
    analysis, why = checked_analysis(section, report)
    body: dict[str, Any] = {"board": board_document(report), "analysis": analysis}
    if why:
        body["analysis_refused"] = why
    return JSONResponse(body)


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
    table_id: str,
    body: JoinRequest,
    account: Account,
    fresh: bool,
    origin: Origin,
) -> SeatClaim:
    """A seat at a table that any process may own: a guest made for this request is
    written first (the owner reads it from the database), once the table is known."""
    registry = _registry(request)
    shared = _shared(request)
    assert shared is not None
    address = request.client.host if request.client is not None else None
    if fresh:
        if not registry.store.exists(table_id):
            raise ActionError("not_found", f"there is no table {table_id!r}")
        registry.save_guest(account, address)
    answer = await shared.ask(
        table_id,
        "join",
        {
            "name": body.name,
            "seat": body.seat,
            "account": account.id,
            "origin": origin.to_json(),
        },
    )
    return _claim(answer)


def _find(request: Request, table_id: str) -> Table:
    table = _registry(request).get(table_id)
    if table is None:
        raise HTTPException(404, f"there is no table {table_id!r}")
    return table


def bot_model(info: BotInfo) -> BotInfoModel:
    """A bot as ``GET /api/bots`` lists it: a level with its measured strength."""
    level = level_of(info.name)
    offline = info.name in PLAIN_BOTS
    if level is None:
        return BotInfoModel(
            name=info.name,
            summary=info.summary,
            strength=info.strength,
            offline=offline,
            rated=info.name in RATED_BOTS,
        )
    return BotInfoModel(
        name=info.name,
        summary=info.summary,
        strength=info.strength,
        level=True,
        vs_rule=level.vs_rule,
        interval=level.interval,
        offline=offline,
        rated=info.name in RATED_BOTS,
    )


def _add_probes(app: FastAPI) -> None:
    """Liveness (the process answers; ``/api/health`` is its older name, kept for the
    callers that poll it) and readiness (the database and Redis answer:
    :mod:`king.server.http.readiness`), for process managers and load balancers."""

    @app.get("/api/live")
    @app.get("/api/health")
    async def live() -> Health:
        return Health(ok=True, version=__version__, protocol=PROTOCOL_VERSION)

    @app.get("/api/ready", response_model=Ready)
    async def ready(request: Request) -> Response:
        readiness: Readiness = request.app.state.readiness
        checks = await readiness.checks()
        failed = [check.part for check in checks if not check.ok]
        body = Ready(
            ready=not failed, failed=failed, checks={check.part: check.state for check in checks}
        )
        return JSONResponse(body.model_dump(), status_code=503 if failed else 200)


def _add_api(app: FastAPI) -> None:
    @app.get("/api/preparing")
    async def preparing() -> Preparing:
        state = PREPARING.state()
        return Preparing(
            ready=state.ready,
            step=state.step,
            steps=state.steps,
            seconds=round(state.seconds, 1),
            compiling=state.compiling,
        )

    @app.get("/api/site")
    async def site(request: Request) -> SiteInfo:
        settings: ServerSettings = request.app.state.settings
        public = None if settings.public_url is None else settings.public_url.rstrip("/")
        phone = settings.lan_url or (None if public is None else f"{public}/")
        return SiteInfo(
            public_url=public,
            lan_url=settings.lan_url,
            phone_url=phone,
            phone_qr=None if phone is None else qr_svg(phone),
        )

    @app.get("/api/bots")
    async def bots() -> list[BotInfoModel]:
        return [bot_model(b) for b in table_bots()]

    @app.get("/api/i18n")
    async def strings(
        request: Request, lang: Annotated[str, Query(max_length=500)] = ""
    ) -> PageStrings:
        """The page's messages in the first shipped language of ``lang`` (a comma-separated
        list of codes or locales), else of the request's ``Accept-Language``."""
        settings: ServerSettings = request.app.state.settings
        wanted = [part for part in lang.split(",") if part.strip()]
        language = choose_language(
            wanted, request.headers.get("accept-language"), settings.language
        )
        return PageStrings(
            language=language, languages=language_names(), messages=page_messages(language)
        )

    @app.get("/api/tables")
    async def lobby(request: Request) -> LobbyInfo:
        shared = _shared(request)
        if shared is not None:
            return await shared.lobby()
        return _registry(request).lobby()

    @app.post("/api/tables", status_code=201, response_model=SeatClaim)
    async def create(request: Request, response: Response, body: CreateTableRequest) -> Any:
        refused = cross_site(request)
        if refused is not None:
            return refused
        address = request.client.host if request.client is not None else None
        account: Account | None = None
        fresh = False
        if body.seat is not None:
            account, fresh = seated_account(request)
        else:
            account = current_account(request)
        origin = origin_of(request, response)
        try:
            table, seat, token = _registry(request).create(body, address, account, origin)
        except ActionError as error:
            if fresh and account is not None:
                give_session(request, response, account)
            return _keep_cookie(_refused(error), response)
        if fresh and account is not None:
            give_session(request, response, account)
        return SeatClaim(table=table.id, seat=seat, token=token, invite=f"/t/{table.id}")

    @app.get("/api/tables/{table_id}")
    async def table_info(request: Request, table_id: str) -> Any:
        shared = _shared(request)
        if shared is None:
            return _find(request, table_id).info()
        try:
            return TableInfo.model_validate(await shared.ask(table_id, "info", {}))
        except ActionError as error:
            if error.code == "not_found":
                raise HTTPException(404, f"there is no table {table_id!r}") from None
            return _refused(error)

    @app.post("/api/tables/{table_id}/join", response_model=SeatClaim)
    async def join(request: Request, response: Response, table_id: str, body: JoinRequest) -> Any:
        refused = cross_site(request)
        if refused is not None:
            return refused
        registry = _registry(request)
        address = request.client.host if request.client is not None else None
        account, fresh = seated_account(request)
        origin = origin_of(request, response)
        try:
            if _shared(request) is not None:
                claim = await _join_shared(request, table_id, body, account, fresh, origin)
            else:
                table = _find(request, table_id)
                seat, token = registry.claim(table, body.name, body.seat, account, origin, address)
                claim = SeatClaim(table=table.id, seat=seat, token=token, invite=f"/t/{table.id}")
        except ActionError as error:
            if fresh:
                give_session(request, response, account)
            return _keep_cookie(_refused(error), response)
        if fresh:
            give_session(request, response, account)
        return claim

    @app.post("/api/tables/{table_id}/seat", response_model=SeatClaim)
    async def take_back(request: Request, table_id: str) -> Any:
        """The seat the logged-in account took at this unfinished table, with a new
        token: a person comes back to their game from another device."""
        refused = cross_site(request)
        if refused is not None:
            return refused
        account = current_account(request)
        if account is None:
            return _error(401, "not_logged_in", "log in to take your seat back")
        shared = _shared(request)
        try:
            if shared is not None:
                claim = await shared.ask(table_id, "take_back", {"account": account.id})
                return _claim(claim)
            table = _find(request, table_id)
            seat, token = table.take_back(account.id)
        except ActionError as error:
            return _refused(error)
        return SeatClaim(table=table.id, seat=seat, token=token, invite=f"/t/{table.id}")

    @app.post("/api/tables/{table_id}/again", status_code=201, response_model=SeatClaim)
    async def again(request: Request, table_id: str, body: AgainRequest) -> Any:
        refused = cross_site(request)
        if refused is not None:
            return refused
        shared = _shared(request)
        address = request.client.host if request.client is not None else None
        try:
            if shared is not None:
                claim = await shared.ask(
                    table_id, "again", {"token": body.token, "address": address}
                )
                return _claim(claim)
            table = _find(request, table_id)
            following, seat, token = _registry(request).again(table, body.token, address)
        except ActionError as error:
            return _refused(error)
        return SeatClaim(table=following.id, seat=seat, token=token, invite=f"/t/{following.id}")

    @app.post("/api/tables/{table_id}/analysis")
    async def analyse_table(request: Request, table_id: str) -> Response:
        table = _find(request, table_id)
        if table.is_open:
            return _refused(
                ActionError("not_over", "only a finished game is analysed: it shows every hand")
            )
        return _analysis(request, table.record())

    @app.post("/api/analysis")
    async def analyse_record(request: Request) -> Response:
        sent = await _sent_record(request)
        if isinstance(sent, Response):
            return sent
        _, report = sent
        return _analysis(request, to_record(report.game, report.players))

    @app.post("/api/board")
    async def board_of_record(request: Request) -> Response:
        sent = await _sent_record(request)
        if isinstance(sent, Response):
            return sent
        source, report = sent
        return _board(report, source.get("analysis"))

    @app.get("/api/tables/{table_id}/board")
    async def board_of_table(request: Request, table_id: str) -> Response:
        table = _find(request, table_id)
        if table.is_open:
            return _refused(
                ActionError("not_over", "the game is not over: the board would show hands in play")
            )
        return _board(replay(table.record()), None)

    @app.get("/api/analysis/{key}")
    async def analysis(request: Request, key: str) -> Response:
        job = _analyses(request).get(key)
        if job is None:
            return _error(404, "not_found", f"there is no analysis {key!r} here")
        return JSONResponse(job.to_json(), status_code=200 if job.state != "running" else 202)

    @app.get("/api/tables/{table_id}/record")
    async def record(request: Request, table_id: str) -> Response:
        table = _find(request, table_id)
        if table.is_open:
            return _refused(
                ActionError("not_over", "the game is not over: its record would show hands in play")
            )
        headers = {"Content-Disposition": f'attachment; filename="king-{table.id}.json"'}
        return JSONResponse(table.record(), headers=headers)


def _add_socket(app: FastAPI) -> None:
    @app.websocket("/api/tables/{table_id}/ws")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        client = SocketClient(websocket)
        if _registry(websocket).stopping:
            # Handing its tables over (SIGTERM): the client reconnects, to another process.
            await client.close(code=1012)
            return
        located: Table | Elsewhere | None = None
        try:
            located = _registry(websocket).locate(table_id)
        except (StoreError, LeaseError, ActionError) as error:
            # The table may well exist: the client is told to come back, not that it does not.
            log.error("table %s could not be found: %s", table_id, error)
            reason = error.message if isinstance(error, ActionError) else "try again soon"
            message = ErrorMessage(code="busy", message=f"the table cannot be reached: {reason}")
            client.send(message.model_dump_json())
            await client.close(code=1013)
            return
        if located is None:
            message = ErrorMessage(code="not_found", message=f"there is no table {table_id!r}")
            client.send(message.model_dump_json())
            await client.close(code=4404)
            return
        session: Session | RelayedConnection
        route: Route = "direct"
        if isinstance(located, Elsewhere):
            shared = _shared(websocket)
            assert shared is not None
            session = shared.relay(client, table_id, located.owner)
            route = "relayed"
        else:
            session = Session(located, client)
        metrics: Metrics = websocket.app.state.metrics
        metrics.connection_opened(route)
        try:
            while True:
                received = await websocket.receive()
                if received["type"] == "websocket.disconnect":
                    break
                text = received.get("text")
                if text is None:
                    session.error("invalid", BINARY_REFUSED)
                    continue
                try:
                    session.receive(text)
                except Exception:  # a bug must not take the connection or the table down
                    log.exception("table %s: a message could not be handled", table_id)
                    session.error("server", "the server failed to handle this message")
        finally:
            metrics.connection_closed(route)
            session.close()
            await client.close()


class _Assets(StaticFiles):
    """The pages' scripts, styles, fonts and images under ``/static``.  The pages
    themselves are served once, at their own addresses with their content security
    policy (:func:`_page`): never a second time here without it."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        if path.lower().endswith((".html", ".htm")):
            raise HTTPException(404, "the pages are served at their own addresses")
        response = await super().get_response(path, scope)
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response


def _page(request: Request, name: str) -> HTMLResponse:
    """A page, its ``<html lang>`` set for the first paint to the address's ``?lang`` or
    the browser's ``Accept-Language`` (the page's script then applies a stored choice)."""
    settings: ServerSettings = request.app.state.settings
    wanted = request.query_params.getlist("lang")[:4]
    language = choose_language(wanted, request.headers.get("accept-language"), settings.language)
    text = (WEB_DIR / name).read_text(encoding="utf-8")
    text = text.replace('<html lang="en">', f'<html lang="{language}">', 1)
    headers = {
        "Content-Security-Policy": _CSP,
        "Cache-Control": "no-cache",
        "Vary": "Accept-Language",
    }
    return HTMLResponse(text, headers=headers)


def _add_offline(app: FastAPI) -> None:
    """The service worker (at the root, so that it may keep every page) and the files
    of the game that plays with no server (:mod:`king.server.http.offline`)."""
    fresh = {"Cache-Control": "no-cache"}

    @app.get("/sw.js", include_in_schema=False)
    async def service_worker() -> Response:
        text = offline.service_worker(list(language_names()))
        return Response(text, media_type="text/javascript", headers=fresh)

    @app.get("/offline/manifest.json", include_in_schema=False)
    async def offline_manifest() -> JSONResponse:
        return JSONResponse(offline.manifest(list(language_names())), headers=fresh)

    @app.get("/offline/king-{build}.zip", include_in_schema=False)
    async def offline_bundle(build: str) -> Response:
        if build != offline.build():
            raise HTTPException(404, f"this server serves build {offline.build()}, not {build!r}")
        headers = {"Cache-Control": "public, max-age=31536000, immutable"}
        return Response(offline.bundle(), media_type="application/zip", headers=headers)


def _add_pages(app: FastAPI) -> None:
    @app.get("/", include_in_schema=False)
    async def index(request: Request) -> HTMLResponse:
        return _page(request, "index.html")

    @app.get("/t/{table_id}", include_in_schema=False)
    async def table_page(request: Request, table_id: str) -> HTMLResponse:
        return _page(request, "table.html")

    @app.get("/board", include_in_schema=False)
    async def board_page(request: Request) -> HTMLResponse:
        return _page(request, "board.html")

    @app.get("/players/{ref}", include_in_schema=False)
    async def player_page(request: Request, ref: str) -> HTMLResponse:
        return _page(request, "player.html")

    @app.get("/leaderboard", include_in_schema=False)
    async def leaderboard_page(request: Request) -> HTMLResponse:
        return _page(request, "leaderboard.html")

    @app.get("/offline", include_in_schema=False)
    async def offline_page(request: Request) -> HTMLResponse:
        return _page(request, "table.html")

    _add_offline(app)

    app.mount("/static", _Assets(directory=WEB_DIR), name="static")
