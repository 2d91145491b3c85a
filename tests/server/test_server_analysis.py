"""Analyses at a real server: a record sent to ``/api/analysis`` (as the page sends a
dropped file) or a finished table is analysed in the bot threads, its progress can be
followed, the result is the annotated record and it is kept; bad input is refused
clearly, and no more analyses run at once than the server allows."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from benchmarks.server_process import ServerProcess
from king.bots.analysis import AnalysisOptions, analyze
from king.deal import Deal
from king.record import replay
from king.server.config import ServerSettings
from king.server.engine.analysis import Analyses
from king.server.engine.players import BotRunner
from king.server.store.event_log import Database
from tests.support.games import one_deal
from tests.support.peers import create


@pytest.fixture(scope="module")
def server(module_database: Database) -> Iterator[ServerProcess]:
    db = module_database
    with ServerProcess(db, bot_pause=0) as process:
        yield process


def follow(server: ServerProcess, key: str, timeout: float = 240) -> dict[str, Any]:
    """Poll an analysis until it is done; its progress only ever grows."""
    deadline = time.monotonic() + timeout
    done = -1
    while True:
        answer = httpx.get(f"{server.url}/api/analysis/{key}", timeout=10)
        body: dict[str, Any] = answer.json()
        assert body["done"] >= done
        done = body["done"]
        if answer.status_code == 200:
            return body
        assert answer.status_code == 202 and body["state"] == "running"
        assert time.monotonic() < deadline, body
        time.sleep(0.3)


@pytest.mark.slow
def test_a_sent_record_is_analysed_and_kept(server: ServerProcess) -> None:
    record = one_deal(4)
    answer = httpx.post(f"{server.url}/api/analysis", json=record, timeout=30)
    assert answer.status_code in (200, 202), answer.text
    started = answer.json()
    assert started["total"] == 53  # the declaration and 52 cards
    body = follow(server, started["key"])
    assert body["state"] == "done" and body["done"] == 53
    annotated = body["record"]
    decisions = annotated["analysis"]["deals"][0]["decisions"]
    assert len(decisions) == 53
    assert replay(json.dumps(annotated)).valid
    # Asked again: the same analysis, at once.
    again = httpx.post(f"{server.url}/api/analysis", json=record, timeout=30)
    assert again.status_code == 200 and again.json()["key"] == started["key"]


def test_bad_records_and_unknown_analyses_are_refused(server: ServerProcess) -> None:
    url = f"{server.url}/api/analysis"
    cases = [
        (b'{"format": "king-record/1"}', 422, "deals"),
        (b'{"deals": []}', 422, "format"),
        (b"[1, 2", 400, "JSON"),
    ]
    for body, status, words in cases:
        answer = httpx.post(url, content=body, timeout=10)
        assert answer.status_code == status, answer.text
        assert words in answer.json()["error"]["message"]
    broken = one_deal(5)
    plays = broken["deals"][0]["plays"].split()
    broken["deals"][0]["plays"] = " ".join([plays[1], plays[0], *plays[2:]])
    answer = httpx.post(url, json=broken, timeout=10)
    assert answer.status_code == 422 and "not valid" in answer.json()["error"]["message"]
    huge = httpx.post(url, content=b" " * (600 * 1024), timeout=10)
    assert huge.status_code == 413
    missing = httpx.get(f"{server.url}/api/analysis/nope", timeout=10)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_a_table_is_analysed_only_once_it_is_over(server: ServerProcess) -> None:
    claim = create(server, ["human", "random", "random", "random"], seed=3)
    answer = httpx.post(f"{server.url}/api/tables/{claim['table']}/analysis", timeout=10)
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "not_over"
    nothing = httpx.post(f"{server.url}/api/tables/nope/analysis", timeout=10)
    assert nothing.status_code == 404


@pytest.mark.slow
def test_no_more_analyses_run_at_once_than_allowed(server: ServerProcess) -> None:
    url = f"{server.url}/api/analysis"
    answers = [httpx.post(url, json=one_deal(seed), timeout=30) for seed in (11, 12, 13)]
    codes = [a.status_code for a in answers]
    assert codes[:2] == [202, 202] and codes[2] == 503, codes
    assert answers[2].json()["error"]["code"] == "busy"
    for answer in answers[:2]:
        follow(server, answer.json()["key"])


def test_the_board_lays_out_a_record_as_replay_reads_it(server: ServerProcess) -> None:
    record = one_deal(6)
    record["players"] = ["Ada", "Bo", "Cem", "Deniz"]
    answer = httpx.post(f"{server.url}/api/board", json=record, timeout=10)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["analysis"] is None and "analysis_refused" not in body
    board = body["board"]
    report = replay(json.dumps(record)).to_json()
    assert board["players"] == record["players"] and board["totals"] == report["totals"]
    (deal,) = board["deals"]
    (replayed,) = report["deals"]
    assert deal["points"] == replayed["points"] and deal["declarer"] == replayed["declarer"]
    assert deal["before"] == [0, 0, 0, 0] and deal["totals"] == report["totals"]
    assert sorted(c for hand in deal["hands"] for c in hand) == sorted(
        record["deals"][0]["plays"].split()
    )
    # Every trick as replay reports it, with who played each card and the deal's points
    # after it (the last trick's are the deal's).
    first = replay(json.dumps(record)).game.deals[0]
    again = Deal(record["deals"][0]["hands"], first.declarer, first.declaration)
    for trick, want in zip(deal["tricks"], replayed["tricks"], strict=True):
        assert {k: trick[k] for k in ("leader", "cards", "winner")} == want
        assert trick["seats"] == [(want["leader"] + i) % 4 for i in range(4)]
        for card in trick["cards"]:
            again.play(card)
        assert trick["points"] == again.points()
    assert deal["tricks"][-1]["points"] == deal["points"]


def test_the_board_keeps_a_records_analysis_only_when_it_fits(server: ServerProcess) -> None:
    record = one_deal(7)
    annotated = analyze(record, AnalysisOptions(seconds=0.02, seed=1))
    url = f"{server.url}/api/board"
    body = httpx.post(url, json=annotated, timeout=10).json()
    section = body["analysis"]
    assert section is not None and "analysis_refused" not in body
    assert section["lost"] == annotated["analysis"]["lost"]
    assert len(section["deals"][0]["decisions"]) == 53
    assert section["deals"][0]["decisions"] == annotated["analysis"]["deals"][0]["decisions"]
    # A decision moved to another seat, a loss that is not a number: set aside, and why.
    wrong_seat = json.loads(json.dumps(annotated))
    decision = wrong_seat["analysis"]["deals"][0]["decisions"][5]
    decision["seat"] = (decision["seat"] + 1) % 4
    body = httpx.post(url, json=wrong_seat, timeout=10).json()
    assert body["analysis"] is None and "does not fit" in body["analysis_refused"]
    assert len(body["board"]["deals"]) == 1
    not_a_number = json.loads(json.dumps(annotated))
    not_a_number["analysis"]["deals"][0]["decisions"][2]["loss"] = "a lot"
    body = httpx.post(url, json=not_a_number, timeout=10).json()
    assert body["analysis"] is None
    assert body["analysis_refused"].startswith("analysis.deals.0.decisions.2.loss")


def test_the_board_refuses_bad_records_and_games_in_play(server: ServerProcess) -> None:
    url = f"{server.url}/api/board"
    broken = one_deal(8)
    plays = broken["deals"][0]["plays"].split()
    broken["deals"][0]["plays"] = " ".join([plays[1], plays[0], *plays[2:]])
    answer = httpx.post(url, json=broken, timeout=10)
    assert answer.status_code == 422 and "not valid" in answer.json()["error"]["message"]
    assert httpx.post(url, content=b"[1, 2", timeout=10).status_code == 400
    assert httpx.post(url, json={"deals": []}, timeout=10).status_code == 422
    empty = httpx.post(url, json={"format": "king-record/1", "deals": []}, timeout=10)
    assert empty.status_code == 422 and "no declared deal" in empty.json()["error"]["message"]
    assert httpx.post(url, content=b" " * (3 * 1024 * 1024), timeout=10).status_code == 413
    claim = create(server, ["human", "random", "random", "random"], seed=9)
    answer = httpx.get(f"{server.url}/api/tables/{claim['table']}/board", timeout=10)
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "not_over"
    assert httpx.get(f"{server.url}/api/tables/nope/board", timeout=10).status_code == 404
    page = httpx.get(f"{server.url}/board?lang=tr", timeout=10)
    assert page.status_code == 200 and '<html lang="tr" data-protocol="1">' in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]


def test_an_analysis_nobody_asks_about_stops_and_starts_again_when_asked() -> None:
    """A visitor who drops a record and goes costs the server no more than the time it
    waits before it counts them gone."""

    async def run() -> None:
        runner = BotRunner(1)
        analyses = Analyses(runner, ServerSettings(db=Path("unused.db")), abandoned_after=1.0)
        try:
            job = analyses.start(one_deal(14))
            deadline = time.monotonic() + 60
            while job.state == "running":
                assert time.monotonic() < deadline, job
                await asyncio.sleep(0.2)
            assert job.state == "failed" and job.error == "nobody waited for it: ask again"
            assert job.done < job.total
            again = analyses.start(one_deal(14))  # asked again: it runs afresh
            assert again is not job and again.state == "running"
        finally:
            analyses.close()
            runner.close()

    asyncio.run(run())
