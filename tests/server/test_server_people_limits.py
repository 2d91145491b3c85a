"""Accounts, names, seats and ratings at a real server (both backends) as an attacker or a
careless player would meet them: a session fixed before registration, joins that seat
nobody, names that do not show, guests passing for players, a person who never moves or
leaves a rated game, one person with several accounts at one rated table, the page files
under /static, and seats on other devices after "log out everywhere"."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from benchmarks.server_process import ServerProcess
from king.server.store.event_log import Database
from tests.support.peers import Peer, act
from tests.support.services import query

PASSWORD = "a long and secret phrase"
HUMAN = {"kind": "human"}
RULE = {"kind": "bot", "bot": "rule"}
RANDOM = {"kind": "bot", "bot": "random"}


@pytest.fixture(scope="module")
def server(module_database: Database) -> Iterator[ServerProcess]:
    # A short clock and a short absence, so that the stand-ins are seen at work.
    extra = ("--clock-reserve", "2", "--clock-per-move", "1")
    with ServerProcess(module_database, bot_pause=0, away_after=1, extra=extra) as process:
        yield process


def browser(server: ServerProcess, address: str | None = None) -> httpx.Client:
    """A browser of its own (its own cookies), from ``address`` when given (as the
    proxy on 127.0.0.1 that uvicorn trusts would say)."""
    headers = {} if address is None else {"X-Forwarded-For": address}
    return httpx.Client(base_url=server.url, timeout=30, headers=headers)


def registered(server: ServerProcess, name: str, address: str | None = None) -> httpx.Client:
    client = browser(server, address)
    answer = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return client


def new_table(client: httpx.Client, seats: list[dict[str, str]], **extra: Any) -> dict[str, Any]:
    body = {"seats": seats, "seat": 0, "name": "Visitor", **extra}
    answer = client.post("/api/tables", json=body)
    assert answer.status_code == 201, answer.text
    claim: dict[str, Any] = answer.json()
    return claim


def rows(server: ServerProcess, table: str) -> int:
    return int(query(server.db, f"SELECT COUNT(*) FROM {table}")[0][0])


def sit(server: ServerProcess, table: str, token: str) -> Peer:
    peer = Peer(server, table)
    peer.send({"type": "hello", "token": token})
    assert peer.next()["type"] == "welcome"
    return peer


def test_registering_ends_the_session_a_guest_had(server: ServerProcess) -> None:
    guest = browser(server)
    claim = new_table(guest, [HUMAN, RANDOM, RANDOM, RANDOM])
    seen = guest.cookies["king_session"]
    thief = browser(server)
    thief.cookies.set("king_session", seen)
    assert thief.get("/api/me").json()["account"]["kind"] == "guest"
    answer = guest.post("/api/accounts", json={"name": "Fixed_1", "password": PASSWORD})
    assert answer.status_code == 201
    assert guest.cookies["king_session"] != seen
    # The token someone may have seen before registering opens nothing now.
    assert thief.get("/api/me").json() == {"account": None}
    assert thief.post(f"/api/tables/{claim['table']}/seat").status_code == 401
    # The guest's game is the player's.
    games = guest.get("/api/players/Fixed_1/games").json()["games"]
    assert [g["table"] for g in games] == [claim["table"]]
    # Logging in again starts yet another session and ends this one.
    before = guest.cookies["king_session"]
    again = guest.post("/api/login", json={"name": "Fixed_1", "password": PASSWORD})
    assert again.status_code == 200 and guest.cookies["king_session"] != before
    thief.cookies.set("king_session", before)
    assert thief.get("/api/me").json() == {"account": None}


def test_a_request_that_seats_nobody_writes_nobody(server: ServerProcess) -> None:
    host = registered(server, "Host_1")
    started = new_table(host, [HUMAN, RANDOM, RANDOM, RANDOM])["table"]
    accounts, sessions = rows(server, "king_accounts"), rows(server, "king_sessions")
    for number in range(20):
        missing = httpx.post(f"{server.url}/api/tables/NoSuch{number}/join", json={"name": "x"})
        assert missing.status_code == 404
        assert "king_session" not in missing.headers.get("set-cookie", "")
    full = httpx.post(f"{server.url}/api/tables/{started}/join", json={"name": "Late"})
    assert full.status_code == 409 and "king_session" not in full.headers.get("set-cookie", "")
    assert (rows(server, "king_accounts"), rows(server, "king_sessions")) == (accounts, sessions)
    # A join that seats someone writes their guest, once, with its cookie.
    waiting = new_table(host, [HUMAN, HUMAN, RANDOM, RANDOM])["table"]
    seated = httpx.post(f"{server.url}/api/tables/{waiting}/join", json={"name": "Seated"})
    assert seated.status_code == 200 and "king_session" in seated.headers["set-cookie"]
    assert rows(server, "king_accounts") == accounts + 1
    assert rows(server, "king_sessions") == sessions + 1


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("\u3164\u3164\u3164", "name_invisible"),  # Hangul fillers: letters that print nothing
        ("Ada\u3164\u3164", "name_invisible"),
        ("a" + "\u0308" * 19, "name_marks"),  # one letter under 19 stacked marks
    ],
)
def test_names_that_do_not_show_are_refused(server: ServerProcess, name: str, code: str) -> None:
    answer = httpx.post(f"{server.url}/api/accounts", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 422 and answer.json()["error"]["code"] == code, answer.text


def test_a_guest_name_must_show(server: ServerProcess) -> None:
    body = {"seats": [HUMAN, RANDOM, RANDOM, RANDOM], "seat": 0, "name": "\u3164\u3164"}
    answer = httpx.post(f"{server.url}/api/tables", json=body)
    assert answer.status_code == 422 and "letter or digit" in answer.json()["error"]["message"]
    # An invisible filler around a visible name is dropped.
    body["name"] = "\u3164Nur\u3164"
    claim = httpx.post(f"{server.url}/api/tables", json=body).json()
    info = httpx.get(f"{server.url}/api/tables/{claim['table']}").json()
    assert info["seats"][0]["name"] == "Nur" and info["by"] == "Nur"


def test_guests_are_marked_and_cannot_pass_for_a_registered_player(server: ServerProcess) -> None:
    player = registered(server, "Ada_R")
    for name in ("Ada_R", "ADA_R", "AdA_R", "Аda_R"):  # the last with a Cyrillic А
        body = {"seats": [HUMAN, RANDOM, RANDOM, RANDOM], "seat": 0, "name": name}
        answer = httpx.post(f"{server.url}/api/tables", json=body)
        assert answer.status_code == 409 and answer.json()["error"]["code"] == "name_taken", name
    mine = new_table(player, [HUMAN, HUMAN, RANDOM, RANDOM], name="Someone Else")
    joined = httpx.post(f"{server.url}/api/tables/{mine['table']}/join", json={"name": "ada_r"})
    assert joined.status_code == 409 and joined.json()["error"]["code"] == "name_taken"
    joined = httpx.post(f"{server.url}/api/tables/{mine['table']}/join", json={"name": "Bora"})
    assert joined.status_code == 200
    info = httpx.get(f"{server.url}/api/tables/{mine['table']}").json()
    # The host is the account that made the table, whatever name the request gave.
    assert (info["by"], info["by_guest"]) == ("Ada_R", False)
    assert [(s["name"], s["guest"]) for s in info["seats"][:2]] == [
        ("Ada_R", False),
        ("Bora", True),
    ]
    # Her history marks the guest too.
    seats = player.get("/api/players/Ada_R/games").json()["games"][0]["seats"]
    assert [(s["name"], s["guest"]) for s in seats] == [
        ("Ada_R", False),
        ("Bora", True),
        ("Random bot 2", False),
        ("Random bot 3", False),
    ]
    theirs = new_table(browser(server), [HUMAN, RANDOM, RANDOM, RANDOM], name="Cem")
    info = httpx.get(f"{server.url}/api/tables/{theirs['table']}").json()
    assert (info["by"], info["by_guest"], info["seats"][0]["guest"]) == ("Cem", True, True)


@pytest.mark.slow
def test_the_move_clock_has_the_stand_in_move_for_a_person_who_does_not(
    server: ServerProcess,
) -> None:
    player = registered(server, "Slow_1")
    claim = new_table(player, [HUMAN, RULE, RULE, RULE], rated=True)
    info = httpx.get(f"{server.url}/api/tables/{claim['table']}").json()
    assert info["clock"]["reserve"] == 2 and info["clock"]["per_move"] == 1
    peer = sit(server, claim["table"], claim["token"])
    # The person stays connected and sends nothing: their reserve (2 s) and the free
    # second of each turn run out, and the stand-in moves for them.
    waits = []
    started: float | None = None
    while len(waits) < 3:
        state = peer.state()
        if state["view"]["to_act"] == 0 and started is None:
            started = time.monotonic()
            assert state["clock"]["due_in"] is not None and state["clock"]["due_in"] <= 3.0
        event = state["event"]
        if event is not None and event.get("seat") == 0 and event["kind"] in ("declare", "play"):
            assert started is not None
            waits.append(time.monotonic() - started)
            started = None
            if state["view"]["to_act"] == 0:
                started = time.monotonic()
    assert 1.5 < waits[0] < 6.0, waits  # the free second and the whole reserve
    assert all(0.5 < wait < 4.0 for wait in waits[1:]), waits  # the free second alone
    assert peer.last["clock"]["left"][0] == 0
    # A move in time is the person's own.
    while True:
        state = peer.state()
        if state["view"]["to_act"] == 0:
            act(peer, state)
            made = peer.state()
            assert made["event"]["seat"] == 0
            break
    peer.close()


def test_a_rated_game_left_by_its_person_is_finished_and_rated(server: ServerProcess) -> None:
    player = registered(server, "Leaver")
    claim = new_table(player, [HUMAN, RULE, RULE, RULE], rated=True)
    peer = sit(server, claim["table"], claim["token"])
    peer.state()
    peer.close()  # gone, behind or not: nobody else is at the table
    deadline = time.monotonic() + 180
    while httpx.get(f"{server.url}/api/tables/{claim['table']}").json()["status"] != "over":
        assert time.monotonic() < deadline, "the stand-ins did not finish the rated game"
        time.sleep(0.5)
    changes = httpx.get(f"{server.url}/api/tables/{claim['table']}/ratings").json()["changes"]
    mine = next(c for c in changes if c["name"] == "Leaver")
    assert mine["before"] == 1500 and mine["after"] != 1500
    games = player.get("/api/players/Leaver/games").json()["games"]
    assert games[0]["status"] == "over" and games[0]["rated"] is True


def test_one_person_cannot_seat_two_accounts_at_one_rated_table(server: ServerProcess) -> None:
    first = registered(server, "Twin_A")
    claim = new_table(first, [HUMAN, HUMAN, RULE, RULE], rated=True)
    table = claim["table"]
    # The same browser, logged in as another account.
    first.post("/api/logout")
    second = first.post("/api/accounts", json={"name": "Twin_B", "password": PASSWORD})
    assert second.status_code == 201
    answer = first.post(f"/api/tables/{table}/join", json={"name": "x"})
    assert answer.status_code == 409 and "this browser" in answer.json()["error"]["message"]
    # Another browser at the same address.
    other = registered(server, "Twin_C")
    answer = other.post(f"/api/tables/{table}/join", json={"name": "x"})
    assert answer.status_code == 409 and "your address" in answer.json()["error"]["message"]
    # Another person, from another address and browser, sits.
    stranger = registered(server, "Stranger", address="10.9.0.1")
    answer = stranger.post(f"/api/tables/{table}/join", json={"name": "x"})
    assert answer.status_code == 200, answer.text


def test_the_pages_are_served_once_each_with_its_policy(server: ServerProcess) -> None:
    for name in ("index", "table", "board", "player", "leaderboard"):
        assert httpx.get(f"{server.url}/static/{name}.html").status_code == 404, name
    page = httpx.get(f"{server.url}/")
    assert (
        page.status_code == 200
        and "frame-ancestors 'none'" in page.headers["content-security-policy"]
    )
    script = httpx.get(f"{server.url}/static/js/api.js")
    assert script.status_code == 200 and script.headers["x-content-type-options"] == "nosniff"


def test_logging_out_everywhere_takes_the_seats_back_to_this_device(
    server: ServerProcess,
) -> None:
    phone = registered(server, "Two_Devices")
    claim = new_table(phone, [HUMAN, HUMAN, RANDOM, RANDOM])
    laptop = browser(server)
    assert (
        laptop.post("/api/login", json={"name": "Two_Devices", "password": PASSWORD}).status_code
        == 200
    )
    answer = laptop.post("/api/logout/everywhere").json()
    assert answer["ended"] == 2
    assert [(s["table"], s["seat"]) for s in answer["seats"]] == [(claim["table"], 0)]
    old = Peer(server, claim["table"])
    old.send({"type": "hello", "token": claim["token"]})
    assert old.error()["code"] == "bad_token"
    old.close()
    sit(server, claim["table"], answer["seats"][0]["token"]).close()
