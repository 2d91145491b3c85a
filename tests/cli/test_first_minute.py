"""The first minute: ``king`` opens the table at once, and when the person chooses the
strongest level (Expert) in the level box, its bots play at once: there is nothing to
compile (the engine is WebAssembly the package ships, loaded in a tenth of a second),
the "getting ready" bar is never up for a second, and nothing blocks the server."""

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


#: Records, in the page, how long the "getting ready" box is in view (it may never be).
WATCH_PREPARING = """
window.__preparing = { shown: 0, since: null };
document.addEventListener("DOMContentLoaded", () => {
  const box = document.getElementById("preparing");
  const note = () => {
    const now = performance.now();
    const seen = window.__preparing;
    if (!box.hidden && seen.since === null) seen.since = now;
    if (box.hidden && seen.since !== null) { seen.shown += now - seen.since; seen.since = null; }
  };
  new MutationObserver(note).observe(box, { attributes: true, attributeFilter: ["hidden"] });
  note();
});
"""


@pytest.mark.slow
@pytest.mark.alone  # its bounds are times (half a second, a second) on two cores, not the suite's
def test_choosing_expert_in_the_first_box_plays_at_once(tmp_path: Path, browser: Browser) -> None:
    """As after an install (a fresh home, nothing kept anywhere): ``king`` opens the
    table against Medium; the person chooses Expert in the level box; Expert's players
    play without a "getting ready" bar worth the name (under a second in view), and
    every other request is answered within half a second throughout."""
    port = free_port()
    with local_king(tmp_path, "--port", str(port), bots=False) as (_, lines):
        said = "\n".join(lines)
        assert "getting ready" not in said and "compiling" not in said, said
        address = next(line.split(" at ", 1)[1] for line in lines if "your table is at" in line)
        url = f"http://127.0.0.1:{port}"
        latency = Latency(url)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.add_init_script(WATCH_PREPARING)
        page.goto(address)
        page.wait_for_selector("#dlg-level[open]")
        page.click('#dlg-level [data-level="expert"]')
        page.wait_for_url("**/t/*")
        page.locator("#hand .card").first.wait_for(timeout=15_000)  # the table, dealt
        deadline = time.monotonic() + 60
        while page.locator(BOTS_CARDS).count() == 0:  # Expert plays (the person too)
            assert time.monotonic() < deadline, "no computer player played a card"
            step(page)
        shown = page.evaluate(
            "() => { const seen = window.__preparing;"
            " return seen.shown + (seen.since === null ? 0 : performance.now() - seen.since); }"
        )
        assert shown < 1000, f"the getting-ready box was in view {shown:.0f} ms"
        assert httpx.get(f"{url}/api/preparing", timeout=10).json()["ready"] is True
        slowest = latency.stop()
        assert latency.asked > 10
        assert slowest < 0.5, f"/api/live took {slowest:.2f} s while Expert got ready"
        page.close()


def test_a_preparation_says_its_progress_and_the_bots_wait_for_it() -> None:
    preparation = Preparation()
    assert preparation.state().ready and not preparation.ready_for("search:time=0.05")
    preparation.start(["rule", "random"])  # built in a blink: nothing to prepare
    assert preparation.state().ready and preparation.ready_for("rule")

    preparation.start(["search:time=0.05", "rule"])
    assert preparation.ready_for("rule")  # (the search bot may be ready already: a blink)
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
    assert state.ready and state.step == state.steps >= 1
    assert seen == sorted(seen), "the progress only goes forward"
    assert preparation.ready_for("search:time=0.05")
