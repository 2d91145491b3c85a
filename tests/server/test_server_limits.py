"""What a visitor may ask of a server, and what one table may take from the others: each
limit refused with a 4xx that names it, the bot threads shared fairly, idle tables
closed with their records kept.  Against a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection

from benchmarks.server_process import ServerProcess
from king.bots.random_bot import RandomBot
from king.cards import Card
from king.game import Game
from king.record import replay
from king.rules import Declaration
from king.server.engine.players import BotRunner
from king.server.store.event_log import Database
from king.view import SeatView
from tests.support.peers import table_socket
from tests.support.services import query


def seats(*kinds: str) -> list[dict[str, str]]:
    return [{"kind": "human"} if k == "human" else {"kind": "bot", "bot": k} for k in kinds]


def create(server: ServerProcess, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{server.url}/api/tables", json={"name": "Ada", **body}, timeout=10)


def refusal(answer: httpx.Response) -> tuple[int, str, str]:
    error = answer.json()["error"]
    return answer.status_code, error["code"], error["message"]


@pytest.fixture(scope="module")
def strict(module_database: Database) -> Iterator[ServerProcess]:
    db = module_database
    flags = ("--max-bot-time", "0.5", "--max-bot-threads", "1", "--max-bot-worlds", "500")
    with ServerProcess(db, tables_per_address=3, extra=(*flags, "--max-tables", "4")) as server:
        yield server
    assert "Traceback" not in server.output()


@pytest.mark.parametrize(
    ("bot", "flag"),
    [
        ("search:time=100000&worlds=1000000000", "--max-bot-time"),
        ("search:time=0.6&threads=1", "--max-bot-time"),
        ("search:time=0.5&threads=2", "--max-bot-threads"),
        ("search:time=0.1&threads=1&worlds=501", "--max-bot-worlds"),
        ("search:time=0.1&threads=1&worlds=100&tail=7", "--max-bot-exact"),
    ],
)
def test_a_bot_that_asks_too_much_is_refused_naming_the_limit(
    strict: ServerProcess, bot: str, flag: str
) -> None:
    answer = create(strict, {"seats": seats("human", bot, "random", "random")})
    status, code, message = refusal(answer)
    assert (status, code) == (422, "limit"), answer.text
    assert message.startswith("seat 2: ") and flag in message and "at most" in message


def test_bots_within_the_limits_and_the_table_bots_are_seated(strict: ServerProcess) -> None:
    bot = "search:time=0.5&threads=1&worlds=500"
    answer = create(strict, {"seats": seats("human", bot, "rule", "random")})
    assert answer.status_code == 201, answer.text
    answer = create(strict, {"seats": seats("human", "net", "random", "random")})
    assert answer.status_code == 201, answer.text
    for bot, why in [
        ("policy", "reads files"),
        ("net:file=/etc/passwd", "reads a file"),
        ("cmd:sleep 100", "external programs"),
        ("search:time=nan", "out of range"),
        ("search:time=inf", "out of range"),
        ("nobody", "no bot is called"),
    ]:
        status, code, message = refusal(create(strict, {"seats": seats("human", bot, "r", "r")}))
        assert (status, code) == (422, "invalid") and why in message, (bot, message)


def test_open_tables_are_capped_per_address_and_in_all(
    databases: Callable[[], Database],
) -> None:
    flags = ("--max-tables", "3")
    with ServerProcess(databases(), tables_per_address=2, extra=flags) as server:
        body = {"seats": seats("human", "random", "random", "random")}
        assert create(server, body).status_code == 201
        assert create(server, body).status_code == 201
        status, code, message = refusal(create(server, body))
        assert (status, code) == (429, "too_many_tables")
        assert "--tables-per-address" in message
    # In all: three open tables from a server that lets each address have many.
    with ServerProcess(databases(), tables_per_address=100, extra=flags) as server:
        body = {"seats": seats("human", "random", "random", "random")}
        for _ in range(3):
            assert create(server, body).status_code == 201
        status, code, _ = refusal(create(server, body))
        assert (status, code) == (503, "busy")


def event_count(server: ServerProcess, table: str) -> int:
    count: int = query(server.db, "SELECT COUNT(*) FROM events WHERE table_id = ?", (table,))[0][0]
    return count


def test_an_idle_table_is_closed_and_keeps_its_record(database: Database) -> None:
    db = database
    with ServerProcess(db, extra=("--idle-close", "1")) as server:
        claim = create(server, {"seats": seats("human", "human", "random", "random")}).json()
        table = claim["table"]
        deadline = time.monotonic() + 15
        while httpx.get(f"{server.url}/api/tables/{table}", timeout=10).json()["status"] != (
            "closed"
        ):
            assert time.monotonic() < deadline, "the idle table was not closed"
            time.sleep(0.1)
        lobby = httpx.get(f"{server.url}/api/tables", timeout=10).json()
        assert table not in [t["id"] for t in lobby["open"]]
        record = httpx.get(f"{server.url}/api/tables/{table}/record", timeout=10)
        assert record.status_code == 200
        assert replay(record.text).valid
        answer = httpx.post(
            f"{server.url}/api/tables/{table}/join", json={"name": "Bo"}, timeout=10
        )
        assert refusal(answer)[:2] == (409, "closed")
        with table_socket(server, table) as peer:
            peer.send(json.dumps({"v": 1, "type": "hello", "token": claim["token"]}))
            welcome = json.loads(peer.recv(timeout=10))
            assert welcome["table"]["status"] == "closed"
            peer.send(json.dumps({"v": 1, "type": "declare", "contract": "no-tricks"}))
            while (message := json.loads(peer.recv(timeout=10)))["type"] != "error":
                pass
            assert message["code"] == "closed"
        closed_events = event_count(server, table)
    # A restart leaves it closed: nothing is restored, nothing is added.
    with ServerProcess(db, extra=("--idle-close", "1")) as server:
        info = httpx.get(f"{server.url}/api/tables/{table}", timeout=10).json()
        assert info["status"] == "closed"
        assert event_count(server, table) == closed_events


@pytest.mark.slow
def test_a_table_nobody_watches_is_not_played_by_its_bots(database: Database) -> None:
    with ServerProcess(database, extra=("--idle-close", "0")) as server:
        claim = create(
            server, {"seats": seats("random", "random", "random", "random"), "seat": None}
        )
        table = claim.json()["table"]
        time.sleep(1.0)
        assert event_count(server, table) == 3  # the table, its start, the first deal
        with table_socket(server, table) as peer:
            peer.send(json.dumps({"v": 1, "type": "watch"}))
            deadline = time.monotonic() + 10
            while event_count(server, table) < 10:
                assert time.monotonic() < deadline
                time.sleep(0.05)


def watch(stack: ExitStack, server: ServerProcess, table: str) -> ClientConnection:
    peer = stack.enter_context(table_socket(server, table))
    peer.send(json.dumps({"v": 1, "type": "watch"}))
    return peer


@pytest.mark.slow
def test_abusive_tables_at_the_limits_leave_an_ordinary_tables_bots_quick(
    tmp_path: Path,
) -> None:
    """The default limits: one address opens as many tables as it may, each of four
    search bots asking for all a visitor may (2 s a move, 2 threads, 4,000 worlds), all
    watched, so all play at once on the server's four bot threads.  A person at another
    address then plays against three rule bots: each bot still answers within a few
    seconds, because the waiting move of the table that has thought least runs first.
    On SQLite alone: the order of the bot threads is the same whatever the log."""
    heavy = "search:time=2&threads=2&worlds=4000&tail=4"
    with (
        ServerProcess(tmp_path / "king.db", tables_per_address=8) as server,
        ExitStack() as stack,
    ):
        abusive = []
        while True:
            answer = create(server, {"seats": seats(heavy, heavy, heavy, heavy), "seat": None})
            if answer.status_code != 201:
                break
            abusive.append(answer.json()["table"])
            watch(stack, server, abusive[-1])
        assert refusal(answer)[:2] == (429, "too_many_tables") and len(abusive) == 8
        elsewhere = stack.enter_context(
            httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"), timeout=10)
        )
        claim = elsewhere.post(
            f"{server.url}/api/tables",
            json={"name": "Bo", "seats": seats("human", "rule", "rule", "rule"), "seed": 7},
        )
        assert claim.status_code == 201, claim.text
        time.sleep(3.0)  # the heavy tables fill every bot thread
        busy = [event_count(server, t) for t in abusive]
        person = stack.enter_context(table_socket(server, claim.json()["table"]))
        person.send(json.dumps({"v": 1, "type": "hello", "token": claim.json()["token"]}))
        waits: list[float] = []
        last = time.monotonic()
        moves = 0
        while moves < 8:
            message = json.loads(person.recv(timeout=60))
            if message["type"] != "state":
                continue
            now = time.monotonic()
            event = message["event"]
            if event and event["kind"] in ("declare", "play") and event["seat"] != 0:
                waits.append(now - last)
            last = now
            if message["view"]["to_act"] == 0:
                if message["declarations"]:
                    choice = next(d for d in message["declarations"] if d["allowed"])
                    action = {"type": "declare", "contract": choice["contract"]}
                    if choice["trump"]:
                        action["trump"] = choice["trump"]
                else:
                    action = {"type": "play", "card": message["legal"][0]}
                person.send(json.dumps({"v": 1, **action}))
                moves += 1
                last = time.monotonic()
        after = [event_count(server, t) for t in abusive]
        assert sum(after) > sum(busy) + 8, (busy, after)  # they kept the threads busy
        assert len(waits) >= 8
        assert max(waits) < 5.0, f"a rule bot waited {max(waits):.1f} s: {waits}"


class Recording(RandomBot):
    """A bot that thinks for a while (blocking its thread, as a search does) and notes
    when its turn in the threads came."""

    def __init__(self, label: str, order: list[str], seconds: float) -> None:
        super().__init__(0)
        self.label, self.order, self.seconds = label, order, seconds

    def act(self, view: SeatView) -> Declaration | Card:
        self.order.append(self.label)
        time.sleep(self.seconds)
        return super().act(view)


def test_the_bot_threads_serve_the_table_that_has_thought_least_first() -> None:
    """One thread, five moves of a slow table waiting, then one of a quick table: the
    quick table's move runs next, not after the slow table's queue."""
    game = Game(seed=1)
    view = game.view(game.to_act or 0)
    order: list[str] = []
    runner = BotRunner(1)

    async def main() -> None:
        slow = [
            asyncio.ensure_future(runner.choose(Recording(f"slow{n}", order, 0.2), view, "A"))
            for n in range(5)
        ]
        await asyncio.sleep(0.05)  # slow0 is thinking; slow1-4 wait
        quick = asyncio.ensure_future(runner.choose(Recording("quick", order, 0), view, "B"))
        await asyncio.gather(*slow, quick)

    try:
        asyncio.run(main())
    finally:
        runner.close()
    assert order == ["slow0", "quick", "slow1", "slow2", "slow3", "slow4"]
    assert runner.used("A") >= 1.0 > runner.used("B")
