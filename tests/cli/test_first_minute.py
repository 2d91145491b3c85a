"""The first minute: ``king`` opens the table at once, and when the person chooses a
level whose bots must compile first (Hard after an install: 20 s to a minute), the page
says what is happening with its progress; the bots play once they are ready, and
nothing blocks the server meanwhile."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser

from benchmarks.server_process import free_port
from king.server.engine.preparing import Preparation
from tests.support.pages import step
from tests.support.services import local_king

#: A computer player's card on the felt (the person's is at the bottom).
BOTS_CARDS = "#trick .slot:not([data-pos='bottom']) .card"


class Latency:
    """The slowest answer of ``/api/live`` while it is asked every 50 ms, in a thread."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.slowest = 0.0
        self.asked = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._ask, daemon=True)
        self._thread.start()

    def _ask(self) -> None:
        with httpx.Client(timeout=300) as client:
            while not self._stop.wait(0.05):
                start = time.monotonic()
                assert client.get(f"{self.url}/api/live").status_code == 200
                self.slowest = max(self.slowest, time.monotonic() - start)
                self.asked += 1

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.slowest


@pytest.mark.slow
def test_choosing_hard_in_the_first_box_never_stops_the_server(
    tmp_path: Path, browser: Browser
) -> None:
    """As after an install (nothing compiled): ``king`` opens the table against Medium,
    whose bots need nothing; the person chooses Hard in the level box; the table says
    the players are getting ready, with progress, while the search bot compiles in the
    background; the person may open the level box meanwhile; Hard plays once ready.
    Every other request is answered within half a second throughout."""
    fresh = {"NUMBA_CACHE_DIR": str(tmp_path / "numba")}  # as after an install: nothing kept
    port = free_port()
    with local_king(tmp_path, "--port", str(port), bots=False, env=fresh) as (_, lines):
        said = "\n".join(lines)
        assert "getting ready" not in said, said  # Medium needs nothing prepared
        address = next(line.split(" at ", 1)[1] for line in lines if "your table is at" in line)
        url = f"http://127.0.0.1:{port}"
        latency = Latency(url)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(address)
        page.wait_for_selector("#dlg-level[open]")
        page.click('#dlg-level [data-level="hard"]')
        page.wait_for_url("**/t/*")
        box = page.locator("#preparing")
        box.wait_for(state="visible", timeout=15_000)
        assert "getting ready" in box.inner_text()
        state = httpx.get(f"{url}/api/preparing", timeout=10).json()
        assert state["ready"] is False and state["compiling"] is True, state
        assert state["steps"] >= 5, state  # the kernels' steps, then Hard's own
        page.wait_for_function(
            "(steps) => document.querySelector('#preparing progress').max === steps",
            arg=state["steps"],
        )
        page.locator("#hand .card").first.wait_for(timeout=15_000)  # the table, dealt
        page.click("#btn-more")  # another level may be chosen meanwhile
        page.click("#btn-level")
        page.wait_for_selector("#dlg-level[open] #level-cancel")
        page.click("#level-cancel")
        box.wait_for(state="hidden", timeout=180_000)
        deadline = time.monotonic() + 60
        while page.locator(BOTS_CARDS).count() == 0:  # Hard plays (the person too)
            assert time.monotonic() < deadline, "no computer player played a card"
            step(page)
        slowest = latency.stop()
        assert latency.asked > 100
        assert slowest < 0.5, f"/api/live took {slowest:.2f} s while Hard got ready"
        page.close()


def test_a_preparation_says_its_progress_and_the_bots_wait_for_it() -> None:
    preparation = Preparation()
    assert preparation.state().ready and not preparation.ready_for("search:time=0.05")
    preparation.start(["rule", "random"])  # built in a blink: nothing to prepare
    assert preparation.state().ready and preparation.ready_for("rule")

    preparation.start(["search:time=0.05", "rule"])
    assert not preparation.ready_for("search:time=0.05")
    assert preparation.ready_for("rule")
    seen = []
    deadline = time.monotonic() + 120
    while not preparation.state().ready and time.monotonic() < deadline:
        seen.append(preparation.state().step)
        time.sleep(0.01)
    ready = preparation.ready("search:time=0.05")
    waited = threading.Thread(target=lambda: asyncio.run(asyncio.wait_for(ready, 1)))
    waited.start()  # (this thread may run Playwright's event loop)
    waited.join()
    state = preparation.state()
    assert state.ready and state.step == state.steps >= 5
    assert seen == sorted(seen), "the progress only goes forward"
    assert preparation.ready_for("search:time=0.05")
