"""King at a web address with no Python behind it (``king site``), in Debian's Chromium on
a phone (390x844, touch), served by plain static servers that know nothing of King:
Python's ``http.server`` at the root of its address, and Caddy's ``file_server`` under
``/king/`` by the Caddyfile of docs/offline.md.  The first visit keeps the game by itself
and the site passes Chromium's installability checks; a game against Hard plays to its end
(resumed from a game saved near it: tests/web/test_web_offline_engine.py plays a whole
one), survives a reload mid-deal, goes on with the server stopped and the network gone,
and downloads a record ``king replay`` accepts (CPython's own for the same seed and bots,
against Medium, whose cards do not depend on the machine's speed); a newer build
published mid-game waits for the game in progress to end (offline too), and the next
game is the new build's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page

import king
from tests.support.cli import king_here
from tests.support.games import play_record_again
from tests.support.offline_pages import (
    DAMAGE,
    downloaded_record,
    kept,
    profiled_phone,
    resume_saved_game,
    saved_game,
    tap_what_is_asked,
    wait_until_ready,
)
from tests.support.pages import asked, hand, wait_for_promise, watch_errors
from tests.support.static_servers import caddy_file_server, python_http_server

pytestmark = pytest.mark.slow


@pytest.fixture
def phone(tmp_path: Path) -> Iterator[BrowserContext]:
    """A phone's browser with a profile of its own (Chromium installs no app from an
    incognito context, which a plain Playwright context is)."""
    with profiled_phone(tmp_path) as context:
        yield context


def write_site(folder: Path, *args: str, package: Path | None = None) -> str:
    """``king site FOLDER ARGS`` (with the ``king`` package at ``package``, a newer
    build, when given); the build it wrote."""
    if package is None:
        done = king_here("site", str(folder), *args, "--json")
    else:
        env = {**os.environ, "PYTHONPATH": str(package.parent)}
        command = [sys.executable, "-m", "king", "site", str(folder), *args, "--json"]
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, timeout=60, check=False
        )
    assert done.returncode == 0, done.stdout + done.stderr
    written = json.loads(done.stdout)
    assert written["folder"] == str(folder.absolute())
    return str(written["build"])


def newer_package(tmp_path: Path) -> Path:
    """A copy of the ``king`` package with one change to the game's Python: the next
    version, as far as a browser can tell."""
    copy = tmp_path / "newer" / "king"
    shutil.copytree(Path(king.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    with (copy / "offline" / "__init__.py").open("a", encoding="utf-8") as module:
        module.write("\n# the next version of King\n")
    return copy


def deal_and_hand(page: Page) -> tuple[str, list[str]]:
    return page.locator("#deal-number").inner_text(), hand(page)


def mid_deal(page: Page, deal: int) -> bool:
    """Whether the person is to play with 10 cards left in deal ``deal``."""
    number = page.locator("#deal-number").get_attribute("data-deal")
    return number == str(deal) and asked(page) == "play" and len(hand(page)) == 10


def reopen(page: Page, url: str) -> None:
    """Reload the table, as a phone does that killed the page; it says it is ready."""
    page.goto(url)
    wait_until_ready(page)


def build_of(page: Page) -> str:
    """The build whose Python plays the table's game."""
    return str(page.evaluate("() => document.body.dataset.offlineBuild"))


def open_home(page: Page, url: str) -> None:
    """The home screen, once the first visit has kept the whole game on the device."""
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]")
    page.wait_for_selector("#offline-keep-help[data-state=kept]", timeout=90000)


def test_a_plain_static_server_serves_an_installable_game_that_plays_offline_to_its_end(
    phone: BrowserContext, tmp_path: Path
) -> None:
    folder = tmp_path / "site"
    build = write_site(folder)
    fetched: list[str] = []
    phone.on("request", lambda request: fetched.append(request.url))
    with ExitStack() as serving:
        url = serving.enter_context(python_http_server(folder, tmp_path / "http.log"))
        page = phone.new_page()
        errors = watch_errors(page)
        started = time.monotonic()
        open_home(page, f"{url}/")
        # Installable, as Chromium itself judges it, and kept with no step of the person's.
        devtools = phone.new_cdp_session(page)
        judged = devtools.send("Page.getInstallabilityErrors")
        assert judged["installabilityErrors"] == [], judged
        manifest = devtools.send("Page.getAppManifest")
        assert manifest["url"].endswith(f"/static/{build}/manifest.webmanifest")
        assert not manifest["errors"], manifest["errors"]
        # What needs a server is said in words, with how to run one: no button fails.
        needed = page.locator("#server-needed").inner_text()
        assert "need a King server" in needed and "king --lan" in needed, needed
        assert page.locator("#btn-play-friends, #open-tables, #account-bar").count() == 0
        # Every level plays: the person picks Hard, and the link says so.
        page.locator("#home-level").select_option("hard")
        link = page.locator("#btn-play-computer").get_attribute("href")
        assert link == "/offline.html?bots=hard,hard,hard", link
        table = f"{url}{link}&bot_pause=0"
        page.goto(table)
        wait_until_ready(page)
        first_hand = time.monotonic() - started
        assert build_of(page) == build
        # Seventeen deals played on this phone so far.
        resume_saved_game(page, saved_game(17, seed=23, bots=["hard"] * 3))
        assert build_of(page) == build
        reloaded = went_offline = False
        deadline = time.monotonic() + 900
        while asked(page) != "over":
            assert time.monotonic() < deadline, "the game did not end"
            if not reloaded and mid_deal(page, 18):
                before = deal_and_hand(page)
                reopen(page, table)
                assert deal_and_hand(page) == before, "the same hand after a reload"
                reloaded = True
                continue
            if reloaded and not went_offline and mid_deal(page, 19):
                serving.close()  # the web server stops, and the network goes
                phone.set_offline(True)
                before = deal_and_hand(page)
                reopen(page, table)
                assert deal_and_hand(page) == before, "the same hand, opened offline"
                went_offline = True
                continue
            tap_what_is_asked(page)
    assert went_offline
    print(f"first visit to a dealt hand (the level chosen on the way): {first_hand:.1f} s")
    text = downloaded_record(page, tmp_path / "site-game.json")
    record = json.loads(text)
    # (king replay found it valid.  Hard stops searching at 30 ms, so its cards depend on
    # the machine's speed: the offline engine's own test compares Expert's with CPython.)
    assert record["players"][1:] == ["Hard bot 1", "Hard bot 2", "Hard bot 3"]
    assert len(record["deals"]) == 20
    # The board of the game just over, analysed on the device (no server to ask).
    assert page.locator("#dlg-sheet #btn-board").get_attribute("href") == "/board.html?offline"
    board = phone.new_page()
    board.goto(f"{url}/board.html?offline")
    board.locator("#analysis-progress").wait_for(timeout=60000)
    assert board.locator("#step-deal option").count() == 20
    # A record file opened on the board: checked, laid out and analysed on the device
    # too; one that is no record is refused in words.
    board.goto(f"{url}/board.html")
    board.wait_for_selector("#board[data-ready=true]")
    bad = tmp_path / "notes.json"
    bad.write_text('{"format": "king-record/1", "rules": "classic"}', encoding="utf-8")
    board.set_input_files("#board-file", str(bad))
    board.wait_for_function(
        "() => document.getElementById('banner')?.textContent.includes('notes.json')"
    )
    assert "not a game record" in board.locator("#banner").inner_text()
    board.set_input_files("#board-file", str(tmp_path / "site-game.json"))
    board.wait_for_selector("#board[data-state=shown]", timeout=60000)
    board.locator("#analysis-progress").wait_for(timeout=60000)
    assert board.locator("#step-deal option").count() == 20
    board.close()
    # Nothing was fetched from anywhere but the site's own address.
    strangers = {u for u in fetched if not u.startswith((f"{url}/", "blob:", "data:"))}
    assert not strangers, strangers
    unexpected = [e for e in errors if "ERR_INTERNET_DISCONNECTED" not in e]
    assert not unexpected, unexpected


#: How many bytes the page is answered for an address.
SIZE = "async (address) => (await (await fetch(address)).arrayBuffer()).byteLength"


def caches_of(page: Page) -> list[str]:
    return sorted(page.evaluate("async () => await caches.keys()"))


def test_a_newer_build_published_mid_game_waits_for_the_next_game(
    phone: BrowserContext, tmp_path: Path
) -> None:
    folder = tmp_path / "site"
    first = write_site(folder, "--base-path", "/king/")
    with ExitStack() as serving:
        url = serving.enter_context(caddy_file_server(folder, tmp_path))
        page = phone.new_page()
        errors = watch_errors(page)
        open_home(page, f"{url}/")
        table = f"{url}/offline.html?bots=rule,rule,rule&bot_pause=0"
        page.goto(table)
        wait_until_ready(page)
        assert build_of(page) == first
        # Sixteen deals played on this phone so far.
        resume_saved_game(page, saved_game(16, seed=31, bots=["rule"] * 3))
        assert build_of(page) == first
        while not mid_deal(page, 17):
            tap_what_is_asked(page)
        # The next version is published at the same address, mid-game.
        newer = write_site(folder, "--base-path", "/king/", package=newer_package(tmp_path))
        assert newer != first
        before = deal_and_hand(page)
        reopen(page, table)
        # The game goes on, under the build it began with...
        assert deal_and_hand(page) == before
        assert build_of(page) == first
        # ...while the newer one is kept (only its Python travels: Pyodide is the same).
        wait_for_promise(
            page,
            """async (build) => {
              const cache = await caches.open(`king-offline-${build}`);
              return (await cache.keys()).length === 6;
            }""",
            newer,
            timeout=60,
        )
        # (The last toast's words stay in the page once it hides.)  The newer worker takes
        # over once the older one has no event in hand: under load, the older build's
        # files still streaming to the page's game can hold it for a while.
        page.wait_for_function(
            "() => document.getElementById('toast').textContent.includes('A new version')",
            timeout=150_000,
        )
        while not mid_deal(page, 19):
            tap_what_is_asked(page)
        # Caddy stops and the network goes: the older build's game goes on all the same.
        serving.close()
        phone.set_offline(True)
        before = deal_and_hand(page)
        reopen(page, table)
        assert deal_and_hand(page) == before and build_of(page) == first
        deadline = time.monotonic() + 900
        while asked(page) != "over":
            assert time.monotonic() < deadline, "the game did not end"
            tap_what_is_asked(page)
    text = downloaded_record(page, tmp_path / "older-build.json")
    assert play_record_again(text, ["rule", "rule", "rule"]) == json.loads(text)
    # The next game (still offline) is the new build's, and the older build's files go.
    with page.expect_navigation():  # the table opens anew
        page.locator("#dlg-sheet #btn-again").tap()
    wait_until_ready(page)
    assert page.locator("#deal-number").get_attribute("data-deal") == "1"
    assert build_of(page) == newer
    wait_for_promise(
        page, "async (old) => !(await caches.keys()).some((name) => name.endsWith(old))", first
    )
    assert caches_of(page) == [f"king-offline-{newer}", f"king-shell-{newer}"]
    script = page.locator("script[type=module]").get_attribute("src")
    assert script == f"/king/static/{newer}/js/table.js"
    unexpected = [e for e in errors if "ERR_INTERNET_DISCONNECTED" not in e]
    assert not unexpected, unexpected


def test_a_damaged_copy_on_the_device_is_never_served(
    phone: BrowserContext, tmp_path: Path
) -> None:
    """Every copy the service worker answers from is checked against the build's digest
    first: a damaged one (a broken disk) is replaced by the site's, and with no site to
    ask it is refused, never served."""
    folder = tmp_path / "site"
    build = write_site(folder)
    shell, large = f"king-shell-{build}", f"king-offline-{build}"
    script, bundle = f"/static/{build}/js/board.js", f"/offline/king-{build}.zip"
    with ExitStack() as serving:
        url = serving.enter_context(python_http_server(folder, tmp_path / "http.log"))
        page = phone.new_page()
        open_home(page, f"{url}/")
        for cache, address in ((shell, script), (shell, "/offline.html"), (large, bundle)):
            page.evaluate(DAMAGE, [cache, address])
            served = page.evaluate(SIZE, address)
            shipped = (folder / address.removeprefix("/")).read_bytes()
            assert served == len(shipped), address
            assert kept(page, cache, address) == shipped, f"{address}: the damaged copy replaced"
        page.evaluate(DAMAGE, [shell, script])
        serving.close()
        phone.set_offline(True)
        answer = page.evaluate(
            "async (address) => { try { await fetch(address); return 'served'; }"
            " catch { return 'refused'; } }",
            script,
        )
        assert answer == "refused"
        # The other files still answer: the home screen opens offline.
        page.goto(f"{url}/")
        page.wait_for_selector("body[data-ready=true]")
