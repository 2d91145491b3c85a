"""The event log and the table folded from it, without a network: every action is
logged before it is applied, a table rebuilt from its log is the same table, and a bad
log is refused rather than half-loaded."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from king.bots.random_bot import RandomBot
from king.bots.registry import register, scoped_registry
from king.cards import Card
from king.game import Phase
from king.record import replay
from king.rules import Declaration, Rules
from king.server.config import ServerSettings
from king.server.engine.players import BotRunner
from king.server.protocol import CreateTableRequest, SeatRequest
from king.server.store.database import open_store
from king.server.store.event_log import Database, EventStore, StoreError, StoreLockedError
from king.server.tables.registry import Registry
from king.server.tables.table import Table
from king.table.rules import RefusedError
from king.view import SeatView
from tests.support.games import random_action
from tests.support.services import query


class Watcher:
    """A spectator's connection that keeps what it is told (bots play while one is at
    the table)."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def send(self, text: str) -> None:
        self.texts.append(text)

    def drop(self) -> None:
        self.texts.append("dropped")


def settings(path: Database) -> ServerSettings:
    return ServerSettings(db=path, bot_pause=0, away_after=60)


def people_table(store: EventStore, path: Database, seed: int) -> tuple[Table, list[str]]:
    """A table of four people, every seat claimed."""
    table = Table.create(
        "T" + str(seed).rjust(5, "0"),
        rules=Rules.preset("pagat"),
        seed=seed,
        seats=[("human", None)] * 4,
        store=store,
        settings=settings(path),
        runner=BotRunner(1),
    )
    tokens = [table.claim(f"P{n}", n)[1] for n in range(4)]
    return table, tokens


def random_moves(table: Table, count: int, rng: random.Random) -> None:
    for _ in range(count):
        seat = table.game.to_act
        if seat is None:
            return
        table.act(seat, random_action(table.game, rng))


def restored(store: EventStore, path: Database, table: Table) -> Table:
    return Table.restore(
        table.id, store.events(table.id), store=store, settings=settings(path), runner=BotRunner(1)
    )


@pytest.mark.parametrize("moves", [0, 1, 14, 53, 200, 1100])
def test_a_table_rebuilt_from_its_log_is_the_same(database: Database, moves: int) -> None:
    path = database
    store = open_store(path)
    table, tokens = people_table(store, path, seed=moves)
    random_moves(table, moves, random.Random(moves))
    again = restored(store, path, table)
    assert again.record() == table.record()
    assert again.seq == table.seq
    assert again.status == table.status
    assert [again.authenticate(t) for t in tokens] == [0, 1, 2, 3]
    assert again.authenticate("nope") is None
    if table.game.is_over:
        assert replay(table.record()).complete
    store.close()


def test_refused_actions_write_nothing(database: Database) -> None:
    path = database
    store = open_store(path)
    table, _ = people_table(store, path, seed=3)
    before = len(store.events(table.id))
    declarer = table.game.to_act
    assert declarer is not None
    with pytest.raises(RefusedError) as wrong_turn:
        table.act((declarer + 1) % 4, Declaration.parse("no-king"))
    assert wrong_turn.value.code == "not_your_turn"
    with pytest.raises(RefusedError) as not_yet:
        table.act(declarer, Card.parse("AS"))
    assert not_yet.value.code == "not_playing"
    table.act(declarer, Declaration.parse("no-hearts"))
    hand = table.game.hand(declarer)
    hearts = [c for c in hand if c.suit.letter == "H"]
    others = [c for c in hand if c.suit.letter != "H"]
    if hearts and others:
        with pytest.raises(RefusedError) as illegal:
            table.act(declarer, hearts[0])
        assert illegal.value.code == "illegal"
        assert "hearts may not be led" in illegal.value.message
    assert len(store.events(table.id)) == before + 1
    store.close()


def test_a_crash_between_the_last_card_and_the_next_deal_is_mended(database: Database) -> None:
    path = database
    store = open_store(path)
    table, _ = people_table(store, path, seed=11)
    rng = random.Random(1)
    while table.game.deal_number == 0:
        random_moves(table, 1, rng)
    events = store.events(table.id)
    assert events[-1].kind == "deal"
    hands = events[-1].data["hands"]
    store.close()
    # as if the server died before logging the deal
    query(path, "DELETE FROM events WHERE number = ?", (events[-1].number,))
    store = open_store(path)
    again = Table.restore(
        table.id, store.events(table.id), store=store, settings=settings(path), runner=BotRunner(1)
    )
    assert again.game.phase is Phase.DECLARING
    assert store.events(table.id)[-1].data["hands"] == hands
    store.close()


def test_a_log_that_does_not_replay_is_refused_and_left_alone(database: Database) -> None:
    path = database
    store = open_store(path)
    table, _ = people_table(store, path, seed=5)
    random_moves(table, 3, random.Random(2))
    good = table.id
    broken, _ = people_table(store, path, seed=6)
    random_moves(broken, 3, random.Random(2))
    store.close()
    query(
        path,
        "UPDATE events SET data = ? WHERE table_id = ? AND kind = 'play'",
        ('{"seat": 0, "card": "ZZ"}', broken.id),
    )
    store = open_store(path)
    with pytest.raises(StoreError, match="does not replay"):
        Table.restore(
            broken.id,
            store.events(broken.id),
            store=store,
            settings=settings(path),
            runner=BotRunner(1),
        )
    registry = Registry(store, settings(path))
    assert registry.restore() == 1
    assert registry.get(good) is not None
    registry.close()
    store.close()


def test_one_process_owns_a_database(database: Database, tmp_path: Path) -> None:
    path = tmp_path / "deep" / "folder" / "king.db" if isinstance(database, Path) else database
    store = open_store(path)
    with pytest.raises(StoreLockedError, match="another king server"):
        open_store(path)
    store.close()
    open_store(path).close()  # released on close
    if isinstance(path, Path):
        assert query(path, "PRAGMA journal_mode") == [("wal",)]


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "king.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a usable king database"):
        open_store(path)


def test_bots_fill_their_seats_and_finish_a_game_off_the_loop(database: Database) -> None:
    path = database

    async def main() -> Table:
        store = open_store(path)
        registry = Registry(store, settings(path))
        request = CreateTableRequest(
            seats=[SeatRequest(kind="bot", bot=b) for b in ("random", "rule", "random", "rule")],
            seat=None,
            seed=4,
        )
        table, seat, token = registry.create(request)
        assert seat is None and token is None
        table.attach(Watcher(), None)
        for _ in range(2000):
            if table.status == "over":
                break
            await asyncio.sleep(0.01)
        registry.close()
        store.close()
        return table

    table = asyncio.run(main())
    assert table.status == "over"
    report = replay(table.record())
    assert report.complete
    assert report.players == ("Random bot 0", "Medium bot 1", "Random bot 2", "Medium bot 3")


class SlowBot(RandomBot):
    """A bot that thinks for a long time (blocking its thread, as a search would)."""

    def act(self, view: SeatView) -> Declaration | Card:
        time.sleep(0.6)
        return super().act(view)


@pytest.fixture
def slow_bot() -> Iterator[str]:
    """A bot registered for one test under the name it yields."""
    with scoped_registry():
        register("slow", "thinks for 0.6 s, then plays at random", 0)(
            lambda seed, options: SlowBot(seed)
        )
        yield "slow"


def test_a_thinking_bot_never_stalls_the_event_loop(database: Database, slow_bot: str) -> None:
    path = database

    async def main() -> tuple[int, int]:
        store = open_store(path)
        registry = Registry(store, settings(path))
        bots = [SeatRequest(kind="bot", bot=slow_bot)] * 4
        slow, _, _ = registry.create(CreateTableRequest(seats=bots, seat=None, seed=1))
        slow.attach(Watcher(), None)
        await asyncio.sleep(0.05)  # the slow bot is now thinking
        person, _, _ = registry.create(
            CreateTableRequest(seats=[SeatRequest(kind="human")] * 4, seat=None, seed=2)
        )
        for n in range(4):
            person.claim(f"P{n}", n)
        for move in range(20):  # the person's table plays on while the bot thinks
            await asyncio.sleep(0.01)  # the loop runs: a bot blocking it would move now
            random_moves(person, 1, random.Random(move))
        moved = person.seq
        thinking = slow.seq
        registry.close()
        store.close()
        return moved, thinking

    # Twenty moves at the person's table, each after giving the loop a turn, and the
    # slow table has still not moved: its bot thinks off the loop.  (How quickly the
    # loop answers under load is measured by benchmarks/load.py, not asserted here.)
    moved, slow_seq = asyncio.run(main())
    assert moved >= 20
    assert slow_seq <= 4
