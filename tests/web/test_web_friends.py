"""A table of friends, as the others see it (Chromium): a friend who just took a seat is
on the way, not away; one who left is away with the seconds before a computer player
plays for them counting down, on their seat and in the turn line, for everyone."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page

from benchmarks.server_process import ServerProcess
from king.game import Game
from tests.support.pages import PHONE, watch_errors

AWAY_AFTER = 8.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("friends") / "king.db"
    with ServerProcess(db, bot_pause=0.2, away_after=AWAY_AFTER) as process:
        yield process


def seed_where(seat: int) -> int:
    """A game whose first deal ``seat`` declares."""
    return next(seed for seed in range(1, 200) if Game(seed=seed).declarer == seat)


def seconds_in(page: Page, selector: str) -> int:
    text = page.locator(selector).inner_text()
    found = re.search(r"\d+", text)
    assert found, text
    return int(found.group())


@pytest.mark.slow
def test_a_friend_on_the_way_is_joining_and_one_who_left_counts_down_for_everyone(
    browser: Browser, server: ServerProcess
) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "rule"}]
    body = {"seats": [*seats, {"kind": "bot", "bot": "rule"}], "name": "Ada", "seed": seed_where(1)}
    ada_claim = httpx.post(f"{server.url}/api/tables", json=body, timeout=10).json()
    table = ada_claim["table"]
    ada = browser.new_page(viewport=PHONE)
    errors = watch_errors(ada)
    ada.goto(f"{server.url}/t/{table}#token={ada_claim['token']}")
    ada.wait_for_selector("#waiting:not([hidden])")

    # Bo takes the seat from the invitation: on his way, never "away".
    join = {"name": "Bo", "seat": 1}
    bo_claim = httpx.post(f"{server.url}/api/tables/{table}/join", json=join, timeout=10).json()
    bo_seat = '.seat[data-seat="1"]'
    ada.wait_for_selector(f"{bo_seat} .badge.joining")
    assert ada.locator(f"{bo_seat} .badge.away").count() == 0
    bo = browser.new_page(viewport=PHONE)
    bo.goto(f"{server.url}/t/{table}#token={bo_claim['token']}")
    bo.wait_for_selector("#hand .card")
    ada.wait_for_selector(f"{bo_seat} .badge.joining", state="detached")
    assert ada.locator(f"{bo_seat} .badge.away").count() == 0

    # Bo leaves while it is his turn to declare: Ada sees when a bot will play for him.
    bo.close()
    countdown = f"{bo_seat} .badge.away-countdown"
    ada.wait_for_selector(countdown)
    ada.wait_for_selector("#away-line")
    first = seconds_in(ada, countdown)
    assert 0 < first <= AWAY_AFTER
    assert "Bo" in ada.inner_text("#away-line")
    ada.wait_for_timeout(2200)
    later = seconds_in(ada, countdown)
    assert later < first, (first, later)
    assert seconds_in(ada, "#away-line") == later
    # Then the computer plays for him, and says so.
    ada.wait_for_selector(f"{bo_seat} .badge.away:not(.away-countdown)", timeout=15_000)
    assert "bot plays for them" in ada.inner_text(f"{bo_seat} .badge.away").lower()
    ada.wait_for_selector("#contract[data-contract]", timeout=15_000)  # he declared
    assert errors == []


@pytest.mark.slow
def test_quick_reactions_show_beside_the_seat_in_each_readers_language(
    browser: Browser, server: ServerProcess
) -> None:
    body = {"seats": [{"kind": "human"}] * 2 + [{"kind": "bot", "bot": "rule"}] * 2, "name": "Ada"}
    ada_claim = httpx.post(f"{server.url}/api/tables", json=body, timeout=10).json()
    table = ada_claim["table"]
    join = {"name": "Bo", "seat": 1}
    bo_claim = httpx.post(f"{server.url}/api/tables/{table}/join", json=join, timeout=10).json()
    ada = browser.new_page(viewport=PHONE)
    ada.goto(f"{server.url}/t/{table}?lang=tr#token={ada_claim['token']}")
    bo = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = watch_errors(ada) + watch_errors(bo)
    bo.goto(f"{server.url}/t/{table}#token={bo_claim['token']}")
    for page in (ada, bo):
        page.wait_for_selector("#hand .card")
    bo.click("#btn-react")
    phrases = bo.eval_on_selector_all(
        "#reactions [data-phrase]", "bs => bs.map(b => b.dataset.phrase)"
    )
    assert phrases == ["hello", "good-luck", "nice", "oops", "thinking", "thanks", "good-game"]
    bo.click('#reactions [data-phrase="nice"]')
    assert bo.locator("#reactions").is_hidden()
    bubble = ada.locator('.seat .reaction[data-seat="1"][data-phrase="nice"]')
    bubble.wait_for()
    assert bubble.inner_text() == "Güzel oyun!"  # Ada reads Turkish
    bo.locator('.seat .reaction[data-seat="1"]').wait_for()  # Bo sees his own
    bubble.wait_for(state="detached", timeout=10_000)  # and it goes after a moment
    # A spectator sees it too, and has no button to send one.
    watcher = browser.new_page(viewport=PHONE)
    watcher.goto(f"{server.url}/t/{table}?watch")
    watcher.wait_for_selector("#hand, #trick")
    assert watcher.locator("#btn-react").is_hidden()
    assert errors == []
