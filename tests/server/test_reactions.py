"""Quick reactions at a table of friends: a fixed set of phrases (nothing to moderate),
seen by everyone at the table, one a second per connection, refused with a reason to a
spectator, at a table with one person, and for a phrase not in the set."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from benchmarks.server_process import ServerProcess
from king.messages import REACTIONS
from king.offline.table import LocalTable
from king.server.protocol import ReactionMessage
from king.server.store.event_log import Database
from tests.support.peers import Message, Peer, create, join, player


@pytest.fixture(scope="module")
def server(module_database: Database) -> Iterator[ServerProcess]:
    with ServerProcess(module_database, bot_pause=0) as process:
        yield process


def is_reaction(message: Message) -> bool:
    return message["type"] == "reaction"


def test_a_reaction_reaches_everyone_at_the_table_and_only_the_set_is_sent(
    server: ServerProcess,
) -> None:
    claim = create(server, ["human", "human", "rule", "rule"], seed=5)
    table = claim["table"]
    bo_token = join(server, table, "Bo")
    ada, _ = player(server, table, claim["token"])
    bo, _ = player(server, table, bo_token)
    watcher = Peer(server, table)
    watcher.send({"type": "watch"})
    watcher.until(lambda m: m["type"] == "welcome")

    ada.send({"type": "react", "phrase": "good-luck"})
    for peer in (ada, bo, watcher):
        peer.until(is_reaction)
        said = ReactionMessage.model_validate_json(peer.texts[-1])  # as the model writes it
        assert (said.seat, said.phrase) == (0, "good-luck")

    ada.send({"type": "react", "phrase": "nice"})  # within the second
    refused = ada.error()
    assert refused["code"] == "too_fast" and refused["about"] == "react"

    bo.send({"type": "react", "phrase": "you are bad"})
    refused = bo.error()
    assert refused["code"] == "invalid"
    assert all(phrase in refused["message"] for phrase in REACTIONS)

    watcher.send({"type": "react", "phrase": "hello"})
    assert watcher.error()["code"] == "spectator"

    bo.send({"type": "react", "phrase": "x" * 21})
    assert "phrase" in bo.error()["message"]
    for peer in (ada, bo, watcher):
        peer.close()


def test_a_table_with_one_person_has_nobody_to_react_to(server: ServerProcess) -> None:
    claim = create(server, ["human", "rule", "rule", "rule"], seed=6)
    ada, _ = player(server, claim["table"], claim["token"])
    ada.send({"type": "react", "phrase": "hello"})
    assert ada.error()["code"] == "no_friends"
    ada.close()
    offline = LocalTable.new("classic", 6, name="Ada", bot_pause=0.0)
    offline.receive(json.dumps({"v": 1, "type": "hello", "token": "offline"}))
    [answer] = offline.receive(json.dumps({"v": 1, "type": "react", "phrase": "hello"}))
    assert json.loads(answer)["code"] == "no_friends"
