"""One server process's metrics for Prometheus (``king serve --metrics ADDRESS:PORT``).

Each :class:`Metrics` keeps its own :class:`~prometheus_client.CollectorRegistry`, not
the library's global one, so that tests and several apps in one process never count
into each other.  The server calls the few recording methods at the one place each fact
happens (a move appended, a move answered, a table taken over or given up, a WebSocket
opened or closed, a bot's thinking done); what is simply there now (the tables held,
the jobs waiting for a bot thread) is read when Prometheus scrapes.  The numbers are
served on a listener of their own, never on the public port behind the proxy.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Literal
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

__all__ = [
    "BOT_BUCKETS",
    "LATENCY_BUCKETS",
    "By",
    "GiveUp",
    "Metrics",
    "MoveKind",
    "Route",
]

MoveKind = Literal["play", "declare"]
#: Who made a move: a person (over a WebSocket) or a bot (a table's, or a stand-in).
By = Literal["person", "bot"]
#: Why a process stopped owning a table it held (processes sharing tables).
GiveUp = Literal["lease_passed", "another_owner", "handed_over"]
#: A WebSocket whose table this process owns (direct), or owned elsewhere (relayed).
Route = Literal["direct", "relayed"]

#: A move's answer, from a thousandth of a second (a warm SQLite) to two seconds (a
#: database in trouble).
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0)
#: A bot's thinking, from the rule bot's instant to the search bot's seconds.
BOT_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
#: The table states the gauge shows (the others are no longer being played).
TABLE_STATES = ("waiting", "playing")


class Metrics:
    """The metrics of one server process, and the calls that record them."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self._moves = Counter(
            "king_moves",
            "Moves appended to a table's log by this process, by kind and by who made them.",
            ["kind", "by"],
            registry=self.registry,
        )
        self._latency = Histogram(
            "king_move_latency_seconds",
            "Seconds from a person's move reaching the table's owner to its state being "
            "sent to every connection (the log write included).",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self._takeovers = Counter(
            "king_takeovers",
            "Unfinished tables this process took over from the log after their owner died, "
            "froze or handed them over.",
            registry=self.registry,
        )
        self._given_up = Counter(
            "king_tables_given_up",
            "Unfinished tables this process stopped owning, by why: its lease passed, another "
            "process owns it now, or it handed them over when stopping.",
            ["reason"],
            registry=self.registry,
        )
        self._connections = Gauge(
            "king_connections",
            "Open WebSocket connections: to tables this process owns (direct) or relayed to "
            "the owner elsewhere (relayed).",
            ["route"],
            registry=self.registry,
        )
        self._bot_seconds = Histogram(
            "king_bot_move_seconds",
            "Seconds a bot thought for one move in the shared bot threads (the wait for a "
            "thread not included).",
            buckets=BOT_BUCKETS,
            registry=self.registry,
        )
        # Every series exists from the start, at 0, so that a rate is never "no data".
        for kind, by in itertools.product(("play", "declare"), ("person", "bot")):
            self._moves.labels(kind=kind, by=by)
        for reason in ("lease_passed", "another_owner", "handed_over"):
            self._given_up.labels(reason=reason)
        for route in ("direct", "relayed"):
            self._connections.labels(route=route)
        self._now = _Now()
        self.registry.register(self._now)

    # -- what the server records ---------------------------------------------------------

    def moved(self, kind: MoveKind, by: By) -> None:
        """A move was appended to a table's log."""
        self._moves.labels(kind=kind, by=by).inc()

    def answered(self, seconds: float) -> None:
        """A person's move was answered (its state sent) ``seconds`` after it came."""
        self._latency.observe(seconds)

    def took_over(self) -> None:
        """This process now owns a table another one held."""
        self._takeovers.inc()

    def gave_up(self, reason: GiveUp) -> None:
        """This process no longer owns a table it held."""
        self._given_up.labels(reason=reason).inc()

    def connection_opened(self, route: Route) -> None:
        self._connections.labels(route=route).inc()

    def connection_closed(self, route: Route) -> None:
        self._connections.labels(route=route).dec()

    def bot_thought(self, seconds: float) -> None:
        """A bot chose a move in ``seconds`` (called from a bot thread)."""
        self._bot_seconds.observe(seconds)

    def watch(self, tables: Callable[[], Iterable[str]], bot_queue: Callable[[], int]) -> None:
        """Read at each scrape: the states of the tables held, and the bot moves waiting
        for a thread (kept current for free, instead of counted at every change)."""
        self._now.tables = tables
        self._now.bot_queue = bot_queue

    # -- serving them ----------------------------------------------------------------------

    def serve(self, host: str, port: int) -> WSGIServer:
        """Answer Prometheus on ``host:port`` from a thread of its own (the public port
        is behind the proxy and has no business showing these).  Raises
        :class:`OSError` when the address cannot be listened on."""
        server, _ = start_http_server(port, host, registry=self.registry)
        return server


class _Now(Collector):
    """The gauges of what is there at the moment of a scrape.  Called from the
    listener's thread: it only reads (a copy of the list of tables, a queue's length)."""

    def __init__(self) -> None:
        self.tables: Callable[[], Iterable[str]] = tuple
        self.bot_queue: Callable[[], int] = int

    def collect(self) -> Iterator[Metric]:
        states = list(self.tables())
        waiting = self.bot_queue()
        tables = GaugeMetricFamily(
            "king_tables", "Tables this process holds now, by state.", labels=["state"]
        )
        for state in TABLE_STATES:
            tables.add_metric([state], states.count(state))
        yield tables
        yield GaugeMetricFamily(
            "king_bot_queue",
            "Jobs waiting for one of the shared bot threads: bot moves, analyses, hints.",
            waiting,
        )
