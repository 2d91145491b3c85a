"""The suite never reads or writes the person's own files: a run gets a HOME and XDG
folders of its own (tests/conftest.py).  Shown from outside: a person's home with an
unfinished ``king play`` game in it, and a run of the test that once resumed such a game
(and spun for good, rewriting the person's file) with that home as its HOME."""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys
from pathlib import Path

from king.game import Game
from king.tui.save import LAST_NOTE, games_folder, record_of, remember_last, write_atomic
from tests.conftest import OWN_FOLDERS
from tests.support import ROOT

#: The test that resumed the person's last game when it ran in their home.
RESUMING_TEST = "tests/tui/test_tui.py::test_resume_refuses_bad_files_with_a_clear_reason"


def test_the_run_has_a_home_and_xdg_folders_of_its_own() -> None:
    person = Path(pwd.getpwuid(os.getuid()).pw_dir)
    home = Path(os.environ["HOME"])
    assert home != person and home.name.startswith("king-test-home-"), home
    for name, below in OWN_FOLDERS.items():
        assert Path(os.environ[name]) == home / below, name


def _unfinished_game(home: Path) -> Path:
    """An unfinished ``king play`` game in ``home``, noted as the last one played, as
    ``king play`` leaves it when the person quits mid-game."""
    environ = {"XDG_DATA_HOME": str(home / ".local" / "share")}  # where HOME puts it
    game = Game(seed=3)
    game.declare(game.allowed_declarations()[0])
    path = games_folder(environ)
    path.mkdir(parents=True)
    saved = path / "2026-12-01_20-00-00.json"
    record = record_of(game, ["You", "rule bot 2", "rule bot 3", "rule bot 4"], 0, ["rule"] * 3)
    write_atomic(saved, json.dumps(record))
    remember_last(saved, environ)
    assert (path / LAST_NOTE).read_text().strip() == str(saved)
    return saved


def _files(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(path.relative_to(folder)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_a_run_leaves_the_persons_unfinished_game_untouched(tmp_path: Path) -> None:
    home = tmp_path / "person"
    home.mkdir()
    _unfinished_game(home)
    before = _files(home)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in OWN_FOLDERS and not key.startswith(("PYTEST_", "XDG_"))
    }
    env.update(HOME=str(home))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", RESUMING_TEST],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "1 passed" in run.stdout, run.stdout[-3000:]
    assert _files(home) == before, "the run wrote in the person's home"
