"""Real PostgreSQL and Redis servers in child processes, for the tests and benchmarks that run the
king server past one machine: started on 127.0.0.1 on a free port in a folder of their
own, stopped (and the folder removed) when done.

Debian's ``postgresql`` package provides the programs (``initdb`` and ``postgres`` under
``/usr/lib/postgresql/*/bin``).  PostgreSQL refuses to run as root, so under root the
server runs as the ``postgres`` user the package creates.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from king.errors import KingError

from .server_process import free_port

__all__ = [
    "PostgresServer",
    "RedisServer",
    "ServiceMissingError",
    "lease_holders",
    "postgres_programs",
]


class ServiceMissingError(KingError, RuntimeError):
    """A server program is not installed; the message says how to install it."""


def postgres_programs() -> Path:
    """The folder of PostgreSQL's server programs (the newest installed version)."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/postgres"),
        key=lambda path: int(path.parts[-3]) if path.parts[-3].isdigit() else 0,
    )
    if not found:
        on_path = shutil.which("postgres")
        if on_path is None:
            raise ServiceMissingError("PostgreSQL is not installed: apt-get install -y postgresql")
        return Path(on_path).parent
    return found[-1].parent


class _ChildServer:
    """A server program in a child process with a folder of its own, on a free port:
    stopped (``stop_signal``, then killed if it lingers) and its folder removed on
    ``stop`` or on leaving a ``with`` block."""

    stop_signal = signal.SIGTERM

    def __init__(self, port: int | None = None) -> None:
        self.port = port if port is not None else free_port()
        self.folder: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> Self:
        raise NotImplementedError

    def halt(self) -> None:
        """Stop the server program but keep its folder (a restart, or an outage, in a
        test of what the king servers do meanwhile); idempotent."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.send_signal(self.stop_signal)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)

    def stop(self) -> None:
        """Stop the server and remove its folder; idempotent."""
        self.halt()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()


class PostgresServer(_ChildServer):
    """A throwaway PostgreSQL server: user ``king``, no password (trust on 127.0.0.1),
    one database per :meth:`create_database`.

    ``fsync`` is off: these servers hold test data only, and a king server killed with
    ``kill -9`` loses nothing either way (it is the king process that dies, not this).
    """

    stop_signal = signal.SIGINT  # a fast shutdown

    def __init__(self, port: int | None = None) -> None:
        super().__init__(port)
        self._databases = 0

    def address(self, database: str = "postgres") -> str:
        """The address of one of this server's databases."""
        return f"postgresql://king@127.0.0.1:{self.port}/{database}"

    def start(self, timeout: float = 60.0) -> PostgresServer:
        """Make the cluster and start the server; returns once it accepts connections."""
        programs = postgres_programs()
        folder = Path(tempfile.mkdtemp(prefix="king-postgres-"))
        self.folder = folder
        owner = _owner()
        if owner is not None:
            os.chown(folder, owner.pw_uid, owner.pw_gid)
        data = folder / "data"
        as_owner: dict[str, Any] = (
            {} if owner is None else {"user": owner.pw_uid, "group": owner.pw_gid}
        )
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
        made = subprocess.run(
            [
                str(programs / "initdb"),
                "-D",
                str(data),
                "-U",
                "king",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            capture_output=True,
            env=env,
            cwd=folder,
            check=False,
            **as_owner,
        )
        if made.returncode != 0:
            self.stop()
            raise RuntimeError(f"initdb failed:\n{made.stdout.decode()}{made.stderr.decode()}")
        return self.resume(timeout)

    def resume(self, timeout: float = 60.0) -> PostgresServer:
        """Start the server on its cluster (after :meth:`halt`, the same data and port);
        returns once it accepts connections."""
        folder = self.folder
        assert folder is not None, "start makes the cluster first"
        owner = _owner()
        data = folder / "data"
        as_owner: dict[str, Any] = (
            {} if owner is None else {"user": owner.pw_uid, "group": owner.pw_gid}
        )
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
        programs = postgres_programs()
        log = folder / "postgres.log"
        with log.open("ab") as output:
            if owner is not None:
                os.chown(log, owner.pw_uid, owner.pw_gid)
            self._process = subprocess.Popen(
                [
                    str(programs / "postgres"),
                    "-D",
                    str(data),
                    "-p",
                    str(self.port),
                    "-k",
                    str(folder),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    "fsync=off",
                    "-c",
                    "full_page_writes=off",
                    "-c",
                    "max_connections=200",
                ],
                stdout=output,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=folder,
                **as_owner,
            )
        self._wait(timeout)
        return self

    def _wait(self, timeout: float) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            process = self._process
            if process is None or process.poll() is not None:
                raise RuntimeError(f"PostgreSQL exited at start:\n{self.output()}")
            try:
                psycopg.connect(self.address(), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(
                        f"PostgreSQL did not answer within {timeout} s:\n{self.output()}"
                    ) from None
                time.sleep(0.1)

    def create_database(self, name: str | None = None) -> str:
        """A new empty database; returns its address."""
        import psycopg

        self._databases += 1
        name = name or f"king_{self._databases}"
        with psycopg.connect(self.address(), autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{name}"')
        return self.address(name)

    def output(self) -> str:
        """What the server logged so far."""
        if self.folder is None:
            return ""
        try:
            return (self.folder / "postgres.log").read_text(errors="replace")
        except OSError:
            return ""


def _owner() -> pwd.struct_passwd | None:
    """The user to run PostgreSQL as: ``postgres`` under root, else nobody else."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("postgres")
    except KeyError:
        raise ServiceMissingError(
            "PostgreSQL refuses to run as root and there is no postgres user: "
            "apt-get install -y postgresql creates it"
        ) from None


class RedisServer(_ChildServer):
    """A throwaway ``redis-server`` on 127.0.0.1 (no persistence), from Debian's
    ``redis-server`` package."""

    @property
    def address(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 30.0) -> RedisServer:
        """Start the server; returns once it answers PING."""
        program = shutil.which("redis-server") or "/usr/bin/redis-server"
        if not Path(program).exists():
            raise ServiceMissingError("Redis is not installed: apt-get install -y redis-server")
        if self.folder is None:  # started again after halt: empty, as after a crash
            self.folder = Path(tempfile.mkdtemp(prefix="king-redis-"))
        log = self.folder / "redis.log"
        with log.open("ab") as output:
            self._process = subprocess.Popen(
                [
                    program,
                    "--port",
                    str(self.port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(self.folder),
                ],
                stdout=output,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        import redis

        deadline = time.monotonic() + timeout
        while True:
            if self._process.poll() is not None:
                raise RuntimeError(f"redis-server exited at start:\n{log.read_text()}")
            try:
                redis.Redis.from_url(self.address, socket_connect_timeout=1).ping()
                return self
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"redis-server did not answer within {timeout} s") from None
                time.sleep(0.05)


def lease_holders(address: str, prefix: str = "king") -> dict[str, str]:
    """Each table's lease holder now (a process name), read from the Redis at
    ``address``: who owns what, for tests and benchmarks that kill owners."""
    import redis

    client = redis.Redis.from_url(address)
    try:
        found: dict[str, str] = {}
        for key in client.scan_iter(f"{prefix}:lease:*"):
            value = client.get(key)
            if isinstance(key, bytes) and isinstance(value, bytes):
                found[key.decode().split(":", 2)[2]] = value.decode().rsplit(":", 1)[0]
        return found
    finally:
        client.close()
