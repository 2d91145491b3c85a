"""What the layout tests ask the page: text that overlaps, tap targets under a finger's
size, the numbers on the table against the open summary's, dialog titles in view and
scrolls inside scrolls (each a function run in the page)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

#: Every element that carries text on the felt and in the top bar, with its box; an
#: overlap is two of them (neither inside the other) sharing more than 2 px².
OVERLAPS_OF = """(selector) => {
  const shown = [...document.querySelectorAll(selector)].filter((node) => {
    const box = node.getBoundingClientRect();
    const style = getComputedStyle(node);
    return box.width > 0 && box.height > 0 && style.visibility !== "hidden"
      && node.checkVisibility() && style.display !== "none" && node.textContent.trim() !== "";
  });
  const found = [];
  for (let i = 0; i < shown.length; i += 1) {
    for (let j = i + 1; j < shown.length; j += 1) {
      const [a, b] = [shown[i], shown[j]];
      if (a.contains(b) || b.contains(a)) continue;
      const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
      const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
      const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
      const name = (n) => n.id || n.className || n.tagName;
      if (w > 0 && h > 0 && w * h > 2) {
        found.push(`${name(a)} × ${name(b)}: ${Math.round(w)}x${Math.round(h)}`);
      }
    }
  }
  return found;
}"""
#: The table's text-carrying elements.
TABLE_TEXT = ", ".join(
    (
        *(".topbar .brand", "#deal-info > span", ".topbar .actions > :is(button, a)"),
        *(".seat", "#turn", "#contract", "#btn-hint"),
    )
)
OVERLAPS = f"() => ({OVERLAPS_OF})({TABLE_TEXT!r})"
#: The home screen's.
HOME_TEXT = ", ".join(
    (
        *(".topbar .brand", ".topbar .deal-info", ".topbar .actions > *"),
        *(".account-actions > *", ".home-choice:not([hidden])", "#open-tables .table-item"),
        *(".custom-table > summary", ".finished-games > summary"),
        ".offline-actions > :is(a, button):not([hidden])",
    )
)

#: Every tap target smaller than a finger (44 x 44 CSS px): buttons, links, selects,
#: disclosure summaries, form fields (a checkbox or radio by its label), and each card
#: of the hand by the strip of it not under the next card.
SMALL_TAP_TARGETS = """() => {
  const selector = 'button, a[href], select, summary, input:not([type=hidden]), '
    + '[role=button], [role=tab]';
  const small = [];
  for (const node of document.querySelectorAll(selector)) {
    if (!node.checkVisibility() || node.closest('[hidden], dialog:not([open])')) continue;
    const field = node.matches('input[type=checkbox], input[type=radio]');
    const target = field ? node.closest('label') ?? node : node;
    const box = target.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    let width = box.width;
    const next = node.matches('#hand .card') ? node.nextElementSibling : null;
    if (next) width = Math.min(width, next.getBoundingClientRect().left - box.left);
    if (width < 44 || box.height < 44) {
      const name = target.id || target.className || target.tagName;
      const text = (target.textContent || '').trim().slice(0, 16);
      small.push(`${name} "${text}" ${Math.round(width)}x${Math.round(box.height)}`);
    }
  }
  return small;
}"""

#: The open summary's numbers and the table's behind it, per seat: the deal's points
#: and the total (the score column where it shows, else the seat boxes' points).
NUMBERS = """() => {
  const number = (node) => Number(node.textContent.replace("−", "-"));
  const cells = (row) => [...row.querySelectorAll("td.num")].map(number);
  const summary = [...document.querySelectorAll("#dlg-summary table.summary tbody tr")].map(cells);
  const seats = [...document.querySelectorAll(".seat[data-seat]")]
    .sort((a, b) => Number(a.dataset.seat) - Number(b.dataset.seat))
    .map((seat) => number(seat.querySelector(".chip.points")));
  const sidebar = document.querySelector("#scores table");
  const shown = sidebar && sidebar.getBoundingClientRect().width > 0;
  const scores = shown ? [...sidebar.querySelectorAll("tbody tr")].map(cells) : [];
  return { summary, seats, scores };
}"""

#: Whether a dialog's title is inside the screen (and the dialog's own viewport).
TITLE_IN_VIEW = """(id) => {
  const dialog = document.getElementById(id);
  const title = dialog.querySelector("h2");
  const box = title.getBoundingClientRect(), frame = dialog.getBoundingClientRect();
  const top = Math.max(0, frame.top) - 1, bottom = Math.min(innerHeight, frame.bottom) + 1;
  return box.top >= top && box.bottom <= bottom;
}"""

#: Boxes inside a dialog that scroll on their own (a scroll inside the scroll).
NESTED_SCROLLS = """(id) => [...document.getElementById(id).querySelectorAll("*")].filter((n) => {
  const node = n, style = getComputedStyle(node);
  return /(auto|scroll)/.test(style.overflowY) && node.scrollHeight > node.clientHeight + 1;
}).map((node) => node.className || node.tagName)"""


def layout_faults(page: Page) -> list[str]:
    """The table's overlapping text and its tap targets too small, as it stands now."""
    found: list[str] = page.evaluate(OVERLAPS)
    found.extend(page.evaluate(SMALL_TAP_TARGETS))
    return found


def check_summary_numbers(page: Page, size: tuple[int, int]) -> None:
    """The open summary's title is in view, the seats (and the score column where it
    shows) say its numbers, and sideways your own seat's points stay on the table."""
    assert page.evaluate(TITLE_IN_VIEW, "dlg-summary")
    numbers: dict[str, Any] = page.evaluate(NUMBERS)
    points = [row[0] for row in numbers["summary"]]
    totals = [row[1] for row in numbers["summary"]]
    assert numbers["seats"] == points, "the seats show the deal's points, as the summary"
    if numbers["scores"]:
        assert [row[0] for row in numbers["scores"]] == points
        assert [row[1] for row in numbers["scores"]] == totals
    if size[1] < 520:  # sideways: your own seat stays on the table, small
        mine = page.locator('.seat[data-pos="bottom"] .chip.points')
        box = mine.bounding_box()
        assert box is not None and box["y"] + box["height"] <= size[1] and box["x"] >= 0
