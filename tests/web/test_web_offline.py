"""The offline game with no server, in Debian's Chromium at a phone's size: the lobby
keeps the offline game, the server stops and the network goes, and the page still plays
against rule bots in its Web Worker (Pyodide running king's own Python), by tapping, to
the game's end (from a game saved near it: tests/web/test_web_offline_engine.py plays the
whole one); closed mid-deal and opened again from the start page, it goes on where it
was; its record replays valid and is the record CPython makes for the same seed and
bots."""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from benchmarks.server_process import ServerProcess
from king.server.site.offline import WEB_DIR
from tests.support.altering_proxy import AlteringProxy
from tests.support.games import play_record_again
from tests.support.offline_pages import (
    DAMAGE,
    EDIT_SAVED,
    downloaded_record,
    keep_for_offline,
    kept,
    resume_saved_game,
    saved_game,
    tap_what_is_asked,
    wait_until_ready,
)
from tests.support.pages import asked, hand, serious_violations, wait_for_promise, watch_errors

#: The offline game's address in the tests: bots that move at once.
OFFLINE = "/offline?bot_pause=0"


def deal_and_hand(page: Page) -> tuple[str, list[str]]:
    return page.locator("#deal-number").inner_text(), hand(page)


@pytest.mark.slow
def test_a_game_offline_on_a_phone_survives_a_reload_and_records_what_cpython_does(
    browser: Browser, phone: BrowserContext, tmp_path: Path
) -> None:
    with ExitStack() as stack:
        server = stack.enter_context(ServerProcess(tmp_path / "king.db", bot_pause=0))
        url = server.url
        fetched: list[str] = []
        phone.on("request", lambda request: fetched.append(request.url))
        page = phone.new_page()
        errors = watch_errors(page)
        keep_for_offline(page, url)
        # The network goes (first: a request the page makes meanwhile fails as offline,
        # not refused by a server stopping under a loaded machine), then the server.
        phone.set_offline(True)
    page.goto(f"{url}{OFFLINE}")
    wait_until_ready(page)
    assert serious_violations(page) == []
    # The computer players are named by their level, as online (never "rule bot").
    names = page.eval_on_selector_all(
        ".seat[data-seat] .seat-name", "ns => ns.map(n => n.textContent)"
    )
    assert sorted(names) == ["Medium bot 1", "Medium bot 2", "Medium bot 3", "You"], names
    # Seventeen deals played on this phone so far.
    resume_saved_game(page, saved_game(17, seed=41, bots=["rule"] * 3))
    assert page.locator("#deal-number").get_attribute("data-deal") == "18"
    reopened = False
    deadline = time.monotonic() + 600
    while (now := asked(page)) != "over":
        assert time.monotonic() < deadline, "the game did not end"
        deal = page.locator("#deal-number").inner_text()
        if not reopened and deal.startswith("Deal 19 ") and now == "play" and len(hand(page)) == 10:
            # Mid-deal: the phone kills the page; the start page brings the game back.
            before = deal_and_hand(page)
            page.close()
            page = phone.new_page()
            errors += watch_errors(page)
            page.goto(f"{url}/")
            page.wait_for_url(f"{url}/offline", timeout=20000)
            wait_until_ready(page)
            assert asked(page) == "play"
            assert deal_and_hand(page) == before
            reopened = True
            continue
        tap_what_is_asked(page)
    assert reopened
    assert page.locator("#deal-info").inner_text().strip() == "The game is over"
    text = downloaded_record(page, tmp_path / "offline-game.json")
    record = json.loads(text)
    assert record["players"][1:] == ["Medium bot 1", "Medium bot 2", "Medium bot 3"]
    assert play_record_again(text, ["rule", "rule", "rule"]) == record
    # The analysis board of the finished game, laid out on the device, which analyses
    # it too (the server cannot be reached) and says so with its progress
    # (tests/web/test_web_offline_engine.py waits for the whole analysis).
    assert page.locator("#dlg-sheet #btn-board").get_attribute("href") == "/board?offline"
    board = phone.new_page()
    board.goto(f"{url}/board?offline")
    board.locator("#analysis-progress").wait_for(timeout=30000)
    assert board.evaluate("() => document.getElementById('board').dataset.analysis") == "running"
    assert board.locator("#board-felt").is_visible()
    assert board.locator("#step-deal option").count() == 20
    assert "decisions" in board.locator("#analysis-status").inner_text()
    board.close()
    # The languages work offline too (their catalogs were kept with the page).
    page.locator("#dlg-sheet #sheet-close").tap()
    page.locator("#btn-more").tap()
    page.locator("#lang-select").select_option("tr")
    page.wait_for_function(
        "() => document.getElementById('deal-info').textContent.includes('Oyun bitti')"
    )
    # Play again: a new game, on the device.
    page.locator("#btn-sheet").tap()
    with page.expect_navigation():  # the table opens anew
        page.locator("#dlg-sheet #btn-again").tap()
    wait_until_ready(page)
    assert page.locator("#deal-number").get_attribute("data-deal") == "1"
    # Nothing was ever fetched from anywhere but the page's own server.
    assert fetched and all(u.startswith((f"{url}/", "blob:", "data:")) for u in fetched), {
        u for u in fetched if not u.startswith((f"{url}/", "blob:", "data:"))
    }
    assert any(u.endswith("/static/pyodide/pyodide.asm.wasm") for u in fetched)
    # Offline, the lobby's requests fail as they must (the browser logs each one).
    unexpected = [e for e in errors if "ERR_INTERNET_DISCONNECTED" not in e]
    assert not unexpected, unexpected


#: Keep a copy of this build's Python bundle as if an older build ``old`` had kept it.
KEEP_AS_OLDER = """async ([build, old]) => {
  const response = await caches.match(`/offline/king-${build}.zip`);
  const cache = await caches.open(`king-offline-${old}`);
  await cache.put(`/offline/king-${old}.zip`, response);
}"""
OLD = "0123456789abcdef"


def ready(page: Page, url: str, path: str = OFFLINE) -> str:
    page.goto(f"{url}{path}")
    wait_until_ready(page)
    return str(page.evaluate("() => document.body.dataset.offlineBuild"))


@pytest.mark.slow
def test_a_newer_build_waits_for_the_next_game_and_then_the_older_one_goes(
    phone: BrowserContext, tmp_path: Path
) -> None:
    with ServerProcess(tmp_path / "king.db", bot_pause=0) as server:
        page = phone.new_page()
        keep_for_offline(page, server.url)
        build = ready(page, server.url)
        # A game begun under an older build that this device still keeps (edited from
        # the lobby, where no worker runs to save over the edit)...
        page.goto(f"{server.url}/")
        page.evaluate(KEEP_AS_OLDER, [build, OLD])
        page.evaluate(EDIT_SAVED, {"build": OLD})
        # ...goes on under that build, and the page says the new one comes next game.
        assert ready(page, server.url) == OLD
        assert page.locator("#toast").inner_text() == (
            "A new version of King is ready: it starts with your next game."
        )
        # Once that game is over, the next one is the new build's, and the older files go.
        page.goto(f"{server.url}/")
        page.evaluate(EDIT_SAVED, {"over": True})
        assert ready(page, server.url) == build
        wait_for_promise(
            page, "async (old) => !(await caches.keys()).includes(`king-offline-${old}`)", OLD
        )


@pytest.mark.slow
def test_a_damaged_save_is_refused_in_words_and_a_new_game_offered(
    phone: BrowserContext, tmp_path: Path
) -> None:
    with ServerProcess(tmp_path / "king.db", bot_pause=0) as server:
        page = phone.new_page()
        errors = watch_errors(page)
        ready(page, server.url)
        page.goto(f"{server.url}/")  # no worker here to save over the edit
        page.evaluate(EDIT_SAVED, {"text": '{"format": "king-offline-game/1", "seat": '})
        page.goto(f"{server.url}{OFFLINE}")
        refused = page.locator("#offline-refused")
        refused.wait_for(timeout=30000)
        assert refused.inner_text() == (
            "The saved game is damaged and cannot be resumed. Start a new game?"
        )
        with page.expect_navigation():  # the table opens anew, with a new game
            page.locator("#btn-offline-new").tap()
        wait_until_ready(page)
        assert not errors, errors


@pytest.mark.slow
def test_one_page_at_a_time_plays_the_saved_game_the_second_waits_and_goes_on(
    phone: BrowserContext, tmp_path: Path
) -> None:
    with ServerProcess(tmp_path / "king.db", bot_pause=0) as server:
        first = phone.new_page()
        ready(first, server.url)
        first.wait_for_selector("#hand .card")
        mine = deal_and_hand(first)
        second = phone.new_page()
        second.goto(f"{server.url}{OFFLINE}")
        second.wait_for_function("() => document.body.dataset.offline === 'busy'", timeout=30000)
        assert "open in another tab" in second.locator("#banner").inner_text()
        first.close()  # the other page goes on with the same game
        wait_until_ready(second)
        assert deal_and_hand(second) == mine


@pytest.mark.slow
def test_learn_king_offline_keeps_a_games_lessons_and_teaches_the_next_game_afresh(
    phone: BrowserContext, tmp_path: Path
) -> None:
    """The offline table's id is always "offline": what a game's lessons showed is kept
    for that game (a reload does not repeat them), and a new game teaches again."""
    learn = OFFLINE + "&learn"
    with ServerProcess(tmp_path / "king.db", bot_pause=0) as server:
        page = phone.new_page()
        errors = watch_errors(page)
        lesson = page.locator("#dlg-lesson[open]")
        ready(page, server.url, learn)
        lesson.wait_for(timeout=30000)
        assert lesson.get_attribute("data-lesson") == "welcome"
        page.locator("#lesson-skip").tap()
        ready(page, server.url, learn)  # the same game: skipped stays skipped
        page.wait_for_selector("#hand .card")
        page.wait_for_timeout(1000)
        assert lesson.count() == 0
        page.goto(f"{server.url}/")  # that game is over (no worker here to save over it)
        page.evaluate(EDIT_SAVED, {"over": True})
        ready(page, server.url, learn)  # the next game teaches from the start
        lesson.wait_for(timeout=30000)
        assert lesson.get_attribute("data-lesson") == "welcome"
        assert not errors, errors


#: Ask the service worker to keep the large files; what it answered (``kept`` or why not).
KEEP = """() => new Promise(async (resolve) => {
  const registration = await navigator.serviceWorker.ready;
  navigator.serviceWorker.addEventListener("message", (event) => {
    if (event.data.type === "kept") resolve("kept");
    if (event.data.type === "keep-failed") resolve(event.data.error);
  });
  registration.active.postMessage({ type: "keep-offline" });
})"""


#: Asks the service worker whether the large files are kept, as the lobby does.
STATUS = """() => new Promise(async (resolve) => {
  const registration = await navigator.serviceWorker.ready;
  navigator.serviceWorker.addEventListener("message", (event) => {
    if (event.data.type === "status") resolve(event.data);
  });
  registration.active.postMessage({ type: "status" });
})"""


@pytest.mark.slow
def test_a_first_visit_keeps_nothing_large_until_the_person_asks(
    browser: Browser, tmp_path: Path
) -> None:
    """Asking whether the files are kept makes no cache: an empty one read, to the page
    that took control next, as files kept before, and it began keeping 12 MB unasked
    (the first visit to a server's lobby; seen as a flaky test under load)."""
    with (
        ServerProcess(tmp_path / "king.db", bot_pause=0) as server,
        AlteringProxy(server.port) as proxy,
    ):
        build = httpx.get(f"{server.url}/offline/manifest.json", timeout=10).json()["build"]
        context = browser.new_context(viewport={"width": 390, "height": 844})
        page = context.new_page()
        page.goto(f"{proxy.url}/")
        for _ in range(3):  # asked again and again, before and after the worker took over
            assert page.evaluate(STATUS)["kept"] is False
        page.reload()
        assert page.evaluate(STATUS)["kept"] is False
        page.wait_for_timeout(1500)
        names = page.evaluate("async () => await caches.keys()")
        assert f"king-offline-{build}" not in names, names
        assert not [path for path in proxy.seen if path.startswith("/static/pyodide/")]
        context.close()


@pytest.mark.slow
def test_only_the_files_the_build_ships_are_kept_and_served_offline(
    browser: Browser, tmp_path: Path
) -> None:
    """A file altered on its way (plain http) is fetched once more and kept only when it
    is the shipped file; one that stays wrong is refused; a damaged copy in the cache is
    never served: the server's is fetched and kept in its place."""
    shipped = server_files()
    with (
        ServerProcess(tmp_path / "king.db", bot_pause=0) as server,
        AlteringProxy(server.port) as proxy,
    ):
        build = httpx.get(f"{server.url}/offline/manifest.json", timeout=10).json()["build"]
        shell, large = f"king-shell-{build}", f"king-offline-{build}"
        script, loader, stdlib = (
            "/static/js/board.js",  # a file the lobby itself does not load
            "/static/pyodide/pyodide.mjs",  # kept before the standard library
            "/static/pyodide/python_stdlib.zip",
        )
        proxy.alter(script)  # once: the second answer is the file
        context = browser.new_context(viewport={"width": 390, "height": 844})
        page = context.new_page()
        page.goto(f"{proxy.url}/")
        page.evaluate("async () => { await navigator.serviceWorker.ready; }")
        assert kept(page, shell, script) == shipped[script]
        assert proxy.seen[script] == 2  # the altered answer was fetched again

        proxy.alter(loader)
        proxy.alter(stdlib, times=2)  # wrong twice: refused, never kept
        refused = page.evaluate(KEEP)
        assert refused == f"{stdlib}: not the file this version of King ships", refused
        assert kept(page, large, loader) == shipped[loader]
        assert proxy.seen[loader] == 2
        assert kept(page, large, stdlib) is None
        assert page.evaluate(KEEP) == "kept"  # asked again: fetched again, and kept
        assert kept(page, large, stdlib) == shipped[stdlib]

        lock = "/static/pyodide/pyodide-lock.json"
        page.evaluate(DAMAGE, [large, lock])
        served = page.evaluate(f"async () => (await fetch('{lock}')).text()")
        assert served.encode() == shipped[lock]
        assert kept(page, large, lock) == shipped[lock]  # the damaged copy replaced
        context.close()


def server_files() -> dict[str, bytes]:
    """The shipped files by their addresses, as the package holds them."""
    return {
        f"/static/{path.relative_to(WEB_DIR).as_posix()}": path.read_bytes()
        for path in WEB_DIR.rglob("*")
        if path.is_file()
    }
