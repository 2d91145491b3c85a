"""The first minute: ``king`` opens the table at once, even on the first start after an
install when the search bot still compiles (20 s to a minute), and the page says what is
happening with its progress; the bots play once they are ready, and nothing blocks the
server meanwhile."""

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
from tests.support.services import local_king


@pytest.mark.slow
def test_the_table_opens_while_the_search_bot_compiles_and_says_how_far_it_is(
    tmp_path: Path, browser: Browser
) -> None:
    fresh = {"NUMBA_CACHE_DIR": str(tmp_path / "numba")}  # as after an install: nothing kept
    port = free_port()
    with local_king(tmp_path, "--bots", "search", "--port", str(port), env=fresh) as (_, lines):
        said = "\n".join(lines)
        assert "compiling" not in said.split("your table is at")[0], said
        assert "getting ready" in said, said
        address = next(line.split(" at ", 1)[1] for line in lines if "your table is at" in line)
        state = httpx.get(f"http://127.0.0.1:{port}/api/preparing", timeout=10).json()
        assert state["ready"] is False and state["compiling"] is True, state
        assert state["steps"] >= 5 and 0 <= state["step"] < state["steps"], state
        assert httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=5).json()["ok"]

        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(address)
        box = page.locator("#preparing")
        box.wait_for(state="visible", timeout=15_000)
        assert "getting ready" in box.inner_text()
        assert page.locator("#preparing progress").get_attribute("max") == str(state["steps"])
        page.locator("#hand .card").first.wait_for(timeout=15_000)  # the table, dealt
        assert page.locator("#hand .card").count() == 13
        page.close()


def test_a_preparation_says_its_progress_and_the_bots_wait_for_it() -> None:
    preparation = Preparation()
    assert preparation.state().ready and preparation.ready_for("search")
    preparation.start(["rule", "random"])  # built in a blink: nothing to prepare
    assert preparation.state().ready

    preparation.start(["search:time=0.05", "rule"])
    assert not preparation.ready_for("search:time=0.05")
    assert preparation.ready_for("rule")
    seen = []
    deadline = time.monotonic() + 120
    while not preparation.state().ready and time.monotonic() < deadline:
        seen.append(preparation.state().step)
        time.sleep(0.01)
    waited = threading.Thread(target=lambda: asyncio.run(asyncio.wait_for(preparation.wait(), 1)))
    waited.start()  # (this thread may run Playwright's event loop)
    waited.join()
    state = preparation.state()
    assert state.ready and state.step == state.steps >= 5
    assert seen == sorted(seen), "the progress only goes forward"
    assert preparation.ready_for("search:time=0.05")
