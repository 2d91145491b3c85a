"""The settings of one server process, in one place so that tests can turn the dials."""

from __future__ import annotations

import math
import urllib.parse
from dataclasses import dataclass, replace
from pathlib import Path

from king.i18n import DEFAULT_LANGUAGE, parse_language
from king.server.clock import ClockRules
from king.server.store.event_log import Database

__all__ = ["ServerSettings", "split_address"]


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """How a server behaves.

    ``bot_pause`` is the wait before each bot move (twice that after a trick is complete)
    so that people can follow the play; tests set it to 0.  ``away_after`` is how long
    a person may be gone before ``stand_in`` (a bot) plays for them.  ``language`` is
    the page's language for a browser that names none of the shipped ones.
    """

    #: A SQLite file or a PostgreSQL address (``postgresql://…``).
    db: Database
    bot_pause: float = 0.7
    away_after: float = 45.0
    stand_in: str = "rule"
    bot_threads: int = 4
    durable: bool = False
    max_tables: int = 2000
    max_spectators: int = 64
    language: str = DEFAULT_LANGUAGE
    #: The most a bot that a visitor seats may ask for per decision (None: no limit):
    #: seconds of thinking, threads, sampled worlds, tricks searched exactly.
    max_bot_seconds: float | None = 2.0
    max_bot_threads: int | None = 2
    max_bot_worlds: int | None = 4000
    max_bot_exact: int | None = 6
    #: Open (unfinished) tables one client address may have created (None: no limit).
    tables_per_address: int | None = 8
    #: Seconds without a move or a connection after which an unfinished table is closed
    #: (its events are kept and its record can be downloaded); None: never.
    idle_close: float | None = 7200.0
    #: The Redis that server processes sharing one PostgreSQL database meet in (None:
    #: this process serves its tables alone).
    redis: str | None = None
    #: How long a process's lease on a table lasts unrenewed: the longest a table waits
    #: for a new owner after its owner dies (renewed every quarter of it).
    lease_seconds: float = 1.5
    #: Failed logins allowed in 15 minutes per account name and per client address
    #: (registrations from one address count against the second too).
    logins_per_name: int = 5
    logins_per_address: int = 30
    #: Guest accounts one client address may make in 15 minutes (each person who sits
    #: without a session is one).
    guests_per_address: int = 30
    #: Seats one client address may take at one rated table (None: no limit): one
    #: person, one seat, even with several accounts.  People who share an address (a
    #: household, a café) raise it to sit at one rated table together.
    rated_seats_per_address: int | None = 1
    #: The move clock of rated tables: each person's reserve for the whole game and the
    #: free seconds of every turn (after both, the stand-in makes the move).
    clock_reserve: float = 180.0
    clock_per_move: float = 15.0
    #: The local ``king``'s person: every request is theirs (no logins), under this name.
    local_player: str | None = None
    #: The address people reach this server at (``https://king.example.org`` behind a
    #: reverse proxy; the LAN address with ``king --lan``): invitation links use it
    #: instead of whatever address the host's own browser used.
    public_url: str | None = None
    #: The address a phone on the home network opens (``king --lan``), shown with a QR code.
    lan_url: str | None = None
    #: Log one line per HTTP request (``king serve``'s access log, king.server.logs).
    access_log: bool = False
    #: Where Prometheus scrapes this process's metrics (``ADDRESS:PORT``, a listener of
    #: its own, never the public port; None: not served).
    metrics: str | None = None

    def __post_init__(self) -> None:
        for name in ("public_url", "lan_url"):
            value = getattr(self, name)
            if value is not None and not _is_site(value):
                raise ValueError(
                    f"{name} must be an http:// or https:// address with no path, such as "
                    f"https://king.example.org, not {value!r}"
                )
        if not 0 <= self.bot_pause <= 10:
            raise ValueError(f"the bot pause must be 0-10 seconds, not {self.bot_pause}")
        if not 0 <= self.away_after <= 86400:
            raise ValueError(f"away_after must be 0-86400 seconds, not {self.away_after}")
        if not 1 <= self.bot_threads <= 64:
            raise ValueError(f"bot_threads must be 1-64, not {self.bot_threads}")
        for name in ("max_bot_seconds", "idle_close"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number of seconds, not {value}")
        for name in (
            "max_bot_threads",
            "max_bot_worlds",
            "tables_per_address",
            "logins_per_name",
            "logins_per_address",
            "guests_per_address",
            "rated_seats_per_address",
        ):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1, not {value}")
        if self.max_bot_exact is not None and self.max_bot_exact < 0:
            raise ValueError(f"max_bot_exact must be 0 or more, not {self.max_bot_exact}")
        ClockRules(self.clock_reserve, self.clock_per_move)  # raises for a bad clock
        if not 0.2 <= self.lease_seconds <= 60:
            raise ValueError(f"a lease lasts 0.2-60 seconds, not {self.lease_seconds}")
        self._check_redis()
        self._check_metrics()
        object.__setattr__(self, "language", parse_language(self.language))

    def _check_redis(self) -> None:
        if self.redis is None:
            return
        if not self.redis.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError(f"--redis takes a redis://HOST:PORT address, not {self.redis!r}")
        if isinstance(self.db, Path):
            raise ValueError(
                "server processes share tables through a PostgreSQL database: give "
                "--db postgresql://… with --redis (a SQLite file has one server)"
            )

    def _check_metrics(self) -> None:
        if self.metrics is not None:
            split_address(self.metrics)  # raises for a bad address

    def unbounded(self) -> ServerSettings:
        """These settings without the limits on visitors: the local game's owner's
        (:class:`king.server.access.Access`)."""
        return replace(
            self,
            max_bot_seconds=None,
            max_bot_threads=None,
            max_bot_worlds=None,
            max_bot_exact=None,
            tables_per_address=None,
            idle_close=None,
        )


def split_address(text: str) -> tuple[str, int]:
    """The host and port of ``--metrics ADDRESS:PORT`` (an IPv6 address in brackets);
    a :class:`ValueError` that says what is wrong with anything else."""
    host, colon, port = text.strip().rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    example = "such as 127.0.0.1:9100"
    if not colon or not host or any(ch.isspace() for ch in host):
        raise ValueError(f"--metrics takes ADDRESS:PORT, {example}, not {text!r}")
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"--metrics needs a port from 1 to 65535, {example}, not {text!r}")
    return host, int(port)


def _is_site(url: str) -> bool:
    """Whether ``url`` is a site's address: http(s), a host, no path, query or fragment."""
    try:
        parts = urllib.parse.urlsplit(url)
        port_ok = parts.port is None or 0 < parts.port < 65536
    except ValueError:
        return False
    no_path = parts.path in ("", "/") and not parts.query and not parts.fragment
    return parts.scheme in ("http", "https") and bool(parts.hostname) and port_ok and no_path
