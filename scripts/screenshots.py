"""Take the page's screenshots for the docs: a table mid-deal in English
(``docs/table.png``) and in Turkish (``docs/table-tr.png``), with Debian's Chromium.

    python scripts/screenshots.py
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import httpx
from playwright.sync_api import Page, sync_playwright

from king.server.process import ServerProcess

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


def main() -> None:
    with (
        tempfile.TemporaryDirectory() as home,
        ServerProcess(Path(home) / "k.db", bot_pause=0.2) as server,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--headless"],
            env={**os.environ, "HOME": home},
        )
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
        browser.close()


if __name__ == "__main__":
    main()
