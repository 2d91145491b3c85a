"""Take the screenshots of docs/players-meet.md: the local game as a player meets it, at
a phone's size upright (390x844) and sideways (640x360), in Debian's Chromium.

    python scripts/player_screens.py [OUT]   (default: docs/)

It starts ``king`` (no browser, a database of its own), plays as its owner on this
machine and as a friend on the home network (a browser whose connections come from
127.0.0.2 through a proxy), and writes ``meet-<screen>-<size>.png``: the home screen,
the level box, a table for friends as the friend sees it, the game over, and Learn
King's No Tricks lesson."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.server_process import free_port  # noqa: E402
from king.game import Game  # noqa: E402
from tests.support.pages import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.support.peers import play_to_the_end, player  # noqa: E402
from tests.support.proxy import CuttableProxy  # noqa: E402
from tests.support.services import local_king  # noqa: E402

SIZES = {"390x844": (390, 844), "640x360": (640, 360)}


def page_at(browser: Browser, size: tuple[int, int]) -> Page:
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, has_touch=True, reduced_motion="reduce"
    )
    return context.new_page()


@contextmanager
def local_game(home: Path) -> Iterator[tuple[str, str, CuttableProxy]]:
    port = free_port()
    with local_king(home, "--port", str(port), "--bot-pause", "0", bots=False) as (_, lines):
        address = next(line.split(" at ", 1)[1] for line in lines if "your table is at" in line)
        friend = CuttableProxy(port, source="127.0.0.2").start()
        try:
            yield f"http://127.0.0.1:{port}", address, friend
        finally:
            friend.close()


def level_box(browser: Browser, address: str, out: Path, name: str) -> None:
    for size_name, size in SIZES.items():
        page = page_at(browser, size)
        page.goto(address)
        page.wait_for_selector("#dlg-level[open]")
        page.wait_for_timeout(300)
        page.screenshot(path=out / f"meet-level-{size_name}.png")
        if size_name == name:
            page.click("#level-cancel")
        page.context.close()


def friends_table(browser: Browser, url: str, friend_url: str, out: Path) -> None:
    host = page_at(browser, SIZES["390x844"])
    host.goto(f"{url}/")
    host.wait_for_selector('body[data-ready="true"]')
    host.click("#btn-play-friends")
    host.fill("#friends-name", "Ayşe")
    host.check('#friends-form input[name="friends"][value="1"]')
    host.click("#friends-create")
    host.wait_for_url("**/t/*")
    table = host.url.split("/t/")[1].split("?")[0].split("#")[0]
    friend = page_at(browser, SIZES["390x844"])
    friend.goto(f"{friend_url}/t/{table}")
    friend.wait_for_selector("#dlg-join[open]")
    friend.fill("#join-name", "Deniz")
    friend.click("#dlg-join button[data-seat='1']")
    friend.wait_for_selector("#hand .card")  # seated: the token is kept
    for size_name, (width, height) in SIZES.items():  # the same friend, then sideways
        friend.set_viewport_size({"width": width, "height": height})
        friend.reload()
        friend.wait_for_selector("#hand .card")
        friend.wait_for_timeout(800)
        friend.screenshot(path=out / f"meet-friends-{size_name}.png")
    friend.context.close()
    host.context.close()


def home(browser: Browser, url: str, first_table: str, out: Path) -> None:
    for size_name, size in SIZES.items():
        page = page_at(browser, size)
        page.goto(first_table)  # the owner's own game: under Continue
        page.wait_for_selector(".seat[data-seat]")
        page.goto(f"{url}/")
        page.wait_for_selector('body[data-ready="true"]')
        page.wait_for_selector("#btn-continue:not([hidden])")
        page.wait_for_timeout(300)
        page.screenshot(path=out / f"meet-home-{size_name}.png")
        page.context.close()


def game_over(browser: Browser, url: str, out: Path) -> None:
    import httpx

    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "medium"}] * 3
    claim = httpx.post(
        f"{url}/api/tables", json={"name": "Ayşe", "seats": seats, "seed": 3}, timeout=10
    ).json()

    class Local:  # what tests.support.peers asks of a server
        ws_url = url.replace("http://", "ws://")

    peer, _ = player(Local(), claim["table"], claim["token"])  # type: ignore[arg-type]
    play_to_the_end(peer)
    peer.close()
    for size_name, size in SIZES.items():
        page = page_at(browser, size)
        page.goto(f"{url}/t/{claim['table']}#token={claim['token']}")
        page.wait_for_selector("#dlg-sheet[open] .game-over")
        page.wait_for_timeout(500)
        page.screenshot(path=out / f"meet-game-over-{size_name}.png")
        page.context.close()


def no_tricks_lesson(browser: Browser, url: str, out: Path) -> None:
    import httpx

    seed = next(s for s in range(200) if Game(seed=s).declarer == 0)
    for size_name, size in SIZES.items():
        seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "medium"}] * 3
        body = {"name": "Ayşe", "seats": seats, "seed": seed, "hints": True}
        claim = httpx.post(f"{url}/api/tables", json=body, timeout=10).json()
        page = page_at(browser, size)
        page.goto(f"{url}/t/{claim['table']}?learn#token={claim['token']}")
        while True:
            page.wait_for_selector("#dlg-lesson[open]")
            lesson = page.get_attribute("#dlg-lesson", "data-lesson")
            if lesson == "contract.no-tricks":
                break
            if lesson == "declare":
                page.click("#declare .choice[data-contract='no-tricks']")
            else:
                page.click("#lesson-next")
            page.wait_for_timeout(300)
        page.wait_for_timeout(300)
        page.screenshot(path=out / f"meet-learn-no-tricks-{size_name}.png")
        page.context.close()


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs"
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        home_folder = Path(folder)
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, env={"HOME": folder}
        )
        with local_game(home_folder) as (url, first_table, friend):
            level_box(browser, first_table, out, "640x360")
            home(browser, url, first_table, out)
            friends_table(browser, url, f"http://127.0.0.1:{friend.port}", out)
            no_tricks_lesson(browser, url, out)
            game_over(browser, url, out)
        browser.close()
    print(f"wrote the screenshots to {out}")


if __name__ == "__main__":
    main()
