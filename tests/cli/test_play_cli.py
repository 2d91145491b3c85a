"""``king play`` run as a real process in a pseudo-terminal: it opens the table, quits on
Ctrl+Q, says where the game is saved (the path on a line of its own), and the next plain
``king play`` goes on with that game, while ``--new`` starts another."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

#: What the terminal's escape sequences look like (to read the words between them).
ESCAPES = re.compile(
    r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|.)"
)


def _read(fd: int, until: float, done: object = None) -> bytes:
    """What the program writes until ``done`` (a predicate on the text) or the deadline."""
    out = b""
    while time.monotonic() < until:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the program has ended
            break
        if not chunk:
            break
        out += chunk
        if callable(done) and done(out.decode(errors="replace")):
            break
    return out


def _words(text: str) -> str:
    return " ".join(ESCAPES.sub("", text).split())


def king_play(data: Path, *args: str, expect: str = "Deal 1/20") -> tuple[str, str]:
    """Run ``king play ARGS`` at 100x30 until its table shows ``expect``, press Ctrl+Q;
    returns what the table showed (its words) and what was printed after the screen
    closed (escape sequences removed)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = {
        **os.environ,
        "XDG_DATA_HOME": str(data),
        "TERM": "xterm-256color",
        "KING_PLAY_PAUSE": "5",  # the bots wait: the first message stays on the screen
        "LANG": "C.UTF-8",
    }
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "TEXTUAL"):
        env.pop(name, None)
    process = subprocess.Popen(
        [sys.executable, "-m", "king", "play", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        close_fds=True,
    )
    os.close(follower)
    try:
        shown = _read(leader, time.monotonic() + 60, lambda text: expect in _words(text))
        assert expect in _words(shown.decode(errors="replace")), shown
        time.sleep(0.3)
        os.write(leader, b"\x11")  # Ctrl+Q
        after = _read(leader, time.monotonic() + 30)
        assert process.wait(30) == 0
    finally:
        process.kill()
        os.close(leader)
    table = _words(shown.decode(errors="replace"))
    # What is printed once the screen has closed: after the last escape sequence.
    text = after.decode(errors="replace")
    tail = text[text.rfind("\x1b") :] if "\x1b" in text else text
    printed = ESCAPES.sub("", tail).replace("\r\n", "\n").strip("\r\n")
    return table, printed


def _saved_path(printed: str) -> Path:
    lines = printed.splitlines()
    assert lines[0] == "Game saved in:", printed
    assert lines[2] == "Continue it with: king play", printed
    assert lines[1].startswith("  ")
    return Path(lines[1].strip())


@pytest.mark.slow
def test_king_play_resumes_its_last_unfinished_game(tmp_path: Path) -> None:
    data = tmp_path / "data"
    table, printed = king_play(
        data, "--bots", "random,random,random", "--seed", "3", expect="Press ? for help"
    )
    assert "Deal 1/20" in table
    first = _saved_path(printed)
    assert first.parent == data / "king" / "games" and first.is_file()
    # Plain `king play` goes on with it; options for a new game are named as unused.
    unused = "so --bots and --rules are not used (add --new to start a new game"
    table, printed = king_play(data, "--bots", "rule,rule,rule", "--rules", "pagat", expect=unused)
    assert _saved_path(printed) == first
    assert "seed 3" in table  # the first game's deals, not new ones
    # --new starts another game, the one a plain `king play` then goes on with.
    _, printed = king_play(data, "--new", "--bots", "random,random,random")
    second = _saved_path(printed)
    assert second != first and second.is_file() and first.is_file()
    table, printed = king_play(data, expect="Your unfinished game goes on")
    assert _saved_path(printed) == second


def test_new_and_resume_do_not_go_together(tmp_path: Path) -> None:
    saved = tmp_path / "g.json"
    saved.write_text("{}")
    result = subprocess.run(
        [sys.executable, "-m", "king", "play", "--new", "--resume", str(saved)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "--new starts a new game and --resume goes on with a saved one" in result.stderr
    assert "Traceback" not in result.stderr
