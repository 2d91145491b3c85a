"""The table's settings, remembered by the browser: tap a card twice to play it (the
first tap lifts it and says so; an illegal card still says at once why it may not be
played), and sounds, off until turned on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from benchmarks.server_process import ServerProcess
from king.game import Game
from tests.support.pages import CHOICES, LEGAL, PHONE, create, watch_errors


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("settings") / "king.db"
    with ServerProcess(db, bot_pause=0) as process:
        yield process


def my_turn_to_play(page: Page) -> None:
    """Declare if asked, then wait for a legal card."""
    page.wait_for_selector(f"{CHOICES}, {LEGAL}")
    if page.locator(f"{CHOICES}:not([disabled])").count():
        page.locator(f"{CHOICES}:not([disabled])").first.click()
    page.wait_for_selector(LEGAL)
    page.wait_for_function("() => document.body.dataset.busy === 'false'")


def open_menu_setting(page: Page, selector: str) -> None:
    page.wait_for_selector("#hand .card")  # the page is wired
    if page.locator("#btn-more").is_visible():
        page.click("#btn-more")
    if not page.locator("#settings-menu[open]").count():
        page.click("#settings-menu summary")
    page.check(selector)


@pytest.mark.slow
def test_tap_twice_to_play_is_remembered_and_the_first_tap_only_lifts_the_card(
    browser: Browser, server: ServerProcess
) -> None:
    seed = next(s for s in range(1, 100) if Game(seed=s).declarer == 0)
    claim = create(server, ["human", "rule", "rule", "rule"], seed=seed)
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/t/{claim['table']}#token={claim['token']}")
    open_menu_setting(page, "#opt-confirm")
    page.reload()
    page.wait_for_selector("#hand .card")
    assert page.locator("#opt-confirm").is_checked()  # remembered
    my_turn_to_play(page)
    cards = page.locator("#hand .card").count()
    card = page.locator(LEGAL).first.get_attribute("data-card")
    page.locator(f'#hand .card[data-card="{card}"]').tap()
    assert page.locator(f'#hand .card[data-card="{card}"]').get_attribute("data-chosen") == "true"
    assert "again" in page.inner_text("#turn")
    page.wait_for_timeout(500)
    assert page.locator("#hand .card").count() == cards  # nothing played yet
    page.locator(f'#hand .card[data-card="{card}"]').tap()
    page.wait_for_function(f"() => document.querySelectorAll('#hand .card').length === {cards - 1}")
    assert errors == []
    context.close()


def test_sounds_are_off_until_turned_on_and_then_follow_the_play(
    browser: Browser, server: ServerProcess
) -> None:
    claim = create(server, ["human", "rule", "rule", "rule"], seed=3)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = watch_errors(page)
    page.goto(f"{server.url}/t/{claim['table']}#token={claim['token']}")
    my_turn_to_play(page)
    assert page.locator("#opt-sound").is_checked() is False
    assert page.evaluate("() => document.body.dataset.sound ?? null") is None  # silent
    open_menu_setting(page, "#opt-sound")
    page.locator(LEGAL).first.click()
    page.wait_for_function("() => Number(document.body.dataset.sounds ?? 0) >= 1")
    assert page.evaluate("() => document.body.dataset.sound") in ("card", "trick", "turn")
    page.reload()
    page.wait_for_selector("#hand .card")
    assert page.locator("#opt-sound").is_checked()
    assert errors == []
    page.close()
