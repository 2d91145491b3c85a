"""The offline game's pages as a person on a phone uses them: a phone's browser context,
keeping the game for offline play from the lobby, and tapping what the table asks."""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from tests.support.pages import CHOICES, CHROMIUM, CHROMIUM_ARGS, LEGAL, asked
from tests.support.services import run_king

__all__ = [
    "DAMAGE",
    "KEPT",
    "PHONE",
    "downloaded_record",
    "keep_for_offline",
    "kept",
    "phone",
    "profiled_phone",
    "tap_what_is_asked",
]


#: A phone upright, touched, with no animations to wait for.
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "has_touch": True,
    "is_mobile": True,
    "reduced_motion": "reduce",
}


@pytest.fixture
def phone(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(**PHONE)
    yield context
    context.close()


@contextmanager
def profiled_phone(folder: Path) -> Iterator[BrowserContext]:
    """A phone's Chromium with a profile of its own in ``folder`` (not the incognito
    context a plain Playwright context is, where Chromium installs no app)."""
    if not CHROMIUM.exists():
        pytest.fail("Debian's chromium is missing: apt-get install -y chromium")
    home = folder / "home"
    home.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            folder / "profile",
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            env={**os.environ, "HOME": str(home)},
            **PHONE,
        )
        yield context
        context.close()


def keep_for_offline(page: Page, url: str) -> None:
    """Open the lobby and keep the offline game on the device, as a person does."""
    page.goto(f"{url}/")
    keep = page.locator("#btn-keep")
    keep.wait_for(state="visible", timeout=20000)
    assert "MB" in page.locator("#offline-keep-help").inner_text()
    keep.tap()
    keep.wait_for(state="hidden", timeout=60000)


def tap_what_is_asked(page: Page) -> str:
    """Tap once what the page asks for: the summary's continue, a contract (Trumps by
    its button when the person may), or the first legal card."""
    now = asked(page)
    try:
        if now == "summary":
            page.locator("#summary-continue").tap(timeout=1000)
        elif now == "declare":
            trumps = page.locator(f"{CHOICES}[data-contract='trumps']:not([disabled])")
            if trumps.count():
                trumps.first.tap(timeout=1000)
                return "trumps"
            page.locator(f"{CHOICES}:not([disabled])").first.tap(timeout=1000)
        elif now == "play":
            page.locator(LEGAL).first.tap(timeout=1000)
    except PlaywrightError:  # the page moved on under the tap: look again
        return "retry"
    return now


def downloaded_record(page: Page, path: Path) -> str:
    """The finished offline game's record, downloaded from the score sheet to ``path``
    as a person does, and replayed valid by ``king replay``; its text."""
    with page.expect_download() as download:
        page.locator("#dlg-sheet a[href='#offline-record']").tap()
    download.value.save_as(path)
    replayed = run_king("replay", str(path))
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    return path.read_text(encoding="utf-8")


#: The text (as bytes, base64) a cache keeps for an address, or null.
KEPT = """async ([name, url]) => {
  const found = await (await caches.open(name)).match(url);
  if (!found) return null;
  const bytes = new Uint8Array(await found.arrayBuffer());
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}"""
#: Put a damaged copy of a file in a cache, as a broken disk or an older script might.
DAMAGE = """async ([name, url]) => {
  await (await caches.open(name)).put(url, new Response("not the file"));
}"""


def kept(page: Page, cache: str, url: str) -> bytes | None:
    found = page.evaluate(KEPT, [cache, url])
    return None if found is None else base64.b64decode(found)
