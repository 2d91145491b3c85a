"""The parts of a running server that the routes use, typed: built once when the
application starts (its lifespan) and handed to every route by one dependency, instead
of untyped attributes on ``app.state``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, FastAPI
from starlette.requests import HTTPConnection

from king.server.config import ServerSettings
from king.server.engine.analysis import Analyses
from king.server.http.readiness import Readiness
from king.server.metrics import Metrics
from king.server.people.service import People
from king.server.tables.registry import Registry
from king.server.tables.tables import Tables

__all__ = ["Services", "ServicesDep", "TablesDep", "running", "services", "tables"]


@dataclass(frozen=True)
class Services:
    """One server's parts.  ``tables`` are this process's alone, or shared with other
    processes (``--redis``): the routes reach them alike."""

    settings: ServerSettings
    metrics: Metrics
    people: People
    registry: Registry
    readiness: Readiness
    analyses: Analyses
    tables: Tables


def running(app: FastAPI) -> Services | None:
    """The application's parts once it has started (None before, or after a failed
    start)."""
    found: Services | None = getattr(app.state, "services", None)
    return found


def services(connection: HTTPConnection) -> Services:
    """The dependency: the parts of the server a request or WebSocket came to."""
    found = running(connection.app)
    if found is None:
        raise RuntimeError("the server has not started: its routes answer once it has")
    return found


#: A route's parameter that receives the server's parts.
ServicesDep = Annotated[Services, Depends(services)]


def tables(connection: HTTPConnection) -> Tables:
    """The dependency: the tables, wherever they are played (:mod:`king.server.tables.tables`)."""
    return services(connection).tables


#: A route's parameter that receives the tables.
TablesDep = Annotated[Tables, Depends(tables)]
