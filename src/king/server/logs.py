"""The log of ``king serve``: every line says when (ISO 8601, with the time zone), how
grave and which part of the server wrote it, so that lines from several processes can
be merged and read in order; and an access log, one line per HTTP request, that can be
turned off (``--no-access-log``).

The local game keeps its short ``king: …`` lines: the person reading them is at the
terminal that started it.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["LOG_LEVELS", "AccessLog", "StampedFormatter", "log_config"]

#: The levels ``king serve --log-level`` takes, the most talkative first.
LOG_LEVELS = ("debug", "info", "warning", "error")

#: The logger of the access log (its own level: ``--log-level`` leaves it alone).
ACCESS_LOGGER = "king.access"

_STAMPED = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_PLAIN = "king: %(message)s"

access_log = logging.getLogger(ACCESS_LOGGER)


class StampedFormatter(logging.Formatter):
    """Times as ISO 8601 in local time with its offset (``2031-05-02T14:03:07.125+02:00``),
    which sorts and reads the same on every machine."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        moment = datetime.fromtimestamp(record.created).astimezone()
        return moment.isoformat(timespec="milliseconds")


def log_config(level: str, *, stamped: bool = True, access: bool = False) -> dict[str, Any]:
    """uvicorn's ``log_config``: king's loggers and uvicorn's at ``level``, other
    libraries' at warning or above, all on stderr in one format; uvicorn's own access log
    off (:class:`AccessLog` writes one with the time each request took), and king's on
    at info when ``access``."""
    if level not in LOG_LEVELS:
        raise ValueError(f"a log level is one of {', '.join(LOG_LEVELS)}, not {level!r}")
    grave = level.upper()
    others = max(logging.getLevelName(grave), logging.WARNING)
    handler = {"class": "logging.StreamHandler", "formatter": "main", "stream": "ext://sys.stderr"}
    formatter: dict[str, Any] = (
        {"()": StampedFormatter, "format": _STAMPED} if stamped else {"format": _PLAIN}
    )
    quiet = {"handlers": [], "propagate": False, "level": "CRITICAL"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"main": formatter},
        "handlers": {"main": handler},
        "root": {"handlers": ["main"], "level": logging.getLevelName(others)},
        "loggers": {
            "king": {"handlers": ["main"], "level": grave, "propagate": False},
            "uvicorn": {"handlers": ["main"], "level": grave, "propagate": False},
            "uvicorn.access": quiet,
            ACCESS_LOGGER: (
                {"handlers": ["main"], "level": "INFO", "propagate": False} if access else quiet
            ),
        },
    }


class AccessLog:
    """One line per HTTP request once it is answered: the client's address (the
    visitor's behind a proxy that sends ``X-Forwarded-For``), the method, the path
    (without the query, which may carry a token), the status and how long it took.
    WebSocket sessions are not HTTP requests and are not logged."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500  # unless an answer is sent: the application failed

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            access_log.info(
                '%s "%s %s" %d %.1f ms',
                _client(scope),
                scope.get("method", "?"),
                _path(scope),
                status,
                (time.perf_counter() - start) * 1000,
            )


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return "-" if not client else str(client[0])


def _path(scope: Scope) -> str:
    """The path as it was sent (still %-encoded), with nothing that could break the
    line."""
    raw = scope.get("raw_path")
    text = raw.decode("latin-1") if isinstance(raw, bytes) else str(scope.get("path", ""))
    return "".join(c if c.isprintable() and c != '"' else "?" for c in text.split("?", 1)[0])
