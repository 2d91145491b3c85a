"""Accounts in a real browser (Chromium through Playwright, phone size): register in the
lobby, log in from a second browser and take back an unfinished seat, log out
everywhere."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import Error as PlaywrightError

from benchmarks.server_process import ServerProcess
from tests.support.peers import Peer, act

PHONE = {"width": 390, "height": 844}
PASSWORD = "a long secret phrase"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db: Path = tmp_path_factory.mktemp("web-accounts") / "king.db"
    with ServerProcess(db, bot_pause=0, away_after=3600) as process:
        yield process


def sign(page: Page, server: ServerProcess, mode: str, name: str) -> None:
    page.goto(server.url + "/")
    page.locator(f"#btn-{mode}").click()
    page.locator("#account-name").fill(name)
    page.locator("#account-password").fill(PASSWORD)
    page.locator("#account-submit").click()
    page.wait_for_selector("#account-name-link")
    assert page.locator("#account-name-link").inner_text().strip().startswith(name)


def play_until_the_last_deal(server: ServerProcess, table: str, token: str) -> None:
    """Play the seat's first legal moves through the protocol until deal 20 is dealt."""
    peer = Peer(server, table)
    peer.send({"type": "hello", "token": token})
    while True:
        state = peer.state()
        view = state["view"]
        if view["deal"] >= 19:  # 0-based: the twentieth deal
            break
        if view["to_act"] == view["seat"]:
            act(peer, state)
    peer.close()


@pytest.mark.slow
def test_register_take_a_seat_back_and_log_out_everywhere(
    browser: Browser, server: ServerProcess
) -> None:
    phone = browser.new_context(viewport=PHONE, has_touch=True).new_page()
    sign(phone, server, "register", "Ayşe_k")
    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "rule"}] * 3
    claim = phone.evaluate(
        """async seats => (await fetch('/api/tables', {method: 'POST',
           headers: {'content-type': 'application/json'},
           body: JSON.stringify({seats, seat: 0, rated: true})})).json()""",
        seats,
    )
    phone.goto(f"{server.url}/t/{claim['table']}#token={claim['token']}")
    phone.wait_for_selector("#hand .card")
    assert phone.locator("#badge-rated").is_visible()
    # A second browser logs in and takes the seat back from the player's page.
    laptop = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    sign(laptop, server, "login", "Ayşe_k")
    laptop.goto(f"{server.url}/players/Ayşe_k")
    row = laptop.locator(f"#history-list li[data-table='{claim['table']}']")
    row.wait_for()
    assert row.get_attribute("data-status") == "playing"
    row.locator("[data-action='take-back']").click()
    laptop.wait_for_url(lambda url: f"/t/{claim['table']}" in url)
    laptop.wait_for_selector("#hand .card")
    phone.wait_for_selector("#banner[data-code='replaced']")
    # Log out everywhere ends both logins.
    taken_back = laptop.evaluate(f"localStorage.getItem('king:token:{claim['table']}')")
    laptop.goto(f"{server.url}/players/Ayşe_k")
    laptop.locator("#btn-logout-everywhere").click()
    laptop.wait_for_url(lambda url: url.rstrip("/") == server.url)
    # The seat came back to this browser with a new token; the one before opens nothing.
    kept = laptop.evaluate(f"localStorage.getItem('king:token:{claim['table']}')")
    assert kept is not None and kept != taken_back
    for page in (phone, laptop):
        me = page.evaluate("async () => (await fetch('/api/me')).json()")
        assert me == {"account": None}
    phone.goto(server.url + "/")
    phone.wait_for_selector("#btn-login")
    assert httpx.get(f"{server.url}/api/players/Ayşe_k/games").json()["games"] == []
    phone.context.close()
    laptop.context.close()


@pytest.mark.slow
def test_a_rated_game_to_the_end_shows_in_history_stats_and_rating(
    browser: Browser, server: ServerProcess
) -> None:
    """Register, play a rated game against three rule bots to its end, the last deal by
    clicking (the first nineteen through the protocol: a whole game by tapping is
    tests/web/test_web_phone.py's), see the rating change on the final sheet and the game
    in the history and statistics."""
    # Reduced motion: the page gathers tricks at once (the game is what is tested here).
    context = browser.new_context(viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
    page = context.new_page()
    sign(page, server, "register", "Cem_k")
    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "rule"}] * 3
    claim = page.evaluate(
        """async seats => (await fetch('/api/tables', {method: 'POST',
           headers: {'content-type': 'application/json'},
           body: JSON.stringify({seats, seat: 0, rated: true, seed: 9})})).json()""",
        seats,
    )
    play_until_the_last_deal(server, claim["table"], claim["token"])
    page.goto(f"{server.url}/t/{claim['table']}#token={claim['token']}")
    page.wait_for_selector("#hand .card")
    assert page.locator("#deal-number").get_attribute("data-deal") == "20"
    deadline = time.monotonic() + 400
    while not page.locator("#dlg-sheet[open]").count():
        assert time.monotonic() < deadline, "the game did not end"
        try:
            if page.locator("#dlg-summary[open]").count():
                page.locator("#summary-continue").click(timeout=1000)
            elif page.locator("#declare:not([hidden]) button.choice:not([disabled])").count():
                page.locator("#declare:not([hidden]) button.choice:not([disabled])").first.click(
                    timeout=1000
                )
            elif page.locator('#hand .card[data-legal="true"]').count():
                page.locator('#hand .card[data-legal="true"]').first.click(timeout=1000)
        except PlaywrightError:
            pass  # the page moved on under the click
        page.wait_for_timeout(20)
    changes = page.locator("#rating-changes li[data-ref='Cem_k']")
    changes.wait_for()
    before, after = changes.get_attribute("data-before"), changes.get_attribute("data-after")
    assert before == "1500" and after is not None and after != before
    page.goto(f"{server.url}/players/Cem_k")
    page.locator(f"#history-list li[data-table='{claim['table']}'][data-status='over']").wait_for()
    page.locator("#stats-games").wait_for()
    assert page.locator("#stats-games").inner_text().strip() == "1"
    assert page.locator("#player-rating").get_attribute("data-rating") == after
    page.context.close()


@pytest.mark.slow
def test_guests_are_marked_the_clock_shows_and_log_out_forgets_the_seats(
    browser: Browser, server: ServerProcess
) -> None:
    host = browser.new_context(viewport=PHONE, has_touch=True).new_page()
    sign(host, server, "register", "Defne_k")
    seats = [{"kind": "human"}, {"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 2
    claim = host.evaluate(
        """async seats => (await fetch('/api/tables', {method: 'POST',
           headers: {'content-type': 'application/json'},
           body: JSON.stringify({seats, seat: 0, name: 'x'})})).json()""",
        seats,
    )
    joined = httpx.post(f"{server.url}/api/tables/{claim['table']}/join", json={"name": "Bora"})
    assert joined.status_code == 200
    host.goto(f"{server.url}/t/{claim['table']}#token={claim['token']}")
    host.wait_for_selector("#hand .card")
    guest_seat = host.locator(".seat[data-seat='1'] .seat-name")
    assert guest_seat.inner_text().strip() == "Bora (guest)"
    host.goto(server.url + "/")  # the host's own game: under Continue, with its players
    host.wait_for_selector("#btn-continue:not([hidden])")
    assert "Bora (guest)" in host.locator("#continue-help").inner_text()
    assert host.evaluate(f"localStorage.getItem('king:token:{claim['table']}')") is not None
    host.locator("#btn-logout").click()
    host.wait_for_selector("#btn-login")
    assert host.evaluate(f"localStorage.getItem('king:token:{claim['table']}')") is None
    # A rated table shows the time left before the stand-in moves, on your turn.
    sign(host, server, "login", "Defne_k")
    rated = host.evaluate(
        """async () => (await fetch('/api/tables', {method: 'POST',
           headers: {'content-type': 'application/json'},
           body: JSON.stringify({seats: [{kind: 'human'}, {kind: 'bot', bot: 'rule'},
             {kind: 'bot', bot: 'rule'}, {kind: 'bot', bot: 'rule'}], seat: 0, rated: true})
           })).json()"""
    )
    host.goto(f"{server.url}/t/{rated['table']}#token={rated['token']}")
    host.wait_for_selector("body.my-turn #turn #clock", timeout=30000)
    shown = host.locator("#clock").inner_text().strip()
    minutes, seconds = shown.split(":")
    assert 0 < int(minutes) * 60 + int(seconds) <= 195
    host.context.close()
