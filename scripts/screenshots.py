"""Take the page's screenshots for the docs with Debian's Chromium: a table mid-deal in
English (``docs/table.png``) and in Turkish (``docs/table-tr.png``), and a whole game
on a phone (390x844) and a laptop (1280x720): declaring, mid-trick, a deal's summary,
the score sheet's contract board and the game over (``docs/phone-*.png``,
``docs/desktop-*.png``).

    python scripts/screenshots.py
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from king.game import Game

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout: benchmarks/

from benchmarks.server_process import ServerProcess

DOCS = Path(__file__).resolve().parent.parent / "docs"
LEGAL = '#hand .card[data-legal="true"]'


def shoot(page: Page, url: str, out: Path, cards: int) -> None:
    page.goto(url)
    played = 0
    deadline = time.monotonic() + 60
    while played < cards and time.monotonic() < deadline:
        declare = page.locator("#declare:not([hidden]) button.choice:not([disabled])")
        if declare.count():
            declare.nth(3).click()
            continue
        legal = page.locator(LEGAL)
        if legal.count() and page.evaluate("document.body.dataset.busy") == "false":
            legal.first.click()
            played += 1
        page.wait_for_timeout(150)
    page.wait_for_timeout(1500)
    page.screenshot(path=str(out))


@contextlib.contextmanager
def chromium_at(bot_pause: float) -> Iterator[tuple[Browser, ServerProcess]]:
    """Debian's Chromium (a throwaway HOME) and a server whose bots wait ``bot_pause``."""
    with (
        tempfile.TemporaryDirectory() as home,
        ServerProcess(Path(home) / "k.db", bot_pause=bot_pause) as server,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--headless"],
            env={**os.environ, "HOME": home},
        )
        try:
            yield browser, server
        finally:
            browser.close()


def main() -> None:
    with chromium_at(0.2) as (browser, server):
        for language, name in (("en", "table.png"), ("tr", "table-tr.png")):
            body = {
                "seats": [{"kind": "human"}] + [{"kind": "bot", "bot": "rule"}] * 3,
                "name": "Ada",
                "seed": 11,
            }
            claim = httpx.post(f"{server.url}/api/tables", json=body, timeout=10).json()
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            url = f"{server.url}/t/{claim['table']}?lang={language}#token={claim['token']}"
            shoot(page, url, DOCS / name, cards=5)
            page.close()
    with chromium_at(0) as (browser, server):
        whole_game(browser, server)  # quick bots: the page still shows every trick


SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 720}}


def both(page: Page, name: str) -> None:
    """Screenshots of the page as it is now, at the phone's size and the laptop's."""
    for label, size in SIZES.items():
        page.set_viewport_size(size)
        page.wait_for_timeout(400)
        page.screenshot(path=str(DOCS / f"{label}-{name}.png"))
    page.set_viewport_size(SIZES["phone"])


def whole_game(browser: Browser, server: ServerProcess) -> None:
    """Play a game by tapping; photograph its moments at both sizes on the way."""
    seed = 21
    seat = Game(seed=seed).declarer  # the person declares the first deal
    seats: list[dict[str, str]] = [{"kind": "bot", "bot": "rule"}] * 4
    seats[seat] = {"kind": "human"}
    body = {"seats": seats, "seat": seat, "name": "Ada", "seed": seed}
    claim = httpx.post(f"{server.url}/api/tables", json=body, timeout=10).json()
    context = browser.new_context(viewport=SIZES["phone"], has_touch=True)
    page = context.new_page()
    page.goto(f"{server.url}/t/{claim['table']}#token={claim['token']}")
    page.wait_for_selector("#declare:not([hidden]) button.choice")
    both(page, "declaring")
    page.locator('[data-contract="no-hearts"]').tap()
    shot = {"mid": False, "summary": False, "board": False}
    deadline = time.monotonic() + 600
    while not page.locator("#dlg-sheet[open]").count() and time.monotonic() < deadline:
        try:
            if page.locator("#dlg-summary[open]").count():
                if not shot["summary"]:
                    page.wait_for_timeout(300)
                    both(page, "summary")
                    shot["summary"] = True
                page.locator("#summary-continue").tap(timeout=1000)
            elif page.locator("#declare:not([hidden]) button.choice").count():
                page.locator("#declare:not([hidden]) button.choice:not([disabled])").first.tap()
            elif page.locator(LEGAL).count() and page.evaluate("document.body.dataset.busy") == (
                "false"
            ):
                # Mid-deal, once someone has taken hearts: the seats show them.
                if (
                    not shot["mid"]
                    and page.locator("#trick .card").count() >= 2
                    and page.locator(".seat-taken").count() >= 2
                ):
                    both(page, "mid-trick")
                    shot["mid"] = True
                # Later in the game, the score sheet and its contract board.
                deal = page.locator("#deal-number").get_attribute("data-deal") or "0"
                if not shot["board"] and int(deal) >= 9:
                    page.locator("#btn-sheet").tap()
                    page.locator("#tab-board").tap()
                    page.wait_for_timeout(300)
                    both(page, "board")
                    page.locator("#sheet-close").tap()
                    shot["board"] = True
                    continue
                page.locator(LEGAL).first.tap(timeout=1000)
        except PlaywrightError:
            pass
        page.wait_for_timeout(20)
    page.wait_for_timeout(500)
    both(page, "game-over")
    context.close()


if __name__ == "__main__":
    main()
