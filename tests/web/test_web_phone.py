"""The table at every screen size, phone first, and the flow of a deal's end, in Debian's
Chromium: nothing scrolls sideways, every declaration and every card of the hand can be
tapped where it shows, no text overlaps other text and no tap target is under a
finger's size as a deal goes (tests/support/layout.py), the seats say the summary's
numbers, the score sheet shows all four players, and at each deal's end the summary
comes before anything of the next deal."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, Literal

import httpx
import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import Error as PlaywrightError

from benchmarks.server_process import ServerProcess
from king.game import Game
from king.rules import POINTS_PER_UNIT, Contract
from tests.support.layout import check_summary_numbers, layout_faults
from tests.support.pages import CHOICES, LEGAL, asked, serious_violations, watch_errors

SIZES = [
    (360, 640),
    (390, 844),
    (412, 915),
    (844, 390),
    (915, 412),
    (768, 1024),
    (1280, 720),
    (1920, 1080),
]
#: The sizes the inner loop checks (a phone upright and sideways); the others are slow.
QUICK_SIZES = [(390, 844), (844, 390)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("phone") / "king.db"
    with ServerProcess(db, bot_pause=0) as process:
        yield process


def seat_of_first_declarer(seed: int) -> int:
    """The seat that declares deal 1 of a classic game from ``seed``."""
    declarer: int = Game(seed=seed).declarer
    return declarer


def open_table(
    browser: Browser,
    server: ServerProcess,
    size: tuple[int, int],
    seed: int,
    motion: Literal["reduce", "no-preference"] = "no-preference",
) -> Page:
    """A table where the person declares the first deal, on a touch screen of ``size``
    that asks for ``motion``."""
    seat = seat_of_first_declarer(seed)
    seats: list[dict[str, str]] = [{"kind": "bot", "bot": "rule"}] * 4
    seats[seat] = {"kind": "human"}
    body = {"seats": seats, "seat": seat, "name": "Ada", "seed": seed}
    claim = httpx.post(f"{server.url}/api/tables", json=body, timeout=10).json()
    width, height = size
    context = browser.new_context(
        viewport={"width": width, "height": height},
        has_touch=True,
        is_mobile=width < 800,
        reduced_motion=motion,
    )
    page = context.new_page()
    page.goto(f"{server.url}/t/{claim['table']}#token={claim['token']}")
    return page


HEARTS = [f"{rank}H" for rank in "23456789TJQKA"]


SEATS_TAKEN = """() => [...document.querySelectorAll(".seat[data-seat]")].map((seat) => [
  (seat.querySelector(".seat-taken")?.dataset.taken ?? "").split(" ").filter(Boolean),
  Number(seat.querySelector(".chip.points").textContent),
])"""


def summary_took(page: Page) -> list[tuple[list[str], int]]:
    """The open summary's rows: the penalty cards each player took, and their points."""
    return [(cards, points) for cards, _, points in summary_rows(page)]


def summary_rows(page: Page) -> list[tuple[list[str], int, int]]:
    """The open summary's rows: each player's penalty cards, tricks and points."""
    rows: list[tuple[list[str], int, int]] = page.evaluate(
        """() => [...document.querySelectorAll("#dlg-summary tbody tr")].map((row) => {
          const took = row.querySelector("td.took");
          return [(took.dataset.cards ?? "").split(" ").filter(Boolean),
                  Number(took.dataset.tricks), Number(row.querySelector("td.num").textContent)];
        })"""
    )
    return rows


Summary = tuple[str, list[tuple[list[str], int, int]]]


def read_summary(page: Page) -> Summary:
    """The open summary's contract and rows."""
    return page.locator("#dlg-summary").get_attribute("data-result") or "", summary_rows(page)


def check_summary(summary: Summary) -> None:
    """What a summary says each player took costs exactly their points (the rules'
    units: per card, or per trick in Trumps and No Tricks)."""
    contract, rows = summary
    unit = POINTS_PER_UNIT[Contract(contract).code]
    assert len(rows) == 4, summary
    if contract in ("trumps", "no-tricks"):
        assert [points for _, _, points in rows] == [unit * tricks for _, tricks, _ in rows]
    elif contract == "no-last-two":
        assert sum(tricks for _, tricks, _ in rows) == 13
    else:
        assert [points for _, _, points in rows] == [unit * len(cards) for cards, _, _ in rows]


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page scrolls sideways: {width}"


HITS = """(selector) => [...document.querySelectorAll(selector)].map((node) => {
  const box = node.getBoundingClientRect();
  const next = node.nextElementSibling?.getBoundingClientRect();
  const strip = next && next.top === box.top ? next.left - box.left : box.width;
  const x = box.left + Math.min(strip, box.width) / 2, y = box.top + box.height / 2;
  const hit = document.elementFromPoint(x, y);
  return {
    name: node.dataset.card ?? node.dataset.contract + (node.dataset.trump ?? ""),
    strip, inside: box.left >= 0 && box.top >= 0 && box.right <= innerWidth
      && box.bottom <= innerHeight,
    hit: hit !== null && (hit === node || node.contains(hit)),
  };
})"""


def assert_tappable(page: Page, selector: str, count: int, strip: float = 0) -> None:
    found: list[dict[str, Any]] = page.evaluate(HITS, selector)
    assert len(found) == count, found
    for item in found:
        assert item["inside"], f"{item['name']} is outside the screen"
        assert item["hit"], f"{item['name']} is covered where it would be tapped"
        assert item["strip"] >= strip, f"{item['name']} shows only {item['strip']:.0f} px"


@pytest.mark.slow
@pytest.mark.parametrize(
    "size",
    [
        pytest.param(
            size, id=f"{size[0]}x{size[1]}", marks=() if size in QUICK_SIZES else pytest.mark.slow
        )
        for size in SIZES
    ],
)
def test_every_screen_shows_every_choice_the_whole_hand_and_four_columns(
    browser: Browser, server: ServerProcess, size: tuple[int, int]
) -> None:
    # The phone itself in full motion; the other sizes play their deal without it (the
    # layout is what they check).
    motion: Literal["reduce", "no-preference"] = "no-preference" if size == (390, 844) else "reduce"
    page = open_table(browser, server, size, seed=21, motion=motion)
    errors = watch_errors(page)
    page.wait_for_selector(CHOICES)
    no_sideways_scroll(page)
    assert_tappable(page, CHOICES, 10)
    assert page.locator(f"{CHOICES}[data-contract='trumps']").count() == 4
    if size == (390, 844):
        assert not serious_violations(page)
    # And the layout as the deal goes: no text over other text, no target under a finger.
    faults = layout_faults(page)
    page.locator('[data-contract="no-hearts"]').tap()
    page.wait_for_selector(LEGAL)
    page.wait_for_function("document.body.dataset.busy === 'false'")
    no_sideways_scroll(page)
    assert_tappable(page, "#hand .card", 13, strip=24)
    assert page.locator("#trick-number").inner_text() == "Trick 1/13"  # the declarer leads
    # Play the deal out by tapping; then the summary and the sheet fit, four columns.
    deadline = time.monotonic() + 60
    seen_taken = False
    while (now := asked(page)) != "summary":
        assert time.monotonic() < deadline, "the deal did not end"
        assert now == "play", now
        # Each seat shows the hearts it has taken, and they cost its points.
        taken = page.evaluate(SEATS_TAKEN)
        for cards, points in taken:
            assert all(card in HEARTS for card in cards) and points == -30 * len(cards)
        seen_taken = seen_taken or any(cards for cards, _ in taken)
        faults.extend(layout_faults(page))
        try:
            page.locator(LEGAL).first.tap(timeout=1000)
        except PlaywrightError:  # the hand changed under the tap
            continue
    assert seen_taken, "no seat showed the hearts it took"
    assert not faults, sorted(set(faults))
    check_summary_numbers(page, size)
    assert_tappable(page, "#summary-continue", 1)
    took = summary_took(page)
    assert sorted(card for cards, _ in took for card in cards) == sorted(HEARTS)
    assert all(points == -30 * len(cards) for cards, points in took), took
    if size == (390, 844):
        assert not serious_violations(page)
    page.locator("#summary-continue").tap()
    page.locator("#btn-sheet").tap()
    page.wait_for_selector("#dlg-sheet[open]")
    assert_tappable(page, "#dlg-sheet .sheet thead th", 6)
    assert_tappable(page, "#dlg-sheet .sheet tfoot td", 4)
    # The contract board (its tab): every player's column, No Hearts by the person.
    assert_tappable(page, "#tab-board", 1)
    page.locator("#tab-board").tap()
    assert_tappable(page, "#sheet-board thead th", 6)
    if size == (390, 844):
        assert not serious_violations(page)
    row = page.locator('#sheet-board tr[data-line="no-hearts"]')
    assert row.get_attribute("data-left") == "1"
    seat = seat_of_first_declarer(21)
    assert row.locator(f'td[data-seat="{seat}"]').get_attribute("data-deals") == "1"
    assert_tappable(page, "#sheet-close", 1)
    no_sideways_scroll(page)
    assert not errors, errors
    page.context.close()


OBSERVER = """() => {
  window.flow = [];
  const note = (what) => window.flow.push([what, document.body.dataset.dealEnd ?? "0"]);
  let deal = null, cards = 0, declaring = false, summary = false;
  new MutationObserver(() => {
    const number = document.getElementById("deal-number")?.dataset.deal ?? null;
    if (number !== null && number !== deal) { deal = number; note("deal " + number); }
    const held = document.querySelectorAll("#hand .card").length;
    if (held === 13 && cards !== 13) note("hand");
    cards = held;
    const open = !document.getElementById("declare").hidden;
    if (open && !declaring) note("declare");
    declaring = open;
    const shown = document.getElementById("dlg-summary").open;
    if (shown && !summary) note("summary");
    summary = shown;
  }).observe(document.body, {subtree: true, childList: true, attributes: true});
}"""


@pytest.mark.slow
def test_a_whole_game_on_a_phone_shows_each_deals_end_in_order(
    browser: Browser, server: ServerProcess
) -> None:
    """Twenty deals at 390x844, all by tapping, Trumps declared by its button whenever
    the person declares Trumps: after every deal the summary shows before the next
    deal's number, hand and declaration panel."""
    # Reduced motion: the order of a deal's end is what is tested (the sweep has its own
    # test, in both motions), so nothing waits on an animation.
    page = open_table(browser, server, (390, 844), seed=5, motion="reduce")
    errors = watch_errors(page)
    page.wait_for_selector("#hand .card")
    page.evaluate(OBSERVER)
    trumps = 0
    summaries: dict[str, Summary] = {}
    deadline = time.monotonic() + 400
    while (now := asked(page)) != "over":
        assert time.monotonic() < deadline, "the game did not end"
        try:
            if now == "summary":
                deal = page.evaluate("() => document.body.dataset.dealEnd")
                if deal not in summaries:
                    summaries[deal] = read_summary(page)
                page.locator("#summary-continue").tap(timeout=1000)
            elif now == "declare":
                suit = page.locator(f"{CHOICES}[data-contract='trumps']:not([disabled])")
                if suit.count():
                    assert_tappable(page, f"{CHOICES}[data-contract='trumps']", 4)
                    suit.first.tap(timeout=1000)
                    trumps += 1
                else:
                    page.locator(f"{CHOICES}:not([disabled])").first.tap(timeout=1000)
            else:
                page.locator(LEGAL).first.tap(timeout=1000)
        except PlaywrightError:  # the page moved on under the tap: look again
            pass
    assert trumps == 2  # the person's two Trumps, declared with the Trumps buttons
    assert sorted(summaries, key=int) == [str(n) for n in range(1, 20)]
    for summary in summaries.values():
        check_summary(summary)
    assert {contract for contract, _ in summaries.values()} == {c.value for c in Contract}
    flow: list[list[str]] = page.evaluate("window.flow")
    assert page.locator("#deal-info").inner_text().strip() == "The game is over"
    for deal in range(1, 20):
        summary = flow.index(["summary", str(deal)])
        after = [what for what, end in flow if end == str(deal)]
        assert after and after[0] == "summary", (deal, after, flow)
        nxt = [i for i, item in enumerate(flow) if item[0] == f"deal {deal + 1}"]
        assert nxt and nxt[0] > summary, (deal, flow)
        hands = [i for i, (what, end) in enumerate(flow) if what == "hand" and end == str(deal)]
        assert hands and hands[0] > summary, (deal, flow)
        declares = [
            i for i, (what, end) in enumerate(flow) if what == "declare" and end == str(deal)
        ]
        assert all(i > summary for i in declares), (deal, flow)
    assert ["summary", "20"] not in flow  # the last deal ends in the final sheet
    assert page.locator("#dlg-sheet .winner").inner_text()
    # Game over: places 1-4 with totals, each player's points per contract, and the
    # ways on, all on the phone's screen.
    places = page.locator("#dlg-sheet .places li")
    assert places.count() == 4
    assert places.first.get_attribute("data-place") == "1"
    assert page.locator("#dlg-sheet .by-contract tbody tr").count() == 7
    assert page.locator("#btn-new-table").get_attribute("href") == "/"
    assert_tappable(page, "#btn-again", 1)
    old = page.url.split("/t/")[1].split("?")[0].split("#")[0]
    before = httpx.get(f"{server.url}/api/tables/{old}", timeout=10).json()
    page.locator("#btn-again").tap()
    page.wait_for_url(lambda url: "/t/" in url and old not in url)
    page.wait_for_selector("#hand .card")
    new = page.url.split("/t/")[1].split("?")[0].split("#")[0]
    after = httpx.get(f"{server.url}/api/tables/{new}", timeout=10).json()
    assert [(s["kind"], s["bot"]) for s in after["seats"]] == [
        (s["kind"], s["bot"]) for s in before["seats"]
    ]
    assert after["status"] == "playing" and after["deal"] == 0
    assert [s["name"] for s in after["seats"] if s["kind"] == "human"] == ["Ada"]
    assert httpx.get(f"{server.url}/api/tables/{old}", timeout=10).json()["next"] == new
    assert not errors, errors
    page.context.close()


@pytest.mark.parametrize(
    ("language", "tricks", "you"),
    [
        ("en", ["0 tricks", "1 trick", "2 tricks", "5 tricks"], "You take the trick"),
        ("tr", ["0 el", "1 el", "2 el", "5 el"], "Eli sen aldın"),
        ("es", ["0 bazas", "1 baza", "2 bazas", "5 bazas"], "Te llevas la baza"),
        ("fr", ["0 pli", "1 pli", "2 plis", "5 plis"], "Vous remportez le pli"),
        ("th", ["0 กอง", "1 กอง", "2 กอง", "5 กอง"], "คุณได้กองนี้"),
    ],
)
def test_the_page_words_counts_and_the_person_as_each_language_does(
    browser: Browser, server: ServerProcess, language: str, tricks: list[str], you: str
) -> None:
    page = browser.new_page()
    page.goto(f"{server.url}/?lang={language}")
    page.wait_for_function(f"document.documentElement.lang === '{language}'")
    words = page.evaluate(
        """async () => {
          const { t } = await import("/static/js/strings.js");
          // The catalog may still be on its way on a busy machine: wait for it.
          for (let i = 0; i < 200 && t("app.title") === "app.title"; i += 1) {
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          return {
            tricks: [0, 1, 2, 5].map((n) => t("table.tricksWon", { n })),
            seats: [1, 2].map((n) => t("table.waiting", { n })),
            you: t("table.trickWon", { name: "Bo", you: true }),
            other: t("table.trickWon", { name: "Bo" }),
          };
        }"""
    )
    assert words["tricks"] == tricks
    assert words["you"] == you
    assert "Bo" in words["other"] and words["other"] != you
    if language == "en":
        assert words["seats"] == [
            "Waiting for players: 1 free seat",
            "Waiting for players: 2 free seats",
        ]
    page.close()


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_taken_trick_sweeps_to_its_taker_and_keeps_still_when_asked(
    browser: Browser, server: ServerProcess, motion: Literal["reduce", "no-preference"]
) -> None:
    page = open_table(browser, server, (390, 844), 21, motion)
    page.evaluate(
        """() => new MutationObserver(() => {
          const pos = document.getElementById("trick").dataset.gather;
          if (pos) window.gathered = pos;
        }).observe(document.getElementById("trick"), {attributes: true})"""
    )
    page.locator('[data-contract="no-hearts"]').tap()
    page.wait_for_selector(LEGAL)
    page.locator(LEGAL).first.tap()
    deadline = time.monotonic() + 20
    while page.evaluate("() => window.gathered") is None:
        assert time.monotonic() < deadline, "no trick was taken"
        page.wait_for_timeout(50)
    assert page.evaluate("() => window.gathered") in ("top", "left", "right", "bottom")
    styles = page.evaluate(
        """() => {
          const slot = getComputedStyle(document.querySelector("#trick .slot"));
          const probe = document.createElement("div");
          probe.className = "arrive-left";
          document.body.append(probe);
          const arrive = getComputedStyle(probe).animationName;
          probe.remove();
          return {transition: slot.transitionDuration, arrive};
        }"""
    )
    if motion == "reduce":
        assert styles == {"transition": "0s", "arrive": "none"}
    else:
        assert styles["transition"].startswith("0.3s") and styles["arrive"] == "arrive-left"
    page.context.close()


def test_the_bot_speed_is_chosen_in_the_menu_remembered_and_told_to_the_table(
    browser: Browser, server: ServerProcess
) -> None:
    """On a phone, Rules, the bot speed and the language fold into one menu (☰); the
    speed chosen there is kept by the browser and asked of the server on every visit."""
    page = open_table(browser, server, (390, 844), seed=21)
    errors = watch_errors(page)
    page.wait_for_selector(CHOICES)
    speed = ".speed-picker[data-table-speed='{}']"
    page.wait_for_selector(speed.format("normal"), state="attached")
    assert not page.locator("#speed-select").is_visible()
    page.locator("#btn-more").tap()
    assert page.locator("#btn-more").get_attribute("aria-expanded") == "true"
    assert_tappable(page, "#more button:not([hidden]), #more select", 3)
    no_sideways_scroll(page)
    page.select_option("#speed-select", "slow")
    page.wait_for_selector(speed.format("slow"), state="attached")  # the server's answer
    assert not page.locator("#speed-select").is_visible()  # a choice closes the menu
    assert page.evaluate("() => localStorage.getItem('king:speed')") == "slow"
    page.reload()
    page.wait_for_selector(CHOICES)
    page.wait_for_selector(speed.format("slow"), state="attached")
    assert page.locator("#speed-select").input_value() == "slow"
    # Esc closes the menu and gives the focus back to its button.
    page.locator("#btn-more").tap()
    page.keyboard.press("Escape")
    assert page.locator("#btn-more").get_attribute("aria-expanded") == "false"
    assert page.evaluate("() => document.activeElement.id") == "btn-more"
    assert not errors, errors
    page.context.close()
