"""The page, in Debian's Chromium, at a table shared by three server processes: opened at
a process that does not own the table (so every message is relayed to the owner), it
plays on by itself when the owner is killed, and when the owner freezes."""

from __future__ import annotations

import signal
import time
from typing import Any

import httpx
import pytest

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import Browser, Page

from tests.support.pages import PHONE, step, watch_errors
from tests.support.services import LEASE, Cluster


def open_table(cluster: Cluster, browser: Browser) -> tuple[Page, str, list[str]]:
    """A table made at process 0 and played from process 1's page; the page errors."""
    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3
    body = {"name": "Ada", "seats": seats, "seat": 0, "seed": 21}
    made = httpx.post(f"{cluster.urls[0]}/api/tables", json=body, timeout=10)
    assert made.status_code == 201, made.text
    claim: dict[str, Any] = made.json()
    page = browser.new_page(viewport=PHONE, reduced_motion="reduce")
    errors = watch_errors(page)
    page.goto(f"{cluster.urls[1]}/t/{claim['table']}#token={claim['token']}")
    page.wait_for_selector("#hand .card")
    return page, claim["table"], errors


def play_cards(page: Page, count: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    played = 0
    while played < count:
        assert time.monotonic() < deadline, f"only {played} of {count} cards were played"
        done = step(page)
        if done == "summary":
            page.click("#summary-continue")
        played += done == "played"


def owner_process(cluster: Cluster, table: str) -> int:
    process = cluster.process_of(cluster.owners()[table])
    assert process is not None
    return cluster.processes.index(process)


@pytest.mark.slow
def test_the_page_plays_on_when_the_tables_owner_is_killed(
    cluster: Cluster, browser: Browser
) -> None:
    page, table, errors = open_table(cluster, browser)
    play_cards(page, 3, timeout=30)
    assert owner_process(cluster, table) == 0  # the page's process relays to it
    cluster.processes[0].kill()
    killed = time.monotonic()
    play_cards(page, 1, timeout=10)
    # Another process has taken the table within five seconds of the kill (a lease,
    # 1.5 s, runs out first: the click above may come before it).
    while cluster.process_of(cluster.owners()[table]) is None:
        assert time.monotonic() - killed < 5, "no process took the table over"
        time.sleep(0.05)
    assert owner_process(cluster, table) in (1, 2)
    play_cards(page, 4, timeout=30)
    assert not errors, errors
    page.close()


@pytest.mark.slow
def test_the_page_plays_on_when_the_tables_owner_freezes(
    cluster: Cluster, browser: Browser
) -> None:
    page, table, errors = open_table(cluster, browser)
    play_cards(page, 2, timeout=30)
    frozen = cluster.processes[0]
    frozen.signal(signal.SIGSTOP)
    try:
        # Its lease passes; another process takes the table; the page's process drops
        # the relayed socket and the page reconnects there.
        play_cards(page, 2, timeout=LEASE * 2 + 10)
        assert owner_process(cluster, table) in (1, 2)
    finally:
        frozen.signal(signal.SIGCONT)
    play_cards(page, 2, timeout=20)
    assert not errors, errors
    page.close()
