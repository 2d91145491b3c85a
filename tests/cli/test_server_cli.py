"""``king`` (the local game in the browser) and ``king serve``, run as real processes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from benchmarks.server_process import ServerProcess, free_port
from tests.support.peers import open_socket
from tests.support.services import ADDRESS, query, run_king, start_local, stop


@pytest.mark.slow
def test_king_starts_a_local_table_against_three_bots_and_resumes_it(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\necho "$1" > {opened}\n')
    browser.chmod(0o755)
    args = ("--db", str(db), "--bots", "random,rule,random")
    process, line = start_local(*args, env={"BROWSER": str(browser)})
    match = ADDRESS.search(line)
    assert match, line
    url, table, _ = match.groups()
    info = httpx.get(f"{url}/api/tables/{table}", timeout=10).json()
    assert info["status"] == "playing"
    assert [s["kind"] for s in info["seats"]] == ["human", "bot", "bot", "bot"]
    assert [s["bot"] for s in info["seats"][1:]] == ["random", "rule", "random"]
    deadline = time.monotonic() + 10
    while not opened.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert opened.read_text().strip() == match.group(0)  # webbrowser.open was given it
    assert stop(process) == 130
    # `king` again resumes the same unfinished game; --new starts another.
    process, line = start_local(*args, "--no-browser")
    again = ADDRESS.search(line)
    assert again and again.group(2) == table
    stop(process)
    process, line = start_local(*args, "--no-browser", "--new")
    other = ADDRESS.search(line)
    assert other and other.group(2) != table
    stop(process)


@pytest.mark.slow
def test_king_hints_starts_a_game_with_hints_and_keeps_resuming_it(tmp_path: Path) -> None:
    args = ("--db", str(tmp_path / "games.db"), "--bots", "random,random,random", "--no-browser")
    process, line = start_local(*args)
    plain = ADDRESS.search(line)
    assert plain
    url = plain.group(1)
    assert httpx.get(f"{url}/api/tables/{plain.group(2)}", timeout=10).json()["hints"] is False
    stop(process)
    # Hints asked for: the saved game has none, so a new one with hints; then resumed.
    process, line = start_local(*args, "--hints")
    helped = ADDRESS.search(line)
    assert helped and helped.group(2) != plain.group(2)
    info = httpx.get(f"{helped.group(1)}/api/tables/{helped.group(2)}", timeout=10).json()
    assert info["hints"] is True
    # The game without hints is replaced for good: closed, not left unfinished.
    plain_info = httpx.get(f"{helped.group(1)}/api/tables/{plain.group(2)}", timeout=10).json()
    assert plain_info["status"] == "closed"
    stop(process)
    process, line = start_local(*args, "--hints")
    again = ADDRESS.search(line)
    assert again and again.group(2) == helped.group(2)
    stop(process)


def test_king_keeps_its_games_in_the_user_data_folder(tmp_path: Path) -> None:
    process, _ = start_local(
        "--no-browser", "--bots", "random,random,random", env={"XDG_DATA_HOME": str(tmp_path)}
    )
    stop(process)
    assert (tmp_path / "king" / "king.db").is_file()


@pytest.mark.slow
def test_bad_options_get_one_line_and_no_traceback(tmp_path: Path) -> None:
    db = str(tmp_path / "x.db")
    for args, text in [
        (("--bots", "random,random"), "one bot, or three"),
        (("--bots", "cmd:ls,random,random"), "external programs"),
        (("--bots", "nobody,random,random"), "no bot is called"),
        (("--rules", "poker", "--bots", "random,random,random"), "not a rules preset"),
        (("serve", "--stand-in", "cmd:ls", "--db", db), "external programs"),
    ]:
        result = subprocess.run(
            [sys.executable, "-m", "king", "--db", db, *args]
            if args[0] != "serve"
            else [sys.executable, "-m", "king", *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 2, (args, result.stderr)
        assert text in result.stderr
        assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_king_serve_prints_its_address_and_refuses_a_busy_port_or_database(
    tmp_path: Path,
) -> None:
    db = tmp_path / "king.db"
    with ServerProcess(db) as server:
        assert f"serving tables at {server.url}/" in server.output()
        other = str(tmp_path / "other.db")
        busy_port = subprocess.run(
            [sys.executable, "-m", "king", "serve", "--port", str(server.port), "--db", other],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert busy_port.returncode == 1
        assert "cannot listen" in busy_port.stderr
        busy_db = subprocess.run(
            [sys.executable, "-m", "king", "serve", "--port", str(free_port()), "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert busy_db.returncode == 1
        assert "another king server" in busy_db.stderr
        assert "Traceback" not in busy_port.stderr + busy_db.stderr


def test_king_lang_opens_the_page_in_that_language(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    process, line = start_local(
        "--db", str(db), "--bots", "random,random,random", "--no-browser", "--lang", "tr_TR"
    )
    match = re.search(r"(http://127\.0\.0\.1:\d+)/t/([\w-]+)\?lang=tr#token=[\w-]+", line)
    assert match, line
    url, table = match.groups()
    page = httpx.get(f"{url}/t/{table}?lang=tr", timeout=10)
    assert '<html lang="tr" data-protocol="1">' in page.text
    # A browser that asks for none of the shipped languages gets the one chosen.
    chosen = httpx.get(f"{url}/api/i18n", params={"lang": "de"}, timeout=10).json()
    assert chosen["language"] == "tr"
    stop(process)
    result = subprocess.run(
        [sys.executable, "-m", "king", "--db", str(db), "--lang", "xx", "--no-browser"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "unknown language" in result.stderr and "Türkçe" in result.stderr
    assert "Traceback" not in result.stderr


def test_king_serve_lang_is_the_page_default(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "king.db", extra=("--lang", "th")) as server:
        answer = httpx.get(f"{server.url}/api/i18n", timeout=10).json()
        assert answer["language"] == "th"
        asked = httpx.get(f"{server.url}/api/i18n", params={"lang": "fr"}, timeout=10).json()
        assert asked["language"] == "fr"  # the browser's choice comes first


@pytest.mark.slow
def test_a_second_king_opens_the_running_table_instead_of_refusing(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    args = ("--db", str(db), "--bots", "random,random,random", "--no-browser")
    process, line = start_local(*args)
    try:
        first = ADDRESS.search(line)
        assert first, line
        again = run_king(*args)
        assert again.returncode == 0, again.stderr
        assert "already running" in again.stdout
        assert first.group(0) in again.stdout  # the same table, with its token
        fresh = run_king(*args, "--new")
        other = ADDRESS.search(fresh.stdout)
        assert fresh.returncode == 0 and other, fresh.stdout + fresh.stderr
        assert other.group(1) == first.group(1) and other.group(2) != first.group(2)
        info = httpx.get(f"{other.group(1)}/api/tables/{other.group(2)}", timeout=10).json()
        assert info["status"] == "playing"
    finally:
        assert stop(process) == 130
    assert not db.with_name("local-server.json").exists()  # the note goes with the server
    # A database locked by something that is not a running king is still refused.
    process, _ = start_local(*args)
    db.with_name("local-server.json").unlink()
    try:
        refused = run_king(*args)
        assert refused.returncode == 1
        assert "another king server is using" in refused.stderr
    finally:
        stop(process)


@pytest.mark.slow
def test_the_local_player_gets_history_statistics_and_a_rating(tmp_path: Path) -> None:
    """The person at the local ``king`` is one account (no login): their rated games
    against the house bots count in the same database, across restarts."""
    from tests.support.peers import act

    args = ("--db", str(tmp_path / "games.db"), "--bots", "rule,rule,rule", "--no-browser")
    process, line = start_local(*args, "--bot-pause", "0")
    match = ADDRESS.search(line)
    assert match, line
    url, table, token = match.groups()
    info = httpx.get(f"{url}/api/tables/{table}", timeout=10).json()
    assert info["rated"] is True and info["seats"][0]["player"] == "You"
    # The one person of the local game may leave it and come back another day: no clock.
    assert info["clock"] is None
    me = httpx.get(f"{url}/api/me", timeout=10).json()["account"]
    assert me["kind"] == "local" and me["name"] == "You"
    refused = httpx.post(f"{url}/api/login", json={"name": "You", "password": "x" * 8})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "local"
    with open_socket(f"{url.replace('http', 'ws')}/api/tables/{table}/ws") as socket:
        socket.send(json.dumps({"v": 1, "type": "hello", "token": token}))
        while True:
            message = json.loads(socket.recv(timeout=20))
            if message["type"] != "state":
                continue
            if message["view"]["phase"] == "over":
                break
            if message["view"]["to_act"] == message["view"]["seat"]:
                act(_Sender(socket), message)
    assert stop(process) == 130
    # A new game at the next start; the finished one is in the history, counted and rated.
    process, line = start_local(*args, "--bot-pause", "0", "--new")
    match = ADDRESS.search(line)
    assert match, line
    url, second, _ = match.groups()
    games = httpx.get(f"{url}/api/players/You/games", timeout=10).json()["games"]
    assert [(g["table"], g["status"]) for g in games] == [(second, "playing"), (table, "over")]
    stats = httpx.get(f"{url}/api/players/You/stats", timeout=10).json()
    assert stats["games"] == 1 and stats["points"] == games[1]["points"]
    profile = httpx.get(f"{url}/api/players/You", timeout=10).json()
    assert profile["rated_games"] == 1 and profile["rating"] is not None
    board = {p["ref"] for p in httpx.get(f"{url}/api/leaderboard", timeout=10).json()["players"]}
    assert board == {"You", "bot:rule"}
    stop(process)


class _Sender:
    """What ``act`` needs of a socket: send a message (with the protocol version)."""

    def __init__(self, socket: Any) -> None:
        self._socket = socket

    def send(self, message: dict[str, Any]) -> None:
        self._socket.send(json.dumps({"v": 1, **message}))


def _start_local_lines(*args: str) -> tuple[subprocess.Popen[str], list[str]]:
    """Run ``king ARGS`` until it prints the table's address; returns every line so far."""
    process = subprocess.Popen(
        [sys.executable, "-m", "king", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 60
    for line in process.stdout:
        lines.append(line)
        if "your table is at" in line or time.monotonic() > deadline:
            break
    assert lines and "your table is at" in lines[-1], "".join(lines)
    return process, lines


@pytest.mark.slow
def test_king_new_closes_the_game_it_replaces_for_good(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    args = ("--db", str(db), "--bots", "random,random,random", "--no-browser")
    process, lines = _start_local_lines(*args)
    first = ADDRESS.search(lines[-1])
    assert first, lines
    assert stop(process) == 130
    # --new: a new game, and the one it replaces is closed (its record stays).
    process, lines = _start_local_lines(*args, "--new")
    second = ADDRESS.search(lines[-1])
    assert second and second.group(2) != first.group(2)
    url = second.group(1)
    old = httpx.get(f"{url}/api/tables/{first.group(2)}", timeout=10).json()
    assert old["status"] == "closed"
    assert httpx.get(f"{url}/api/tables/{second.group(2)}", timeout=10).json()["status"] == (
        "playing"
    )
    assert all("restored" not in line for line in lines), lines
    assert stop(process) == 130
    statuses = dict(query(db, "SELECT id, status FROM tables"))
    assert statuses == {first.group(2): "closed", second.group(2): "playing"}
    # Later starts go on with the new game and say nothing of restored tables: the only
    # unfinished one is the person's own game, which the address opens.
    process, lines = _start_local_lines(*args)
    again = ADDRESS.search(lines[-1])
    assert again and again.group(2) == second.group(2)
    assert all("restored" not in line and "unfinished tables" not in line for line in lines), lines
    assert stop(process) == 130
