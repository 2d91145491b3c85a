"""Every level on the phone, with no server and no network: the offline game plays a
whole game against an Expert, a Hard and a Beginner player at one table (the two search
bots' engine the page's own WebAssembly in the game's Web Worker, the Beginner the rule
bot forgetting and careless by its seeded draws) by tapping, Trumps by its button, gives
a hint, and opens the finished game's analysis board with every decision graded on the
device; the record the page keeps is the one CPython makes for the same seed and bots,
bit for bit.  (The suite's one whole game in the page: the other offline tests resume a
game saved near its end; tests/web/test_web_offline.py kills the page mid-deal.)"""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext

from benchmarks.server_process import ServerProcess
from tests.support.games import play_record_again
from tests.support.offline_pages import (
    downloaded_record,
    keep_for_offline,
    tap_what_is_asked,
    wait_until_ready,
)
from tests.support.pages import asked

#: The strongest level, the next and the weakest, moving at once, and hints on.
LEVELS = ["expert", "hard", "beginner"]
TABLE = f"/offline?bot_pause=0&bots={','.join(LEVELS)}&hints=1"


def _hint_once(page: object) -> str:
    """Ask for a hint at the person's card and wait for its best card to be marked."""
    from playwright.sync_api import Page

    assert isinstance(page, Page)
    page.locator("#btn-hint").tap()
    best = page.locator("#hand .card[data-hint-best]")
    best.first.wait_for(timeout=30000)
    assert page.locator("#hand .card[data-hint-loss]").count() >= 1
    return str(best.first.get_attribute("data-card"))


@pytest.mark.slow
def test_a_whole_game_against_an_expert_a_hard_and_a_beginner_offline_with_a_hint_and_its_analysis(
    browser: Browser, phone: BrowserContext, tmp_path: Path
) -> None:
    with ExitStack() as stack:
        server = stack.enter_context(ServerProcess(tmp_path / "king.db", bot_pause=0))
        url = server.url
        page = phone.new_page()
        keep_for_offline(page, url)
    phone.set_offline(True)  # the server is stopped, and the network is gone
    page.goto(f"{url}{TABLE}")
    wait_until_ready(page)
    names = page.eval_on_selector_all(
        ".seat[data-seat] .seat-name", "ns => ns.map(n => n.textContent)"
    )
    assert sorted(names) == ["Beginner bot 3", "Expert bot 1", "Hard bot 2", "You"], names
    assert page.locator("#hints-badge").is_visible()
    hinted = ""
    trumps = 0
    deadline = time.monotonic() + 900
    while (now := asked(page)) != "over":
        assert time.monotonic() < deadline, "the game did not end"
        if not hinted and now == "play" and len(page.locator("#hand .card").all()) > 5:
            hinted = _hint_once(page)
        trumps += tap_what_is_asked(page) == "trumps"
    assert hinted, "a hint was asked for and shown"
    assert trumps == 2, "the person's two Trumps, declared by tapping their buttons"
    assert page.locator("#deal-info").inner_text().strip() == "The game is over"
    text = downloaded_record(page, tmp_path / "offline-levels.json")
    record = json.loads(text)
    assert record["players"][1:] == ["Expert bot 1", "Hard bot 2", "Beginner bot 3"]
    # The players in the page played what CPython's play for the same seed.
    assert play_record_again(text, LEVELS) == record
    # The analysis board, analysed on the device: every decision graded.
    board = phone.new_page()
    board.goto(f"{url}/board?offline")
    board.wait_for_function(
        "() => document.getElementById('board').dataset.analysis === 'done'", timeout=300000
    )
    with board.expect_download() as saved:
        board.locator("#board-download").click()
    analysed_path = tmp_path / "offline-levels-analysed.json"
    saved.value.save_as(analysed_path)
    analysed = json.loads(analysed_path.read_text(encoding="utf-8"))
    deals = analysed["analysis"]["deals"]
    assert len(deals) == 20 and analysed["analysis"]["engine"].startswith("search:")
    for number, deal in enumerate(deals):
        decisions = deal["decisions"]
        assert len(decisions) == 53, (number, len(decisions))  # a declaration, 52 cards
        assert all(d["best"] and d["loss"] >= 0 for d in decisions)
        assert sum(not d["forced"] for d in decisions) > 20  # choices were valued
    assert board.locator("#board-felt").is_visible()
    board.close()
