"""The page, in Debian's Chromium at a phone's size, at a table shared by three real
server processes: the person plays a card just as the table's owner freezes (SIGSTOP).
Nothing answers the move; the page reconnects, another process takes the table over,
and the page sends the unanswered card again by itself: it is played once, with no
second tap and no error, and the owner woken afterwards writes nothing."""

from __future__ import annotations

import json
import signal
from typing import Any

import httpx
import pytest

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import Browser

from tests.support.pages import PHONE, fewer_cards, hand, wait_my_turn, watch_errors
from tests.support.services import Cluster, query


@pytest.mark.slow
def test_a_card_played_as_the_owner_freezes_is_sent_again_after_the_takeover(
    browser: Browser, cluster: Cluster
) -> None:
    owner, other = cluster.processes[0], cluster.processes[1]
    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3
    body = {"name": "Ada", "seats": seats, "seat": 0, "seed": 5}
    made = httpx.post(f"{owner.url}/api/tables", json=body, timeout=10)
    assert made.status_code == 201, made.text
    claim: dict[str, Any] = made.json()
    table = claim["table"]
    assert cluster.process_of(cluster.owners()[table]) is owner
    page = browser.new_page(viewport=PHONE, reduced_motion="reduce")
    errors = watch_errors(page)
    # The page reaches the table through another process, which relays to the owner.
    page.goto(f"{other.url}/t/{table}#token={claim['token']}")
    page.wait_for_selector('#hand .card[data-legal="true"]', timeout=30000)
    wait_my_turn(page)
    cards = hand(page)
    card = page.locator('#hand .card[data-legal="true"]').first.get_attribute("data-card")
    owner.signal(signal.SIGSTOP)
    try:
        page.click(f'#hand .card[data-card="{card}"]')
        # No second tap: the card leaves the hand once another process has the table.
        fewer_cards(page, len(cards))
        assert card not in hand(page)
        assert cluster.process_of(cluster.owners()[table]) is not owner
    finally:
        owner.signal(signal.SIGCONT)
    rows = query(
        cluster.db, "SELECT data FROM events WHERE table_id = ? AND kind = 'play'", (table,)
    )
    played = [json.loads(data) for (data,) in rows]
    # Once, by seat 0: the woken owner's copy of the move was fenced out.
    assert [p["seat"] for p in played if p["card"] == card] == [0], played
    assert not errors, errors
    page.close()
