"""The game as a player meets it, at the local ``king`` on a phone's screen: the level is
asked once, with a way out, and never at a table for friends; a friend (a second device:
a browser whose connections come from 127.0.0.2, as a phone's from the home network)
sees the host by the name they gave and the seats numbered as the buttons say; plain
``king`` says how friends can reach it; the home screen keeps the owner's games under
Continue and shows a visitor none of them; over plain http at another address the page
says why it cannot keep the game offline; and no engine's name reaches a screen."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from benchmarks.server_process import free_port
from tests.support.pages import CHROMIUM, CHROMIUM_ARGS, PHONE, watch_errors
from tests.support.proxy import CuttableProxy
from tests.support.services import local_king

#: Words a player must never read: the engines' names and specs, the placeholder "You"
#: standing for somebody else.
ENGINE_WORDS = re.compile(r"\b(rule|search1?|net|random)\b( bot|:|$)|\bYou[’']s\b|\bYou to play\b")


class Local:
    """The local game: its address, the table it opened, and a proxy through which a
    second device reaches it from another address."""

    def __init__(self, url: str, first_table: str, friend: CuttableProxy) -> None:
        self.url = url
        self.first_table = first_table
        self.friend = friend

    @property
    def friend_url(self) -> str:
        return f"http://127.0.0.1:{self.friend.port}"


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Local]:
    port = free_port()
    tmp = tmp_path_factory.mktemp("first")
    with local_king(tmp, "--port", str(port), bots=False) as (_, lines):
        address = next(line.split(" at ", 1)[1] for line in lines if "your table is at" in line)
        friend = CuttableProxy(port, source="127.0.0.2").start()
        try:
            yield Local(address.split("/t/")[0], address, friend)
        finally:
            friend.close()


def phone(browser: Browser) -> BrowserContext:
    return browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)


@pytest.fixture(scope="module")
def owner(browser: Browser) -> Iterator[BrowserContext]:
    """The owner's own browser, on the computer, for the whole module."""
    context = phone(browser)
    yield context
    context.close()


def no_engine_words(page: Page) -> None:
    text = page.evaluate("() => document.body.innerText")
    found = ENGINE_WORDS.search(text)
    assert found is None, f"{found.group(0)!r} on the screen: {text[:2000]}"


@pytest.mark.slow
def test_the_level_is_asked_once_with_a_way_out(local: Local, owner: BrowserContext) -> None:
    page = owner.new_page()
    errors = watch_errors(page)
    page.goto(local.first_table)
    page.wait_for_selector("#dlg-level[open]")
    keep = page.locator("#level-cancel")
    assert keep.inner_text() == "Keep Medium"
    no_engine_words(page)
    keep.click()
    page.wait_for_selector("#dlg-level:not([open])", state="attached")
    page.reload()
    page.wait_for_selector("#hand .card")
    page.wait_for_timeout(800)
    assert page.locator("#dlg-level[open]").count() == 0, "asked once per game"
    assert errors == []
    page.close()


@pytest.mark.slow
def test_a_friend_sees_the_host_by_name_and_the_seats_as_numbered(
    local: Local, browser: Browser, owner: BrowserContext
) -> None:
    host = owner.new_page()
    host.goto(f"{local.url}/")
    host.wait_for_selector('body[data-ready="true"]')
    host.click("#btn-play-friends")
    host.fill("#friends-name", "Ada")
    host.check('#friends-form input[name="friends"][value="1"]')
    host.click("#friends-create")
    host.wait_for_url("**/t/*")
    host.wait_for_selector(".seat[data-seat]")
    table = host.url.split("/t/")[1].split("?")[0].split("#")[0]
    host.wait_for_timeout(800)
    assert host.locator("#dlg-level[open]").count() == 0, "no level box at a table for friends"
    # Plain king: the link is this computer's own, and the page says how to reach friends.
    host.click("#btn-invite")
    how = host.locator("#invite-local")
    assert "king --lan" in how.inner_text()
    assert host.locator("#invite-link").input_value() == f"{local.url}/t/{table}"

    friend_context = phone(browser)
    friend = friend_context.new_page()
    errors = watch_errors(friend)
    friend.goto(f"{local.friend_url}/t/{table}")
    friend.wait_for_selector("#dlg-join[open]")
    listed = friend.eval_on_selector_all(
        "#dlg-join .join-seats li", "ls => ls.map(l => l.innerText)"
    )
    assert listed[0].replace("\n", " ") == "Seat 1 taken by Ada"
    assert listed[1].replace("\n", " ") == "Seat 2 free"
    assert friend.locator("#dlg-join button[data-seat]").all_inner_texts() == ["Take seat 2"]
    no_engine_words(friend)
    friend.fill("#join-name", "Bo")
    friend.click("#dlg-join button[data-seat='1']")
    friend.wait_for_selector("#hand .card")
    assert friend.inner_text('.seat[data-seat="0"] .seat-name') == "Ada"
    assert friend.inner_text('.seat[data-seat="1"] .seat-name') == "You"
    no_engine_words(friend)
    # The host sees the friend by name too (a guest, marked), and themself as "You".
    host.wait_for_function(
        "() => document.querySelector('.seat[data-seat=\"1\"] .seat-name')?.textContent"
        " === 'Bo (guest)'"
    )
    assert host.inner_text('.seat[data-seat="0"] .seat-name') == "You"
    no_engine_words(host)
    # A visitor's home screen shows none of the owner's tables; the owner's own
    # unfinished games are under Continue, not among the open tables.
    friend.goto(f"{local.friend_url}/")
    friend.wait_for_selector('body[data-ready="true"]')
    friend.wait_for_selector("#open-tables li")
    assert table not in friend.inner_html("#open-tables")
    host.goto(f"{local.url}/")
    host.wait_for_selector("#open-tables li")
    host.wait_for_selector("#btn-continue:not([hidden])")
    assert table not in host.inner_html("#open-tables")
    assert host.inner_text("#account-name-link") == "Playing on this computer"
    assert host.locator("#account-rating").is_hidden()
    # The owner's games are rated on this computer (its table shows the badge): the
    # custom table offers a rated game too, without asking them to log in.
    host.click("#custom-table summary")
    assert host.locator("#create-rated").is_enabled()
    assert "log in" not in host.inner_text("#create-rated-help").lower()
    no_engine_words(host)
    assert errors == []
    host.close()
    friend_context.close()


def test_plain_http_at_another_address_says_why_the_game_cannot_be_kept(
    local: Local, browser: Browser, tmp_path: Path
) -> None:
    """A phone opens ``http://192.168…`` (here a name the browser maps to 127.0.0.1,
    which makes the page no secure context): no service worker, and the lobby says so
    in words instead of a Keep for offline button that would fail."""
    port = local.url.rsplit(":", 1)[1]
    lan = browser.browser_type.launch(
        executable_path=str(CHROMIUM),
        args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP king.lan 127.0.0.1"],
        env={"HOME": str(tmp_path)},
    )
    try:
        page = lan.new_page(viewport=PHONE)
        page.goto(f"http://king.lan:{port}/")
        page.wait_for_selector('#offline-keep-help[data-reason="insecure"]')
        assert page.evaluate("() => window.isSecureContext") is False
        assert "https" in page.inner_text("#offline-keep-help")
        assert page.locator("#btn-keep").is_hidden()
    finally:
        lan.close()
