"""The offline game's pages as a person on a phone uses them: a phone's browser context,
keeping the game for offline play from the lobby, and tapping what the table asks."""

from __future__ import annotations

import base64
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from king.bots import bot_seed, make_bot
from king.offline.saved import OfflineSettings
from king.offline.table import OfflineTable
from tests.support.cli import king_here
from tests.support.pages import CHOICES, CHROMIUM, CHROMIUM_ARGS, LEGAL, asked

__all__ = [
    "DAMAGE",
    "EDIT_SAVED",
    "KEPT",
    "PHONE",
    "downloaded_record",
    "keep_for_offline",
    "kept",
    "phone",
    "profiled_phone",
    "resume_saved_game",
    "saved_game",
    "tap_what_is_asked",
    "wait_until_ready",
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


#: The offline table settled: ready with the person's hand dealt, or stopped (failed, or
#: its saved game refused).  Waited for as one condition, which Playwright evaluates
#: again on each page it navigates to (a game over shows "ready" with no hand, until
#: "play again" loads the table anew).
SETTLED = """() => {
  const state = document.body.dataset.offline;
  return state === "failed" || state === "refused"
    || (state === "ready" && document.querySelector("#hand .card") !== null);
}"""


def wait_until_ready(page: Page, timeout: float = 60000) -> None:
    """Wait until the offline table is ready with the person's hand shown; if it is not
    within ``timeout`` ms, fail with what the page says meanwhile (its loading step or
    its error), so that a slow start and a broken one tell apart."""
    try:
        page.wait_for_function(SETTLED, timeout=timeout)
    except PlaywrightError as error:
        pytest.fail(f"the offline table did not start: {where_it_is(page)} ({error.message})")
    state = page.evaluate("() => document.body.dataset.offline")
    assert state == "ready", f"the offline table did not start: {where_it_is(page)}"


def where_it_is(page: Page) -> str:
    """The offline table's state and banner, as the page shows them."""
    state, banner = page.evaluate(
        "() => [document.body.dataset.offline, document.getElementById('banner')?.textContent]"
    )
    return f"state {state!r}, banner {banner!r}"


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
    replayed = king_here("replay", str(path))
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


#: Edit the saved game in the page's IndexedDB (``change`` is applied to its entry); the
#: build of the entry.  Done where no worker saves over it: the lobby, or the table at
#: the person's turn (the worker saves after each move only).
EDIT_SAVED = """async (change) => {
  const db = await new Promise((ok, fail) => {
    const request = indexedDB.open("king-offline", 1);
    request.onsuccess = () => ok(request.result);
    request.onerror = () => fail(request.error);
  });
  const store = (mode) => db.transaction("games", mode).objectStore("games");
  const done = (request) => new Promise((ok) => { request.onsuccess = () => ok(request.result); });
  const entry = await done(store("readonly").get("current"));
  Object.assign(entry, change);
  await done(store("readwrite").put(entry, "current"));
  db.close();
  return entry.build;
}"""


def saved_game(finished: int, seed: int, bots: Sequence[str]) -> str:
    """The text the page keeps for a game against ``bots`` (seats 1-3, moving at once)
    whose first ``finished`` deals were played, as deal ``finished + 1`` begins: a game
    played on the device so far.  Its cards are the rule bot's, the person's too (the
    one level that plays at once in CPython; with ``bots`` rule, the very game the page
    plays from the same seed with the person playing as the rule bot would)."""
    table = OfflineTable.new("classic", seed, bots=["rule"] * 3, bot_pause=0.0)
    person = make_bot("rule", seed=bot_seed(seed, 0))
    game = table.game
    while game.deal_number < finished:
        if table.bot_delay() is None:
            table.act(0, person.act(game.view(0)))
        else:
            table.advance()
    settings = OfflineSettings(bots=(None, *bots), bot_pause=0.0, created=time.time())
    return OfflineTable(game.rules, seed, settings, game).saved()


def resume_saved_game(page: Page, text: str) -> None:
    """Put ``text`` in place of the game the offline table plays (under the build it
    began with) and open the table again, which resumes it: a person who had played
    that far on this device.  The page is at the person's turn, where nothing saves."""
    assert asked(page) in ("play", "declare")
    page.evaluate(EDIT_SAVED, {"text": text, "over": False})
    page.reload()
    wait_until_ready(page)
