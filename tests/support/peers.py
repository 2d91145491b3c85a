"""A client of the server's WebSocket protocol (one connection to a table) and the moves it
makes."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from benchmarks.server_process import ServerProcess
from tests.support.services import query

CARD = re.compile(r"\b[2-9TJQKA][SHDC]\b")


Message = dict[str, Any]


def open_socket(url: str) -> ClientConnection:
    """A WebSocket that keeps every message the server sends, read or not: a test that
    reads only some of them neither slows the server down nor waits ten seconds for the
    closing handshake behind a full buffer (websockets' ``max_queue``)."""
    return connect(url, max_size=None, max_queue=None, open_timeout=10)


def table_socket(server: ServerProcess, table: str) -> ClientConnection:
    """:func:`open_socket` to a table of ``server``."""
    return open_socket(f"{server.ws_url}/api/tables/{table}/ws")


class Peer:
    """One WebSocket to a table, keeping every message it receives."""

    def __init__(self, server: ServerProcess, table: str) -> None:
        self._stack = ExitStack()
        self.socket: ClientConnection = self._stack.enter_context(table_socket(server, table))
        self.received: list[Message] = []
        self.texts: list[str] = []

    def send(self, message: Message | str | bytes) -> None:
        if isinstance(message, dict):
            message = json.dumps({"v": 1, **message})
        self.socket.send(message)

    def next(self, timeout: float = 10) -> Message:
        text = self.socket.recv(timeout=timeout)
        assert isinstance(text, str)
        self.texts.append(text)
        message: Message = json.loads(text)
        self.received.append(message)
        return message

    def until(self, check: Callable[[Message], bool], timeout: float = 20) -> Message:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no matching message; last: {self.received[-3:]}"
            message = self.next(left)
            if check(message):
                return message

    @property
    def last(self) -> Message:
        """The latest state received."""
        return next(m for m in reversed(self.received) if m["type"] == "state")

    def settle(self, idle: float = 0.3) -> Message:
        """Read until nothing more comes for ``idle`` seconds; the latest state."""
        while True:
            try:
                self.next(idle)
            except TimeoutError:
                return self.last

    def error(self) -> Message:
        return self.until(lambda m: m["type"] == "error")

    def state(self) -> Message:
        return self.until(lambda m: m["type"] == "state")

    def close(self) -> None:
        self._stack.close()


def is_state(message: Message) -> bool:
    return message["type"] == "state"


def create(server: ServerProcess, seats: list[str], **extra: Any) -> dict[str, Any]:
    body = {
        "seats": [{"kind": "human"} if s == "human" else {"kind": "bot", "bot": s} for s in seats],
        "name": "Ada",
        **extra,
    }
    answer = httpx.post(f"{server.url}/api/tables", json=body, timeout=10)
    assert answer.status_code == 201, answer.text
    claim: dict[str, Any] = answer.json()
    return claim


def join(server: ServerProcess, table: str, name: str, seat: int | None = None) -> str:
    answer = httpx.post(
        f"{server.url}/api/tables/{table}/join", json={"name": name, "seat": seat}, timeout=10
    )
    assert answer.status_code == 200, answer.text
    token: str = answer.json()["token"]
    return token


def event_count(server: ServerProcess, table: str) -> int:
    count: int = query(server.db, "SELECT COUNT(*) FROM events WHERE table_id = ?", (table,))[0][0]
    return count


def player(server: ServerProcess, table: str, token: str) -> tuple[Peer, Message]:
    peer = Peer(server, table)
    peer.send({"type": "hello", "token": token})
    welcome = peer.next()
    assert welcome["type"] == "welcome", welcome
    return peer, peer.state()


def act(peer: Peer, state: Message) -> None:
    """Make the first legal move of ``state``."""
    if state["declarations"]:
        choice = next(d for d in state["declarations"] if d["allowed"])
        peer.send({"type": "declare", "contract": choice["contract"], "trump": choice["trump"]})
    else:
        peer.send({"type": "play", "card": state["legal"][0]})


def play_to_the_end(peer: Peer) -> None:
    """Make the seat's first legal move whenever it is to act, until the game is over."""
    while True:
        state = peer.state()
        if state["view"]["phase"] == "over":
            return
        if state["view"]["to_act"] == state["view"]["seat"]:
            act(peer, state)


def already_played(state: Message) -> set[str]:
    """The cards a state shows as played: on connecting, the trick and tricks so far;
    after that, the card its event announces."""
    event = state["event"]
    if event["kind"] == "play":
        return {event["card"]}
    if event["kind"] == "resume":
        view = state["view"]
        cards = {c["card"] for c in view["trick"]}
        return cards | {card for trick in view["tricks"] for card in trick["cards"]}
    return set()


def cards_in(text: str) -> set[str]:
    return set(CARD.findall(text))
