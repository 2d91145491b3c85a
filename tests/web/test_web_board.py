"""The analysis board and hints in a real browser (Debian's Chromium through Playwright)
against a real server: a finished game opened from its table steps by card, trick and
deal with keys and buttons, its marked mistakes and charts read as the analysis says; a
record file dropped on the page (on a phone) opens too, and a bad one is named; a table
with hints shows the engine's values on the legal choices, one without shows none."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from benchmarks.server_process import ServerProcess
from king.bots.analysis import AnalysisOptions, analyze
from king.record import replay
from tests.support.games import (
    EXAMPLES,
    one_deal,
)
from tests.support.pages import (
    DESKTOP,
    PHONE,
    create,
    serious_violations,
    wait_my_turn,
    watch_errors,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("board") / "king.db"
    # A small effort per decision keeps a whole game's analysis within a minute here.
    with ServerProcess(db, bot_pause=0, extra=("--max-bot-time", "0.01")) as process:
        yield process


def board_state(page: Page) -> tuple[int, int]:
    data = page.evaluate("() => ({...document.getElementById('board').dataset})")
    return int(data["deal"]), int(data["played"])


def wait_until(page: Page, script: str, timeout: float = 30) -> Any:
    """Poll a page expression until it is truthy (evaluated as a function: the page's
    Content-Security-Policy forbids eval'd strings)."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(f"() => {script}")
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {script}"
        page.wait_for_timeout(100)


def hand_cards(page: Page) -> dict[int, list[str]]:
    out: dict[int, list[str]] = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.board-seat')].map(
            s => [s.dataset.seat,
                  [...s.querySelectorAll('[data-card]')].map(c => c.dataset.card)]))"""
    )
    return {int(seat): cards for seat, cards in out.items()}


def trick_cards(page: Page) -> list[str]:
    """The cards on the felt, in the order they were played."""
    cards: list[str] = page.eval_on_selector_all(
        "#board-trick [data-played]",
        "cs => cs.sort((a, b) => a.dataset.order - b.dataset.order).map(c => c.dataset.played)",
    )
    return cards


def press(page: Page, key: str, times: int = 1) -> None:
    for _ in range(times):
        page.keyboard.press(key)


def finished_table(server: ServerProcess, browser: Browser, seed: int) -> tuple[str, Page]:
    """Four random bots play a whole game while a spectator's page watches it; the
    page, showing the final score sheet."""
    body = {"seats": [{"kind": "bot", "bot": "random"}] * 4, "seat": None, "seed": seed}
    table = httpx.post(f"{server.url}/api/tables", json=body, timeout=10).json()["table"]
    page = browser.new_page(viewport=DESKTOP, reduced_motion="reduce")
    page.goto(f"{server.url}/t/{table}?watch")
    deadline = time.monotonic() + 120
    while httpx.get(f"{server.url}/api/tables/{table}", timeout=10).json()["status"] != "over":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.3)
    page.wait_for_selector("#dlg-sheet[open]")
    return table, page


@pytest.mark.slow
def test_a_finished_game_steps_on_the_board_with_its_mistakes_and_charts(
    browser: Browser, server: ServerProcess
) -> None:
    table, page = finished_table(server, browser, seed=41)
    errors = watch_errors(page)
    # The lobby's finished games lead to the board too.
    lobby = browser.new_page(viewport=DESKTOP)
    lobby.goto(server.url)
    lobby.click(".finished-games summary")  # the home screen folds them away
    link = lobby.locator(f'#finished-tables li[data-table="{table}"] a[href^="/board"]')
    link.wait_for()
    assert link.get_attribute("href") == f"/board?table={table}"
    lobby.close()
    page.click("#btn-board")
    page.wait_for_url(f"**/board?table={table}*")
    page.wait_for_selector("#board[data-state=shown]")
    assert board_state(page) == (1, -1)
    board = httpx.get(f"{server.url}/api/tables/{table}/board", timeout=10).json()["board"]
    deals = board["deals"]
    assert len(deals) == 20
    first = deals[0]
    plays = [card for trick in first["tricks"] for card in trick["cards"]]
    # Before the declaration: every dealt card in its hand, face up; the declarer to act.
    assert {s: sorted(c) for s, c in hand_cards(page).items()} == {
        s: sorted(first["hands"][s]) for s in range(4)
    }
    assert trick_cards(page) == []
    # By card: the keys and the buttons.
    press(page, "ArrowRight")
    assert board_state(page) == (1, 0)
    page.click("#step-forward")
    assert board_state(page) == (1, 1) and trick_cards(page) == plays[:1]
    assert sum(len(c) for c in hand_cards(page).values()) == 51
    assert plays[0] not in hand_cards(page)[first["tricks"][0]["leader"]]
    # By trick: to the end of the first, with its winner outlined and the points after it.
    press(page, "ArrowDown")
    assert board_state(page) == (1, 4) and trick_cards(page) == plays[:4]
    winner = first["tricks"][0]["winner"]
    won = page.locator("#board-trick .card.winner")
    assert (
        won.count() == 1
        and won.get_attribute("data-played") == plays[first["tricks"][0]["seats"].index(winner)]
    )
    shown = page.eval_on_selector_all(
        ".board-seat",
        "ss => ss.map(s => [s.dataset.seat, s.querySelector('[data-points]').dataset.points])",
    )
    assert {int(s): int(p) for s, p in shown} == dict(enumerate(first["tricks"][0]["points"]))
    page.click("#step-trick-forward")
    assert board_state(page) == (1, 8) and trick_cards(page) == plays[4:8]
    page.click("#step-trick-back")
    assert board_state(page) == (1, 4)
    press(page, "ArrowLeft")
    assert board_state(page) == (1, 3) and trick_cards(page) == plays[:3]
    press(page, "ArrowUp")
    assert board_state(page) == (1, 0)
    # By deal: forward and back, and to the game's two ends.
    press(page, "PageDown")
    assert board_state(page) == (2, -1)
    page.click("#step-deal-forward")
    assert board_state(page) == (3, -1)
    page.click("#step-deal-back")
    assert board_state(page) == (2, -1)
    press(page, "PageUp")
    assert board_state(page) == (1, -1)
    press(page, "End")
    last = deals[-1]
    assert board_state(page) == (20, sum(len(t["cards"]) for t in last["tricks"]))
    assert page.locator("#step-forward").is_disabled()
    totals = page.eval_on_selector_all(
        "#decision tr[data-seat] .total", "cs => cs.map(c => Number(c.textContent))"
    )
    assert totals == board["totals"]
    press(page, "Home")
    assert board_state(page) == (1, -1)
    assert page.locator("#step-back").is_disabled()

    # The analysis: started by the page, followed to its end.
    wait_until(page, "document.getElementById('board').dataset.analysis === 'done'", 240)
    answer = httpx.post(f"{server.url}/api/tables/{table}/analysis", timeout=30)
    assert answer.status_code == 200
    analysis = answer.json()["record"]["analysis"]
    # The annotated record can be kept: what the page offers is a valid record with it.
    with page.expect_download() as download:
        page.click("#board-download")
    saved = download.value.path()
    assert json.loads(saved.read_text())["analysis"] == analysis
    assert replay(saved).valid
    # The chart: each player's running totals after each deal, and the points lost.
    lines = page.eval_on_selector_all(
        "#chart-totals polyline[data-seat]", "ls => ls.map(l => [l.dataset.seat, l.dataset.values])"
    )
    assert len(lines) == 4
    for seat, values in lines:
        assert [int(v) for v in values.split(",")] == [0] + [d["totals"][int(seat)] for d in deals]
    lost = page.eval_on_selector_all(
        "#chart-lost [data-seat]", "rs => rs.map(r => [r.dataset.seat, r.dataset.lost])"
    )
    assert {int(s): float(v) for s, v in lost} == dict(enumerate(analysis["lost"]))

    # The deal with the most points lost: its marked mistakes, each player's biggest
    # first, the better choice named; a click goes to the position before it.
    worst = max(range(20), key=lambda d: sum(analysis["deals"][d]["lost"]))
    for _ in range(worst):
        press(page, "PageDown")
    assert board_state(page) == (worst + 1, -1)
    decisions = analysis["deals"][worst]["decisions"]
    expected = []
    for seat in range(4):
        mine = sorted(
            (d for d in decisions if d["seat"] == seat and d["mistake"]),
            key=lambda d: -d["loss"],
        )[:3]
        expected += [
            (seat, "declare" if d["play"] is None else str(d["play"]), d["chosen"], d["best"])
            for d in mine
        ]
    listed = page.eval_on_selector_all(
        "#mistakes li",
        """ls => ls.map(l => [Number(l.dataset.seat), l.dataset.play, l.dataset.chosen,
                              l.dataset.best, Number(l.dataset.loss)])""",
    )
    assert [tuple(entry[:4]) for entry in listed] == expected and expected
    by_place = {
        (d["seat"], "declare" if d["play"] is None else str(d["play"])): d for d in decisions
    }
    for entry in listed:
        decision = by_place[(entry[0], entry[1])]
        assert entry[4] == pytest.approx(decision["loss"])
        assert decision["loss"] > 2 * decision["error"]
    seat, play, chosen, best, _ = listed[0]
    page.locator("#mistakes li button").first.click()
    at = -1 if play == "declare" else int(play)
    assert board_state(page) == (worst + 1, at)
    # The position before the mistake: the chosen choice and the better one, valued.
    assert page.locator("#decision").get_attribute("data-seat") == str(seat)
    assert page.locator(f'#decision li.chosen[data-choice="{chosen}"]').count() == 1
    ranked = page.eval_on_selector_all(
        "#decision li[data-choice]", "ls => ls.map(l => [l.dataset.choice, Number(l.dataset.loss)])"
    )
    assert ranked[0][1] == 0 and ranked[0][0] == best
    if play != "declare":
        mover = page.locator(f'.board-seat[data-seat="{seat}"]')
        assert mover.locator(".bcard.chosen").get_attribute("data-card") == chosen
        assert mover.locator(f'.bcard[data-card="{best}"]').get_attribute("data-grade") == "best"
        assert mover.locator(".bcard.chosen").get_attribute("data-grade") in (
            "inaccuracy",
            "mistake",
            "blunder",
        )
    # The address keeps the position: opened again, the page comes back to it.
    page.reload()
    page.wait_for_selector("#board[data-state=shown]")
    assert board_state(page) == (worst + 1, at)
    assert not errors, errors
    page.close()


def drop(page: Page, text: str, name: str) -> None:
    """Drop a file on the page, as a person drags one from their files (once the page
    listens for it)."""
    page.wait_for_selector("#board[data-ready=true]")
    page.evaluate(
        """([text, name]) => {
            const data = new DataTransfer();
            data.items.add(new File([text], name, {type: "application/json"}));
            const options = {dataTransfer: data, bubbles: true, cancelable: true};
            document.body.dispatchEvent(new DragEvent("drop", options));
        }""",
        [text, name],
    )


@pytest.mark.slow
def test_a_dropped_record_opens_on_a_phone_and_a_bad_one_is_named(
    browser: Browser, server: ServerProcess
) -> None:
    page = browser.new_page(viewport=PHONE, has_touch=True, is_mobile=True)
    errors = watch_errors(page)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/analysis" in r.url else None)
    page.goto(f"{server.url}/board")
    assert page.locator("#board-drop").is_visible()
    # A record with its analysis already in it: shown at once, nothing analysed again.
    record = one_deal(15)
    record["players"] = ["Ada", "Bo", "Cem", "Deniz"]
    annotated = analyze(record, AnalysisOptions(seconds=0.02, seed=2))
    drop(page, json.dumps(annotated, indent=1), "annotated.json")
    page.wait_for_selector("#board[data-state=shown]")
    wait_until(page, "document.getElementById('board').dataset.analysis === 'done'", 10)
    assert asked == []
    names = page.eval_on_selector_all(".board-seat .seat-name", "ns => ns.map(n => n.textContent)")
    assert sorted(names) == ["Ada", "Bo", "Cem", "Deniz"]
    # The phone: the steps sit at the foot of the screen, big enough for a thumb, and
    # nothing is wider than the screen.
    box = page.locator("#board-steps").bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"] + 1
    for button in page.locator("#board-steps button").all():
        size = button.bounding_box()
        assert size is not None and size["height"] >= 40 and size["width"] >= 36
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    page.locator("#step-forward").tap()
    page.locator("#step-forward").tap()
    assert board_state(page) == (1, 1)
    page.locator("#step-trick-forward").tap()
    assert board_state(page) == (1, 4) and len(trick_cards(page)) == 4
    # A sideways swipe across the felt: to the left a card on, to the right one back.
    felt = page.locator("#board-felt").bounding_box()
    assert felt is not None
    middle_y = felt["y"] + felt["height"] / 2
    for start, end, expected in ((300, 80, (1, 5)), (80, 300, (1, 4))):
        page.mouse.move(felt["x"] + start, middle_y)
        page.mouse.down()
        page.mouse.move(felt["x"] + end, middle_y, steps=5)
        page.mouse.up()
        assert board_state(page) == expected
    # A file that is not JSON, and a record that breaks a rule: named, the board kept.
    drop(page, "not json at all", "notes.txt")
    wait_until(page, "!document.getElementById('banner').hidden")
    assert "notes.txt" in page.locator("#banner").inner_text()
    assert board_state(page) == (1, 4)
    broken = one_deal(16)
    plays = broken["deals"][0]["plays"].split()
    broken["deals"][0]["plays"] = " ".join([plays[1], plays[0], *plays[2:]])
    drop(page, json.dumps(broken), "broken.json")
    wait_until(page, "document.getElementById('banner').textContent.includes('broken.json')")
    assert "not valid" in page.locator("#banner").inner_text()
    assert board_state(page) == (1, 4)
    # A plain record: the page has the server analyse it and follows it to its end.
    drop(page, json.dumps(one_deal(17)), "plain.json")
    wait_until(page, "document.getElementById('board').dataset.played === '-1'")
    wait_until(page, "document.getElementById('board').dataset.analysis === 'done'", 120)
    assert page.locator("#banner").is_hidden()
    assert any(url.endswith("/api/analysis") for url in asked)
    assert page.locator("#mistakes li, #mistakes p").count() >= 1
    # A game in progress (a pagat record with deals that ended early, the last one
    # stopped inside a trick): shown to where it stops, said so, no summary of it.
    partial = (EXAMPLES / "partial-pagat.json").read_text(encoding="utf-8")
    drop(page, partial, "partial-pagat.json")
    wait_until(page, "document.getElementById('board').dataset.analysis === 'running'")
    press(page, "End")
    report = replay(EXAMPLES / "partial-pagat.json").to_json()
    last = report["deals"][-1]
    complete_tricks = sum(len(t["cards"]) for t in last["tricks"])
    deal, played = board_state(page)
    # At the end: every card of its complete tricks and those of the trick it stops in.
    assert deal == len(report["deals"]) and complete_tricks < played < complete_tricks + 4
    assert "not finished" in page.locator("#board-where").inner_text()
    assert page.locator("#decision tr[data-seat]").count() == 0
    # The browser logs the refused record's answer (422); nothing else went wrong.
    assert [e for e in errors if "status of 422" not in e] == [], errors
    page.close()


@pytest.mark.slow
def test_hints_show_the_engines_values_only_where_the_table_has_them(
    browser: Browser, server: ServerProcess
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    # Created in the lobby with hints on: everyone at the table is told.
    page.goto(server.url)
    page.wait_for_selector('body[data-ready="true"]')  # wired: typing is kept
    page.click("#custom-table summary")  # the home screen keeps the form behind it
    page.fill("#create-name", "Ada")
    page.select_option("#seat-1", "bot:beginner")
    page.select_option("#seat-2", "bot:beginner")
    page.select_option("#seat-3", "bot:beginner")
    page.check("#create-hints")
    page.click("#create-form button[type=submit]")
    page.wait_for_url("**/t/*")
    table = page.url.rsplit("/", 1)[-1].split("?")[0].split("#")[0]
    assert httpx.get(f"{server.url}/api/tables/{table}", timeout=10).json()["hints"] is True
    page.wait_for_selector("#hints-badge:not([hidden])")
    for _ in range(3):
        wait_my_turn(page)
        page.wait_for_selector("#btn-hint:not([hidden])")
        declaring = page.locator("#declare:not([hidden])").count() > 0
        page.keyboard.press("h") if declaring else page.click("#btn-hint")
        marked = wait_until(
            page, "document.querySelectorAll('[data-hint-loss]').length", timeout=60
        )
        if declaring:
            allowed = page.locator("#declare button.choice:not([disabled])").count()
            assert marked == allowed
        else:
            legal = page.locator('#hand .card[data-legal="true"]').count()
            assert marked == legal
            # Only legal cards carry a value.
            assert page.locator('#hand .card[data-legal="false"][data-hint-loss]').count() == 0
        best = page.locator('[data-hint-best="true"]')
        assert best.count() == 1 and best.locator(".hint-mark").inner_text() == "★"
        assert page.locator("#btn-hint").is_disabled()  # asked once per position
        best.click()
        page.wait_for_function("() => !document.querySelector('[data-hint-loss]')", timeout=20000)
    page.close()

    # A table without hints: no button, no badge, and H does nothing.
    claim = create(server, ["human", "random", "random", "random"], seed=51)
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{server.url}/t/{claim['table']}#token={claim['token']}")
    wait_my_turn(page)
    assert page.locator("#btn-hint").is_hidden() and page.locator("#hints-badge").is_hidden()
    page.keyboard.press("h")
    page.wait_for_timeout(500)
    assert page.locator("[data-hint-loss]").count() == 0
    assert page.locator("#toast").is_hidden()
    assert not errors, errors
    page.close()


@pytest.mark.parametrize(("language", "viewport"), [("en", DESKTOP), ("th", PHONE)])
def test_axe_finds_nothing_serious_on_the_board(
    browser: Browser, server: ServerProcess, language: str, viewport: dict[str, int], tmp_path: Any
) -> None:
    pytest.importorskip("axe_playwright_python")
    record = one_deal(18)
    annotated = analyze(record, AnalysisOptions(seconds=0.02, seed=4))
    path = tmp_path / "annotated.json"
    path.write_text(json.dumps(annotated), encoding="utf-8")
    page = browser.new_page(viewport=viewport)
    errors = watch_errors(page)
    page.goto(f"{server.url}/board?lang={language}")
    wait_until(page, f"document.documentElement.lang === '{language}'")  # sent with the page
    page.wait_for_selector("#lang-select option", state="attached")  # its words are in
    page.wait_for_selector("#board[data-ready=true]")  # the file input listens
    assert serious_violations(page) == []  # the empty board, asking for a file
    page.set_input_files("#board-file", str(path))
    page.wait_for_selector("#board[data-state=shown]")
    wait_until(page, "document.getElementById('board').dataset.analysis === 'done'")
    press(page, "ArrowRight", 6)
    assert page.locator("#decision li[data-choice], #decision p").count() >= 1
    # Every word on the board is the page's language's (the Thai title is Thai).
    if language == "th":
        assert "กระดานวิเคราะห์" in page.title()
    assert serious_violations(page) == []
    assert not errors, errors
    page.close()
