"""Accounts at a real server (uvicorn in a child process, both backends): cookies,
what the logs keep, who may see and act at whose seat, taking a seat back from another
device, logging out everywhere, and rated tables."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from benchmarks.server_process import ServerProcess
from king.server.store.event_log import Database
from tests.support.peers import Peer, act, play_to_the_end

PASSWORD = "a long and secret phrase"


@pytest.fixture(scope="module")
def server(module_database: Database) -> Iterator[ServerProcess]:
    with ServerProcess(module_database, bot_pause=0, away_after=3600) as process:
        yield process


def person(server: ServerProcess, name: str) -> httpx.Client:
    """A browser of its own (its own cookies), registered as ``name``."""
    client = httpx.Client(base_url=server.url, timeout=20)
    answer = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return client


def login(server: ServerProcess, name: str) -> httpx.Client:
    client = httpx.Client(base_url=server.url, timeout=20)
    answer = client.post("/api/login", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    return client


def table_for(client: httpx.Client, *, rated: bool = False, **extra: Any) -> dict[str, Any]:
    """A table of the client and three bots (``rule`` at a rated table, ``random`` else)."""
    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "rule" if rated else "random"}] * 3
    answer = client.post(
        "/api/tables", json={"seats": seats, "seat": 0, "rated": rated, "name": "x", **extra}
    )
    assert answer.status_code == 201, answer.text
    claim: dict[str, Any] = answer.json()
    return claim


def sit(server: ServerProcess, table: str, token: str) -> tuple[Peer, dict[str, Any]]:
    peer = Peer(server, table)
    peer.send({"type": "hello", "token": token})
    welcome = peer.next()
    assert welcome["type"] == "welcome", welcome
    return peer, welcome


def play_moves(peer: Peer, count: int) -> None:
    """Make ``count`` moves at the seat (the bots answer in between)."""
    made = 0
    while made < count:
        state = peer.state()
        if state["view"]["to_act"] == state["view"]["seat"]:
            act(peer, state)
            made += 1


def test_the_session_cookie_is_http_only_and_same_site(server: ServerProcess) -> None:
    client = httpx.Client(base_url=server.url)
    answer = client.post("/api/accounts", json={"name": "Cookie_1", "password": PASSWORD})
    cookie = answer.headers["set-cookie"].lower()
    assert "king_session=" in cookie and "httponly" in cookie and "samesite=lax" in cookie
    assert "path=/" in cookie and "secure" not in cookie  # plain HTTP here; HTTPS adds it
    assert client.get("/api/me").json()["account"]["name"] == "Cookie_1"
    # Behind a proxy on this machine that says the visitor came over HTTPS: Secure.
    proxied = httpx.post(
        f"{server.url}/api/login",
        json={"name": "Cookie_1", "password": PASSWORD},
        headers={"x-forwarded-proto": "https"},
    )
    assert proxied.status_code == 200 and "secure" in proxied.headers["set-cookie"].lower()
    # A guest gets an account (and a cookie) by sitting down, and sees their own games.
    guest = httpx.Client(base_url=server.url)
    claim = table_for(guest)
    me = guest.get("/api/me").json()["account"]
    assert me["kind"] == "guest" and me["name"] is None
    registered = guest.post("/api/accounts", json={"name": "Was_a_guest", "password": PASSWORD})
    assert registered.status_code == 201
    games = guest.get("/api/players/Was_a_guest/games").json()["games"]
    assert [g["table"] for g in games] == [claim["table"]]


def test_passwords_never_reach_the_logs(server: ServerProcess) -> None:
    secret = "never-in-the-logs-7781"
    client = httpx.Client(base_url=server.url)
    client.post("/api/accounts", json={"name": "Logged_1", "password": secret})
    client.post("/api/login", json={"name": "Logged_1", "password": secret + "x"})
    client.post("/api/login", json={"name": "Logged_1", "password": secret})
    client.post("/api/accounts", json={"name": "bad name!", "password": secret})
    assert secret not in server.output()


def test_a_refused_login_names_no_reason_and_the_limit_answers_429(server: ServerProcess) -> None:
    person(server, "Limited_1")
    client = httpx.Client(base_url=server.url)
    wrong = client.post("/api/login", json={"name": "Limited_1", "password": "wrong password"})
    unknown = client.post("/api/login", json={"name": "Nobody_42", "password": "wrong password"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    for _ in range(4):  # five failures in all (the server's default per name)
        client.post("/api/login", json={"name": "LIMITED_1", "password": "wrong password"})
    locked = client.post("/api/login", json={"name": "Limited_1", "password": PASSWORD})
    assert locked.status_code == 429
    assert locked.json()["error"]["code"] == "too_many_attempts"
    assert 0 < int(locked.headers["retry-after"]) <= 900


def test_another_site_cannot_act_with_a_visitors_cookie(server: ServerProcess) -> None:
    client = person(server, "Origin_1")
    evil = {"origin": "http://evil.example"}
    answer = client.post("/api/logout/everywhere", headers=evil)
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "cross_site"
    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3
    assert client.post("/api/tables", json={"seats": seats}, headers=evil).status_code == 403
    assert client.get("/api/me").json()["account"]["name"] == "Origin_1"
    # The same server, its default port written or not (a proxy's Host may carry it).
    port = server.url.rsplit(":", 1)[1]
    for origin, host, status in [
        ("https://king.example", "king.example:443", 200),
        ("http://king.example:80", "king.example", 200),
        ("http://king.example", "king.example:8080", 403),
        ("http://king.example:x", "king.example", 403),
    ]:
        answer = client.post("/api/logout", headers={"origin": origin, "host": host})
        assert answer.status_code == status, (origin, host)
    same = {"origin": server.url, "host": f"127.0.0.1:{port}"}
    assert client.post("/api/logout", headers=same).status_code == 200


def test_one_account_cannot_see_or_act_at_anothers_unfinished_game(server: ServerProcess) -> None:
    owner, other = person(server, "Owner_1"), person(server, "Other_1")
    claim = table_for(owner)
    table = claim["table"]
    peer, _ = sit(server, table, claim["token"])
    play_moves(peer, 3)
    mine = owner.get("/api/players/Owner_1/games").json()["games"]
    assert [(g["table"], g["status"]) for g in mine] == [(table, "playing")]
    assert other.get("/api/players/Owner_1/games").json()["games"] == []
    assert httpx.get(f"{server.url}/api/players/Owner_1/games").json()["games"] == []
    for path in (f"/api/tables/{table}/record", f"/api/tables/{table}/board"):
        refused = other.get(path)
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "not_over"
    taken = other.post(f"/api/tables/{table}/seat")
    assert taken.status_code == 403 and taken.json()["error"]["code"] == "not_your_seat"
    assert httpx.post(f"{server.url}/api/tables/{table}/seat").status_code == 401
    # Without the seat's token a socket only watches: it sees no hand and cannot play.
    spy = Peer(server, table)
    spy.send({"type": "hello", "token": "not-" + claim["token"]})
    assert spy.error()["code"] == "bad_token"
    spy.send({"type": "play", "card": "2C"})
    assert spy.error()["code"] == "not_joined"
    spy.close()
    peer.close()


def test_a_seat_is_taken_back_from_another_device(server: ServerProcess) -> None:
    phone = person(server, "Mover_1")
    claim = table_for(phone)
    table = claim["table"]
    old, _ = sit(server, table, claim["token"])
    play_moves(old, 2)
    laptop = login(server, "mover_1")  # any case
    games = laptop.get("/api/players/Mover_1/games").json()["games"]
    assert games[0]["table"] == table and games[0]["status"] == "playing"
    taken = laptop.post(f"/api/tables/{table}/seat")
    assert taken.status_code == 200, taken.text
    assert taken.json()["seat"] == 0 and taken.json()["token"] != claim["token"]
    assert old.until(lambda m: m["type"] == "error")["code"] == "replaced"
    new, welcome = sit(server, table, taken.json()["token"])
    assert welcome["role"] == "player" and welcome["seat"] == 0
    play_moves(new, 2)
    stale = Peer(server, table)
    stale.send({"type": "hello", "token": claim["token"]})
    assert stale.error()["code"] == "bad_token"
    for peer in (stale, new, old):
        peer.close()


def test_logging_out_everywhere_ends_every_login(server: ServerProcess) -> None:
    first = person(server, "Twice_1")
    second = login(server, "Twice_1")
    assert second.get("/api/me").json()["sessions"] == 2
    ended = second.post("/api/logout/everywhere")
    assert ended.status_code == 200 and ended.json()["ended"] == 2
    for client in (first, second):
        assert client.get("/api/me").json() == {"account": None}
    assert first.post("/api/logout/everywhere").status_code == 401


def test_rated_tables_are_for_registered_players_and_house_bots(server: ServerProcess) -> None:
    guest = httpx.Client(base_url=server.url)
    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "rule"}] * 3
    refused = guest.post("/api/tables", json={"seats": seats, "rated": True})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "account_needed"
    player = person(server, "Rated_1")
    weak = [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3
    tuned = [{"kind": "human"}] + [{"kind": "bot", "bot": "search:time=0.1"}] * 3
    for extra, words in (
        ({"hints": True}, "without hints"),
        ({"rules": {"preset": "classic", "overruff": True}}, "rules preset"),
        ({"seats": tuned}, "at their defaults (rule, search, beginner"),
        ({"seats": weak}, "with a measured rating"),
    ):
        body = {"seats": seats, "rated": True, **extra}
        answer = player.post("/api/tables", json=body)
        assert answer.status_code == 422 and words in answer.json()["error"]["message"], answer.text
    levels = [
        {"kind": "human"},
        *({"kind": "bot", "bot": level} for level in ("easy", "hard", "expert")),
    ]
    table = player.post("/api/tables", json={"seats": levels, "rated": True})
    assert table.status_code == 201, table.text
    shown = player.get(f"/api/tables/{table.json()['table']}").json()["seats"]
    assert [seat["player"] for seat in shown[1:]] == ["bot:easy", "bot:hard", "bot:expert"]
    assert shown[1]["rating"] < 1500 < shown[2]["rating"] < shown[3]["rating"]
    open_seat = player.post(
        "/api/tables",
        json={"seats": [{"kind": "human"}] * 2 + seats[2:], "rated": True},
    ).json()
    joined = guest.post(f"/api/tables/{open_seat['table']}/join", json={"name": "Guesty"})
    assert joined.status_code == 403 and joined.json()["error"]["code"] == "account_needed"
    again = player.post(f"/api/tables/{open_seat['table']}/join", json={"name": "me"})
    assert again.status_code == 409 and again.json()["error"]["code"] == "seated"
    info = httpx.get(f"{server.url}/api/tables/{open_seat['table']}").json()
    assert info["rated"] is True
    assert info["seats"][0]["player"] == "Rated_1" and info["seats"][2]["player"] == "bot:rule"
    assert info["clock"]["reserve"] > 0 and info["clock"]["left"][2] is None


def test_a_rated_game_to_the_end_moves_the_ratings(server: ServerProcess) -> None:
    player = person(server, "Finisher")
    claim = table_for(player, rated=True)
    peer, _ = sit(server, claim["table"], claim["token"])
    play_to_the_end(peer)
    peer.close()
    changes = httpx.get(f"{server.url}/api/tables/{claim['table']}/ratings").json()["changes"]
    by_name = {c["name"]: c for c in changes}
    assert set(by_name) == {"Finisher", "rule"}
    assert by_name["Finisher"]["before"] != by_name["Finisher"]["after"]
    # The house bot's rating is measured, not moved by games against people.
    assert by_name["rule"]["before"] == by_name["rule"]["after"] == 1500
    profile = player.get("/api/players/Finisher").json()
    assert profile["rating"] == by_name["Finisher"]["after"] and profile["rated_games"] == 1
    stats = player.get("/api/players/Finisher/stats").json()
    totals = httpx.get(f"{server.url}/api/tables/{claim['table']}/record").json()
    assert stats["games"] == 1
    games = player.get("/api/players/Finisher/games").json()["games"]
    assert games[0]["status"] == "over" and games[0]["rated"] is True
    assert games[0]["points"] == stats["points"]
    assert len(totals["deals"]) == 20
    board = httpx.get(f"{server.url}/api/leaderboard").json()["players"]
    assert {"Finisher", "rule"} <= {line["name"] for line in board}
    info = httpx.get(f"{server.url}/api/tables/{claim['table']}").json()
    assert info["seats"][0]["rating"] == by_name["Finisher"]["after"]
    assert json.dumps(info).count("provisional") == 4


def test_player_pages_and_their_bad_addresses(server: ServerProcess) -> None:
    assert httpx.get(f"{server.url}/api/players/No_such_one").status_code == 404
    assert httpx.get(f"{server.url}/api/players/bot:random").json()["house"] is True
    # A bot that has never played here is nobody (a house bot is somebody from the start).
    for ref in ("bot:nobody", "bot:rule:depth=9", "bot:", "bot:" + "x" * 70):
        unknown = httpx.get(f"{server.url}/api/players/{ref}/stats")
        assert unknown.status_code == 404 and ref in unknown.json()["error"]["message"], ref
    bad = httpx.get(f"{server.url}/api/players/bot:random/stats?since=yesterday")
    assert bad.status_code == 422 and "YYYY-MM-DD" in bad.json()["error"]["message"]
    backwards = httpx.get(
        f"{server.url}/api/players/bot:random/stats?since=2026-05-02&until=2026-05-01"
    )
    assert backwards.status_code == 422
    assert httpx.get(f"{server.url}/api/players/bot:random/games?limit=0").status_code == 422
    page = httpx.get(f"{server.url}/players/bot:random")
    assert page.status_code == 200 and "content-security-policy" in page.headers
    too_long = httpx.post(f"{server.url}/api/login", json={"name": "x" * 500, "password": PASSWORD})
    assert too_long.status_code == 422
