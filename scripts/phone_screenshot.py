"""Take the README's screenshot of "Play on your phone": ``king --lan``'s lobby on a
laptop (1280x800) with the address and QR code a phone scans (``docs/phone-qr.png``).
The address shown is given (``KING_LAN_ADDRESSES``), so the picture is the same on
every machine.

    python scripts/phone_screenshot.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

DOCS = Path(__file__).resolve().parent.parent / "docs"
PORT = 8765


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "KING_LAN_ADDRESSES": "192.168.1.23", "HOME": home}
        command = [sys.executable, "-m", "king", "--lan", "--no-browser", "--port", str(PORT)]
        command += ["--db", str(Path(home) / "king.db"), "--bots", "rule,rule,rule"]
        king = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
        try:
            assert king.stdout is not None
            for line in king.stdout:
                print(line, end="")
                if "Ctrl-C stops" in line:
                    break
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path="/usr/bin/chromium", args=["--no-sandbox", "--headless"]
                )
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(f"http://127.0.0.1:{PORT}/")
                page.locator("#btn-phone").click()
                page.wait_for_function("() => document.getElementById('phone-qr').complete")
                page.screenshot(path=str(DOCS / "phone-qr.png"))
                browser.close()
        finally:
            king.terminate()
            king.wait(timeout=30)


if __name__ == "__main__":
    main()
