"""The table protocol against a real server: a real uvicorn in a child process on
127.0.0.1, a real SQLite file, real WebSockets.  What each seat and each spectator
receives is inspected message by message."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from benchmarks.server_process import ServerProcess
from king.i18n import Translator
from king.record import replay
from king.server.store.event_log import Database
from tests.support.peers import (
    Message,
    Peer,
    act,
    already_played,
    cards_in,
    create,
    event_count,
    is_state,
    join,
    player,
)


@pytest.fixture(scope="module")
def server(module_database: Database) -> Iterator[ServerProcess]:
    with ServerProcess(module_database, bot_pause=0, away_after=1.0) as process:
        yield process


def test_no_hidden_card_reaches_a_seat_or_a_spectator(server: ServerProcess) -> None:
    claim = create(server, ["human", "random", "random", "random"], seed=21)
    table = claim["table"]
    me, state = player(server, table, claim["token"])
    watcher = Peer(server, table)
    watcher.send({"type": "watch"})
    assert watcher.next()["type"] == "welcome"
    watcher.state()
    dealt = set(state["view"]["hand"])
    assert len(dealt) == 13
    while state["view"]["deal"] == 0:
        if state["view"]["to_act"] == 0:
            act(me, state)
        state = me.state()
    # The whole first deal, as seat 0 saw it: each message shows only its own hand and
    # cards already played.
    played: set[str] = set()
    for text, message in zip(me.texts, me.received, strict=True):
        if message["type"] != "state":
            assert not cards_in(text), text
            continue
        played |= already_played(message)
        hand = set(message["view"]["hand"])
        if message["view"]["deal"] == 0:
            assert hand <= dealt
        assert set(message["legal"]) <= hand
        assert cards_in(text) <= hand | played, cards_in(text) - hand - played
    assert len(played) == 52
    # The spectator saw the same plays, and never a card before it was played.
    watcher.until(lambda m: is_state(m) and m["view"]["deal"] == 1)
    seen: set[str] = set()
    states = 0
    for text, message in zip(watcher.texts, watcher.received, strict=True):
        if message["type"] == "state":
            states += 1
            assert message["view"]["hand"] == [] and message["view"]["seat"] is None
            assert message["legal"] == [] and message["declarations"] == []
            seen |= already_played(message)
        assert cards_in(text) <= seen, cards_in(text) - seen
    assert seen == played
    assert states > 1
    me.close()
    watcher.close()


def test_bad_messages_get_an_error_and_change_nothing(server: ServerProcess) -> None:
    claim = create(server, ["human", "human", "random", "random"], seed=5)
    table = claim["table"]
    other_token = join(server, table, "Bo")
    a, _ = player(server, table, claim["token"])
    b, _ = player(server, table, other_token)
    people = {0: a, 1: b}
    # Get to a position where seat 0 or seat 1 is to play a card.
    while True:
        state = a.settle()
        b.settle()
        to_act = state["view"]["to_act"]
        if to_act in people and state["view"]["phase"] == "playing":
            break
        if to_act in people:
            act(people[to_act], people[to_act].last)
    mover = people[to_act]
    waiting = people[1 - to_act]
    mover_state = mover.last
    before = event_count(server, table)
    hand = mover_state["view"]["hand"]
    illegal = [c for c in hand if c not in mover_state["legal"]]
    stranger = Peer(server, table)
    other_table = create(server, ["human", "random", "random", "random"])

    refusals: list[tuple[Peer, Message | str | bytes, str]] = [
        (stranger, {"type": "hello", "token": "not-a-token"}, "bad_token"),
        (stranger, {"type": "hello", "token": other_table["token"]}, "bad_token"),
        (stranger, {"type": "play", "card": hand[0]}, "not_joined"),
        (waiting, {"type": "play", "card": mover_state["legal"][0]}, "not_your_turn"),
        (waiting, {"type": "declare", "contract": "no-queens"}, "not_your_turn"),
        (mover, {"type": "declare", "contract": "no-queens"}, "not_declaring"),
        (mover, {"type": "play", "card": "ZZ"}, "invalid"),
        (mover, {"type": "play", "card": "1S"}, "invalid"),
        (mover, {"type": "play"}, "invalid"),
        (mover, {"type": "play", "card": "AS", "extra": 1}, "invalid"),
        (mover, {"type": "dance"}, "invalid"),
        (mover, {"type": "hello", "token": claim["token"]}, "already_joined"),
        (mover, '{"v": 2, "type": "play", "card": "AS"}', "version"),
        (mover, "{not json", "bad_json"),
        (mover, b"\xff\xfe", "invalid"),  # a binary frame: the protocol is text
        (mover, json.dumps({"v": 1, "type": "ping"}).encode(), "invalid"),
        (mover, '{"v": true, "type": "play", "card": "AS"}', "version"),
        (mover, '{"v": 1.0, "type": "ping"}', "version"),
        (mover, "[" * 2000 + "]" * 2000, "bad_json"),
        (mover, '{"v": 1, "type": "ping", "type": "play"}', "bad_json"),
        (mover, '{"v": 1, "type": "play", "card": NaN}', "bad_json"),
        (mover, "[1, 2]", "invalid"),
        (mover, "x" * 1_000_000, "too_large"),
        (mover, json.dumps({"v": 1, "type": "play", "card": "A" * 5000}), "too_large"),
    ]
    if illegal:
        refusals.append((mover, {"type": "play", "card": illegal[0]}, "illegal"))
    if mover_state["view"]["trick"]:
        played = mover_state["view"]["trick"][0]["card"]
        refusals.append((mover, {"type": "play", "card": played}, "illegal"))
    for peer, message, code in refusals:
        peer.send(message)
        error = peer.error()
        assert error["code"] == code, (message if len(str(message)) < 200 else "...", error)
        assert error["message"]
    assert event_count(server, table) == before
    # Nothing changed, and every connection still works: the mover can play.
    for peer in (a, b, stranger):
        peer.send({"type": "ping"})
        peer.until(lambda m: m["type"] == "pong")
    mover.send({"type": "play", "card": mover_state["legal"][0]})
    after = mover.state()
    event = after["event"]
    assert (event["kind"], event["seat"], event["card"]) == (
        "play",
        mover_state["view"]["seat"],
        mover_state["legal"][0],
    )
    assert event_count(server, table) == before + 1
    for peer in (a, b, stranger):
        peer.close()


def test_a_spectator_cannot_act(server: ServerProcess) -> None:
    claim = create(server, ["human", "random", "random", "random"])
    watcher = Peer(server, claim["table"])
    watcher.send({"type": "watch"})
    assert watcher.next()["role"] == "spectator"
    watcher.send({"type": "declare", "contract": "no-king"})
    assert watcher.error()["code"] == "spectator"
    watcher.close()


def test_an_absent_player_is_replaced_by_a_bot_and_takes_the_seat_back(
    server: ServerProcess,
) -> None:
    claim = create(server, ["human", "human", "random", "random"], seed=9)
    table = claim["table"]
    token_b = join(server, table, "Bo")
    a, state = player(server, table, claim["token"])
    b, _ = player(server, table, token_b)
    b.close()  # Bo leaves; away_after is 1 s on this server
    deadline = time.monotonic() + 30
    stood_in = False
    while time.monotonic() < deadline and not stood_in:
        if state["view"]["to_act"] == 0:
            act(a, state)
        message = a.until(lambda m: m["type"] in ("state", "table"))
        if message["type"] == "table":
            stood_in = stood_in or message["table"]["seats"][1]["stand_in"]
        elif message["event"] and message["event"].get("seat") == 1:
            stood_in = True  # a bot acted for seat 1
        if message["type"] == "state":
            state = message
    assert stood_in, "no bot played for the absent seat"
    moves_before = event_count(server, table)
    b, back = player(server, table, token_b)
    assert back["event"]["kind"] == "resume"
    info = httpx.get(f"{server.url}/api/tables/{table}", timeout=10).json()
    assert info["seats"][1]["connected"] is True
    assert info["seats"][1]["stand_in"] is False
    assert event_count(server, table) >= moves_before
    a.close()
    b.close()


def test_a_full_game_of_bots_is_kept_and_downloads_as_a_record(server: ServerProcess) -> None:
    claim = create(server, ["random", "random", "rule", "random"], seat=None, seed=77)
    table = claim["table"]
    assert claim["token"] is None
    record = httpx.get(f"{server.url}/api/tables/{table}/record", timeout=10)
    assert record.status_code == 409
    assert record.json()["error"]["code"] == "not_over"
    # Bots play only while someone is at the table: nobody is, so nothing moves.
    time.sleep(1.0)
    assert event_count(server, table) == 3  # the table, its start and the first deal
    watcher = Peer(server, table)
    watcher.send({"type": "watch"})
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        info = httpx.get(f"{server.url}/api/tables/{table}", timeout=10).json()
        if info["status"] == "over":
            break
        time.sleep(0.3)
    assert info["status"] == "over"
    answer = httpx.get(f"{server.url}/api/tables/{table}/record", timeout=10)
    assert answer.status_code == 200
    assert "attachment" in answer.headers["content-disposition"]
    report = replay(answer.text)
    assert report.valid and report.complete
    assert sum(report.game.totals) == 0
    # Each seat named as the table showed it: distinct even for the same bot.
    assert report.players == ("Random bot 0", "Random bot 1", "Medium bot 2", "Random bot 3")
    lobby = httpx.get(f"{server.url}/api/tables", timeout=10).json()
    assert table in [t["id"] for t in lobby["finished"]]
    assert table not in [t["id"] for t in lobby["open"]]


def test_http_errors_name_what_was_wrong(server: ServerProcess) -> None:
    url = server.url
    four_bots = [{"kind": "bot", "bot": "random"}] * 4
    cases: list[tuple[str, str, Any, int, str]] = [
        ("GET", "/api/tables/nosuchtable", None, 404, "not_found"),
        ("GET", "/api/tables/bad%20id!", None, 404, "not_found"),
        ("POST", "/api/tables", {"seats": []}, 422, "invalid"),
        ("POST", "/api/tables", {"seats": four_bots, "seat": 0}, 422, "invalid"),
        ("POST", "/api/tables", {"seats": four_bots, "seat": None, "rules": "poker"}, 422, ""),
        (
            "POST",
            "/api/tables",
            {"seats": [{"kind": "human"}] + [{"kind": "bot", "bot": "cmd:rm -rf /"}] * 3},
            422,
            "invalid",
        ),
        (
            "POST",
            "/api/tables",
            {"seats": [{"kind": "human"}] + [{"kind": "bot", "bot": "nobody"}] * 3},
            422,
            "invalid",
        ),
        ("POST", "/api/tables", {"seats": four_bots, "seat": None, "name": "x" * 40}, 422, ""),
        ("POST", "/api/tables", "x" * 20000, 413, "too_large"),
    ]
    for method, path, body, status, code in cases:
        if isinstance(body, str):
            answer = httpx.request(method, url + path, content=body, timeout=10)
        else:
            answer = httpx.request(method, url + path, json=body, timeout=10)
        assert answer.status_code == status, (path, body, answer.text)
        error = answer.json()["error"]
        assert error["message"]
        if code:
            assert error["code"] == code
    claim = create(server, ["human", "human", "random", "random"])
    table = claim["table"]
    join(server, table, "Bo")
    answer = httpx.post(f"{url}/api/tables/{table}/join", json={"name": "Cy"}, timeout=10)
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "started"
    claim = create(server, ["human", "human", "human", "random"])
    answer = httpx.post(
        f"{url}/api/tables/{claim['table']}/join", json={"name": "Cy", "seat": 0}, timeout=10
    )
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "seat_taken"
    answer = httpx.post(
        f"{url}/api/tables/{claim['table']}/join", json={"name": "Cy", "seat": 3}, timeout=10
    )
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "bot_seat"
    answer = httpx.post(
        f"{url}/api/tables/{claim['table']}/join", json={"name": " \u0000 "}, timeout=10
    )
    assert answer.status_code == 422
    socket = Peer(server, "nosuchtable")
    assert socket.next()["code"] == "not_found"


def test_a_killed_server_brings_every_table_back(database: Database) -> None:
    db = database
    first = ServerProcess(db, bot_pause=0).start()
    try:
        claim = create(first, ["human", "random", "random", "random"], seed=3)
        table = claim["table"]
        waiting = create(first, ["human", "human", "random", "random"])
        me, state = player(first, table, claim["token"])
        moves = 0
        while moves < 9:
            if state["view"]["to_act"] == 0:
                act(me, state)
                moves += 1
            state = me.state()
        while state["view"]["to_act"] != 0:
            state = me.state()
        before = state
        me.close()
        first.kill()  # SIGKILL: no shutdown code runs
    finally:
        first.kill()
    second = ServerProcess(db, port=first.port, bot_pause=0).start()
    try:
        me, after = player(second, table, claim["token"])
        for key in ("view", "legal", "declarations", "hand_sizes", "last_trick", "obligations"):
            assert after[key] == before[key], key
        assert after["seq"] == before["seq"]
        act(me, after)
        assert me.state()["event"]["seat"] == 0
        info = httpx.get(f"{second.url}/api/tables/{waiting['table']}", timeout=10).json()
        assert info["status"] == "waiting"
        assert [s["claimed"] for s in info["seats"]] == [True, False, True, True]
        me.close()
    finally:
        second.stop()


ILLEGAL_REASONS = {
    "already_played",
    "not_held",
    "trump_lead",
    "heart_lead",
    "must_follow",
    "must_play_penalty_under",
    "must_overruff",
    "must_trump",
    "must_discard_penalty",
}


def test_a_refused_card_or_declaration_names_its_rule_and_changes_nothing(
    server: ServerProcess,
) -> None:
    claim = create(server, ["human"] * 4, seed=11)
    table = claim["table"]
    tokens = {0: claim["token"]} | {seat: join(server, table, f"P{seat}") for seat in (1, 2, 3)}
    peers: dict[int, Peer] = {}
    states: dict[int, Message] = {}
    for seat, token in tokens.items():
        peers[seat], states[seat] = player(server, table, token)
    tr = Translator("tr")
    refused_card = refused_declaration = False
    while not (refused_card and refused_declaration):
        view = states[0]["view"]
        assert view["deal"] <= 2, "no refusal came up"
        seat = view["to_act"]
        mover, state = peers[seat], states[seat]
        before = event_count(server, table)
        if state["declarations"] and view["deal"] < 2:
            mover.send({"type": "declare", "contract": "no-queens"})  # twice: deals 0 and 1
        elif state["declarations"]:
            mover.send({"type": "declare", "contract": "no-queens"})
            error = mover.error()
            assert (error["code"], error["about"], error["reason"]) == (
                "illegal",
                "declare",
                "played_twice",
            )
            assert error["params"] == {"contract": "no-queens"}
            assert error["message"]  # the English sentence, as before
            assert tr.refused(error["reason"], error["params"]) == tr(
                "refused.played_twice", contract="Kız Almaz"
            )
            assert event_count(server, table) == before
            refused_declaration = True
            act(mover, state)
        else:
            illegal = [card for card in state["view"]["hand"] if card not in state["legal"]]
            if illegal and not refused_card:
                mover.send({"type": "play", "card": illegal[0]})
                error = mover.error()
                assert (error["code"], error["about"]) == ("illegal", "play")
                assert error["reason"] in ILLEGAL_REASONS - {"already_played", "not_held"}
                params = error["params"]
                assert params["seat"] == str(seat) and params["card"] == illegal[0]
                assert set(params.get("cards", "").split()) <= set(state["legal"])
                worded = tr.illegal(error["reason"], params)
                assert worded and "{" not in worded
                # A card of another hand: not held (or already played).
                stranger = next(
                    card
                    for other in range(4)
                    for card in states[other]["view"]["hand"]
                    if other != seat
                )
                mover.send({"type": "play", "card": stranger})
                error = mover.error()
                assert error["reason"] == "not_held" and error["params"]["card"] == stranger
                assert event_count(server, table) == before
                for peer in peers.values():  # nothing was announced
                    with pytest.raises(TimeoutError):
                        peer.next(0.2)
                refused_card = True
            act(mover, state)
        for other, peer in peers.items():
            states[other] = peer.state()
    for peer in peers.values():
        peer.close()


def test_a_table_spells_out_the_optional_rules_it_plays_by(server: ServerProcess) -> None:
    """``toggles`` (for the page's Rules dialog): the rules in force, whatever ``rules``
    names, in the order of RULES.md; over HTTP and in ``welcome``."""
    cases: list[tuple[object, object, list[str]]] = [
        ("classic", "classic", []),
        ("pagat", "pagat", ["forced_penalty", "early_end"]),
        (
            "turkish",
            "turkish",
            [
                "forced_penalty",
                "early_end",
                "overruff",
                "trump_lead_after_break",
                "two_of_diamonds_starts",
            ],
        ),
        (  # the closest preset and what differs from it, as a record writes it
            {"preset": "pagat", "early_end": False, "overruff": True},
            {"preset": "classic", "forced_penalty": True, "overruff": True},
            ["forced_penalty", "overruff"],
        ),
    ]
    for rules, spec, toggles in cases:
        claim = create(server, ["human", "human", "human", "human"], rules=rules)
        info = httpx.get(f"{server.url}/api/tables/{claim['table']}", timeout=10).json()
        assert (info["rules"], info["toggles"]) == (spec, toggles)
    peer = Peer(server, claim["table"])
    peer.send({"type": "hello", "token": claim["token"]})
    welcome = peer.next()
    assert welcome["type"] == "welcome"
    assert welcome["table"]["toggles"] == ["forced_penalty", "overruff"]
    peer.close()


def test_playing_again_needs_a_finished_game_and_a_seat(server: ServerProcess) -> None:
    claim = create(server, ["human", "random", "random", "random"])
    url = f"{server.url}/api/tables/{claim['table']}/again"
    answer = httpx.post(url, json={"token": claim["token"]}, timeout=10)
    assert (answer.status_code, answer.json()["error"]["code"]) == (409, "not_over")
    answer = httpx.post(url, json={"token": "nobody's"}, timeout=10)
    assert (answer.status_code, answer.json()["error"]["code"]) == (403, "bad_token")
    answer = httpx.post(url, json={"token": True}, timeout=10)
    assert (answer.status_code, answer.json()["error"]["code"]) == (422, "invalid")
