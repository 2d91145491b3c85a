"""Debian's Chromium and the table page: its sizes, its hooks, a person's clicks, and what
axe finds."""

from __future__ import annotations

import json
import time
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import httpx
from jsonschema import Draft202012Validator
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, WebSocket

from benchmarks.server_process import ServerProcess

#: Debian's Chromium, the only browser the tests drive (nothing is downloaded).
CHROMIUM = Path("/usr/bin/chromium")


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


DESKTOP = {"width": 1280, "height": 800}


PHONE = {"width": 390, "height": 844}


LEGAL = '#hand .card[data-legal="true"]'
CHOICES = "#declare:not([hidden]) button.choice"


def create(server: ServerProcess, seats: list[str], seed: int) -> dict[str, Any]:
    body = {
        "seats": [{"kind": "human"} if s == "human" else {"kind": "bot", "bot": s} for s in seats],
        "name": "Ada",
        "seed": seed,
    }
    answer = httpx.post(f"{server.url}/api/tables", json=body, timeout=10)
    assert answer.status_code == 201, answer.text
    claim: dict[str, Any] = answer.json()
    return claim


def watch_errors(page: Page) -> list[str]:
    """What goes wrong in the page from now on: its errors, and any WebSocket frame it
    sends or receives that the protocol's JSON Schema (docs/protocol/) refuses."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("websocket", lambda socket: _check_frames(socket, errors))
    return errors


#: The protocol's schemas, generated from its definitions (scripts/protocol_schema.py).
SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "protocol"


@cache
def _validator(side: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / f"{side}.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


def _check_frames(socket: WebSocket, errors: list[str]) -> None:
    if not socket.url.split("?")[0].endswith("/ws"):
        return  # only a table's socket (/api/tables/{id}/ws) speaks the protocol

    def check(side: str, payload: str | bytes) -> None:
        try:
            message = json.loads(payload)
        except ValueError:
            errors.append(f"a {side} frame is not JSON: {payload[:80]!r}")
            return
        for fault in _validator(side).iter_errors(message):
            errors.append(f"the schema refuses a {side} {message.get('type')}: {fault.message}")

    socket.on("framesent", lambda payload: check("client", payload))
    socket.on("framereceived", lambda payload: check("server", payload))


#: What the page asks of the person now, judged in the page itself at each animation
#: frame: ``over`` (the final sheet), ``summary`` (a deal's end), ``declare``, ``play``
#: (a legal card, once the page has shown every state), or nothing yet.
ASKS = """() => {
  if (document.querySelector('#dlg-sheet[open]')) return 'over';
  if (document.querySelector('#dlg-summary[open]')) return 'summary';
  if (document.querySelector('#declare:not([hidden]) button.choice:not([disabled])')) {
    return 'declare';
  }
  const legal = document.querySelector('#hand .card[data-legal="true"]');
  return legal && document.body.dataset.busy === 'false' ? 'play' : false;
}"""


def asked(page: Page, timeout: float = 30.0) -> str:
    """Wait (without polling from here) until the page asks the person for something;
    what it asks (see :data:`ASKS`)."""
    answer = page.wait_for_function(ASKS, timeout=timeout * 1000).json_value()
    return str(answer)


def step(page: Page) -> str:
    """Do the one thing the page asks for now: close a deal summary, declare, or play."""
    try:
        now = asked(page, timeout=1.0)
        if now == "summary":
            return "summary"
        if now == "declare":
            page.locator(f"{CHOICES}:not([disabled])").first.click(timeout=1500)
            return "declared"
        if now == "play":
            page.locator(LEGAL).first.click(timeout=1500)
            return "played"
    except PlaywrightError:
        return "retry"  # the page changed under the click (a dialog opened, a new state)
    return "waiting"


def play_until_summary(page: Page, timeout: float = 60) -> int:
    """Play by clicking until the deal's summary shows; returns the cards played."""
    deadline = time.monotonic() + timeout
    played = 0
    while time.monotonic() < deadline:
        done = step(page)
        if done == "summary":
            return played
        played += done == "played"
    raise AssertionError("the deal did not end in time")


def wait_for_promise(page: Page, function: str, arg: Any = None, timeout: float = 30) -> Any:
    """Poll an ``async`` page function until what it resolves to is truthy.  (Playwright's
    ``wait_for_function`` does not wait for a promise: a pending one is truthy at once.)"""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(function, arg)
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {function}"
        page.wait_for_timeout(100)


def hand(page: Page) -> list[str]:
    cards: list[str] = page.eval_on_selector_all(
        "#hand .card", "cards => cards.map(c => c.dataset.card)"
    )
    return cards


def fewer_cards(page: Page, count: int) -> None:
    """Wait until the hand holds fewer than ``count`` cards (a card was played)."""
    page.wait_for_function(
        "n => document.querySelectorAll('#hand .card').length < n", arg=count, timeout=20000
    )


def wait_my_turn(page: Page) -> None:
    """Wait until the page has shown every state and asks the person to act."""
    page.wait_for_function(
        """() => document.body.dataset.busy === "false"
            && (document.querySelector('#hand .card[data-legal="true"]')
                || !document.querySelector('#declare').hidden)""",
        timeout=20000,
    )


def axe_script() -> str:
    """axe-core, as axe-playwright-python ships it (nothing is fetched)."""
    return (resources.files("axe_playwright_python") / "axe.min.js").read_text(encoding="utf-8")


def serious_violations(page: Page) -> list[str]:
    """What axe-core finds on the page now, of impact serious or critical."""
    page.evaluate(axe_script())
    results = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    found = []
    for violation in results["violations"]:
        if violation["impact"] in ("serious", "critical"):
            targets = [node["target"] for node in violation["nodes"]][:5]
            found.append(f"{violation['id']} ({violation['impact']}): {targets}")
    return found
