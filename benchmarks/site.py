"""The static site (``king site``) in Debian's Chromium at a phone's size, served by
Python's ``http.server`` on 127.0.0.1: how large it is, and how soon a phone that opens
its address for the first time has a dealt hand, against the same first visit to a real
``king serve``'s offline game in the same run (the baseline).

Reported, each the median of three first visits in fresh browser profiles:

* ``site_files``, ``site_mb``, ``site_deflated_mb``: the files ``king site`` writes, their
  size, and deflated (what a host that compresses sends);
* ``site_first_visit_s``: from opening the home screen to the dealt hand, the person
  tapping "Play against the computer" as soon as it answers;
* ``site_table_first_visit_s``: from opening the table (``offline.html``, a link shared)
  to its dealt hand; ``server_table_first_visit_s`` the same at ``king serve``'s
  ``/offline``, and ``site_vs_server_first_visit`` the ratio of the two;
* ``site_kept_s``: from opening the home screen until it says the whole game is kept on
  the device (about 12 MB from the site).
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from king.server.site.static import write_site

from .server_process import ServerProcess, free_port

CHROMIUM = Path("/usr/bin/chromium")
#: First visits measured for each figure.
VISITS = 3


def _wait_for_port(port: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"http.server did not listen on {port}")


def _first_visit(playwright: Any, home: str, visit: Callable[[Any], None]) -> float:
    """Seconds ``visit(page)`` takes in a fresh profile (a phone that never opened it)."""
    with tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--headless"],
            env={**os.environ, "HOME": home},
            viewport={"width": 390, "height": 844},
            is_mobile=True,
            has_touch=True,
        )
        page = context.new_page()
        began = time.perf_counter()
        visit(page)
        spent = time.perf_counter() - began
        context.close()
    return spent


def _home_to_hand(url: str) -> Callable[[Any], None]:
    def visit(page: Any) -> None:
        page.goto(f"{url}/")
        page.wait_for_selector("body[data-ready=true]")
        page.locator("#btn-play-computer").tap()
        page.wait_for_selector("#hand .card", timeout=120000)

    return visit


def _table_to_hand(address: str) -> Callable[[Any], None]:
    def visit(page: Any) -> None:
        page.goto(address)
        page.wait_for_selector("#hand .card", timeout=120000)

    return visit


def _home_to_kept(url: str) -> Callable[[Any], None]:
    def visit(page: Any) -> None:
        page.goto(f"{url}/")
        page.wait_for_selector("#offline-keep-help[data-state=kept]", timeout=120000)

    return visit


def _median(playwright: Any, home: str, visit: Callable[[Any], None]) -> float:
    return round(statistics.median(_first_visit(playwright, home, visit) for _ in range(VISITS)), 2)


def run(seconds: float = 2.0) -> dict[str, float]:
    """Measure the static site (``seconds`` is not used: each figure is whole visits)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {}  # the test extra is not installed: nothing to measure with
    if not CHROMIUM.exists():
        return {}
    with tempfile.TemporaryDirectory() as work:
        home = Path(work)
        site = write_site(home / "site")
        files = [path for path in site.folder.rglob("*") if path.is_file()]
        deflated = sum(len(zlib.compress(path.read_bytes(), 6)) for path in files)
        port = free_port()
        command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
        server = subprocess.Popen(
            [*command, "--directory", str(site.folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_for_port(port)
            url = f"http://127.0.0.1:{port}"
            with (
                ServerProcess(home / "king.db", bot_pause=0) as king,
                sync_playwright() as playwright,
            ):
                first = _median(playwright, work, _home_to_hand(url))
                table = _median(playwright, work, _table_to_hand(f"{url}/offline.html"))
                baseline = _median(playwright, work, _table_to_hand(f"{king.url}/offline"))
                kept = _median(playwright, work, _home_to_kept(url))
        finally:
            server.terminate()
            server.wait(10)
    return {
        "site_files": len(files),
        "site_mb": round(site.bytes / 1e6, 2),
        "site_deflated_mb": round(deflated / 1e6, 2),
        "site_first_visit_s": first,
        "site_table_first_visit_s": table,
        "server_table_first_visit_s": baseline,
        "site_vs_server_first_visit": round(table / baseline, 2),
        "site_kept_s": kept,
    }
