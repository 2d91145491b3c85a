"""``king serve --config FILE`` (or ``KING_CONFIG``): the options in a TOML file, run as
a real server process; a flag on the command line wins over the file; a bad file is
refused in one line that names the file and what was wrong in it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import httpx
import pytest

from benchmarks.server_process import free_port
from tests.support.services import run_king, start_king

SERVING = re.compile(r"serving tables at (http://127\.0\.0\.1:(\d+))/ \(database (.+)\)")


def serve(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """``king serve ARGS`` until it says where it serves; the process and its lines."""
    process, lines = start_king("serve", *args, until="serving tables at", env=env)
    return process, "".join(lines)


def stopped(process: subprocess.Popen[str]) -> str:
    """Stop the server (SIGTERM) and give what it wrote after starting."""
    process.terminate()
    output, _ = process.communicate(timeout=20)
    return output


def test_the_file_gives_the_options_and_a_flag_wins_over_it(tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "from-the-file.db"
    config = tmp_path / "king.toml"
    config.write_text(
        "# king serve's options\n"
        "[serve]\n"
        f"port = {port}\n"
        f'db = "{db}"\n'
        "bot-pause = 0\n"
        'log_level = "info"\n'
        "access-log = false\n",
        encoding="utf-8",
    )
    process, said = serve("--config", str(config))
    try:
        match = SERVING.search(said)
        assert match and int(match.group(2)) == port and match.group(3) == str(db)
        made = httpx.post(
            f"http://127.0.0.1:{port}/api/tables",
            json={
                "name": "Ada",
                "seats": [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3,
            },
            timeout=10,
        )
        assert made.status_code == 201, made.text
    finally:
        output = said + stopped(process)
    assert db.exists()
    assert " INFO " in output  # the file's log level
    assert "king.access" not in output  # and its access-log = false

    # KING_CONFIG names the file too; the command line's flags win over it.
    other = free_port()
    process, said = serve(
        "--port", str(other), "--log-level", "warning", env={"KING_CONFIG": str(config)}
    )
    try:
        match = SERVING.search(said)
        assert match and int(match.group(2)) == other and match.group(3) == str(db)
        assert httpx.get(f"http://127.0.0.1:{other}/api/live", timeout=10).status_code == 200
    finally:
        output = said + stopped(process)
    assert " INFO " not in output


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[serve\n", "is not TOML"),
        ("port = 8001\n", "has no [serve] table"),
        ("[serve]\nport = 8001\n[logging]\nlevel = 1\n", "only a [serve] table is read"),
        ("[serve]\nbot-paus = 1\n", "bot-paus is not an option of serve (access-log,"),
        ("[serve]\nport = 70000\n", "port = 70000: "),
        ('[serve]\nport = "eighty"\n', "port = 'eighty': "),
        ("[serve]\nhost = ['a', 'b']\n", "host takes one value"),
        ("[serve]\nbot-pause = 1\nbot_pause = 2\n", "bot_pause is given twice"),
    ],
)
def test_a_bad_file_is_refused_in_one_line_naming_it(
    tmp_path: Path, text: str, expected: str
) -> None:
    config = tmp_path / "king.toml"
    config.write_text(text, encoding="utf-8")
    result = run_king("serve", "--config", str(config))
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith(f"king: {config}"), lines[0]
    assert expected in lines[0], lines[0]


def test_a_missing_file_and_a_password_others_may_read_are_told(tmp_path: Path) -> None:
    result = run_king("serve", "--config", str(tmp_path / "nowhere.toml"))
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        == f"king: cannot read {tmp_path / 'nowhere.toml'}: No such file or directory"
    )
    config = tmp_path / "king.toml"
    config.write_text(
        # Nothing listens there: the server stops after the warning.
        f'[serve]\ndb = "postgresql://king:secret@127.0.0.1:{free_port()}/king"\n',
        encoding="utf-8",
    )
    config.chmod(0o644)
    result = run_king("serve", "--config", str(config))
    assert f"king: warning: {config} holds a password and others may read it" in result.stderr
    assert result.returncode != 0
    config.chmod(0o600)
    result = run_king("serve", "--config", str(config))
    assert "warning" not in result.stderr and result.returncode != 0
