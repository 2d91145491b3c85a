"""Every place that reads JSON from outside, fed documents of any shape: each answers
with its ordinary clean error (a :class:`RecordError`, exit status 2, an ``error``
message, a 4xx), never a traceback, and changes nothing: no table, event log or file.

The entry points: the record loader (``king replay``), the saved game (``king play
--resume``), the table WebSocket, the HTTP bodies, the external-bot protocol on both
sides, and policy files."""

from __future__ import annotations

import base64
import io
import json
import os
import socket
import struct
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.sync.client import ClientConnection

from benchmarks.server_process import ServerProcess
from king.bots import BotError, BotSpecError, make_bot
from king.bots.external.bot import ExternalBot
from king.env import LinearPolicy, PolicyBot, PolicyFileError, load_policy
from king.env.policies.host import HostMessageError, serve
from king.game import Game
from king.jsontext import JSONTextError, loads
from king.record import RecordError, ReplayReport, dump, replay
from king.server.store.event_log import Database
from king.tui.save import PlayError, SavedGame, read_saved, record_of
from tests.support.cli import king_here
from tests.support.games import EXAMPLES
from tests.support.hostile import documents
from tests.support.peers import table_socket
from tests.support.services import query

FEW = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
GAME = json.loads((EXAMPLES / "game-classic.json").read_text())
SHORT = json.loads(dump(Game(seed=5), ["Ada", "Bo", "Cy", "Di"]))
SAVED = record_of(Game(seed=5), ["You", "Left (rule)", "Top (rule)", "Right (rule)"], 0,
                  ("rule", "rule", "rule"), "en")  # fmt: skip


def as_bytes(document: str | bytes) -> bytes:
    return document.encode("utf-8") if isinstance(document, str) else document


# -- the strict reader itself --------------------------------------------------------


@FEW
@given(documents(GAME, {"v": 1, "type": "play", "card": "AS"}))
def test_the_strict_reader_answers_value_or_one_error(document: str | bytes) -> None:
    try:
        loads(document)
    except JSONTextError as error:
        assert str(error) and "\n" not in str(error)
        assert len(str(error)) < 300


def test_the_strict_reader_refuses_what_plain_json_lets_through() -> None:
    for text, why in [
        ("[" * 10_000 + "]" * 10_000, "nested 10000 levels"),
        ('{"a":' * 5000 + "1" + "}" * 5000, "nested 5000 levels"),
        ('{"seed": NaN}', "NaN"),
        ('{"seed": -Infinity}', "-Infinity"),
        ("9" * 5000, "5000 digits"),
        ('{"v": 1, "v": 2}', "appears twice"),
        ('["\\ud800"]', "unpaired surrogate"),
    ]:
        with pytest.raises(JSONTextError, match=why):
            loads(text)
    with pytest.raises(JSONTextError, match="not UTF-8: byte 0xff at offset 2"):
        loads(b'["\xff"]')
    assert loads("\ufeff[1]") == [1]
    assert loads('"\\ud83d\\ude00"') == "😀"  # a surrogate pair is a character
    assert loads("[" * 32 + "]" * 32) == [
        [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]
    ]


# -- records and saved games -----------------------------------------------------------


@FEW
@given(documents(GAME, SHORT, {"format": "king-record/1", "deals": []}))
def test_the_record_loader_reports_or_refuses(document: str | bytes) -> None:
    try:
        report = replay(document)
    except RecordError as error:
        assert str(error) and "\n" not in str(error) and len(str(error)) < 400
        return
    assert isinstance(report, ReplayReport)
    if report.fault is not None:
        assert len(str(report.fault)) < 400
        json.dumps(report.to_json())  # what king replay --json prints


@FEW
@given(documents(SAVED, SHORT))
def test_a_saved_game_is_resumed_or_refused_and_left_as_it_was(
    tmp_path: Path, document: str | bytes
) -> None:
    path = tmp_path / "saved.json"
    path.write_bytes(as_bytes(document))
    try:
        saved = read_saved(path)
    except PlayError as error:
        assert str(error) and len(str(error)) < 600
    else:
        assert isinstance(saved, SavedGame)
    assert path.read_bytes() == as_bytes(document)


NASTY = [
    "[" * 10_000 + "]" * 10_000,
    '{"format": "king-record/1", "deals": ' + "[" * 5000 + "]" * 5000 + "}",
    '{"format": "king-record/1", "seed": ' + "9" * 5000 + ', "deals": []}',
    '{"format": "king-record/1", "seed": NaN, "deals": []}',
    '{"format": "king-record/1", "seed": true, "deals": []}',
    '{"format": "king-record/1", "players": ["\\ud800", "b", "c", "d"], "deals": []}',
    '{"format": "king-record/1", "deals": [{"declarer": true}]}',
    '{"format": "king-record/1", "deals": [{"declarer": 1.0}]}',
    '{"format": "king-record/1", "deals": [], "deals": []}',
    '{"format": "king-record/1", "deals": [{"declarer": 0, "hands": ["' + "Z" * 100_000 + '"]}]}',
]


@pytest.mark.parametrize("number", range(len(NASTY)))
def test_king_replay_and_resume_answer_nasty_files_in_one_line(tmp_path: Path, number: int) -> None:
    path = tmp_path / "nasty.json"
    path.write_text(NASTY[number], encoding="utf-8")
    before = path.read_bytes()
    for args in (["replay", str(path)], ["replay", "--json", str(path)]):
        result = king_here(*args)
        assert result.returncode in (1, 2), result.stderr
        assert "Traceback" not in result.stderr + result.stdout
        if result.returncode == 2:
            assert result.stderr.startswith("king: ") and result.stderr.count("\n") == 1
            assert len(result.stderr) < 500
    result = king_here("play", "--resume", str(path), "--bots", "random,random,random")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert result.stderr.startswith("king: ") and result.stderr.count("\n") == 1
    assert path.read_bytes() == before


# -- the server ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(module_database: Database) -> Iterator[ServerProcess]:
    with ServerProcess(module_database, bot_pause=0) as process:
        yield process
    assert "Traceback" not in process.output(), process.output()[-3000:]


def event_count(server: ServerProcess, table: str | None = None) -> int:
    if table is None:
        rows = query(server.db, "SELECT COUNT(*) FROM events")
    else:
        rows = query(server.db, "SELECT COUNT(*) FROM events WHERE table_id = ?", (table,))
    count: int = rows[0][0]
    return count


def full_table(server: ServerProcess) -> tuple[str, list[str]]:
    """A table of four people, every seat taken (so no join can succeed), the game on."""
    body = {"seats": [{"kind": "human"}] * 4, "name": "Ada", "seed": 9}
    claim = httpx.post(f"{server.url}/api/tables", json=body, timeout=10).json()
    tokens = [claim["token"]]
    for seat in (1, 2, 3):
        answer = httpx.post(
            f"{server.url}/api/tables/{claim['table']}/join",
            json={"name": f"P{seat}", "seat": seat},
            timeout=10,
        )
        tokens.append(answer.json()["token"])
    return claim["table"], tokens


@pytest.fixture(scope="module")
def seated(server: ServerProcess) -> Iterator[tuple[str, ClientConnection]]:
    """A person connected to a table where it is somebody else's turn."""
    table, tokens = full_table(server)
    declarer = replay_declarer(server, table)
    seat = (declarer + 1) % 4
    with table_socket(server, table) as socket_:
        socket_.send(json.dumps({"v": 1, "type": "hello", "token": tokens[seat]}))
        kinds = {json.loads(socket_.recv(timeout=10))["type"] for _ in range(3)}
        assert "welcome" in kinds
        drain(socket_)
        yield table, socket_


def replay_declarer(server: ServerProcess, table: str) -> int:
    rows = query(
        server.db, "SELECT data FROM events WHERE table_id = ? AND kind = 'deal'", (table,)
    )
    declarer: int = json.loads(rows[0][0])["declarer"]
    return declarer


def drain(socket_: ClientConnection) -> None:
    while True:
        try:
            socket_.recv(timeout=0.2)
        except TimeoutError:
            return


ALLOWED_SOCKET_CODES = {
    "bad_json",
    "invalid",
    "version",
    "too_large",
    "already_joined",
    "not_your_turn",
    "not_declaring",
    "not_playing",
}


@FEW
@given(
    documents(
        {"v": 1, "type": "play", "card": "AS"},
        {"v": 1, "type": "declare", "contract": "trumps", "trump": "S"},
        {"v": 1, "type": "hello", "token": "x"},
        {"v": 1, "type": "ping"},
    )
)
def test_the_table_socket_refuses_with_an_error_and_changes_nothing(
    server: ServerProcess, seated: tuple[str, ClientConnection], document: str | bytes
) -> None:
    table, socket_ = seated
    before = event_count(server, table)
    socket_.send(document)
    answer = json.loads(socket_.recv(timeout=10))
    if answer["type"] == "pong":
        assert loads(document) == {"v": 1, "type": "ping"}
    else:
        assert answer["type"] == "error", answer
        assert answer["code"] in ALLOWED_SOCKET_CODES, answer
        assert answer["message"] and len(answer["message"]) < 600
    assert event_count(server, table) == before


def test_a_text_frame_that_is_not_utf8_closes_the_socket_with_1007(
    server: ServerProcess,
) -> None:
    table, _ = full_table(server)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        key = base64.b64encode(os.urandom(16)).decode()
        raw.sendall(
            f"GET /api/tables/{table}/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += raw.recv(1)
        assert head.startswith(b"HTTP/1.1 101")
        raw.sendall(_frame(0x1, b'{"v": 1, "type": "ping", "x": "\xff\xfe"}'))
        opcode, payload = _read_frame(raw)
    assert opcode == 0x8  # close
    assert struct.unpack("!H", payload[:2])[0] == 1007
    deadline = time.monotonic() + 5
    while "not UTF-8" not in server.output() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "a client sent a text frame that is not UTF-8" in server.output()


def _frame(opcode: int, payload: bytes) -> bytes:
    mask = os.urandom(4)
    assert len(payload) < 126
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked


def _read_frame(raw: socket.socket) -> tuple[int, bytes]:
    head = raw.recv(2)
    size = head[1] & 0x7F
    assert size < 126
    payload = b""
    while len(payload) < size:
        payload += raw.recv(size - len(payload))
    return head[0] & 0x0F, payload


CREATE = {
    "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}] * 2,
    "seat": 0,
    "name": "Ada",
    "seed": 5,
    "rules": {"preset": "classic", "overruff": True},
}


@pytest.fixture(scope="module")
def full(server: ServerProcess) -> str:
    return full_table(server)[0]


@pytest.mark.slow
@FEW
@given(st.data())
def test_http_bodies_are_refused_with_a_4xx_and_change_nothing(
    server: ServerProcess, full: str, data: st.DataObject
) -> None:
    create_body = data.draw(documents(CREATE), "create")
    before = event_count(server)
    answer = httpx.post(
        f"{server.url}/api/tables",
        content=as_bytes(create_body),
        headers={"content-type": "application/json"},
        timeout=10,
    )
    if answer.status_code != 201:
        assert 400 <= answer.status_code < 500, answer.text
        assert answer.json()["error"]["code"] in ("bad_json", "invalid", "too_large", "limit")
        assert event_count(server) == before
    join_body = data.draw(documents({"name": "Bo", "seat": 1}), "join")
    before = event_count(server, full)
    answer = httpx.post(
        f"{server.url}/api/tables/{full}/join",
        content=as_bytes(join_body),
        headers={"content-type": "application/json"},
        timeout=10,
    )
    assert 400 <= answer.status_code < 500, answer.text
    assert answer.json()["error"]["code"] in ("bad_json", "invalid", "too_large", "started")
    assert event_count(server, full) == before


def test_booleans_and_floats_are_not_numbers_over_http(server: ServerProcess) -> None:
    for field, value in [("seat", True), ("seed", True), ("seed", 1.0), ("seat", "0")]:
        answer = httpx.post(f"{server.url}/api/tables", json={**CREATE, field: value}, timeout=10)
        assert answer.status_code == 422, (field, value, answer.text)
        assert answer.json()["error"]["code"] == "invalid"
        assert field in answer.json()["error"]["message"]
    deep = "[" * 5000 + "]" * 5000
    answer = httpx.post(f"{server.url}/api/tables", content=deep, timeout=10)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "bad_json"
    assert "nested 5000 levels" in answer.json()["error"]["message"]


# -- the external-bot protocol ---------------------------------------------------------

#: A bot program that shakes hands, then answers the request with the file's bytes (or
#: answers the handshake itself with them), and ends: an answer the host waits past
#: (one for another request, say) meets the end of the bot's output at once, not the
#: host's timeout.
FAKE_BOT = """
import sys
answer = open(sys.argv[1], 'rb').read()
handshake_too = sys.argv[2] == '1'
out = sys.stdout.buffer
for number, line in enumerate(sys.stdin.buffer):
    if number == 0 and not handshake_too:
        out.write(b'{"type": "hello", "protocol": "king-bot/1", "name": "fake"}\\n')
        out.flush()
        continue
    out.write(answer + b'\\n')
    out.flush()
    break
"""


@pytest.mark.slow
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    documents(
        {"id": 1, "declare": "no-tricks"},
        {"id": 1, "card": "AS"},
        {"type": "hello", "protocol": "king-bot/1", "name": "x"},
    ),
    st.booleans(),
)
def test_the_host_refuses_a_bots_garbage_with_a_bot_error(
    tmp_path: Path, document: str | bytes, in_handshake: bool
) -> None:
    path = tmp_path / "answer.json"
    path.write_bytes(as_bytes(document).replace(b"\n", b" "))
    script = tmp_path / "bot.py"
    script.write_text(FAKE_BOT)
    command = f"{sys.executable} {script} {path} {int(in_handshake)}"
    game = Game(seed=3)
    view = game.view(game.to_act or 0)
    bot = ExternalBot(command, timeout=5)
    try:
        choice = bot.act(view)
    except BotError as error:
        assert "Traceback" not in str(error) and len(str(error)) < 600
    else:
        assert choice in view.legal_declarations
    finally:
        bot.close()


HOST_PLAY = {
    "type": "declare",
    "id": 1,
    "view": Game(seed=3).view(Game(seed=3).to_act or 0).to_json(),
    "legal": ["no-tricks", "trumps S"],
}


@FEW
@given(documents(HOST_PLAY, {"type": "hello", "protocol": "king-bot/1", "seat": 0}))
def test_the_policy_bot_refuses_a_hosts_garbage_in_one_line(document: str | bytes) -> None:
    text = as_bytes(document).decode("utf-8", errors="replace").replace("\n", " ")
    out = io.StringIO()
    try:
        serve(PolicyBot(LinearPolicy.zeros()), io.StringIO(text + "\n"), out)
    except HostMessageError as error:
        assert str(error).startswith("line 1 from the host cannot be read")
    for line in out.getvalue().splitlines():
        json.loads(line)


# -- policy files ----------------------------------------------------------------------


def array(shape: tuple[int, ...], kind: str, fill: float) -> Any:
    if kind == "U3":
        return np.full(shape, "abc")
    with np.errstate(invalid="ignore"):
        return np.full(shape, fill).astype(kind)


ARRAYS = st.builds(
    array,
    st.sampled_from([(), (0,), (3,), (62,), (62, 3), (62, 1, 1)]),
    st.sampled_from(["float32", "float64", "int8", "bool", "U3", "complex64"]),
    st.sampled_from([0, 1, float("nan"), float("inf")]),
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.one_of(
        st.binary(max_size=200),
        st.builds(lambda tail: b"PK\x03\x04" + tail, st.binary(max_size=100)),
        st.fixed_dictionaries(
            {
                "weights": ARRAYS,
                "bias": ARRAYS,
                "observation_version": st.sampled_from([np.array(1), np.array("x"), np.zeros(3)]),
                "kind": st.sampled_from([np.array("linear-softmax"), np.array(3)]),
            }
        ),
    )
)
def test_a_policy_file_is_loaded_or_refused_in_one_sentence(
    tmp_path: Path, content: bytes | dict[str, Any]
) -> None:
    path = tmp_path / "policy.npz"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        np.savez(path, **content)
    before = path.read_bytes()
    try:
        load_policy(path)
    except PolicyFileError as error:
        assert str(error).startswith(f"cannot read a policy from {path}") or str(path) in str(error)
    try:
        make_bot(f"policy:file={path}").close()
    except BotSpecError as error:
        assert str(error) and "\n" not in str(error)
    assert path.read_bytes() == before


def test_the_bot_protocol_reads_numbers_strictly_on_both_sides(tmp_path: Path) -> None:
    for field, value in [("seat", True), ("deal", 1.0), ("declarer", "0")]:
        request = {**HOST_PLAY, "view": {**HOST_PLAY["view"], field: value}}
        with pytest.raises(HostMessageError, match="is not an integer"):
            serve(PolicyBot(LinearPolicy.zeros()), io.StringIO(json.dumps(request)), io.StringIO())
    answer = tmp_path / "answer.json"
    answer.write_text('{"id": true, "declare": "no-tricks"}')
    script = tmp_path / "bot.py"
    script.write_text(FAKE_BOT)
    game = Game(seed=3)
    bot = ExternalBot(f"{sys.executable} {script} {answer} 0", timeout=5)
    try:
        with pytest.raises(BotError, match="answered id True to request 1"):
            bot.act(game.view(game.to_act or 0))
    finally:
        bot.close()
