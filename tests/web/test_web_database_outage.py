"""The page, in Debian's Chromium at a phone's size, while the server's PostgreSQL
restarts: a move made meanwhile is refused as not saved (not as illegal), the page says
it is reconnecting, nothing is half-made, and once the database is back the same move
is made."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import Browser

from benchmarks.backends import PostgresServer, ServiceMissingError
from benchmarks.server_process import ServerProcess
from tests.support.pages import PHONE, fewer_cards, hand, wait_my_turn, watch_errors

#: Every text the banner and the toasts show, as the page shows them.
RECORD_TEXTS = """() => {
  window.__said = [];
  const note = () => {
    for (const id of ["banner", "toast"]) {
      const element = document.getElementById(id);
      if (element && element.textContent.trim()) window.__said.push(element.textContent.trim());
    }
  };
  new MutationObserver(note).observe(document.body, {
    subtree: true, childList: true, characterData: true, attributes: true,
  });
}"""


@pytest.mark.slow
def test_the_page_reconnects_while_the_database_restarts_and_the_move_is_made_after(
    browser: Browser,
) -> None:
    try:
        postgres = PostgresServer().start()
    except ServiceMissingError as error:
        pytest.fail(str(error))
    try:
        with ServerProcess(postgres.create_database(), bot_pause=0.0) as server:
            seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3
            body = {"name": "Ada", "seats": seats, "seat": 0, "seed": 5}
            made = httpx.post(f"{server.url}/api/tables", json=body, timeout=10)
            assert made.status_code == 201, made.text
            claim: dict[str, Any] = made.json()
            page = browser.new_page(viewport=PHONE, reduced_motion="reduce")
            errors = watch_errors(page)
            page.goto(f"{server.url}/t/{claim['table']}#token={claim['token']}")
            # Seat 1 declares first in deal 1 (seed 5): wait for the first card to play.
            page.wait_for_selector('#hand .card[data-legal="true"]', timeout=30000)
            wait_my_turn(page)
            page.evaluate(RECORD_TEXTS)
            cards = hand(page)
            card = page.locator('#hand .card[data-legal="true"]').first.get_attribute("data-card")
            postgres.halt()
            try:
                page.click(f'#hand .card[data-card="{card}"]')
                page.wait_for_function(
                    "() => window.__said.some(t => t.includes('reconnecting'))", timeout=10000
                )
                said = page.evaluate("() => window.__said")
                assert any("was not made" in text for text in said), said
                assert not any("illegal" in text.lower() for text in said), said
                time.sleep(1.0)
                assert hand(page) == cards  # nothing was made
            finally:
                postgres.resume()
            # Back: the page is connected again and the same card is played.
            page.wait_for_function(
                """() => !(document.getElementById('banner')?.textContent ?? '')
                    .includes('reconnecting')""",
                timeout=15000,
            )
            wait_my_turn(page)
            page.click(f'#hand .card[data-card="{card}"]')
            fewer_cards(page, len(cards))
            assert card not in hand(page)
            assert not errors, errors
            page.close()
    finally:
        postgres.stop()
