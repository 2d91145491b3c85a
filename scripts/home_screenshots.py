"""Take the README's screenshots of the first minute: the home screen on a phone
(``docs/home-phone.png``) and on a laptop (``docs/home-desktop.png``), and Learn King's
first lessons on a phone (``docs/learn-phone.png``: the contract lesson;
``docs/learn-follow-phone.png``: why only some cards may be played).

    python scripts/home_screenshots.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.server_process import ServerProcess
from tests.web.test_web_learn import SNAPSHOT, act

DOCS = Path(__file__).resolve().parent.parent / "docs"
PHONE = {"width": 390, "height": 844}
#: The lesson each picture shows (the first of them that comes up in the game).
WANTED = {"contract": "learn-phone.png", "follow": "learn-follow-phone.png"}


def lessons(page: Page) -> None:
    """Play Learn King's first deal, keeping a picture of the wanted lessons."""
    taken: set[str] = set()
    deadline = time.monotonic() + 240
    while len(taken) < len(WANTED) and time.monotonic() < deadline:
        now = page.evaluate(SNAPSHOT)
        if now["lesson"] is None:
            act(page, now)
            continue
        kind = now["lesson"].split(".")[0]
        if kind in WANTED and kind not in taken:
            page.wait_for_timeout(400)
            page.screenshot(path=str(DOCS / WANTED[kind]))
            taken.add(kind)
        page.click("#lesson-next")


def main() -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        ServerProcess(Path(folder) / "king.db", bot_pause=0.3) as server,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--headless"]
        )
        desktop = browser.new_page(viewport={"width": 1280, "height": 800})
        desktop.goto(f"{server.url}/")
        desktop.wait_for_selector("#open-tables li")
        desktop.screenshot(path=str(DOCS / "home-desktop.png"))
        context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
        phone = context.new_page()
        phone.goto(f"{server.url}/")
        phone.wait_for_selector("#open-tables li")
        phone.screenshot(path=str(DOCS / "home-phone.png"))
        phone.click("#btn-learn")
        phone.wait_for_url("**/t/*")
        lessons(phone)
        browser.close()


if __name__ == "__main__":
    main()
