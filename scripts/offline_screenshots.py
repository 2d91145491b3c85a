"""Take the offline game's screenshots for the docs with Debian's Chromium: the lobby's
offline panel on a phone, then, with the server stopped and the network off, the
offline game mid-deal on a phone upright (390x844), sideways (844x390) and a laptop
(1280x720): ``docs/offline-*.png``.

    python scripts/offline_screenshots.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout: benchmarks/

from benchmarks.server_process import ServerProcess

DOCS = Path(__file__).resolve().parent.parent / "docs"
LEGAL = '#hand .card[data-legal="true"]'


def play_cards(page: Page, cards: int) -> None:
    """Play ``cards`` cards (declaring when asked) and stop mid-trick, settled."""
    played = 0
    deadline = time.monotonic() + 60
    while played < cards and time.monotonic() < deadline:
        declare = page.locator("#declare:not([hidden]) button.choice:not([disabled])")
        if declare.count():
            declare.first.click()
            continue
        if page.locator("#dlg-summary[open]").count():
            page.locator("#summary-continue").click()
            continue
        legal = page.locator(LEGAL)
        if legal.count() and page.evaluate("() => document.body.dataset.busy") == "false":
            legal.first.click()
            played += 1
        time.sleep(0.1)
    page.wait_for_function("() => document.body.dataset.busy === 'false'")
    time.sleep(0.5)


def main() -> None:
    with tempfile.TemporaryDirectory() as home, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--headless"],
            env={**os.environ, "HOME": home},
        )
        context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
        page = context.new_page()
        with ServerProcess(Path(home) / "king.db", bot_pause=0) as server:
            url = server.url
            page.goto(f"{url}/")
            page.locator("#btn-keep").click()
            page.locator("#btn-keep").wait_for(state="hidden", timeout=60000)
            page.screenshot(path=str(DOCS / "offline-lobby.png"))
        context.set_offline(True)
        page.goto(f"{url}/offline?bot_pause=0.3")
        page.wait_for_selector("#hand .card", timeout=30000)
        play_cards(page, 3)
        page.screenshot(path=str(DOCS / "offline-phone.png"))
        for name, width, height in (("sideways", 844, 390), ("desktop", 1280, 720)):
            page.set_viewport_size({"width": width, "height": height})
            time.sleep(0.5)
            page.screenshot(path=str(DOCS / f"offline-{name}.png"))
        browser.close()


if __name__ == "__main__":
    main()
