"""Databases made by a release of the server (tests/data/release-*), for the migration
tests: a finished game with a person, a finished game of bots, a game in progress and a
table waiting for a player.  Run with the release checked out:

    python scripts/release_fixture.py tests/data/release-X.db tests/data/release-X.seats.json
"""

import json
import random
import sys
import time
from pathlib import Path

import httpx
from websockets.sync.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout: benchmarks/

from benchmarks.server_process import ServerProcess


def create(url, seats, name="Ada", seat=0, rules="classic", seed=None):
    body = {
        "seats": [{"kind": "human"} if s == "human" else {"kind": "bot", "bot": s} for s in seats],
        "name": name,
        "seat": seat,
        "rules": rules,
    }
    if seed is not None:
        body["seed"] = seed
    r = httpx.post(url + "/api/tables", json=body, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def play(ws_url, table, token, moves, rng):
    """Make up to ``moves`` legal moves at the seat (-1: to the end)."""
    with connect(f"{ws_url}/api/tables/{table}/ws", max_size=None) as ws:
        ws.send(json.dumps({"v": 1, "type": "hello", "token": token}))
        made = 0
        while moves < 0 or made < moves:
            msg = json.loads(ws.recv(timeout=30))
            if msg["type"] != "state":
                continue
            if msg["view"]["phase"] == "over":
                return made
            if msg["view"].get("to_act") != msg["view"]["seat"]:
                continue
            if msg["declarations"]:
                d = rng.choice([d for d in msg["declarations"] if d["allowed"]])
                ws.send(
                    json.dumps(
                        {"v": 1, "type": "declare", "contract": d["contract"], "trump": d["trump"]}
                    )
                )
            elif msg["legal"]:
                ws.send(json.dumps({"v": 1, "type": "play", "card": rng.choice(msg["legal"])}))
            else:
                continue
            made += 1
        time.sleep(0.5)
    return made


def wait_over(url, table):
    for _ in range(600):
        if httpx.get(f"{url}/api/tables/{table}").json()["status"] == "over":
            return
        time.sleep(0.2)
    raise SystemExit("not over")


def main(db, out):
    rng = random.Random(5)
    seats = {}
    with ServerProcess(db, bot_pause=0, away_after=3600) as s:
        a = create(s.url, ["human", "random", "random", "random"], name="Ada", seed=11)
        play(s.ws_url, a["table"], a["token"], -1, rng)
        wait_over(s.url, a["table"])
        seats["finished_person"] = a
        b = create(s.url, ["random"] * 4, name="Host", seat=None, rules="pagat", seed=12)
        with connect(f"{s.ws_url}/api/tables/{b['table']}/ws", max_size=None) as ws:
            ws.send(json.dumps({"v": 1, "type": "watch"}))
            wait_over(s.url, b["table"])
        seats["finished_bots"] = b
        c = create(s.url, ["human", "rule", "random", "random"], name="Bora", seed=13)
        play(s.ws_url, c["table"], c["token"], 30, rng)
        seats["in_progress"] = c
        d = create(s.url, ["human", "human", "random", "random"], name="Cem", seed=14)
        seats["waiting"] = d
        print(
            json.dumps(
                {
                    k: httpx.get(f"{s.url}/api/tables/{v['table']}").json()["status"]
                    for k, v in seats.items()
                }
            )
        )
    Path(out).write_text(
        json.dumps(
            {
                k: {"table": v["table"], "seat": v["seat"], "token": v["token"]}
                for k, v in seats.items()
            },
            indent=1,
        )
        + "\n"
    )


if __name__ == "__main__":
    main(sys.argv[1] if "://" in sys.argv[1] else Path(sys.argv[1]), sys.argv[2])
