"""A king server in a child process, for tests and benchmarks that need the real thing
(a real uvicorn on 127.0.0.1, a real SQLite file or PostgreSQL database) and need to
kill it at will."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import weakref
from pathlib import Path
from types import TracebackType

from king.server.store.event_log import Database

__all__ = ["ServerProcess", "free_port"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ServerProcess:
    """``king serve`` on 127.0.0.1 in a child process, with its output in ``log``.

    ``db`` is a SQLite file or a PostgreSQL address; ``log`` defaults to a file beside
    the SQLite file (or in a temporary folder that goes with this object).  ``start``
    returns once ``/api/health`` answers; ``stop`` asks it to finish (SIGTERM) and
    ``kill`` ends it at once (SIGKILL), as a crash would.  The port is kept, so a
    restarted server answers at the same address.
    """

    def __init__(
        self,
        db: Database,
        *,
        port: int | None = None,
        log: Path | None = None,
        bot_pause: float = 0.0,
        away_after: float = 45.0,
        stand_in: str = "random",
        tables_per_address: int = 1000,
        guests_per_address: int = 100_000,
        redis: str | None = None,
        lease: float | None = None,
        extra: tuple[str, ...] = (),
    ) -> None:
        self.db = db
        self.port = port if port is not None else free_port()
        if log is None and isinstance(db, Path):
            log = db.parent / f"{db.name}.{self.port}.log"
        elif log is None:
            folder = Path(tempfile.mkdtemp(prefix="king-log-"))
            # Gone with this object (or at exit), as a TemporaryDirectory is: the log
            # outlives a kill and a restart, which read and append to it.
            weakref.finalize(self, shutil.rmtree, folder, ignore_errors=True)
            log = folder / f"server.{self.port}.log"
        self.log = log
        self._args = [
            sys.executable,
            "-m",
            "king",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--db",
            str(db),
            "--bot-pause",
            str(bot_pause),
            "--away-after",
            str(away_after),
            "--stand-in",
            stand_in,
            # Every test client comes from 127.0.0.1: the per-address cap would bind them
            # all together, so it is raised unless a test sets it.
            "--tables-per-address",
            str(tables_per_address),
            "--guests-per-address",
            str(guests_per_address),
            *(() if redis is None else ("--redis", redis)),
            *(() if lease is None else ("--lease", str(lease))),
            *extra,
        ]
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> ServerProcess:
        """Start the server and wait until it answers."""
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        with self.log.open("ab") as log:
            self._process = subprocess.Popen(
                self._args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"the server exited at start:\n{self.output()}")
            try:
                with urllib.request.urlopen(self.url + "/api/health", timeout=2) as answer:
                    if json.load(answer).get("ok"):
                        return self
            except (urllib.error.URLError, ConnectionError, TimeoutError, ValueError):
                time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"the server did not answer within {timeout} s:\n{self.output()}")

    def output(self) -> str:
        """What the server printed so far."""
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the server to stop, and kill it if it does not within ``timeout``."""
        process = self._process
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs."""
        process = self._process
        return None if process is None or process.poll() is not None else process.pid

    def signal(self, number: int) -> None:
        """Send the server a signal (SIGSTOP freezes it, SIGCONT wakes it)."""
        if self._process is not None and self._process.poll() is None:
            self._process.send_signal(number)

    def kill(self) -> None:
        """End the server at once, as a crash would."""
        process = self._process
        if process is None or process.poll() is not None:
            return
        process.kill()
        process.wait(10)

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
