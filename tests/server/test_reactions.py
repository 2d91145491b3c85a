"""Quick reactions at a table of friends: a fixed set of phrases (nothing to moderate),
seen by everyone at the table, one a second per seat and per person however many
sockets they open, refused with a reason to a spectator, at a table with one person,
and for a phrase not in the set."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest

from benchmarks.server_process import ServerProcess
from king.offline.table import OfflineTable
from king.server.protocol import model_of
from king.server.store.event_log import Database
from king.table.answers import ReactionMessage
from king.table.messages import REACTIONS
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
        said = model_of(ReactionMessage).model_validate_json(peer.texts[-1])  # as defined
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
    offline = OfflineTable.new("classic", 6, name="Ada", bot_pause=0.0)
    offline.receive(json.dumps({"v": 1, "type": "hello", "token": "offline"}))
    [answer] = offline.receive(json.dumps({"v": 1, "type": "react", "phrase": "hello"}))
    assert json.loads(answer)["code"] == "no_friends"


def reactions_within(peer: Peer, seconds: float) -> list[Message]:
    """The reactions ``peer`` hears in the next ``seconds``."""
    heard: list[Message] = []
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            message = peer.next(left)
        except TimeoutError:
            break
        if is_reaction(message):
            heard.append(message)
    return heard


@pytest.mark.slow
def test_many_sockets_of_one_seat_still_react_once_a_second(server: ServerProcess) -> None:
    claim = create(server, ["human", "human", "rule", "rule"], seed=7)
    table = claim["table"]
    bo, _ = player(server, table, join(server, table, "Bo"))
    sockets = [player(server, table, claim["token"])[0] for _ in range(21)]
    bo.settle()  # the news of 21 connections, read
    for peer in sockets:
        peer.send({"type": "react", "phrase": "oops"})
    heard = reactions_within(bo, 1.5)
    assert [(m["seat"], m["phrase"]) for m in heard] == [(0, "oops")]
    refused = [peer.error()["code"] for peer in sockets[1:]]
    assert refused == ["too_fast"] * 20
    time.sleep(1.05)
    sockets[-1].send({"type": "react", "phrase": "nice"})  # a second later: heard again
    assert [m["phrase"] for m in reactions_within(bo, 1.0)] == ["nice"]
    for peer in [bo, *sockets]:
        peer.close()


def test_a_person_at_two_seats_reacts_once_a_second(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        made = client.post("/api/accounts", json={"name": "Deniz", "password": "a long secret"})
        assert made.status_code == 201, made.text
        body = {
            "seats": [{"kind": "human"}] * 3 + [{"kind": "bot", "bot": "rule"}],
            "seat": 0,
            "name": "Deniz",
            "seed": 8,
        }
        claim = client.post("/api/tables", json=body).json()
        table = claim["table"]
        second = client.post(f"/api/tables/{table}/join", json={"name": "Deniz", "seat": 1})
        assert second.status_code == 200, second.text
    bo, _ = player(server, table, join(server, table, "Bo", 2))
    first, _ = player(server, table, claim["token"])
    other, _ = player(server, table, second.json()["token"])
    bo.settle()
    first.send({"type": "react", "phrase": "hello"})
    assert [m["seat"] for m in reactions_within(bo, 0.5)] == [0]
    other.send({"type": "react", "phrase": "hello"})  # the same person, another seat
    assert other.error()["code"] == "too_fast"
    first.settle()  # its own reaction, heard
    bo.send({"type": "react", "phrase": "hello"})  # somebody else: heard at once
    assert [m["seat"] for m in reactions_within(first, 0.5)] == [2]
    for peer in (bo, first, other):
        peer.close()
