"""One connection's conversation, tested on the table core itself (no server process,
no socket): the server's table and the page's offline table, each behind the one
:class:`~king.table.session.Session`, answer the same messages with the same codes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from king.offline.table import OfflineTable
from king.rules import Rules
from king.server.config import ServerSettings
from king.server.engine.players import BotRunner
from king.server.store.database import open_store
from king.server.tables.table import Table
from king.table.session import Session


class Page:
    """A connection that keeps what it is told."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.dropped = False

    def send(self, text: str) -> None:
        self.texts.append(text)

    def drop(self) -> None:
        self.dropped = True

    def said(self) -> list[dict[str, Any]]:
        told, self.texts = [json.loads(t) for t in self.texts], []
        return told


def _server_table(folder: Path) -> tuple[Table, str]:
    """A server's table of four people (seat 0's token returned), as the registry makes
    it, its log in SQLite."""
    table = Table.create(
        "T00001",
        rules=Rules.preset("classic"),
        seed=7,
        seats=[("human", None)] * 4,
        store=open_store(folder / "king.db"),
        settings=ServerSettings(db=folder / "king.db", bot_pause=0, away_after=60),
        runner=BotRunner(1),
    )
    tokens = [table.claim(f"P{n}", n)[1] for n in range(4)]
    return table, tokens[0]


def _codes(session: Session, page: Page, texts: list[str]) -> list[str]:
    codes = []
    for text in texts:
        session.receive(text)
        (answer,) = page.said()
        codes.append(answer["code"] if answer["type"] == "error" else answer["type"])
    return codes


BEFORE_HELLO = [
    '{"v":1,"type":"play","card":"AS"}',
    '{"v":1,"type":"hint"}',
    '{"v":1,"type":"speed","speed":"slow"}',
    '{"v":1,"type":"react","phrase":"nice"}',
    '{"v":1,"type":"ping"}',
    '{"v":2,"type":"ping"}',
    '{"v":1,"type":"play","card":"AS","x":1}',
]
AFTER_HELLO = [
    '{"v":1,"type":"hello","token":"again"}',
    '{"v":1,"type":"watch"}',
    '{"v":1,"type":"declare","contract":"no-queens-please"}',
    '{"v":1,"type":"play","card":"AS"}',
    '{"v":1,"type":"hint"}',
    '{"v":1,"type":"speed","speed":"fast"}',
]


def test_both_tables_answer_a_connection_alike_through_the_one_session(tmp_path: Path) -> None:
    asyncio.run(_both_tables_answer_alike(tmp_path))  # the server's table runs on a loop


async def _both_tables_answer_alike(tmp_path: Path) -> None:
    server, token = _server_table(tmp_path)
    offline = OfflineTable.new("classic", 7, bot_pause=0.0)
    answers = []
    for table, page in ((server, Page()), (offline, Page())):
        session = Session(table, page, server.session(page).read)
        before = _codes(session, page, BEFORE_HELLO)
        session.receive(json.dumps({"v": 1, "type": "hello", "token": token}))
        welcome, state, *_ = page.said()
        assert (welcome["type"], welcome["seat"], state["event"]["kind"]) == (
            "welcome",
            0,
            "resume",
        )
        answers.append((before, _codes(session, page, AFTER_HELLO)))
    assert answers[0] == answers[1]
    assert answers[0] == (
        ["not_joined", "not_joined", "not_joined", "spectator", "pong", "version", "invalid"],
        ["already_joined", "already_joined", "invalid", "not_playing", "hints_off", "pace"],
    )
    server.close()


def test_a_move_is_made_once_and_told_to_every_connection(tmp_path: Path) -> None:
    asyncio.run(_a_move_is_told(tmp_path))


async def _a_move_is_told(tmp_path: Path) -> None:
    table, token = _server_table(tmp_path)
    player, watcher = Page(), Page()
    seated, watching = table.session(player), table.session(watcher)
    seated.receive(json.dumps({"v": 1, "type": "hello", "token": token}))
    watching.receive('{"v":1,"type":"watch"}')
    player.said(), watcher.said()
    seq = table.seq
    seated.receive('{"v":1,"type":"declare","contract":"trumps","trump":"S"}')
    (mine,) = [m for m in player.said() if m["type"] == "state"]
    (theirs,) = [m for m in watcher.said() if m["type"] == "state"]
    event = {"kind": "declare", "seat": 0, "contract": "trumps", "trump": "S"}
    for state in (mine, theirs):
        assert state["seq"] == seq + 1
        assert {k: state["event"][k] for k in event} == event
    assert mine["view"]["hand"] and not theirs["view"]["hand"]
    watching.receive('{"v":1,"type":"play","card":"AS"}')
    (refused,) = watcher.said()
    assert (refused["code"], refused["about"]) == ("spectator", "play")
    assert table.seq == seq + 1  # the refusal wrote nothing
    seated.close()
    assert not table.is_attached(player) and table.is_attached(watcher)
    table.close()
