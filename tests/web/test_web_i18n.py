"""The page in five languages, and for everyone: Debian's Chromium driven by Playwright
against a real server.  The language is chosen in the page, remembered, and set by the
address; the contract and the reason an illegal card is refused are worded in it; a
whole trick is played with the keyboard alone; the Rules dialog shows the rules (and the
table's own) in the page's language; and axe-core finds nothing serious on the lobby or
the table, in English and in Thai."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from importlib import resources
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, WebSocket

from benchmarks.server_process import ServerProcess
from king.i18n import LANGUAGES, Translator
from tests.support.pages import (
    DESKTOP,
    LEGAL,
    create,
    hand,
    serious_violations,
    wait_my_turn,
    watch_errors,
)

ILLEGAL = '#hand.my-turn .card[data-legal="false"]'


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("i18n") / "king.db"
    with ServerProcess(db, bot_pause=0) as process:
        yield process


def web_message(language: str, key: str, **params: object) -> str:
    """A message of the page's catalogs, as the page words it."""
    return Translator(language)(key, **params)


def wait_language(page: Page, language: str) -> None:
    page.wait_for_function(
        "code => document.documentElement.lang === code && document.querySelector('#lang-select')"
        " && document.querySelector('#lang-select').value === code",
        arg=language,
        timeout=10000,
    )


def errors_received(page: Page) -> list[dict[str, Any]]:
    """Every ``error`` message the page's WebSocket receives, as it arrives."""
    errors: list[dict[str, Any]] = []

    def on_socket(socket: WebSocket) -> None:
        def on_frame(payload: str | bytes) -> None:
            message = json.loads(payload)
            if message.get("type") == "error":
                errors.append(message)

        socket.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    return errors


def declare_if_asked(page: Page, contract: str = "no-queens") -> bool:
    """Declare ``contract`` (or the first allowed choice) when the page asks; whether it
    did."""
    wait_my_turn(page)
    if not page.locator("#declare:not([hidden])").count():
        return False
    choice = page.locator(f'#declare button.choice[data-contract="{contract}"]:not([disabled])')
    choice = choice.first
    if not choice.count():
        choice = page.locator("#declare button.choice:not([disabled])").first
    choice.click()
    page.wait_for_selector("#declare", state="hidden")
    return True


@pytest.mark.parametrize("language", [pytest.param("tr", marks=pytest.mark.slow), "th"])
def test_the_table_in_another_language_names_the_contract_and_explains_an_illegal_card(
    browser: Browser, server: ServerProcess, language: str
) -> None:
    claim = create(server, ["human", "random", "random", "random"], seed=8)  # seat 0 declares
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = context.new_page()
    errors = watch_errors(page)
    refusals = errors_received(page)
    page.goto(f"{server.url}/t/{claim['table']}#token={claim['token']}")
    page.wait_for_selector("#hand .card")
    wait_language(page, "en")
    page.select_option("#lang-select", language)
    wait_language(page, language)
    t = Translator(language)
    assert page.locator(".hint").inner_text() == t("table.handHint")
    assert page.locator("#btn-sheet").inner_text() == t("table.scores")
    names = page.eval_on_selector_all("#lang-select option", "os => os.map(o => o.textContent)")
    assert names == list(LANGUAGES.values())
    if page.locator("#declare:not([hidden])").count():
        button = page.locator('#declare button[data-contract="no-queens"]')
        label = t("declare.action", contract=t.contract("no-queens"))
        assert button.get_attribute("aria-label") == label
    declare_if_asked(page)
    contract = page.locator("#contract").get_attribute("data-contract")
    assert contract
    name = page.locator("#contract .contract-name").inner_text()
    assert name == t.contract(contract) != Translator("en").contract(contract)
    first = page.locator(LEGAL).first
    code = first.get_attribute("data-card")
    assert code is not None
    label = t("card.playable", card=t.card(code))
    assert first.get_attribute("aria-label") == label
    # Play until the page offers an illegal card, then try it: the server refuses it and
    # the page says why in the chosen language.
    deadline = time.monotonic() + 60
    while not page.locator(ILLEGAL).count():
        assert time.monotonic() < deadline, "no illegal card came up"
        before = len(hand(page))
        assert before > 1, "the deal ended without an illegal card"
        page.locator(LEGAL).first.click()
        page.wait_for_function(
            "n => document.querySelectorAll('#hand .card').length < n", arg=before
        )
        wait_my_turn(page)
    cards = hand(page)
    page.locator(ILLEGAL).first.click()
    page.wait_for_selector("#toast:not([hidden])")
    deadline = time.monotonic() + 10
    while not refusals and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert len(refusals) == 1, refusals
    refusal = refusals[0]
    assert refusal["code"] == "illegal" and refusal["reason"]
    expected = t.illegal(refusal["reason"], refusal["params"])
    assert expected and "{" not in expected
    assert page.locator("#toast").inner_text() == expected
    assert expected != Translator("en").illegal(refusal["reason"], refusal["params"])
    assert hand(page) == cards  # nothing changed
    page.locator(LEGAL).first.click()
    page.wait_for_function(
        "n => document.querySelectorAll('#hand .card').length < n", arg=len(cards)
    )
    assert not errors, errors
    context.close()


@pytest.mark.slow
def test_the_language_is_remembered_and_set_by_the_address(
    browser: Browser, server: ServerProcess
) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="tr-TR")
    page = context.new_page()
    errors = watch_errors(page)
    # With no choice made, the browser's language.
    page.goto(f"{server.url}/")
    wait_language(page, "tr")
    assert page.locator("#create-title").inner_text() == web_message("tr", "home.custom")
    # ?lang chooses, and is remembered.
    page.goto(f"{server.url}/?lang=th")
    wait_language(page, "th")
    assert page.locator("#create-title").inner_text() == web_message("th", "home.custom")
    assert page.title() == web_message("th", "lobby.title")
    page.goto(f"{server.url}/")
    wait_language(page, "th")
    # The selector chooses, and the choice survives a reload.
    page.select_option("#lang-select", "es")
    wait_language(page, "es")
    assert page.locator("#create-title").inner_text() == web_message("es", "home.custom")
    page.click("#custom-table summary")
    seat = page.locator("#seat-choices .seat-choice span").first.inner_text()
    assert seat == web_message("es", "lobby.seat", n=1)  # people count seats from 1
    page.reload()
    wait_language(page, "es")
    assert page.evaluate("localStorage.getItem('king:lang')") == "es"
    # A table page opened with ?lang=fr (as `king --lang fr` opens it) is in French.
    claim = create(server, ["human", "random", "random", "random"], seed=3)
    page.goto(f"{server.url}/t/{claim['table']}?lang=fr#token={claim['token']}")
    wait_language(page, "fr")
    page.wait_for_selector("#hand .card")
    assert page.locator("#btn-last").inner_text() == web_message("fr", "table.lastTrick")
    assert "?lang=fr" in page.url
    page.select_option("#lang-select", "th")
    wait_language(page, "th")
    assert "?lang=th" in page.url  # a reload keeps the language just chosen
    page.reload()
    wait_language(page, "th")
    assert page.locator("#btn-last").inner_text() == web_message("th", "table.lastTrick")
    assert not errors, errors
    context.close()


def focus_visible(page: Page) -> bool:
    """Whether the focused element shows a ring: an outline or a box shadow."""
    visible: bool = page.evaluate(
        """() => {
            const style = getComputedStyle(document.activeElement);
            const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2;
            return outline || (style.boxShadow && style.boxShadow !== "none");
        }"""
    )
    return visible


def tab_to(page: Page, selector: str, limit: int = 60) -> None:
    """Press Tab until the focused element matches ``selector``."""
    for _ in range(limit):
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def test_a_whole_trick_is_played_with_the_keyboard_alone(
    browser: Browser, server: ServerProcess
) -> None:
    claim = create(server, ["human", "random", "random", "random"], seed=7)  # seat 0 declares
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    page.goto(f"{server.url}/t/{claim['table']}#token={claim['token']}")
    page.wait_for_selector("#hand .card")
    wait_my_turn(page)
    assert page.locator("#declare:not([hidden])").count(), "seat 0 declares the first deal"
    # Declaring: Tab reaches the choices, the arrow keys move between them, Enter declares.
    tab_to(page, "#declare button.choice")
    assert focus_visible(page)
    first = page.evaluate("document.activeElement.dataset.contract")
    page.keyboard.press("ArrowRight")
    chosen = page.evaluate("document.activeElement.dataset.contract")
    assert chosen != first or page.locator("#declare button.choice:not([disabled])").count() == 1
    assert focus_visible(page)
    page.keyboard.press("Enter")
    page.wait_for_selector("#declare", state="hidden")
    assert page.locator("#contract").get_attribute("data-contract") == chosen
    # Playing: the focus comes to a legal card; the arrows move, Enter plays.
    wait_my_turn(page)
    tab_to(page, "#hand .card")
    assert focus_visible(page)
    for _ in range(13):
        if page.evaluate("document.activeElement.dataset.legal") == "true":
            break
        page.keyboard.press("ArrowRight")
    card = page.evaluate("document.activeElement.dataset.card")
    assert page.evaluate("document.activeElement.dataset.legal") == "true"
    assert focus_visible(page)
    page.keyboard.press("Enter")
    # The declarer leads: the three bots complete the trick.  The last trick, opened
    # with the keyboard, shows the card.
    page.wait_for_function("() => document.querySelectorAll('#hand .card').length === 12")
    wait_my_turn(page)  # the trick is complete: it was led by seat 0
    tab_to(page, "#btn-last")
    assert focus_visible(page)
    page.keyboard.press("Enter")
    page.wait_for_selector("#dlg-last[open]")
    played = page.eval_on_selector_all("#dlg-last .card", "cs => cs.map(c => c.dataset.played)")
    assert len(played) == 4 and played[0] == card
    assert focus_visible(page)  # the dialog's button has the focus
    page.keyboard.press("Escape")
    page.wait_for_selector("#dlg-last:not([open])", state="attached")
    # And the next card, still by keyboard.
    tab_to(page, '#hand .card[data-legal="true"]')
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelectorAll('#hand .card').length === 11")
    assert not errors, errors
    page.close()


@pytest.mark.slow
@pytest.mark.parametrize("language", ["en", "th"])
def test_axe_finds_nothing_serious_on_the_lobby_and_the_table(
    browser: Browser, server: ServerProcess, language: str
) -> None:
    pytest.importorskip("axe_playwright_python")
    create(server, ["human", "human", "random", "random"], seed=5)  # the lobby lists it
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(f"{server.url}/?lang={language}")
    wait_language(page, language)
    page.wait_for_selector("#seat-3 option", state="attached")
    page.wait_for_selector("#open-tables li")
    assert serious_violations(page) == []
    claim = create(server, ["human", "random", "random", "random"], seed=6)
    page.goto(f"{server.url}/t/{claim['table']}?lang={language}#token={claim['token']}")
    page.wait_for_selector("#hand .card")
    wait_my_turn(page)
    assert page.locator("#declare:not([hidden])").count()
    assert serious_violations(page) == []  # with the declaration open
    declare_if_asked(page)
    for _ in range(2):  # mid-deal: a trick on the table, cards in hand
        before = len(hand(page))
        page.locator(LEGAL).first.click()
        page.wait_for_function(
            "n => document.querySelectorAll('#hand .card').length < n", arg=before
        )
        wait_my_turn(page)
    assert page.locator("#hand .card").count() == 11
    assert serious_violations(page) == []
    page.locator("#btn-sheet").click()
    page.wait_for_selector("#dlg-sheet[open]")
    assert serious_violations(page) == []
    context.close()


# -- the rules, in the page's language ------------------------------------------------


def create_with_rules(server: ServerProcess, rules: object, seed: int) -> dict[str, Any]:
    """A table of a person (seat 0) and three random bots under ``rules``."""
    body = {
        "seats": [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3,
        "name": "Ada",
        "seed": seed,
        "rules": rules,
    }
    answer = httpx.post(f"{server.url}/api/tables", json=body, timeout=10)
    assert answer.status_code == 201, answer.text
    claim: dict[str, Any] = answer.json()
    return claim


def first_heading(markdown: str) -> str:
    return next(line[3:].strip() for line in markdown.splitlines() if line.startswith("## "))


def bold_parts(markdown: str) -> list[str]:
    return re.findall(r"\*\*(.+?)\*\*", markdown)


def open_rules_by_keyboard(page: Page) -> None:
    page.focus("#btn-rules")
    page.keyboard.press("Enter")
    page.wait_for_selector("#dlg-rules[open] .rules-text h3")


def test_the_rules_open_by_keyboard_in_turkish_with_the_tables_own_rules(
    browser: Browser, server: ServerProcess
) -> None:
    claim = create_with_rules(server, "turkish", seed=11)
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/t/{claim['table']}?lang=tr#token={claim['token']}")
    wait_language(page, "tr")
    page.wait_for_selector("#hand .card")
    wait_my_turn(page)  # nothing moves until seat 0 acts
    t = Translator("tr")
    assert page.locator("#btn-rules").inner_text() == t("rules.title")
    open_rules_by_keyboard(page)
    dialog = page.locator("#dlg-rules")
    # A real modal <dialog>, named by its title, with the focus inside it.
    assert page.evaluate("document.querySelector('#dlg-rules').matches(':modal')")
    title_id = dialog.get_attribute("aria-labelledby")
    assert title_id and page.locator(f"#{title_id}").inner_text() == t("rules.title")
    assert page.evaluate("document.querySelector('#dlg-rules').contains(document.activeElement)")
    # The rules of the game, in Turkish, drawn from the catalog's markdown.
    body = t("rules.body")
    assert dialog.locator(".rules-text h3").first.inner_text() == first_heading(body)
    assert first_heading(body) != first_heading(Translator("en")("rules.body"))
    strong = dialog.locator(".rules-text strong").all_inner_texts()
    assert t.contract("no-queens") == "Kız Almaz" and "Kız Almaz" in strong
    assert dialog.locator(".rules-text li").count() == 7  # the seven contracts
    assert "**" not in dialog.inner_text()
    # The table's own rules: the Turkish preset turns every optional rule on.
    own = dialog.locator(".rules-of-table")
    name = t("rules.preset.turkish")
    assert own.locator("h3").inner_text() == t("rules.of_this_game", name=name)
    toggles = ["forced_penalty", "early_end", "overruff", "trump_lead_after_break"]
    toggles.append("two_of_diamonds_starts")
    expected = [bold_parts(t(f"rules.toggle.{toggle}"))[0] for toggle in toggles]
    assert own.locator("p > strong:first-child").all_inner_texts() == expected
    # Esc closes it, and the focus goes back to the button.
    page.keyboard.press("Escape")
    page.wait_for_selector("#dlg-rules:not([open])", state="attached")
    assert page.evaluate("document.activeElement.id") == "btn-rules"
    # The Close button closes it too.
    open_rules_by_keyboard(page)
    page.click("#rules-close")
    page.wait_for_selector("#dlg-rules:not([open])", state="attached")
    assert page.evaluate("document.activeElement.id") == "btn-rules"
    assert not errors, errors
    context.close()


@pytest.mark.slow
def test_the_rules_dialog_follows_the_language_and_axe_finds_nothing_serious_in_thai(
    browser: Browser, server: ServerProcess
) -> None:
    pytest.importorskip("axe_playwright_python")
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = context.new_page()
    errors = watch_errors(page)
    # The lobby: the rules of the game alone; switching the language redraws them.
    page.goto(f"{server.url}/?lang=en")
    wait_language(page, "en")
    open_rules_by_keyboard(page)
    heading = page.locator("#dlg-rules .rules-text h3").first
    assert heading.inner_text() == first_heading(Translator("en")("rules.body"))
    assert not page.locator("#dlg-rules .rules-of-table").count()
    page.evaluate(
        """() => {
            const select = document.querySelector('#lang-select');
            select.value = 'th';
            select.dispatchEvent(new Event('change'));
        }"""
    )
    wait_language(page, "th")
    t = Translator("th")
    page.wait_for_function(
        "text => document.querySelector('#dlg-rules .rules-text h3').textContent === text",
        arg=first_heading(t("rules.body")),
    )
    assert page.locator("#dlg-rules-title").inner_text() == t("rules.title")
    assert page.locator("#rules-close").inner_text() == t("rules.close")
    assert serious_violations(page) == []
    # A classic table: its rules say it uses none of the optional rules.
    claim = create_with_rules(server, "classic", seed=12)
    page.goto(f"{server.url}/t/{claim['table']}?lang=th#token={claim['token']}")
    wait_language(page, "th")
    page.wait_for_selector("#hand .card")
    wait_my_turn(page)
    open_rules_by_keyboard(page)
    own = page.locator("#dlg-rules .rules-of-table")
    name = t("rules.preset.classic")
    assert own.inner_text() == t("rules.no_toggles", name=name).replace("**", "")
    assert own.locator("strong").inner_text() == name
    assert serious_violations(page) == []
    page.keyboard.press("Escape")
    page.wait_for_selector("#dlg-rules:not([open])", state="attached")
    assert not errors, errors
    context.close()


def test_the_rules_markdown_is_drawn_as_text_never_as_html(
    browser: Browser, server: ServerProcess
) -> None:
    script = (resources.files("king") / "web" / "js" / "markdown.js").read_text(encoding="utf-8")
    assert "innerHTML" not in script and "insertAdjacentHTML" not in script
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{server.url}/?lang=en")
    wait_language(page, "en")
    drawn = page.evaluate(
        """async (text) => {
            const { renderMarkdown } = await import('/static/js/markdown.js');
            const box = document.createElement('div');
            box.append(renderMarkdown(text, { headingLevel: 3 }));
            return {
                tags: [...box.children].map((node) => node.tagName.toLowerCase()),
                heading: box.querySelector('h3').textContent,
                items: [...box.querySelectorAll('li')].map((li) => li.textContent),
                strong: [...box.querySelectorAll('strong')].map((s) => s.textContent),
                paragraphs: [...box.querySelectorAll('p')].map((p) => p.textContent),
                elements: box.querySelectorAll('img, b, script').length,
            };
        }""",
        '## Rules <b>x</b>\n\nOne **bold** line\nand "quoted" text.\n\n'
        "* **First** item\n  goes on\n* second\n\n"
        "<img src=x onerror=alert(1)> **unclosed",
    )
    assert drawn == {
        "tags": ["h3", "p", "ul", "p"],
        "heading": "Rules <b>x</b>",
        "items": ["First item goes on", "second"],
        "strong": ["bold", "First"],
        "paragraphs": [
            'One bold line and "quoted" text.',
            "<img src=x onerror=alert(1)> **unclosed",
        ],
        "elements": 0,
    }
    page.close()
