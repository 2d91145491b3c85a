"""A database made by the previous release (0.1.0, before accounts; made by
scripts/release_fixture.py and kept in tests/data) upgrades in place: every table is
still there with the same events, the finished games download and count for the bots'
statistics, the game in progress plays on to its end with its old seat token, and the
waiting table still seats a player."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from benchmarks.backends import PostgresServer, postgres_programs
from benchmarks.server_process import ServerProcess
from king.server.store.event_log import Database
from king.server.store.postgres import MIGRATIONS as PG_MIGRATIONS
from king.server.store.sqlite import MIGRATIONS as SQLITE_MIGRATIONS
from tests.support import DATA
from tests.support.peers import Peer, play_to_the_end
from tests.support.services import query


def events_of(database: Database) -> list[tuple[Any, ...]]:
    return query(database, "SELECT table_id, number, kind, data FROM events ORDER BY 1, 2")


def check_upgrade(database: Database, seats: dict[str, Any]) -> None:
    before = events_of(database)
    with ServerProcess(database, bot_pause=0, away_after=3600) as server:
        status = {
            name: httpx.get(f"{server.url}/api/tables/{seat['table']}").json()["status"]
            for name, seat in seats.items()
        }
        assert status == {
            "finished_person": "over",
            "finished_bots": "over",
            "in_progress": "playing",
            "waiting": "waiting",
        }
        # Nothing of the old log changed (new events only come after it).
        assert set(before) <= set(events_of(database))
        for name in ("finished_person", "finished_bots"):
            record = httpx.get(f"{server.url}/api/tables/{seats[name]['table']}/record")
            assert record.status_code == 200 and len(record.json()["deals"]) == 20
        # The old finished games now count for the bots who played them.
        lobby = httpx.get(f"{server.url}/api/tables").json()
        assert {t["id"] for t in lobby["finished"]} >= {
            seats["finished_person"]["table"],
            seats["finished_bots"]["table"],
        }
        stats = httpx.get(f"{server.url}/api/players/bot:random/stats").json()
        assert stats["games"] == 7  # 3 seats + 4 seats
        # The game in progress plays on with the token its player kept.
        seat = seats["in_progress"]
        peer = Peer(server, seat["table"])
        peer.send({"type": "hello", "token": seat["token"]})
        assert peer.next()["type"] == "welcome"
        play_to_the_end(peer)
        peer.close()
        record = httpx.get(f"{server.url}/api/tables/{seat['table']}/record").json()
        assert len(record["deals"]) == 20
        # The waiting table seats a new (guest) player at its free seat and starts.
        joined = httpx.post(
            f"{server.url}/api/tables/{seats['waiting']['table']}/join", json={"name": "Late"}
        )
        assert joined.status_code == 200 and joined.json()["seat"] == 1
        info = httpx.get(f"{server.url}/api/tables/{seats['waiting']['table']}").json()
        assert info["status"] == "playing"
    after = events_of(database)
    assert set(before) <= set(after) and len(after) > len(before)


def test_a_sqlite_file_of_release_0_1_0_upgrades_and_plays_on(tmp_path: Path) -> None:
    database = tmp_path / "king.db"
    shutil.copyfile(DATA / "release-0.1.0.db", database)
    assert query(database, "PRAGMA user_version") == [(3,)]
    check_upgrade(database, json.loads((DATA / "release-0.1.0.seats.json").read_text()))
    assert query(database, "PRAGMA user_version") == [(len(SQLITE_MIGRATIONS),)]


@pytest.mark.slow
def test_a_postgres_database_of_release_0_1_0_upgrades_and_plays_on(
    postgres_server: PostgresServer,
) -> None:
    database = postgres_server.create_database()
    loaded = subprocess.run(
        [
            str(postgres_programs() / "psql"),
            "-q",
            "-v",
            "ON_ERROR_STOP=1",
            "-d",
            database,
            "-f",
            str(DATA / "release-0.1.0.pg.sql"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert loaded.returncode == 0, loaded.stderr
    assert query(database, "SELECT max(version) FROM king_schema") == [(2,)]
    check_upgrade(database, json.loads((DATA / "release-0.1.0.pg.seats.json").read_text()))
    assert query(database, "SELECT max(version) FROM king_schema") == [(len(PG_MIGRATIONS),)]
