"""Draw the app icons (``src/king/web/icons/icon-192.png``, ``icon-512.png``) from
``icon.svg`` with Debian's Chromium, so that "Add to home screen" gets sharp PNGs.

    python scripts/icons.py
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parent.parent / "src" / "king" / "web" / "icons"


def main() -> None:
    svg = (ICONS / "icon.svg").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as home, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--headless"],
            env={**os.environ, "HOME": home},
        )
        for size in (192, 512):
            page = browser.new_page(viewport={"width": size, "height": size})
            sized = svg.replace("<svg ", f'<svg width="{size}" height="{size}" ', 1)
            page.set_content(f'<body style="margin:0">{sized}</body>')
            page.screenshot(path=str(ICONS / f"icon-{size}.png"), omit_background=False)
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
