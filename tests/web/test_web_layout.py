"""The table's layout at the eight sizes of the phone tests and a small phone sideways
(640x360), in Debian's Chromium: no element that carries text overlaps another, every
tap target is at least 44 x 44 CSS px (a card in the hand: the strip of it in view),
the numbers on the table are the summary's while it is open, your own seat's points
stay on the table sideways (a deal at 640x360 here; the phone tests check the same in
the deal they play at each of their sizes), and every dialog opens with its title in
view (the game over too, with no box scrolling inside it: as a watched game ends, on a
phone, and at every size on a finished game, which the page draws with the same
sheet)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from benchmarks.server_process import ServerProcess
from tests.support.layout import (
    HOME_TEXT,
    NESTED_SCROLLS,
    OVERLAPS,
    OVERLAPS_OF,
    SMALL_TAP_TARGETS,
    TITLE_IN_VIEW,
    check_summary_numbers,
    layout_faults,
)
from tests.support.pages import CHOICES, LEGAL, asked
from tests.support.peers import create, play_to_the_end, player
from tests.web.test_web_phone import QUICK_SIZES, SIZES, open_table

#: The phone tests' eight sizes and a small phone sideways.
LAYOUT_SIZES = [*SIZES, (640, 360)]


def sizes() -> list[Any]:
    return [
        pytest.param(
            size, id=f"{size[0]}x{size[1]}", marks=() if size in QUICK_SIZES else pytest.mark.slow
        )
        for size in LAYOUT_SIZES
    ]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("layout") / "king.db", bot_pause=0) as process:
        yield process


def play_to_the_summary(page: Page, faults: list[str]) -> None:
    """Declare and play (checking the layout and the tap targets as the deal goes) until
    the summary opens."""
    deadline = time.monotonic() + 90
    while (now := asked(page)) != "summary":
        assert time.monotonic() < deadline, "the deal did not end"
        faults.extend(layout_faults(page))
        if now == "declare":  # No Hearts: the seats' boxes fill with the hearts taken
            hearts = page.locator(f"{CHOICES}[data-contract='no-hearts']:not([disabled])")
            (hearts if hearts.count() else page.locator(f"{CHOICES}:not([disabled])")).first.click()
        elif now == "play":
            page.locator(LEGAL).first.click()


#: The size the phone tests do not play a deal at (they check the layout of theirs:
#: tests/web/test_web_phone.py, every screen's deal).
SMALL_SIDEWAYS = (640, 360)


@pytest.mark.slow
def test_a_deal_on_a_small_phone_sideways_overlaps_nothing_and_ends_with_the_summary_s_numbers(
    browser: Browser, server: ServerProcess
) -> None:
    page = open_table(browser, server, SMALL_SIDEWAYS, seed=12, motion="reduce")
    page.wait_for_selector("#hand .card")
    faults: list[str] = []
    play_to_the_summary(page, faults)
    assert not faults, sorted(set(faults))
    check_summary_numbers(page, SMALL_SIDEWAYS)
    page.context.close()


def bots_game(server: ServerProcess) -> str:
    """A table of four rule bots (they move for watchers)."""
    body = {"seats": [{"kind": "bot", "bot": "rule"}] * 4, "seat": None, "name": "Ada", "seed": 3}
    table: str = httpx.post(f"{server.url}/api/tables", json=body, timeout=10).json()["table"]
    return table


#: What a player reads at the game over: their own place in view as it opens, every
#: contract name whole (no cell cut short), and one primary button.
GAME_OVER_READS = """() => {
  const dialog = document.getElementById("dlg-sheet");
  const mine = dialog.querySelector(".places li.me");
  const box = mine ? mine.getBoundingClientRect() : null;
  const seen = (x, y) => mine.contains(document.elementFromPoint(x, y));
  const cells = [...dialog.querySelectorAll("table td:first-child, table td:nth-child(2)")];
  return {
    mineInView: box === null ? null : box.top >= 0 && box.bottom <= innerHeight
      && seen(box.left + 8, box.top + 4) && seen(box.right - 8, box.bottom - 4),
    cut: cells.filter((cell) => cell.scrollWidth > cell.clientWidth + 1)
      .map((cell) => cell.textContent),
    primary: dialog.querySelectorAll(".dialog-buttons .primary").length,
  };
}"""


def game_over_fits(
    browser: Browser, server: ServerProcess, address: str, size: tuple[int, int]
) -> dict[str, Any]:
    """Open the table until its game over opens, and check that it opens at its title
    with no box scrolling inside it and no tap target too small; returns what a player
    reads there."""
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, reduced_motion="reduce"
    )
    page = context.new_page()
    page.goto(f"{server.url}{address}")
    page.wait_for_selector("#dlg-sheet[open] .game-over", timeout=120000)
    assert page.evaluate(TITLE_IN_VIEW, "dlg-sheet"), "the game over opens at its title"
    assert page.evaluate(NESTED_SCROLLS, "dlg-sheet") == []
    reads: dict[str, Any] = page.evaluate(GAME_OVER_READS)
    assert page.evaluate(SMALL_TAP_TARGETS) == []
    context.close()
    return reads


@pytest.fixture(scope="module")
def finished_game(server: ServerProcess) -> str:
    """A whole game of a person (played by a client of ours, first legal move each
    time) and three bots, to its end: the address that opens it at the person's seat."""
    claim = create(server, ["human", "rule", "rule", "rule"], seed=3)
    peer, _ = player(server, claim["table"], claim["token"])
    play_to_the_end(peer)
    peer.close()
    return f"/t/{claim['table']}#token={claim['token']}"


@pytest.mark.slow
def test_a_watched_game_ends_with_its_game_over_open_at_its_title(
    browser: Browser, server: ServerProcess
) -> None:
    # The sheet opens by itself as the last trick is taken, on a phone.
    game_over_fits(browser, server, f"/t/{bots_game(server)}?watch", (390, 844))


@pytest.mark.parametrize("size", sizes())
def test_the_game_over_opens_at_its_title_and_scrolls_as_one(
    browser: Browser, server: ServerProcess, finished_game: str, size: tuple[int, int]
) -> None:
    # The same sheet, opened on a finished game (the page draws it as at the end), by
    # its player: their own place in view, every contract named whole, one primary.
    reads = game_over_fits(browser, server, finished_game, size)
    assert reads == {"mineInView": True, "cut": [], "primary": 1}, reads


@pytest.mark.parametrize("size", sizes())
def test_the_home_screen_at_every_size_overlaps_nothing_and_its_dialog_opens_at_its_title(
    browser: Browser, server: ServerProcess, size: tuple[int, int]
) -> None:
    body = {"seats": [{"kind": "human"}] * 2 + [{"kind": "bot", "bot": "rule"}] * 2}
    httpx.post(f"{server.url}/api/tables", json={**body, "name": "Zeynep"}, timeout=10)
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(f"{server.url}/")
    page.wait_for_selector("#open-tables li.table-item")
    assert "Zeynep" in page.inner_text("#open-tables")  # named by its host
    assert page.evaluate(f"({OVERLAPS_OF})({HOME_TEXT!r})") == []
    page.wait_for_selector('body[data-ready="true"]')
    page.click("#custom-table summary")  # the custom table's fields and checkboxes too
    assert page.evaluate(SMALL_TAP_TARGETS) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    page.wait_for_selector('body[data-ready="true"]')
    page.click("#btn-play-friends")
    assert page.evaluate(TITLE_IN_VIEW, "dlg-friends")
    context.close()


@pytest.mark.parametrize("size", sizes())
def test_a_table_of_friends_at_every_size_overlaps_nothing(
    browser: Browser, server: ServerProcess, size: tuple[int, int]
) -> None:
    body = {"seats": [{"kind": "human"}] * 2 + [{"kind": "bot", "bot": "rule"}] * 2, "name": "Ada"}
    claim = httpx.post(f"{server.url}/api/tables", json=body, timeout=10).json()
    join = {"name": "Zeynep", "seat": 1}
    httpx.post(f"{server.url}/api/tables/{claim['table']}/join", json=join, timeout=10)
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(f"{server.url}/t/{claim['table']}#token={claim['token']}")
    page.wait_for_selector("#hand .card")
    page.wait_for_selector("#btn-react:not([hidden])")
    page.wait_for_selector('.seat[data-seat="1"] .badge')  # on her way: the longest seat
    assert page.evaluate(OVERLAPS) == []
    assert page.evaluate(SMALL_TAP_TARGETS) == []
    context.close()
