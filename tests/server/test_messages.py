"""The two tables that seat people say the same: the page's offline table
(:mod:`king.offline.table`, standard library only) and a real server's, message by
message for the same game; and every message either builds is what the protocol's
pydantic models accept and write back unchanged, so builders and models cannot drift."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from benchmarks.server_process import ServerProcess
from king.offline.table import OfflineTable
from king.server.protocol import model_of
from king.server.store.event_log import Database
from king.table.answers import SERVER_MESSAGES
from tests.support.peers import Message, Peer, create

#: The models of the messages a game with one person and bots shows (a person alone at
#: a table has no one to react to, and this table has no hints).
MODELS: dict[str, type[BaseModel]] = {
    kind: model_of(SERVER_MESSAGES[kind])
    for kind in ("welcome", "state", "table", "error", "pong", "pace")
}
#: What only a server can know of its table (its id, when it was made, the house bots'
#: pages and ratings); everything else must be the same.
SERVER_ONLY = ("id", "created")
SEAT_SERVER_ONLY = ("player", "rating", "provisional")


@pytest.fixture(scope="module")
def server(module_database: Database) -> Iterator[ServerProcess]:
    with ServerProcess(module_database, bot_pause=0) as process:
        yield process


def _as_the_model_writes_it(text: str) -> Message:
    message: Message = json.loads(text)
    model = MODELS[message["type"]]
    written = model.model_validate_json(text).model_dump(mode="json")
    assert written == message, f"{message['type']}: the builder and the model differ"
    assert list(written) == list(message), "the fields come in the model's order"
    return message


def _comparable(message: Message) -> Message:
    table = message.get("table")
    if table is None:
        return message
    seats = [{k: v for k, v in s.items() if k not in SEAT_SERVER_ONLY} for s in table["seats"]]
    kept = {k: v for k, v in table.items() if k not in SERVER_ONLY}
    return {**message, "table": {**kept, "seats": seats}}


def _move(state: Message) -> dict[str, Any]:
    """The seat's last legal choice (the peers' helper takes the first; either will do)."""
    if state["declarations"]:
        choice = [d for d in state["declarations"] if d["allowed"]][-1]
        return {"type": "declare", "contract": choice["contract"], "trump": choice["trump"]}
    return {"type": "play", "card": state["legal"][-1]}


class _Local:
    """The offline table driven as the page's worker drives it, bots moving at once."""

    def __init__(self, seed: int) -> None:
        self.table = OfflineTable.new("classic", seed, name="Ada", bot_pause=0.0)
        self.texts: list[str] = []

    def send(self, message: dict[str, Any]) -> None:
        self.texts += self.table.receive(json.dumps({"v": 1, **message}))
        self.settle()

    def settle(self) -> None:
        while self.table.bot_delay() is not None:
            self.texts += self.table.advance()


def test_the_offline_table_says_what_the_server_says_message_by_message(
    server: ServerProcess,
) -> None:
    seed = 20261204
    claim = create(server, ["human", "rule", "rule", "rule"], seed=seed)
    peer = Peer(server, claim["table"])
    local = _Local(seed)
    local.settle()  # the server's bots move before anyone connects, as these do
    for message in ({"type": "ping"}, {"type": "hello", "token": claim["token"]}):
        peer.send(message)
        local.send(message)
    wrong = [{"type": "play", "card": "ZZ"}, {"type": "speed", "speed": "slow"}]
    moves = 0
    while True:
        state = peer.until(lambda m: m["type"] == "state" and m["view"]["to_act"] in (0, None))
        if state["view"]["phase"] == "over":
            break
        if wrong:
            peer.send(wrong[0])
            local.send(wrong.pop(0))
        move = _move(state)
        peer.send(move)
        local.send(move)
        moves += 1
    peer.settle()
    peer.close()
    assert moves > 200, "the person played a whole game"
    server_messages = [_as_the_model_writes_it(text) for text in peer.texts]
    local_messages = [_as_the_model_writes_it(text) for text in local.texts]
    kinds = {m["type"] for m in local_messages}
    assert kinds == set(MODELS), f"every kind was compared: {kinds}"
    assert len(local_messages) == len(server_messages)
    for number, (mine, theirs) in enumerate(zip(local_messages, server_messages, strict=True)):
        assert _comparable(mine) == _comparable(theirs), f"message {number} differs"
    assert json.loads(peer.texts[-2])["view"]["phase"] == "over"
