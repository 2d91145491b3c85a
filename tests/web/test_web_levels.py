"""Levels for people: the local ``king`` asks once for its computer players' level (at a
phone's size), remembers it beside the game (a reload, a new start), and every bot seat
shows the level's name; the lobby offers the levels per seat (never an engine)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page

from benchmarks.server_process import ServerProcess, free_port
from king.bots.levels import LEVELS
from king.server.people.ratings import LEVEL_OVER_RULE
from tests.support.pages import PHONE, watch_errors
from tests.support.services import local_king
from tests.web.test_web_accounts import sign

BOTS_NAMED = """(prefix) => {
  const names = [...document.querySelectorAll('.seat[data-seat] .seat-name')]
    .map((node) => node.textContent).filter((name) => name !== 'You');
  return names.length === 3 && names.every((name) => name.startsWith(prefix));
}"""


def bots_named(page: Page, prefix: str) -> None:
    """Wait until the three computer players' seats carry ``prefix`` (a level's name)."""
    page.wait_for_function(BOTS_NAMED, arg=prefix, timeout=10_000)


@pytest.mark.slow
def test_the_local_game_asks_for_a_level_once_and_remembers_it(
    tmp_path: Path, browser: Browser
) -> None:
    port = free_port()
    with local_king(tmp_path, "--port", str(port), bots=False) as (_, lines):
        address = next(line.split(" at ", 1)[1] for line in lines if "your table is at" in line)
        context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(address)
        page.wait_for_selector("#dlg-level[open]")
        levels = page.eval_on_selector_all(
            "#dlg-level [data-level]", "bs => bs.map(b => b.dataset.level)"
        )
        assert levels == [level.name for level in LEVELS]
        assert page.evaluate(
            "() => document.getElementById('dlg-level-title').getBoundingClientRect().top >= 0"
        )
        bots_named(page, "Medium bot")  # the default
        page.click('#dlg-level [data-level="easy"]')
        page.wait_for_url("**/t/*")
        page.wait_for_selector("#hand .card")
        bots_named(page, "Easy bot")
        page.reload()
        page.wait_for_selector("#hand .card")
        page.wait_for_timeout(800)
        assert page.locator("#dlg-level[open]").count() == 0  # asked once
        local = f"http://127.0.0.1:{port}"
        assert httpx.get(f"{local}/api/local/game", timeout=10).json()["level"] == "easy"
        # The lobby offers the levels per seat, and no engine.
        page.goto(f"{local}/")
        page.click("#custom-table summary")
        page.wait_for_selector("#seat-1 option", state="attached")  # built once wired
        options = page.eval_on_selector_all("#seat-1 > option", "os => os.map(o => o.value)")
        assert options == ["human", *(f"bot:{level.name}" for level in LEVELS)]
        assert page.locator("#seat-1 option[value='bot:search']").count() == 0  # no engines
        assert page.input_value("#home-level") == "medium"
        assert errors == []
        context.close()
    # The next start plays the remembered level.
    with local_king(tmp_path, "--port", str(port), "--new", bots=False) as (_, lines):
        table = httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=10).json()["open"]
        assert {seat["bot"] for seat in table[0]["seats"] if seat["kind"] == "bot"} == {"easy"}


def test_a_level_that_does_not_exist_is_refused_naming_the_levels(tmp_path: Path) -> None:
    port = free_port()
    with local_king(tmp_path, "--port", str(port), bots=False):
        local = f"http://127.0.0.1:{port}"
        answer = httpx.post(f"{local}/api/local/game", json={"level": "grandmaster"}, timeout=10)
        assert answer.status_code == 422, answer.text
        assert all(level.name in answer.text for level in LEVELS)
        assert httpx.get(f"{local}/api/local/game", timeout=10).json()["level"] is None
        # Another site's page in the person's browser cannot start a new game for them.
        evil = {"origin": "http://elsewhere.example"}
        answer = httpx.post(
            f"{local}/api/local/game", json={"level": "easy"}, headers=evil, timeout=10
        )
        assert answer.status_code == 403, answer.text
        assert answer.json()["error"]["code"] == "cross_site"
        assert httpx.get(f"{local}/api/local/game", timeout=10).json()["level"] is None


@pytest.mark.slow
def test_a_registered_player_plays_a_level_at_a_rated_table_that_records_it(
    tmp_path: Path, browser: Browser
) -> None:
    """From the home screen, at a phone's size: Hard chosen, Play against the computer
    opens a rated table whose bot seats are Hard, each a player of its own with its
    measured rating (rule's 1500 plus Hard's distance)."""
    with ServerProcess(tmp_path / "king.db", bot_pause=0, away_after=3600) as server:
        page = browser.new_context(viewport=PHONE, has_touch=True).new_page()
        errors = watch_errors(page)
        sign(page, server, "register", "Derya_k")
        page.wait_for_selector('body[data-ready="true"]')
        page.select_option("#home-level", "hard")
        assert "+17" in page.inner_text("#home-level-help")  # the figure beside it
        page.click("#btn-play-computer")
        page.wait_for_url("**/t/*")
        page.wait_for_selector("#badge-rated:not([hidden])")
        bots_named(page, "Hard bot")
        ratings = page.eval_on_selector_all(
            ".seat[data-seat] .seat-rating", "nodes => nodes.map((n) => n.textContent.trim())"
        )
        hard = str(1500 + LEVEL_OVER_RULE["hard"])
        assert ratings.count(hard) == 3, ratings
        table = page.url.rsplit("/", 1)[-1].split("?")[0].split("#")[0]
        seats = httpx.get(f"{server.url}/api/tables/{table}", timeout=10).json()["seats"]
        assert [seat["player"] for seat in seats[1:]] == ["bot:hard"] * 3
        assert errors == []
