"""Learn King, as a newcomer meets it on a phone (390x844): the home screen's "Learn
King" opens a game whose page teaches; each lesson appears once, at its moment (the
contract's rules while that contract is played, "follow suit" when only the led suit may
be played, what a penalty card costs as the first one is taken, the score after the
first summary), with its title in view; "Skip the lessons" ends them for the game, a
reload included."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import Error as PlaywrightError

from benchmarks.server_process import ServerProcess
from tests.support.pages import CHOICES, LEGAL, PHONE, watch_errors

#: What the page shows at a moment: the lesson open (if any), the contract, the deal,
#: the hand and its legal cards, the cards on the trick, the seats' points.
SNAPSHOT = """() => {
  const lesson = document.querySelector('#dlg-lesson[open]');
  const hand = [...document.querySelectorAll('#hand .card')];
  const title = lesson?.querySelector('h2')?.getBoundingClientRect();
  return {
    lesson: lesson ? lesson.dataset.lesson : null,
    text: lesson ? lesson.querySelector('.lesson-text').textContent : '',
    titleInView: title ? title.top >= 0 && title.bottom <= window.innerHeight : null,
    contract: document.getElementById('contract').dataset.contract ?? null,
    deal: Number(document.getElementById('deal-number')?.dataset.deal ?? 0),
    hand: hand.map((card) => card.dataset.card),
    legal: hand.filter((card) => card.dataset.legal === 'true').map((card) => card.dataset.card),
    trick: [...document.querySelectorAll('#trick [data-played]')].map((c) => c.dataset.played),
    summary: Boolean(document.querySelector('#dlg-summary[open]')),
    sheet: Boolean(document.querySelector('#dlg-sheet[open]')),
    busy: document.body.dataset.busy,
    // Each contract the person may choose, in view and not under the lesson.
    choicesShown: [...document.querySelectorAll('#declare:not([hidden]) .choice')].map((b) => {
      const box = b.getBoundingClientRect();
      const x = box.left + box.width / 2, y = box.top + box.height / 2;
      return y >= 0 && y <= innerHeight && b.contains(document.elementFromPoint(x, y));
    }),
    points: Object.fromEntries([...document.querySelectorAll('.seat[data-seat]')].map(
      (seat) => [seat.querySelector('.seat-head')?.textContent ?? '',
                 Number(seat.querySelector('.chip.points')?.textContent ?? 'NaN')])),
  };
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("learn") / "king.db"
    with ServerProcess(db, bot_pause=0) as process:
        yield process


def start_learning(browser: Browser, server: ServerProcess) -> tuple[Page, list[str]]:
    """A phone on the home screen that taps "Learn King"."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/")
    page.wait_for_selector('body[data-ready="true"]')  # a loaded machine is slow to wire it
    page.click("#btn-learn")
    page.wait_for_url("**/t/*?learn")
    return page, errors


def lesson_after_a_reload(page: Page) -> str | None:
    """The lesson the table shows once reloaded, if any (what was shown is kept: a
    lesson shown before must not come again; the moment for a new one may have come
    meanwhile, as the bots play on)."""
    page.reload()
    page.wait_for_selector("#hand .card")
    page.wait_for_timeout(1500)
    lesson: str | None = page.evaluate(SNAPSHOT)["lesson"]
    return lesson


def act(page: Page, now: dict[str, Any]) -> None:
    """Do what the table asks, as a player: close a summary, declare, or play a card."""
    try:
        if now["summary"]:
            page.click("#summary-continue", timeout=1500)
        elif page.locator(f"{CHOICES}:not([disabled])").count():
            page.locator(f"{CHOICES}:not([disabled])").first.click(timeout=1500)
        elif now["legal"] and now["busy"] == "false":
            page.locator(LEGAL).first.click(timeout=1500)
        else:
            page.wait_for_timeout(50)
    except PlaywrightError:
        pass  # the page changed under the click: look again


def check_moment(lesson: str, now: dict[str, Any]) -> None:
    """The lesson is about what the table shows as it opens."""
    assert now["titleInView"], lesson
    suits = {card[-1] for card in now["legal"]}
    if lesson.startswith("contract."):
        assert now["contract"] == lesson.removeprefix("contract."), now
    elif lesson == "play":
        assert now["legal"], now
    elif lesson == "follow":
        assert now["trick"] and len(now["legal"]) < len(now["hand"]), now
        assert len(suits) == 1 and suits <= {card[-1] for card in now["trick"]}, now
    elif lesson == "declare":  # the choices it explains are in view, not under it
        assert len(now["choicesShown"]) == 10 and all(now["choicesShown"]), now
    elif lesson == "heartsLead":
        assert not now["trick"] and "H" not in suits, now
    elif lesson == "penalty":
        # The first trick that costs anything: its taker's points are exactly its cost.
        found = re.search(r"(\d+) points", now["text"])
        assert found, now["text"]
        cost = int(found.group(1))
        assert -cost in now["points"].values(), now
        # Said as the contract counts: a trick (whatever is in it), or the penalty cards
        # alone (never the court cards that happened to be in a No Tricks trick).
        named = re.findall(r"(10|[2-9JQKA])([♠♥♦♣])", now["text"])
        if now["contract"] in ("no-tricks", "no-last-two"):
            assert "took a trick" in now["text"] and not named, now["text"]
        else:
            assert named and all(is_penalty(now["contract"], *card) for card in named), now
    elif lesson == "summary":
        assert now["deal"] == 2 and not now["summary"], now


#: What each negative contract counts as its penalty cards (rank, suit symbol).
PENALTIES = {
    "no-hearts": lambda rank, suit: suit == "♥",
    "no-queens": lambda rank, suit: rank == "Q",
    "no-boys": lambda rank, suit: rank in "KJ",
    "no-king": lambda rank, suit: (rank, suit) == ("K", "♥"),
}


def is_penalty(contract: str, rank: str, suit: str) -> bool:
    return bool(PENALTIES[contract](rank, suit))


@pytest.mark.slow
def test_learn_king_teaches_each_lesson_once_at_its_moment_on_a_phone(
    browser: Browser, server: ServerProcess
) -> None:
    page, errors = start_learning(browser, server)
    shown: list[str] = []
    deadline = time.monotonic() + 240
    while "summary" not in shown or len([x for x in shown if x.startswith("contract.")]) < 2:
        assert time.monotonic() < deadline, shown
        now = page.evaluate(SNAPSHOT)
        if now["lesson"] is None:
            act(page, now)
            continue
        if not shown or shown[-1] != now["lesson"]:
            check_moment(now["lesson"], now)
            shown.append(now["lesson"])
        page.click("#lesson-next")
    assert shown[0] == "welcome", shown
    assert len(shown) == len(set(shown)), f"a lesson came twice: {shown}"
    assert {"play", "trick", "summary"} <= set(shown), shown
    # A reload shows none of them again.
    again = lesson_after_a_reload(page)
    assert again is None or again not in shown, (again, shown)
    assert errors == []
    page.context.close()


@pytest.mark.slow
def test_skipping_the_lessons_ends_them_for_the_game(
    browser: Browser, server: ServerProcess
) -> None:
    page, errors = start_learning(browser, server)
    page.wait_for_selector('#dlg-lesson[open][data-lesson="welcome"]')
    assert "Skip" in page.inner_text("#lesson-skip")
    page.click("#lesson-skip")
    deadline = time.monotonic() + 120
    summaries = 0
    while summaries < 1:
        assert time.monotonic() < deadline
        now = page.evaluate(SNAPSHOT)
        assert now["lesson"] is None, f"a lesson after skipping: {now['lesson']}"
        summaries += now["summary"]
        act(page, now)
    assert lesson_after_a_reload(page) is None  # skipped: none for the rest of the game
    assert errors == []
    page.context.close()
