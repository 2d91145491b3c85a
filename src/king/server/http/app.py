"""The FastAPI application, assembled: the server's parts started and stopped with it
(:class:`~king.server.http.services.Services`), the body check and access log, the
error handlers, and one router per area:

* :mod:`.site_api` — liveness, readiness, the server's addresses, bots and messages;
* :mod:`.tables_api` — the lobby, tables and seats;
* :mod:`.records_api` — records, the board and analyses;
* :mod:`.people_api` — accounts, players, history and ratings;
* :mod:`.local_api` — the local game's level;
* :mod:`.table_socket` — play over one WebSocket per connection;
* :mod:`.pages` — the pages, the offline game's files and the static files.

Every error, over HTTP or the socket, is one JSON object that names what was wrong
(:mod:`.errors`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

from fastapi import FastAPI

from king import __version__
from king.server.config import ServerSettings
from king.server.engine.analysis import Analyses
from king.server.http import (
    local_api,
    people_api,
    records_api,
    site_api,
    table_socket,
    tables_api,
)
from king.server.http.body_check import MAX_BODY_BYTES, BodyCheck
from king.server.http.errors import add_error_handlers
from king.server.http.pages import WEB_DIR, add_pages
from king.server.http.readiness import Readiness
from king.server.http.services import Services
from king.server.logs import AccessLog
from king.server.metrics import Metrics
from king.server.people.accounts import LoginLimits
from king.server.people.service import People
from king.server.relay.bus import Bus
from king.server.relay.lease import LeaseService
from king.server.store.database import open_store
from king.server.store.event_log import EventStore, describe
from king.server.tables.registry import Registry
from king.server.tables.shared import SharedTables, process_name
from king.server.tables.tables import ProcessTables

__all__ = ["MAX_BODY_BYTES", "WEB_DIR", "create_app"]

log = logging.getLogger("king.server")


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
        async with _started(settings, store, metrics) as parts:
            app.state.services = parts
            try:
                if on_ready is not None:
                    result = on_ready(parts.registry)
                    if result is not None:
                        await result
                yield
            finally:
                app.state.services = None

    app = FastAPI(
        title="king",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.add_middleware(BodyCheck)
    if settings.access_log:  # outermost: it times and logs every answer, refusals too
        app.add_middleware(AccessLog)
    add_error_handlers(app)
    for area in (site_api, tables_api, records_api, people_api, local_api, table_socket):
        app.include_router(area.router)
    add_pages(app)
    return app


@contextlib.asynccontextmanager
async def _started(
    settings: ServerSettings, store: EventStore | None, metrics: Metrics
) -> AsyncIterator[Services]:
    """The server's parts, started (the event log opened, unfinished tables restored,
    shared tables joined) and stopped in the reverse order."""
    own_store = store if store is not None else _open_store(settings)
    leases, bus = _relay(settings)
    readiness = Readiness(own_store, settings.redis)
    people = _people(settings, own_store)
    registry = Registry(own_store, settings, leases, people, metrics)
    shared: SharedTables | None = None
    analyses: Analyses | None = None
    sweeper: asyncio.Task[None] | None = None
    try:
        if leases is not None and bus is not None:
            shared = SharedTables(registry, bus, leases)
            await shared.start()
        restored = registry.restore()
        if restored:
            log.warning("restored %d unfinished tables from %s", restored, describe(settings.db))
        analyses = Analyses(registry.runner, settings)
        sweeper = asyncio.get_running_loop().create_task(registry.sweep())
        tables = shared if shared is not None else ProcessTables(registry)
        yield Services(settings, metrics, people, registry, readiness, analyses, tables)
    finally:
        if sweeper is not None:
            sweeper.cancel()
        if shared is not None:
            await shared.hand_over()
        if analyses is not None:
            analyses.close()
        registry.close()
        if leases is not None:
            leases.close()
        await readiness.close()
        own_store.close()


def _open_store(settings: ServerSettings) -> EventStore:
    return open_store(settings.db, durable=settings.durable, shared=settings.redis is not None)


def _relay(settings: ServerSettings) -> tuple[LeaseService | None, Bus | None]:
    """This process's leases and bus, when it shares tables with others (``--redis``)."""
    if settings.redis is None:
        return None, None
    name = process_name()
    return LeaseService(settings.redis, name, presence=True), Bus(settings.redis, name)


def _people(settings: ServerSettings, store: EventStore) -> People:
    limits = LoginLimits(
        per_name=settings.logins_per_name,
        per_address=settings.logins_per_address,
        registrations=settings.logins_per_address,
        guests_per_address=settings.guests_per_address,
    )
    return People(store, limits)
