"""The web protocol is unchanged to clients: a session recorded from the server before
the one table core (#53, at 80c28d4; ``tests/support/protocol_session.py``), every kind
of client message good and bad from four people and a spectator, is told again message
for message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.server_process import ServerProcess
from tests.support import ROOT
from tests.support.protocol_session import record

RECORDED = ROOT / "tests" / "data" / "protocol_session.json"


@pytest.mark.slow
def test_a_recorded_session_of_every_message_kind_is_told_again_unchanged(tmp_path: Path) -> None:
    kept = json.loads(RECORDED.read_text(encoding="utf-8"))
    with ServerProcess(tmp_path / "king.db") as server:
        told = record(server)
    kinds = {m["type"] for messages in kept.values() for m in messages}
    assert kinds >= {"welcome", "state", "table", "error", "pong", "pace", "reaction", "hint"}
    assert list(told) == list(kept)
    for connection, messages in kept.items():
        assert len(told[connection]) == len(messages), connection
        for number, (now, then) in enumerate(zip(told[connection], messages, strict=True)):
            assert now == then, f"{connection}: message {number} differs"
