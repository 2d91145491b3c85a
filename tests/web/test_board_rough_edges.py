"""The analysis board's rough edges (issue #37), in Debian's Chromium: at each of the
phone tests' eight sizes the step buttons lie wholly on the screen; the engine is named
for people (its bot spec kept in a title) in every language; and after stepping back
to an earlier trick the panel describes the position the felt shows, its trick and the
player to act there, with that player's choices."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from benchmarks.server_process import ServerProcess
from king.bots.analysis import AnalysisOptions, analyze
from tests.support.games import one_deal
from tests.support.pages import watch_errors
from tests.web.test_web_phone import SIZES

#: The sizes of the inner loop: a short desktop screen and a phone upright and sideways.
QUICK = [(1280, 720), (390, 844), (844, 390)]

#: The engine the record was analysed by, as a developer writes it.
ENGINE = "search:threads=1&worlds=4000"
STEPS = ["#step-deal-back", "#step-trick-back", "#step-back", "#step-deal"]
STEPS += ["#step-forward", "#step-trick-forward", "#step-deal-forward"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("rough") / "king.db"
    with ServerProcess(db, bot_pause=0) as process:
        yield process


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A played deal with its analysis, as a file a person opens on the board."""
    game = one_deal(23)
    game["players"] = ["Ada", "Bo", "Cem", "Deniz"]
    annotated = analyze(game, AnalysisOptions(bot=ENGINE, seconds=0.02, seed=5))
    path = tmp_path_factory.mktemp("record") / "annotated.json"
    path.write_text(json.dumps(annotated), encoding="utf-8")
    return path, annotated


def open_board(
    browser: Browser, server: ServerProcess, path: Path, size: tuple[int, int], language: str = "en"
) -> Page:
    """The board of the record at ``path`` on a touch screen of ``size``, analysed."""
    width, height = size
    context = browser.new_context(
        viewport={"width": width, "height": height},
        has_touch=True,
        is_mobile=width < 800,
        reduced_motion="reduce",
    )
    page = context.new_page()
    page.goto(f"{server.url}/board?lang={language}")
    page.wait_for_function(f"() => document.documentElement.lang === '{language}'")
    # The page's lang is sent with it: the file input listens only once the page says so.
    page.wait_for_selector("#board[data-ready=true]")
    page.set_input_files("#board-file", str(path))
    page.wait_for_function("() => document.getElementById('board').dataset.analysis === 'done'")
    return page


def sizes() -> list[Any]:
    return [
        pytest.param(
            size, id=f"{size[0]}x{size[1]}", marks=() if size in QUICK else pytest.mark.slow
        )
        for size in SIZES
    ]


def felt(page: Page) -> dict[str, Any]:
    """What the felt shows: the position's trick (the bar's "Trick n/13"), the seat to
    act (outlined), the cards on it, and the panel's account of the same position."""
    shown: dict[str, Any] = page.evaluate(
        """() => {
          const panel = document.getElementById("panel-position");
          const acting = document.querySelector(".board-seat.to-act");
          const cards = [...document.querySelectorAll("#board-trick [data-played]")]
            .sort((a, b) => a.dataset.order - b.dataset.order).map((c) => c.dataset.played);
          const decision = document.getElementById("decision");
          return {
            barTrick: document.querySelector("#board-info .deal-trick").textContent,
            toAct: acting ? Number(acting.dataset.seat) : null,
            cards,
            played: Number(document.getElementById("board").dataset.played),
            panelTrick: Number(panel.dataset.trick),
            panelSeat: "seat" in panel.dataset ? Number(panel.dataset.seat) : null,
            panelText: panel.textContent,
            decisionSeat: "seat" in decision.dataset ? Number(decision.dataset.seat) : null,
            chosen: decision.querySelector("li.chosen")?.dataset.choice ?? null,
          };
        }"""
    )
    return shown


@pytest.mark.parametrize("size", sizes())
def test_the_steps_are_in_view_and_the_panel_tells_the_position_the_felt_shows(
    browser: Browser,
    server: ServerProcess,
    record: tuple[Path, dict[str, Any]],
    size: tuple[int, int],
) -> None:
    path, annotated = record
    width, height = size
    page = open_board(browser, server, path, size)
    errors = watch_errors(page)
    tricks = annotated["deals"][0]["plays"].split()
    # The steps: every button wholly on the screen, nothing wider than it.
    for selector in STEPS:
        box = page.locator(selector).bounding_box()
        assert box is not None, selector
        assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
        assert box["x"] + box["width"] <= width + 0.5, (selector, box)
        assert box["y"] + box["height"] <= height + 0.5, (selector, box)
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
    # The engine named for people, its spec kept for those who want it.
    name = page.locator("#analysis-engine")
    assert not re.search(r"[=:&]", name.inner_text()), name.inner_text()
    assert "4,000" in name.inner_text() and "0.02" in name.inner_text()
    assert name.get_attribute("title") == f"{ENGINE}&time=0.02"
    # To the end of the deal, then back by tricks to the end of the third one.
    page.keyboard.press("End")
    for _ in range(10):
        page.locator("#step-trick-back").click()
    shown = felt(page)
    assert shown["played"] == 12 and shown["cards"] == tricks[8:12]
    assert shown["barTrick"].startswith("Trick 3/") and shown["panelTrick"] == 3
    # After the trick: its winner leads the next, and the panel says so, with the
    # choices of that very player from this position (the card they chose still in hand).
    assert shown["toAct"] is not None and shown["panelSeat"] == shown["toAct"]
    leader = ["Ada", "Bo", "Cem", "Deniz"][shown["toAct"]]
    assert shown["panelText"] == f"After trick 3: {leader} to lead"
    assert shown["decisionSeat"] == shown["toAct"] and shown["chosen"] == tricks[12]
    in_hand = page.locator(f'.board-seat[data-seat="{shown["toAct"]}"] .bcard.chosen')
    assert in_hand.get_attribute("data-card") == tricks[12]
    # A card back, inside the third trick: the player to play its last card.
    page.locator("#step-back").click()
    shown = felt(page)
    assert shown["played"] == 11 and shown["cards"] == tricks[8:11]
    assert shown["panelTrick"] == 3 and shown["barTrick"].startswith("Trick 3/")
    assert shown["panelSeat"] == shown["toAct"] == shown["decisionSeat"]
    player = ["Ada", "Bo", "Cem", "Deniz"][shown["toAct"]]
    assert shown["panelText"] == f"Trick 3: {player} to play"
    assert shown["chosen"] == tricks[11]
    assert not errors, errors
    page.context.close()


@pytest.mark.parametrize(
    ("language", "thousands", "seconds"),
    [
        ("en", "4,000", "0.02"),
        ("tr", "4.000", "0,02"),
        ("es", "4000", "0,02"),
        ("fr", "4\u202f000", "0,02"),
        ("th", "4,000", "0.02"),
    ],
)
def test_the_engine_is_named_in_words_in_every_language(
    browser: Browser,
    server: ServerProcess,
    record: tuple[Path, dict[str, Any]],
    language: str,
    thousands: str,
    seconds: str,
) -> None:
    page = open_board(browser, server, record[0], (1280, 720), language)
    errors = watch_errors(page)
    name = page.locator("#analysis-engine").inner_text()
    assert not re.search(r"[=:&]", name) and "search" not in name, name
    assert thousands in name and seconds in name, name
    assert page.locator("#analysis-engine").get_attribute("data-spec") == f"{ENGINE}&time=0.02"
    # The exact spec is one click away, in a details closed by default.
    assert page.locator(".engine-spec code").is_hidden()
    page.locator(".engine-spec summary").click()
    assert page.locator(".engine-spec code").inner_text() == f"{ENGINE}&time=0.02"
    assert not errors, errors
    page.context.close()
