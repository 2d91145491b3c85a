"""A recorded session of the table protocol: every kind of client message, good and bad,
sent to a real server by four seated people and a spectator, and everything each of
them is told, in order, made comparable (ids, tokens, times and the engine's numbers
left out).  ``tests/data/protocol_session.json`` holds the session as the server spoke
it before the one table core (#53); ``tests/table/test_recorded_session.py`` plays it
again and compares.

    python -m tests.support.protocol_session OUT.json   # record it anew
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.server_process import ServerProcess
from tests.support.peers import Message, Peer, create, join

#: The fields whose values differ from run to run, and what stands for them.
VARYING = {
    "id": "ID",
    "created": "TIME",
    "token": "TOKEN",
    "next": "ID",
    "stand_in_in": "SECONDS",
}
#: The engine's evaluation in a hint: its shape is kept, not its numbers.
HINT_NUMBERS = ("best", "choices")


def comparable(value: Any) -> Any:
    """A message with what varies between runs replaced by a placeholder."""
    if isinstance(value, list):
        return [comparable(item) for item in value]
    if not isinstance(value, dict):
        return value
    if value.get("type") == "hint":
        return {k: ("ENGINE" if k in HINT_NUMBERS else v) for k, v in value.items()}
    return {
        k: (VARYING[k] if k in VARYING and v is not None else comparable(v))
        for k, v in value.items()
    }


def _first_move(state: Message) -> dict[str, Any]:
    if state["declarations"]:
        choice = next(d for d in state["declarations"] if d["allowed"])
        return {"type": "declare", "contract": choice["contract"], "trump": choice["trump"]}
    return {"type": "play", "card": state["legal"][0]}


def _until_seq(peer: Peer, seq: int) -> Message:
    return peer.until(lambda m: m["type"] == "state" and m["seq"] >= seq)


def _exchange(peer: Peer, message: dict[str, Any] | str) -> Message:
    """Send one message that only this connection is answered, and its answer."""
    peer.send(message)
    return peer.next()


def record(server: ServerProcess) -> dict[str, list[Any]]:
    """Play the session at ``server``; what each connection was told, made comparable."""
    claim = create(server, ["human"] * 4, seed=53, hints=True)
    table = claim["table"]
    others = [join(server, table, name, n) for n, name in [(1, "Bo"), (2, "Cy"), (3, "Di")]]
    tokens = [claim["token"], *others]
    people = [Peer(server, table) for _ in range(4)]
    watcher = Peer(server, table)
    bad = [
        '{"v":1,"type":"play"',
        '{"v":2,"type":"ping"}',
        '{"v":1,"type":"fly"}',
        '{"v":1,"type":"play","card":"AS","more":1}',
        '{"v":1,"type":"declare","trump":"Q"}',
        '{"v":1,"type":"speed","speed":"warp"}',
        '{"v":1,"type":"play","card":"AS"}',
    ]
    for text in bad:  # before anyone has joined
        _exchange(people[0], text)
    _exchange(people[0], {"type": "ping"})
    for n, (peer, token) in enumerate(zip(people, tokens, strict=True)):
        peer.send({"type": "hello", "token": token})
        peer.until(lambda m: m["type"] == "state")
        for earlier in people[:n]:
            earlier.until(lambda m: m["type"] == "table")
    watcher.send({"type": "watch"})
    watcher.until(lambda m: m["type"] == "state")
    for peer in people:
        peer.until(lambda m: m["type"] == "table" and m["table"]["spectators"] == 1)
    _exchange(watcher, {"type": "play", "card": "AS"})
    _exchange(people[0], {"type": "hello", "token": tokens[0]})
    to_act = people[0].last["view"]["to_act"]
    _exchange(people[(to_act + 1) % 4], {"type": "hint"})  # not this seat's turn
    people[2].send({"type": "speed", "speed": "slow"})
    for peer in (*people, watcher):
        peer.until(lambda m: m["type"] == "pace")
    people[3].send({"type": "react", "phrase": "nice"})
    for peer in (*people, watcher):
        peer.until(lambda m: m["type"] == "reaction")
    everyone = (*people, watcher)
    for moves in range(60):  # past the first deal into the second
        state = people[0].last
        seat = state["view"]["to_act"]
        if seat is None:
            break
        mover = people[seat]
        if not state["view"]["trick"]:
            mover.send({"type": "hint"})
            mover.until(lambda m: m["type"] == "hint", timeout=120)
        if moves % 7 == 0:  # a card out of turn, refused
            wrong = people[(seat + 1) % 4]
            _exchange(wrong, {"type": "play", "card": wrong.last["view"]["hand"][0]})
        seq = mover.last["seq"] + 1
        mover.send(_first_move(mover.last))
        for peer in everyone:
            _until_seq(peer, seq)
    for peer in (*people, watcher):
        peer.close()
    names = ["seat0", "seat1", "seat2", "seat3", "spectator"]
    told = zip(names, everyone, strict=True)
    return {name: comparable(peer.received) for name, peer in told}


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, ServerProcess(Path(folder) / "king.db") as server:
        session = record(server)
    Path(sys.argv[1]).write_text(json.dumps(session, sort_keys=True, separators=(",", ":")) + "\n")
    print(f"{sys.argv[1]}: {sum(len(v) for v in session.values())} messages")


if __name__ == "__main__":
    main()
