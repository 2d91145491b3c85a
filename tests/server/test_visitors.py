"""Who may do what at the local game (``king --lan``), tried from a second address: the
tests' visitor comes from 127.0.0.2 (a loopback address that is not the machine's own,
as a phone or a stranger on the home network is not), the owner from 127.0.0.1.  The
visitor gets the limits of a server for many, never names a file, and a table it made
stops thinking once its sockets close (measured in the process's CPU time)."""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from benchmarks.server_process import free_port
from king.server.http import (
    local_api,
    pages,
    people_api,
    records_api,
    site_api,
    table_socket,
    tables_api,
)
from king.table.protocol import CLIENT_MESSAGES
from tests.support import ROOT
from tests.support.services import local_king

#: Where the visitor's requests come from.
VISITOR = "127.0.0.2"
HOSTILE = "search:time=100000&threads=16"
#: The most a visitor's bot may ask for at a server for many (ServerSettings' defaults).
AT_THE_LIMITS = "search:time=2&threads=2&worlds=4000"


class Local:
    """The local game's process and its address, with a client for each side."""

    def __init__(self, pid: int, port: int) -> None:
        self.pid = pid
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.owner = httpx.Client(base_url=self.url, timeout=20)
        visitor = httpx.HTTPTransport(local_address=VISITOR)
        self.visitor = httpx.Client(base_url=self.url, transport=visitor, timeout=20)

    def socket(self, table: str) -> ClientConnection:
        """A WebSocket to ``table`` from the visitor's address."""
        raw = socket.create_connection(("127.0.0.1", self.port), 10, (VISITOR, 0))
        return connect(f"ws://127.0.0.1:{self.port}/api/tables/{table}/ws", sock=raw)

    def cpu_seconds(self) -> float:
        """The process's CPU time so far (all its threads)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Local]:
    port = free_port()
    tmp = tmp_path_factory.mktemp("lan")
    env = {"KING_LAN_ADDRESSES": "192.168.7.9"}
    with local_king(tmp, "--lan", "--port", str(port), env=env) as (process, _):
        yield Local(process.pid, port)


def table(*bots: str, person: bool = True) -> dict[str, Any]:
    """A new table's request: the visitor at seat 0 (unless not ``person``), then
    ``bots``, then rule bots."""
    seats = [{"kind": "human"}] if person else []
    seats += [{"kind": "bot", "bot": bot} for bot in bots]
    seats += [{"kind": "bot", "bot": "rule"}] * (4 - len(seats))
    return {"name": "Visitor", "seats": seats, "seat": 0 if person else None}


def refusal(answer: httpx.Response) -> tuple[int, str, str]:
    error = answer.json()["error"]
    return answer.status_code, error["code"], error["message"]


def test_a_visitor_is_a_guest_and_the_owner_is_the_local_player(local: Local) -> None:
    assert local.owner.get("/api/me").json()["account"]["kind"] == "local"
    assert local.visitor.get("/api/me").json() == {"account": None}
    assert local.owner.get("/api/local/game").status_code == 200
    assert local.visitor.get("/api/local/game").status_code == 404
    answer = local.visitor.post("/api/local/game", json={"level": "expert"})
    assert answer.status_code == 404


def test_a_visitors_bots_ask_no_more_than_a_server_for_many_allows(local: Local) -> None:
    status, code, message = refusal(local.visitor.post("/api/tables", json=table(HOSTILE)))
    assert (status, code) == (422, "limit"), message
    assert "at most 2" in message
    allowed = local.visitor.post("/api/tables", json=table(AT_THE_LIMITS, "rule", "rule"))
    assert allowed.status_code == 201, allowed.text
    # The owner keeps their freedom (a table nobody watches: its bots never think).
    mine = local.owner.post("/api/tables", json=table(HOSTILE, "rule", "rule", person=False))
    assert mine.status_code == 201, mine.text


def test_a_visitors_refusal_never_says_what_is_on_the_owners_disk(local: Local) -> None:
    said = set()
    for spec in ("policy:file=/etc/passwd", "policy:file=/no/such/file", "net:file=/etc/passwd"):
        status, code, message = refusal(local.visitor.post("/api/tables", json=table(spec)))
        assert (status, code) == (422, "invalid"), message
        said.add(message.replace(spec, "SPEC"))
    assert said == {"seat 2: a table cannot seat a bot that reads a file: 'SPEC'"}
    status, code, _ = refusal(local.visitor.post("/api/tables", json=table("cmd:sleep 100")))
    assert (status, code) == (422, "invalid")


def cpu_over(local: Local, seconds: float) -> float:
    start = local.cpu_seconds()
    time.sleep(seconds)
    return local.cpu_seconds() - start


@pytest.mark.slow
def test_a_visitor_cannot_spend_the_owners_cpu_past_the_limits(local: Local) -> None:
    """A hostile table is refused and costs nothing; four bots at the limits, watched
    from the visitor's address, think while the socket is open (each move within its
    budget) and the process is idle within that budget of the socket closing."""
    hostile = local.visitor.post("/api/tables", json=table(*[HOSTILE] * 4, person=False))
    assert hostile.status_code == 422, hostile.text
    refused = cpu_over(local, 3.0)
    made = local.visitor.post("/api/tables", json=table(*[AT_THE_LIMITS] * 4, person=False))
    assert made.status_code == 201, made.text
    with local.socket(made.json()["table"]) as watcher:
        watcher.send(json.dumps({"v": 1, "type": "watch"}))
        moves, start = 0, 0.0
        while moves < 8:  # from the first card on: the bots thinking, watched
            message = json.loads(watcher.recv(timeout=60))
            if message["type"] == "state" and message["event"]["kind"] == "play":
                moves += 1
                start = local.cpu_seconds() if moves == 1 else start
        busy = local.cpu_seconds() - start
    closed = time.monotonic()
    while cpu_over(local, 0.5) > 0.05:  # the move in progress ends (its 2 s budget)
        assert time.monotonic() - closed < 10, "still thinking 10 s after the socket closed"
    quiet = time.monotonic() - closed
    idle = cpu_over(local, 3.0)
    print(
        f"CPU after the refused table: {refused:.2f} s in 3 s; while watched: {busy:.2f} s "
        f"for 7 moves; idle {quiet:.1f} s after the socket closed, then {idle:.2f} s in 3 s"
    )
    assert refused < 0.2, f"{refused:.2f} s of CPU in 3 s after a refused table"
    # Each move within its budget: 2 s of thinking on 2 threads at most (and some).
    assert 0 < busy <= 7 * (2.0 * 2 + 0.5), f"{busy:.2f} s of CPU for 7 moves"
    assert idle < 0.2, f"{idle:.2f} s of CPU in 3 s after the visitor left"


def test_a_visitor_opens_as_many_tables_as_a_server_for_many_allows(local: Local) -> None:
    """(Last: it leaves the visitor at the limit.)"""
    made = 0
    while (answer := local.visitor.post("/api/tables", json=table("rule", "rule"))).is_success:
        made += 1
        assert made <= 8, "a ninth table"
    status, code, _ = refusal(answer)
    assert (status, code) == (429, "too_many_tables")
    for _ in range(10):  # the owner's are not counted
        assert local.owner.post("/api/tables", json=table("rule", "rule")).status_code == 201


def test_who_may_do_what_names_every_route_and_message() -> None:
    """docs/web-protocol.md's table lists every route of the application and every
    message a client may send, so that none is reachable without being thought about."""
    doc = (ROOT / "docs" / "web-protocol.md").read_text(encoding="utf-8")
    section = doc.split("### Who may do what", 1)[1].split("\n### ", 1)[0]
    areas = (site_api, tables_api, records_api, people_api, local_api, table_socket, pages)
    paths = {route.path for area in areas for route in area.router.routes}  # type: ignore[attr-defined]
    assert len(paths) >= 39, paths
    shown = {"/", "/t/{table_id}", "/board", "/players/{ref}", "/leaderboard", "/offline"}
    offline = {"/sw.js", "/offline/manifest.json", "/offline/king-{build}.zip"}
    listed = {path.replace("{table_id}", "{id}") for path in paths - shown - offline}
    missing = sorted(path for path in listed if path not in section)
    assert not missing, f"not in 'Who may do what': {missing}"
    for kind in CLIENT_MESSAGES:
        assert f"`{kind}`" in section, kind
