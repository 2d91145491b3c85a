"""Hints at a real server: only at a table created with them (which everyone there is
told), only for the seat to act, only to the connection that asked; each hint values
exactly the legal choices from the asker's view, and no hidden card reaches anyone
through one."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from benchmarks.server_process import ServerProcess
from king.game import Game
from king.server.store.event_log import Database
from tests.support.peers import Message, Peer, already_played, cards_in, create, is_state, player


@pytest.fixture(scope="module")
def server(module_database: Database) -> Iterator[ServerProcess]:
    db = module_database
    # A small effort per hint keeps the test quick; the server's own default is 0.2 s.
    with ServerProcess(db, bot_pause=0, extra=("--max-bot-time", "0.02")) as process:
        yield process


def is_hint(message: Message) -> bool:
    return message["type"] == "hint"


def choices_of(state: Message) -> set[str]:
    """The legal choices a state offers, written as a hint writes them."""
    if state["declarations"]:
        return {
            d["contract"] if d["trump"] is None else f"{d['contract']} {d['trump']}"
            for d in state["declarations"]
            if d["allowed"]
        }
    return set(state["legal"])


def plays_in(state: Message) -> int:
    view = state["view"]
    return sum(len(t["cards"]) for t in view["tricks"]) + len(view["trick"])


def test_hints_value_the_legal_choices_and_show_no_hidden_card(server: ServerProcess) -> None:
    claim = create(server, ["human", "random", "random", "random"], seed=33, hints=True)
    table = claim["table"]
    info = httpx.get(f"{server.url}/api/tables/{table}", timeout=10).json()
    assert info["hints"] is True
    me, state = player(server, table, claim["token"])
    watcher = Peer(server, table)
    watcher.send({"type": "watch"})
    assert watcher.next()["type"] == "welcome"
    dealt = set(state["view"]["hand"])
    hints = 0
    while state["view"]["deal"] == 0:
        if state["view"]["to_act"] == 0:
            me.send({"type": "hint"})
            me.send({"type": "hint"})  # asked twice at one position: answered once
            answer = me.until(is_hint, timeout=60)
            assert answer["deal"] == 0 and answer["plays"] == plays_in(state)
            offered = {c["choice"] for c in answer["choices"]}
            assert offered == choices_of(state), (offered, choices_of(state))
            assert answer["best"] in offered
            assert answer["kind"] == ("declare" if state["declarations"] else "play")
            values = [c["value"] for c in answer["choices"]]
            assert values == sorted(values, reverse=True)
            assert all(c["loss"] >= 0 and c["error"] >= 0 for c in answer["choices"])
            hints += 1
            # Nothing more is on its way: the second question was not answered again,
            # nor is a third asked after the answer came.
            me.send({"type": "hint"})
            me.send({"type": "ping"})
            assert me.until(lambda m: m["type"] in ("pong", "hint"))["type"] == "pong"
            best = answer["best"]
            if state["declarations"]:
                contract, _, trump = best.partition(" ")
                me.send({"type": "declare", "contract": contract, "trump": trump or None})
            else:
                me.send({"type": "play", "card": best})
        state = me.state()
    assert hints >= 13
    # Every message seat 0 received, hints included, shows its own hand and cards
    # already played, nothing else.
    played: set[str] = set()
    for text, message in zip(me.texts, me.received, strict=True):
        if is_state(message):
            played |= already_played(message)
            hand = set(message["view"]["hand"])
            assert cards_in(text) <= hand | played
        elif is_hint(message):
            assert cards_in(text) <= dealt - played, cards_in(text) - (dealt - played)
        else:
            assert not cards_in(text), text
    # The spectator heard no hint.
    watcher.until(lambda m: is_state(m) and m["view"]["deal"] == 1)
    assert not any(is_hint(m) for m in watcher.received)
    me.close()
    watcher.close()


def test_hints_are_refused_where_they_are_not_given(server: ServerProcess) -> None:
    plain = create(server, ["human", "random", "random", "random"], seed=34)
    assert (
        httpx.get(f"{server.url}/api/tables/{plain['table']}", timeout=10).json()["hints"] is False
    )
    me, state = player(server, plain["table"], plain["token"])
    assert state["view"]["to_act"] == 0
    me.send({"type": "hint"})
    error = me.error()
    assert error["code"] == "hints_off" and error["about"] == "hint"
    assert "without hints" in error["message"]
    me.close()

    helped = create(server, ["human", "human", "random", "random"], seed=35, hints=True)
    table = helped["table"]
    lobby = httpx.get(f"{server.url}/api/tables", timeout=10).json()
    assert next(t for t in lobby["open"] if t["id"] == table)["hints"] is True
    # Waiting for a second person: no game, no hint.
    me = Peer(server, table)
    me.send({"type": "hello", "token": helped["token"]})
    assert me.next()["type"] == "welcome"
    me.send({"type": "hint"})
    assert me.error()["code"] == "not_playing"
    joined = httpx.post(
        f"{server.url}/api/tables/{table}/join", json={"name": "Bo", "seat": 1}, timeout=10
    ).json()
    other, state = player(server, table, joined["token"])
    # Seat 3's bot declares and leads first (it may not have yet when seat 1 is told).
    if state["view"]["to_act"] != 0:
        state = other.until(lambda m: is_state(m) and m["view"]["to_act"] == 0)
    assert state["declarations"] == [] and state["view"]["contract"] is not None
    other.send({"type": "hint"})  # not seat 1's turn
    error = other.error()
    assert error["code"] == "not_your_turn" and "seat 1" in error["message"]  # counted from 1
    watcher = Peer(server, table)
    watcher.send({"type": "watch"})
    assert watcher.next()["type"] == "welcome"
    watcher.send({"type": "hint"})
    assert watcher.error()["code"] == "spectator"
    # A malformed question is named as such.
    me.send({"type": "hint", "seat": 2})
    assert me.error()["code"] == "invalid"
    for peer in (me, other, watcher):
        peer.close()


def test_a_declaration_hint_is_not_taken_for_the_first_cards(server: ServerProcess) -> None:
    """The declarer asks while declaring, declares, and asks again before its first card
    (the same deal, no card played yet): two positions, two hints."""
    seed = next(s for s in range(200) if Game(seed=s).declarer == 0)
    claim = create(server, ["human", "random", "random", "random"], seed=seed, hints=True)
    me, state = player(server, claim["table"], claim["token"])
    assert state["declarations"]
    me.send({"type": "hint"})
    declaring = me.until(is_hint, timeout=60)
    assert declaring["kind"] == "declare" and declaring["plays"] == 0
    assert {c["choice"] for c in declaring["choices"]} == choices_of(state)
    contract, _, trump = declaring["best"].partition(" ")
    me.send({"type": "declare", "contract": contract, "trump": trump or None})
    state = me.state()
    assert state["legal"] and state["view"]["to_act"] == 0
    me.send({"type": "hint"})
    playing = me.until(is_hint, timeout=60)
    assert playing["kind"] == "play" and playing["plays"] == 0
    assert {c["choice"] for c in playing["choices"]} == set(state["legal"])
    me.close()
