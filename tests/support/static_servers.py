"""Plain static web servers that know nothing of King, in front of a folder ``king site``
wrote: Python's ``http.server`` and Debian's Caddy (``file_server`` under a sub-path, by
the Caddyfile docs/offline.md gives), each on 127.0.0.1 at a free port, stopped by its
process id."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.server_process import free_port
from tests.support import ROOT
from tests.support.documented import documented_block, need
from tests.support.reverse_proxies import CADDY, stop_process, wait_for_port

__all__ = ["caddy_file_server", "python_http_server"]

#: The documented site's name and folder, which a test replaces with its own.
DOCUMENTED_SITE = "king.example.org {"
DOCUMENTED_ROOT = "root * /srv/king"


@contextmanager
def _serving(command: list[str], port: int, log: Path, env: dict[str, str]) -> Iterator[str]:
    with log.open("ab") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env
        )
    try:
        wait_for_port(port, process, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_process(process)


@contextmanager
def python_http_server(folder: Path, log: Path) -> Iterator[str]:
    """``python -m http.server`` serving ``folder`` at the root of its address."""
    port = free_port()
    command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
    with _serving([*command, "--directory", str(folder)], port, log, dict(os.environ)) as url:
        yield url


def caddy_site(folder: Path, port: int) -> str:
    """docs/offline.md's Caddyfile for a site at ``/king/``, serving ``folder`` on
    127.0.0.1 over plain http (a secure context there, as https is elsewhere), with
    Caddy's admin endpoint off and the system's trust store untouched."""
    block = documented_block("caddy-static", ROOT / "docs" / "offline.md")
    assert DOCUMENTED_SITE in block and DOCUMENTED_ROOT in block, block
    block = block.replace(DOCUMENTED_SITE, f"http://127.0.0.1:{port} {{")
    block = block.replace(DOCUMENTED_ROOT, f"root * {folder}")
    options = "{\n\tadmin off\n\tskip_install_trust\n\tauto_https off\n}\n\n"
    return options + block


@contextmanager
def caddy_file_server(folder: Path, work: Path) -> Iterator[str]:
    """Caddy serving ``folder`` under ``/king/`` by the documented Caddyfile; the
    address of the site's folder (``http://127.0.0.1:PORT/king``)."""
    need(CADDY, "caddy")
    port = free_port()
    config = work / "Caddyfile"
    config.write_text(caddy_site(folder, port), encoding="utf-8")
    homes = {name: work / name.lower() for name in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME")}
    for path in homes.values():
        path.mkdir(exist_ok=True)
    env = {**os.environ, **{name: str(path) for name, path in homes.items()}}
    command = [str(CADDY), "run", "--config", str(config), "--adapter", "caddyfile"]
    with _serving(command, port, work / "caddy.log", env) as url:
        yield f"{url}/king"
