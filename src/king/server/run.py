"""Starting the server: ``king serve`` for friends, and ``king`` for a local game
against three computer players in the browser."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
import threading
import urllib.request
import webbrowser
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType
from wsgiref.simple_server import WSGIServer

import uvicorn
from fastapi import FastAPI

from king import __version__
from king.bots import strongest_bot
from king.errors import KingError
from king.jsontext import loads
from king.rules import Rules
from king.server.config import ServerSettings, split_address
from king.server.engine.preparing import PREPARING
from king.server.http.app import create_app
from king.server.http.lan import choose_address, interface_addresses, qr_terminal
from king.server.http.services import running
from king.server.logs import log_config
from king.server.metrics import Metrics
from king.server.relay.lease import LeaseError, LeaseService
from king.server.relay.members import other_versions
from king.server.store.database import open_store
from king.server.store.event_log import EventStore, StoreError, StoreLockedError, describe
from king.server.tables.local_game import (
    LOCAL_NAME,
    local_address,
    local_request,
    local_table,
    read_note,
    write_note,
)
from king.server.tables.registry import Registry
from king.server.tables.shared import SharedTables

__all__ = [
    "ClientFaultFilter",
    "ServeError",
    "serve",
    "run_local",
    "local_address",
    "bind",
    "WS_MAX_BYTES",
]

log = logging.getLogger("king.server")

#: The largest WebSocket message uvicorn reads; bigger ones close the connection (1009).
#: Anything from 4 KiB (the protocol's limit) to this size gets an ``error`` message.
WS_MAX_BYTES = 4 * 1024 * 1024


class ServeError(KingError, RuntimeError):
    """The server cannot start: the port is taken, the database is locked, …"""


class ClientFaultFilter(logging.Filter):
    """One line, not a traceback, for a fault of the client's that uvicorn logs as an
    exception: a WebSocket text frame that is not UTF-8 (uvicorn closes the socket with
    1007, as RFC 6455 asks; docs/web-protocol.md)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], UnicodeDecodeError):
            record.msg = (
                "a client sent a text frame that is not UTF-8; its socket was closed (1007)"
            )
            record.args = ()
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (``port`` 0: any free port) before uvicorn starts,
    so that the URL printed is the one that works.  It listens only once the server can
    serve (asyncio starts listening after the application has started): until then a
    connection is refused at once, and a client or proxy tries another server process,
    instead of waiting in the queue of one that is still starting."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    sock.set_inheritable(True)
    return sock


#: The local game's port: the same every day, so that a bookmark or a home-screen icon
#: (and the offline game the browser keeps for that address) still finds it.
LOCAL_PORT = 8765


def _url(sock: socket.socket) -> str:
    """The address to print for a bound socket; for every interface (0.0.0.0), the one
    a phone on the home network reaches (:mod:`king.server.http.lan`), else this machine's."""
    host, port = sock.getsockname()[:2]
    if ":" in host:
        host = f"[{host}]"
    if host in ("0.0.0.0", "[::]"):
        host = choose_address(interface_addresses()) or "127.0.0.1"
    return f"http://{host}:{port}"


def _bind_local(host: str, port: int | None, echo: Callable[[str], None]) -> socket.socket:
    """The local game's socket: ``port``, else :data:`LOCAL_PORT` or, when that is taken
    (another program, another ``king`` with another database), any free one, said."""
    if port is not None:
        return bind(host, port)
    try:
        return bind(host, LOCAL_PORT)
    except ServeError:
        sock = bind(host, 0)
        echo(
            f"king: port {LOCAL_PORT} is taken, so this game is at port "
            f"{sock.getsockname()[1]} for now (king --port PORT chooses one)"
        )
        return sock


def lan_lines(lan_url: str) -> list[str]:
    """What ``king --lan`` prints: the address a phone opens, and its QR code."""
    return [
        f"king: on a phone on the same network (Wi-Fi), open {lan_url} — or scan this:",
        qr_terminal(lan_url).rstrip("\n"),
    ]


def _open_store(settings: ServerSettings) -> EventStore:
    try:
        return open_store(settings.db, durable=settings.durable, shared=settings.redis is not None)
    except StoreError as error:
        raise ServeError(str(error)) from None


def _check_redis(settings: ServerSettings) -> None:
    """Fail before serving, in one line, when the Redis of ``--redis`` cannot be used."""
    if settings.redis is None:
        return
    try:
        LeaseService(settings.redis, "check").close()
        others = other_versions(settings.redis, __version__)
    except LeaseError as error:
        raise ServeError(str(error)) from None
    if others:
        running = ", ".join(sorted(set(others.values())))
        raise ServeError(
            f"processes of king {running} share these tables ({', '.join(others)}): this "
            f"king {__version__} cannot join them; stop them all, then start this version "
            "(docs/deploy.md, Upgrading)"
        )


class _Server(uvicorn.Server):
    """uvicorn's server, which first hands the process's shared tables over to the other
    processes when asked to stop (so that no client reconnects to a process that is
    going)."""

    def __init__(self, config: uvicorn.Config, app: FastAPI) -> None:
        super().__init__(config)
        self._app = app
        self._handing_over = False

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        parts = running(self._app)
        shared = parts.tables if parts is not None else None
        if not isinstance(shared, SharedTables) or self._handing_over:
            super().handle_exit(sig, frame)
            return
        self._handing_over = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            super().handle_exit(sig, frame)
            return

        async def hand_over_then_stop() -> None:
            try:
                await asyncio.wait_for(shared.hand_over(), timeout=5)
            except Exception:
                log.exception("the tables were not handed over")
            finally:
                uvicorn.Server.handle_exit(self, sig, frame)

        loop.call_soon_threadsafe(lambda: loop.create_task(hand_over_then_stop()))


def _run(
    settings: ServerSettings,
    sock: socket.socket,
    on_ready: Callable[[Registry], None] | None,
    log_level: str,
    store: EventStore | None = None,
    *,
    stamped: bool = False,
    metrics: Metrics | None = None,
) -> None:
    """Serve on ``sock`` until stopped; ``stamped``: ``king serve``'s log lines (time,
    level and logger), else the local game's short ones; ``metrics``: the process's,
    when something serves them."""
    _check_redis(settings)
    store = store if store is not None else _open_store(settings)
    app = create_app(settings, store, on_ready, metrics)
    config = uvicorn.Config(
        app,
        log_level=log_level,
        log_config=log_config(log_level, stamped=stamped, access=settings.access_log),
        access_log=False,  # king.server.logs.AccessLog writes it, with each request's time
        ws_max_size=WS_MAX_BYTES,
        lifespan="on",
        timeout_graceful_shutdown=3,
    )
    logging.getLogger("uvicorn.error").addFilter(ClientFaultFilter())
    server = _Server(config, app)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    if server.should_exit:
        # Stopped by Ctrl-C.  uvicorn re-raises the signal once shut down, but
        # asyncio.run's own SIGINT handler may swallow it when the serving task has just
        # finished, so the interrupt is reported here (the CLI exits with 130).
        raise KeyboardInterrupt


def serve(
    settings: ServerSettings,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    echo: Callable[[str], None] = print,
    log_level: str = "warning",
) -> None:
    """Serve tables until interrupted (Ctrl-C or SIGTERM).  The strongest bot and the
    stand-in get ready in the background (:mod:`king.server.engine.preparing`): the server
    answers at once, and a table's bots start once they are ready.  Its log lines say
    when, how grave and where (:mod:`king.server.logs`), from ``log_level`` up; the
    access log is ``settings.access_log``."""
    sock = bind(host, port)
    metrics = Metrics()
    try:
        listener = _serve_metrics(settings, metrics)
    except ServeError:
        sock.close()
        raise
    PREPARING.start([strongest_bot(), settings.stand_in])
    url = _url(sock)

    def ready(registry: Registry) -> None:
        echo(f"king: serving tables at {url}/ (database {describe(settings.db)}); Ctrl-C stops")
        if settings.metrics is not None:
            echo(f"king: metrics for Prometheus at http://{settings.metrics}/metrics")
        sys.stdout.flush()

    try:
        _run(settings, sock, ready, log_level, stamped=True, metrics=metrics)
    finally:
        if listener is not None:
            listener.shutdown()
            listener.server_close()


def _serve_metrics(settings: ServerSettings, metrics: Metrics) -> WSGIServer | None:
    """The listener of ``--metrics``, started before anything else so that an address
    that cannot be used is refused at once, in one line."""
    if settings.metrics is None:
        return None
    host, port = split_address(settings.metrics)
    try:
        return metrics.serve(host, port)
    except OSError as error:
        why = error.strerror or str(error)
        raise ServeError(f"cannot serve the metrics on {settings.metrics}: {why}") from None


def run_local(
    settings: ServerSettings,
    bots: Sequence[str],
    rules: Rules,
    *,
    open_browser: bool = True,
    new: bool = False,
    language: str | None = None,
    hints: bool = False,
    echo: Callable[[str], None] = print,
    port: int | None = None,
    lan: bool = False,
    asked: Sequence[str] = (),
) -> None:
    """Serve on 127.0.0.1 (:data:`LOCAL_PORT`, or ``port``) and open the browser at a
    table where the person plays seat 0 against ``bots``; with ``lan``, on every
    interface, printing the address and QR code a phone on the home network opens.  The
    last unfinished local game is resumed unless ``new`` is set; its table and token are
    kept beside the database.  With ``language`` the page opens in it (``?lang=tr``)
    instead of the browser's language.  When another
    ``king`` already serves this database, its table is opened instead (a new one there
    with ``new``).  ``hints`` lets a new game's person ask the engine for hints.
    ``asked`` names the options the person gave for a new game (``--bots``, …): when the
    saved game goes on instead, they are told that those options wait for ``--new``."""
    # Its owner's requests (from this machine) are theirs, unlimited; everyone else's,
    # a phone on the home network's included, are a visitor's (king.server.access).
    settings = replace(settings, local_player=LOCAL_NAME)
    if not isinstance(settings.db, Path):
        raise ServeError(
            "the local game keeps its games in a SQLite file; a postgresql:// database "
            "is for king serve"
        )
    game = _LocalStart(
        saved=settings.db.with_name("local-table.json"),
        running=settings.db.with_name("local-server.json"),
        bots=bots,
        rules=rules,
        new=new,
        hints=hints,
        language=language,
        asked=asked,
        echo=echo,
        open_browser=open_browser,
    )
    try:
        store = open_store(settings.db, durable=settings.durable)
    except StoreLockedError as error:
        game.join_running(error)
        return
    except StoreError as error:
        raise ServeError(str(error)) from None
    try:
        sock = _bind_local("0.0.0.0" if lan else "127.0.0.1", port, echo)
    except ServeError:
        store.close()
        raise
    game.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    if lan:
        game.lan_url = _lan_url(sock, echo)
        if game.lan_url is not None:
            settings = replace(settings, lan_url=game.lan_url, public_url=game.lan_url)
    PREPARING.start(bots)  # the search bot compiles while the page already opens
    log.addFilter(_not_restored)
    try:
        _run(settings, sock, game.ready, "warning", store)
    finally:
        log.removeFilter(_not_restored)
        game.running.unlink(missing_ok=True)


def _lan_url(sock: socket.socket, echo: Callable[[str], None]) -> str | None:
    """The address a phone on the home network opens, or None (told) when this
    computer has none it could reach."""
    chosen = choose_address(interface_addresses())
    if chosen is None:
        echo("king: this computer has no network address a phone could reach")
        return None
    return f"http://{chosen}:{sock.getsockname()[1]}/"


def _not_restored(record: logging.LogRecord) -> bool:
    """The person's own game goes on, or a new one closed it: a count of restored
    unfinished tables would only be news about their own game."""
    return not str(record.msg).startswith("restored %d unfinished tables")


@dataclass
class _LocalStart:
    """The local game's start: its table opened (or resumed) once the server is ready,
    and what the person is told."""

    saved: Path
    running: Path
    bots: Sequence[str]
    rules: Rules
    new: bool
    hints: bool
    language: str | None
    asked: Sequence[str]
    echo: Callable[[str], None]
    open_browser: bool
    url: str = ""
    lan_url: str | None = None

    def join_running(self, error: StoreLockedError) -> None:
        """Another ``king`` holds the database: open its table (a new one there with
        ``new``), or fail when it cannot be reached (the lock is someone else's)."""
        address = _join_running(
            self.running, self.saved, self.bots, self.rules, self.new, self.language, self.hints
        )
        if address is None:
            raise ServeError(str(error)) from None
        self.echo(f"king: king is already running; your table is at {address}")
        if self.open_browser:
            webbrowser.open(address)

    def ready(self, registry: Registry) -> None:
        """Open the table, remember where it is, tell the person and open the browser."""
        table_id, token, resumed = local_table(
            registry, self.saved, self.bots, self.rules, self.new, self.hints
        )
        if not resumed:  # bots given on the command line: no level to ask for
            note = {**(read_note(self.saved) or {}), "bots_given": "--bots" in self.asked}
            write_note(self.saved, note)
        write_note(self.running, {"url": self.url, "pid": os.getpid()})
        address = local_address(self.url, table_id, token, self.language)
        self._tell(address, resumed)
        sys.stdout.flush()
        if self.open_browser:
            threading.Thread(target=webbrowser.open, args=(address,), daemon=True).start()

    def _tell(self, address: str, resumed: bool) -> None:
        echo = self.echo
        if resumed and self.asked:
            given = " and ".join(self.asked)
            verb = "is" if len(self.asked) == 1 else "are"
            echo(
                f"king: your unfinished game goes on, so {given} {verb} not used "
                "(add --new to start a new game with them)"
            )
        echo(f"king: your table is at {address}")
        if not PREPARING.state().ready:
            echo(
                "king: the computer players are getting ready (the first start after an "
                "install compiles them: 20 s to a minute); the table shows how far"
            )
        if self.lan_url is not None:
            for line in lan_lines(self.lan_url):
                echo(line)
        echo("king: Ctrl-C stops the server (the game is saved; `king` resumes it)")


def _join_running(
    running: Path,
    saved: Path,
    bots: Sequence[str],
    rules: Rules,
    new: bool,
    language: str | None,
    hints: bool = False,
) -> str | None:
    """The address of the local table at the ``king`` that holds the database, or
    ``None`` when it cannot be reached (the lock is then someone else's)."""
    note = read_note(running)
    url = note.get("url") if note is not None else None
    if not isinstance(url, str) or not url.startswith("http://127.0.0.1:"):
        return None
    try:
        with urllib.request.urlopen(f"{url}/api/health", timeout=3) as answer:
            if not loads(answer.read()).get("ok"):
                return None
        table = read_note(saved)
        if new or table is None:
            request = local_request(bots, rules, hints).model_dump_json().encode()
            post = urllib.request.Request(
                f"{url}/api/tables", data=request, headers={"content-type": "application/json"}
            )
            with urllib.request.urlopen(post, timeout=10) as answer:
                claim = loads(answer.read())
            table = {"table": claim["table"], "token": claim["token"]}
            write_note(saved, table)
        return local_address(url, str(table["table"]), str(table["token"]), language)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
