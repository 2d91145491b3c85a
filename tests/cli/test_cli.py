"""The ``king`` command: output, exit codes, no tracebacks.  Run by its entry point in
the test's process (:func:`tests.support.cli.king_here`), and as a real process where
that is the claim: the installed command, standard input, a fresh interpreter."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest

from king.bots import available_bots
from king.game import Game
from king.record import dump, replay
from king.rules import Rules
from tests.support.cli import king_here
from tests.support.games import EXAMPLES, play_random_game


def king(*args: str) -> subprocess.CompletedProcess[str]:
    result = king_here(*args)
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    return result


def king_process(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "king", *args],
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert "Traceback" not in result.stdout, result.stdout
    return result


@pytest.mark.parametrize("name", ["game-classic", "partial-pagat"])
def test_replay_json_prints_the_expected_report(name: str) -> None:
    result = king("replay", str(EXAMPLES / f"{name}.json"), "--json")
    assert result.returncode == 0
    expected = json.loads((EXAMPLES / f"{name}.expected.json").read_text())
    assert json.loads(result.stdout) == expected


def test_replay_json_of_an_illegal_play_exits_1_with_the_fault() -> None:
    result = king("replay", str(EXAMPLES / "illegal-play.json"), "--json")
    assert result.returncode == 1
    out = json.loads(result.stdout)
    assert out["valid"] is False
    assert out["error"] == {
        "deal": 1,
        "play": 1,
        "seat": 3,
        "card": "2S",
        "reason": "seat 4 must follow diamonds",  # the record's "seat": 3, counted from 1
    }
    assert len(out["deals"]) == 1


def test_replay_table_shows_deals_points_and_running_totals() -> None:
    result = king("replay", str(EXAMPLES / "game-classic.json"))
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert "deal" in lines[0]
    assert "running totals" in lines[0]
    assert any(line.split()[:4] == ["1", "Deniz", "Trumps", "(♦)"] for line in lines)
    assert any(line.split()[:2] == ["20", "Cem"] for line in lines), "deals count from 1"
    assert "-910" in result.stdout
    assert "530" in result.stdout
    assert "complete game (classic)" in result.stdout


def test_replay_table_of_an_invalid_record_says_where() -> None:
    result = king("replay", str(EXAMPLES / "illegal-play.json"))
    assert result.returncode == 1
    assert "INVALID at deal 2, play 2, seat 4 played 2S: seat 4 must follow diamonds" in (
        result.stdout
    )


@pytest.mark.parametrize("content", [b"", b"{not json", b"[]", b'{"format": "other"}', b"\xff\xfe"])
def test_replay_of_something_that_is_not_a_record_exits_2(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    for args in (("replay", str(path)), ("replay", str(path), "--json")):
        result = king(*args)
        assert result.returncode == 2
        assert result.stdout == ""
        assert len(result.stderr.strip().splitlines()) == 1
        assert result.stderr.startswith("king: ")


def test_replay_of_a_missing_file_or_folder_exits_2(tmp_path: Path) -> None:
    assert king("replay", str(tmp_path / "nope.json")).returncode == 2
    assert king("replay", str(tmp_path)).returncode == 2


def test_replay_reads_standard_input() -> None:
    text = (EXAMPLES / "partial-pagat.json").read_bytes()
    result = king_process("replay", "-", "--json", stdin=text)
    assert result.returncode == 0
    assert json.loads(result.stdout)["valid"] is True


@pytest.mark.parametrize("preset", ["classic", "pagat", "turkish"])
def test_a_program_written_game_replays_valid_and_sums_to_zero(tmp_path: Path, preset: str) -> None:
    game = play_random_game(Rules.preset(preset), seed=11)
    path = tmp_path / "game.json"
    path.write_text(dump(game, players=["A", "B", "C", "D"]))
    result = king("replay", str(path), "--json")
    assert result.returncode == 0
    out = json.loads(result.stdout)
    assert out["valid"] is True
    assert out["complete"] is True
    assert sum(out["totals"]) == 0
    assert out["totals"] == game.totals


def test_bench_json_reports_the_engine_throughput() -> None:
    result = king("bench", "--json", "--seconds", "0.2", "--only", "engine")
    assert result.returncode == 0
    figures = json.loads(result.stdout)
    for key in ("checked_deals_per_s", "fast_deals_per_s", "baseline_deals_per_s"):
        assert figures[key] > 0


@pytest.mark.slow
def test_bench_solver_checks_the_solver_against_enumeration() -> None:
    result = king("bench", "--json", "--seconds", "0.05", "--only", "solver")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["check_endings"] == 5000 and figures["check_disagreements"] == 0
    for cards in (4, 6, 8):
        assert figures[f"solver_{cards}_cards_median_ms"] > 0
        assert figures[f"solver_{cards}_cards_median_ms"] <= figures[f"solver_{cards}_cards_p99_ms"]


def test_bad_flags_get_a_usage_error_not_a_traceback() -> None:
    result = king("bench", "--seconds", "fast")
    assert result.returncode == 2
    result = king("bench", "--only", "nothing")
    assert result.returncode == 2
    assert "unknown benchmark" in result.stderr
    result = king("frobnicate")
    assert result.returncode == 2


def test_version_and_help() -> None:
    assert king_process("--version").stdout.startswith("king ")
    result = king_process("--help")
    assert result.returncode == 0
    for command in ("play", "serve", "arena", "replay", "bench"):
        assert command in result.stdout


def test_a_game_record_in_progress_replays(tmp_path: Path) -> None:
    game = Game(seed=8)
    game.declare(game.allowed_declarations()[-1])
    deal = game.deal
    assert deal is not None
    game.play(deal.legal_moves()[0])
    path = tmp_path / "g.json"
    path.write_text(dump(game))
    out = json.loads(king("replay", str(path), "--json").stdout)
    assert out["valid"] is True
    assert out["deals"][0]["complete"] is False


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (("arena", "--bots", "rule,rule,rule,rule", "--deals", "0"), "'--deals'"),
        (("arena", "--bots", "rule,rule,rule,rule", "--deals", "-5"), "'--deals'"),
        (("arena", "--bots", "rule,rule,rule,rule", "--deals", "many"), "'--deals'"),
        (("arena", "--bots", "rule,rule,rule,rule", "--jobs", "0"), "'--jobs'"),
        (("serve", "--port", "99999"), "'--port'"),
        (("play", "--seat", "4"), "'--seat'"),
        (("play", "--seed", "-1"), "'--seed'"),
        (("arena", "--bogus"), "--bogus"),
        (("arena",), "'--bots'"),
        (("replay",), "'file'"),
        (("nosuch",), "'nosuch'"),
    ],
)
def test_command_line_mistakes_get_one_line_and_exit_2(args: tuple[str, ...], names: str) -> None:
    result = king(*args)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("king: ") and names in result.stderr
    assert "--help" in result.stderr
    assert not set("╭╮╰╯│─") & set(result.stderr)  # no boxed panel


def test_an_arena_whose_games_are_abandoned_exits_1_and_names_the_bot() -> None:
    result = king("arena", "--bots", "cmd:nonexistent-program,rule,rule,rule", "--deals", "2")
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("king: 8 of 8 deals were abandoned")
    assert "'cmd:nonexistent-program' could not be started" in last
    assert "abandoned: set 0 rotation 0" in result.stdout  # and the report says where


def test_output_files_are_not_written_over_unless_they_are_records_or_forced(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# my notes\n")
    arena = ("arena", "--bots", "random,random,random,random", "--deals", "1")
    refused = king(*arena, "--out", str(notes))
    assert refused.returncode == 2
    assert "not a game record" in refused.stderr and "--force" in refused.stderr
    assert notes.read_text() == "# my notes\n"
    assert king(*arena, "--out", str(notes), "--force").returncode == 0
    assert replay(notes.read_text().splitlines()[0]).valid
    assert king(*arena, "--out", str(notes)).returncode == 0  # records may be replaced
    folder = king(*arena, "--out", str(tmp_path))
    assert folder.returncode == 2 and "is a folder" in folder.stderr
    readme = tmp_path / "README.md"
    readme.write_text("read me\n")
    play = king("play", "--save", str(readme), "--bots", "random,random,random")
    assert play.returncode == 2
    assert "not a game record" in play.stderr and "--force" in play.stderr
    assert readme.read_text() == "read me\n"


def test_help_lists_every_registered_bot_and_shows_defaults() -> None:
    names = [info.name for info in available_bots()]
    for command in (("arena",), ("play",), ()):
        text = king(*command, "--help").stdout
        flat = " ".join(text.split())
        for name in names:
            assert name in flat, (command, name)
        assert "<bool>" not in text
    arena = " ".join(king("arena", "--help").stdout.split())
    assert "(100 unless --games is given)" in arena
    assert "Exit status: 0 when every game was played, 1 when a bot failed" in arena
    bench = " ".join(king("bench", "--help").stdout.split())
    assert "later" not in bench and "ratio against a baseline" in bench
    serve = " ".join(king("serve", "--help").stdout.split())
    for flag in ("--max-bot-time", "--max-bot-threads", "--max-bot-worlds", "--max-bot-exact"):
        assert flag in serve
    assert "--tables-per-address" in serve and "--idle-close" in serve


def test_replay_and_resume_place_a_fault_alike(tmp_path: Path) -> None:
    """One numbering everywhere a person reads: deals, plays and seats from 1 (the
    record's deal 1, play 1, seat 3), and the record's own, from 0, in the JSON."""
    where = "deal 2, play 2, seat 4 played 2S"
    error = json.loads(king("replay", str(EXAMPLES / "illegal-play.json"), "--json").stdout)
    assert {k: error["error"][k] for k in ("deal", "play", "seat")} == {
        "deal": 1,
        "play": 1,
        "seat": 3,
    }
    assert where in king("replay", str(EXAMPLES / "illegal-play.json")).stdout
    resumed = king("play", "--resume", str(EXAMPLES / "illegal-play.json"))
    assert resumed.returncode == 2 and where in resumed.stderr


def test_nothing_compiles_and_neither_numba_nor_llvmlite_is_installed() -> None:
    """The engine is WebAssembly the package ships: ``pip install`` brings no compiler
    and no numba (``pip show numba llvmlite`` finds neither), and the search bot plays
    its first deal with nothing said about compiling or preparing."""
    for name in ("numba", "llvmlite"):
        with pytest.raises(importlib.metadata.PackageNotFoundError):
            importlib.metadata.distribution(name)
    run = king_process(
        "arena", "--bots", "search:time=0.01&worlds=16,random,random,random", "--deals", "1"
    )
    assert run.returncode == 0, run.stderr
    assert "compiling" not in run.stderr and "preparing" not in run.stderr
