"""docs/deploy.md's systemd unit, run as it is written: as a system user with no home
(``nobody``, whose home is the documented user's ``/nonexistent``) who may not write the
package's folders, with the unit's environment and its ``ExecStart`` line reading the
documented configuration file.  Only what a test must change is changed: the database,
the port and where /etc/king is.

(systemd itself does not run in a test: what it would do for this unit is done here,
and said in each step.)"""

from __future__ import annotations

import os
import pwd
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from benchmarks.server_process import free_port
from tests.support.documented import documented_block, need
from tests.support.service_python import ServicePython, service_python

SETPRIV = Path("/usr/bin/setpriv")
#: The stand-in for the documented ``king`` user: a system user with no home.
USER = "nobody"
#: The environment systemd gives a service of ``User=``, before the unit's own lines.
SYSTEMD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@pytest.fixture
def folder() -> Iterator[Path]:
    """Where /etc/king is in this test: a folder every user may enter (a test's
    tmp_path is its owner's alone)."""
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("the systemd unit's test runs as root (it switches to nobody)")
        pytest.skip("the systemd unit's test runs as root (it switches to nobody)")
    need(SETPRIV, "util-linux")
    path = Path(tempfile.mkdtemp(prefix="king-systemd-"))
    path.chmod(0o755)
    # /opt/king/venv: king and what it needs where the user may read them, wherever
    # this checkout and its environment are (a folder of mode 700 included).
    service_python(path / "opt" / "king" / "venv")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def unit_service(block: str) -> dict[str, list[str]]:
    """The unit's [Service] lines, by key (Environment= comes more than once)."""
    lines: dict[str, list[str]] = {}
    section = ""
    for raw in block.splitlines():
        line = raw.strip()
        if line.startswith("[") and line.endswith("]"):
            section = line
        elif section == "[Service]" and "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            lines.setdefault(key, []).append(value)
    return lines


def made_like_systemd(folder: Path, database: str, port: int, user: pwd.struct_passwd) -> Path:
    """/etc/king as the documented commands make it, with the documented configuration
    file (the test's database and port)."""
    setup = documented_block("system-user")
    assert "--no-create-home --home-dir /nonexistent" in setup, setup
    assert user.pw_dir == "/nonexistent", f"{USER}'s home is {user.pw_dir}"
    etc = folder / "etc" / "king"
    etc.mkdir(parents=True)
    os.chown(etc, 0, user.pw_gid)
    etc.chmod(0o750)  # install -d -o root -g king -m 0750 /etc/king
    config = documented_block("config-file")
    config, found = re.subn(r'(?m)^db = ".*"$', f'db = "{database}"', config)
    config, ports = re.subn(r"(?m)^port = \d+$", f"port = {port}", config)
    assert found == 1 and ports == 1, config
    toml = etc / "king.toml"
    toml.write_text(config, encoding="utf-8")
    os.chown(toml, 0, user.pw_gid)
    toml.chmod(0o640)
    pgpass = etc / "pgpass"  # host:port:database:user:password (the test's trusts anyway)
    found_address = re.match(r"postgresql://(\w+)@([\d.]+):(\d+)/(\w+)", database)
    assert found_address is not None, database
    name, host, db_port, db = found_address.groups()
    pgpass.write_text(f"{host}:{db_port}:{db}:{name}:unused\n", encoding="utf-8")
    os.chown(pgpass, user.pw_uid, user.pw_gid)
    pgpass.chmod(0o600)
    return folder


def service_command(
    service: dict[str, list[str]], folder: Path, user: pwd.struct_passwd
) -> tuple[list[str], dict[str, str]]:
    """The unit's ExecStart as ``user`` (king from the environment the fixture linked
    under /opt/king/venv), and the environment systemd would give it: its own and the
    unit's Environment= lines."""

    def placed(text: str) -> str:
        for documented in ("/etc/king",):
            text = text.replace(documented, str(folder) + documented)
        return text

    python = ServicePython.at(folder / "opt" / "king" / "venv")
    env = {
        **python.env(),
        "PATH": SYSTEMD_PATH,
        "HOME": user.pw_dir,
        "USER": user.pw_name,
        "LOGNAME": user.pw_name,
        "LANG": "C.UTF-8",
    }
    for line in service.get("Environment", []):
        key, value = line.split("=", 1)
        env[key] = placed(value)
    [exec_start] = service["ExecStart"]
    words = shlex.split(placed(exec_start))
    assert words[0] == "/opt/king/venv/bin/king", exec_start
    # Python itself (not the venv's king script) is what setpriv starts: a script's
    # interpreter line may point into a folder the service's user cannot enter.
    switch = [str(SETPRIV), f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]
    return [*switch, str(python.executable), "-m", "king", *words[1:]], env


def start(command: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], list[str]]:
    """Start the service (working folder /, as systemd's) and read its lines meanwhile."""
    process = subprocess.Popen(
        command, env=env, cwd="/", stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    lines: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        lines.extend(process.stdout)

    threading.Thread(target=read, daemon=True).start()
    return process, lines


def wait_for(what: str, check: Any, process: subprocess.Popen[str], lines: list[str]) -> None:
    deadline = time.monotonic() + 120
    while not check():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"the service never {what}:\n" + "".join(lines))
        time.sleep(0.2)


def _ready(url: str) -> bool:
    return bool(httpx.get(f"{url}/api/preparing", timeout=10).json()["ready"])


@pytest.mark.slow
def test_the_documented_unit_serves_as_a_system_user_with_no_home(
    folder: Path, postgres_server: Any
) -> None:
    user = pwd.getpwnam(USER)
    service = unit_service(documented_block("systemd-unit"))
    assert service["User"] == ["king"] and "CacheDirectory" not in service
    port = free_port()
    made_like_systemd(folder, postgres_server.create_database(), port, user)
    command, env = service_command(service, folder, user)
    process, lines = start(command, env)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for(
            "served", lambda: any("serving tables at" in line for line in lines), process, lines
        )
        assert httpx.get(f"{url}/api/ready", timeout=10).status_code == 200
        seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "hard"}] * 3
        made = httpx.post(f"{url}/api/tables", json={"name": "Ada", "seats": seats}, timeout=10)
        assert made.status_code == 201, made.text
        # The strongest bot gets ready in the background with nothing to write: the
        # engine is a file of the package the user may only read.
        wait_for("got its bots ready", lambda: _ready(url), process, lines)
    finally:
        process.send_signal(signal.SIGTERM)  # KillSignal=SIGTERM
        code = process.wait(15)  # TimeoutStopSec=15
    output = "".join(lines)
    # Stopped by its KillSignal: a clean stop to systemd (its SuccessExitStatus).
    assert code in (0, -signal.SIGTERM), output
    assert "Traceback" not in output, output
    assert " INFO " in output  # the configuration file's log-level
