"""Load on one server: 100 tables played at once, every seat a random bot on its own
WebSocket (400 connections), against a real uvicorn on 127.0.0.1 with a real SQLite
event log.

Reported: moves per second over all tables, and the round-trip time of a move (from
sending it to receiving the state that shows it: the server checks it, appends it to
SQLite, and tells all four seats), median and 99th percentile.  It stops by itself after
``seconds`` of play (set-up and shut-down are not counted).
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from .server_process import ServerProcess

TABLES = 100


class Stats:
    """Round-trip times of the moves made, and refusals (there should be none)."""

    def __init__(self) -> None:
        self.rtts: list[float] = []
        self.errors = 0


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        data: dict[str, Any] = json.load(answer)
        return data


def claim_tables(urls: list[str], count: int) -> list[tuple[str, list[str]]]:
    """Create ``count`` tables of four people's seats and claim every seat (table n at
    ``urls[n % len(urls)]``, each seat at the next)."""
    tables = []
    for number in range(count):
        url = urls[number % len(urls)]
        claim = _post(
            f"{url}/api/tables",
            {"seats": [{"kind": "human"}] * 4, "seat": 0, "name": "load 0", "seed": number},
        )
        tokens = [claim["token"]]
        for seat in (1, 2, 3):
            at = urls[(number + seat) % len(urls)]
            joined = _post(f"{at}/api/tables/{claim['table']}/join", {"name": f"load {seat}"})
            tokens.append(joined["token"])
        tables.append((claim["table"], tokens))
    return tables


async def _seat(
    url: str,
    token: str,
    seed: int,
    stats: Stats,
    connected: list[int],
    go: asyncio.Event,
    stop: list[float],
) -> None:
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    async with connect(url, max_size=2**22, open_timeout=60, ping_interval=None) as socket:
        await socket.send(json.dumps({"v": 1, "type": "hello", "token": token}))
        connected[0] += 1
        await go.wait()
        seat: int | None = None
        sent: float | None = None
        latest: dict[str, Any] | None = None
        while True:
            left = stop[0] - loop.time()
            if left <= 0:
                return
            try:
                message = json.loads(await asyncio.wait_for(socket.recv(), left))
            except TimeoutError:
                return
            kind = message["type"]
            if kind == "welcome":
                seat = message["seat"]
                continue
            if kind == "error":
                stats.errors += 1
                sent = None
            elif kind == "state":
                latest = message
                event = message["event"]
                if sent is not None and event["seat"] == seat and event["kind"] != "resume":
                    stats.rtts.append(loop.time() - sent)
                    sent = None
            if latest is None or sent is not None or latest["view"]["to_act"] != seat:
                continue
            if latest["declarations"]:
                choice = rng.choice([d for d in latest["declarations"] if d["allowed"]])
                move = {"type": "declare", "contract": choice["contract"], "trump": choice["trump"]}
            else:
                move = {"type": "play", "card": rng.choice(latest["legal"])}
            sent = loop.time()
            await socket.send(json.dumps({"v": 1, **move}))


async def play_tables(
    ws_urls: list[str], tables: list[tuple[str, list[str]]], seconds: float
) -> Stats:
    """Play every seat for ``seconds``; seat n connects to ``ws_urls[n % len(ws_urls)]``
    (the servers, when several share the tables)."""
    stats = Stats()
    connected = [0]
    go = asyncio.Event()
    loop = asyncio.get_running_loop()
    stop = [loop.time() + 3600.0]
    tasks = [
        asyncio.create_task(
            _seat(
                f"{ws_urls[(i * 4 + s) % len(ws_urls)]}/api/tables/{table}/ws",
                token,
                i * 4 + s,
                stats,
                connected,
                go,
                stop,
            )
        )
        for i, (table, tokens) in enumerate(tables)
        for s, token in enumerate(tokens)
    ]
    deadline = loop.time() + 120
    while connected[0] < len(tasks):
        failed = [t for t in tasks if t.done() and t.exception() is not None]
        if failed or loop.time() > deadline:
            for task in tasks:
                task.cancel()
            raise RuntimeError(f"only {connected[0]} of {len(tasks)} seats connected")
        await asyncio.sleep(0.02)
    stop[0] = loop.time() + seconds
    go.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return stats


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run(seconds: float = 2.0, tables: int = TABLES) -> dict[str, float]:
    """Play ``tables`` tables at once for ``seconds``; return the figures."""
    with tempfile.TemporaryDirectory(prefix="king-load-") as folder:
        server = ServerProcess(Path(folder) / "load.db", bot_pause=0.0)
        server.start()
        try:
            claimed = claim_tables([server.url], tables)
            stats = asyncio.run(play_tables([server.ws_url], claimed, seconds))
        finally:
            server.stop()
    moves = len(stats.rtts)
    return {
        "load_tables": tables,
        "load_moves": moves,
        "load_moves_per_s": round(moves / seconds, 1),
        "load_rtt_median_ms": round(percentile(stats.rtts, 0.5) * 1000, 2),
        "load_rtt_p99_ms": round(percentile(stats.rtts, 0.99) * 1000, 2),
        "load_errors": stats.errors,
    }


if __name__ == "__main__":
    print(json.dumps(run()))
