"""The arena: duplicate rotation, identical figures whatever the number of processes,
zero-sum games, replayable records, and the command line."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from king.arena import ArenaConfig, PlayResult, deal_declaration, play_set, run_arena
from king.record import replay
from king.rules import Contract, Rules
from tests.support.cli import king_here


def test_single_deals_cycle_through_every_contract_and_trump_suit() -> None:
    first = [deal_declaration(i) for i in range(28)]
    assert {d.contract for d in first[:7]} == set(Contract)
    trumps = [str(d) for d in first if d.contract is Contract.TRUMPS]
    assert trumps == ["trumps S", "trumps H", "trumps D", "trumps C"]


def test_a_set_is_the_same_deal_with_the_bots_rotated() -> None:
    config = ArenaConfig(("rule", "random", "random", "random"), "deals", 3, seed=9)
    plays = play_set(config, 2)
    assert [p.seats.index("rule") for p in plays] == [0, 1, 2, 3]
    hands = {tuple(p.record["deals"][0]["hands"]) for p in plays}
    assert len(hands) == 1
    contracts = {p.record["deals"][0]["contract"] for p in plays}
    assert contracts == {deal_declaration(2).contract.value}


def test_games_sum_to_zero_and_records_replay_valid() -> None:
    config = ArenaConfig(("rule", "random", "rule", "random"), "games", 1, seed=3)
    plays: list[PlayResult] = []
    report = run_arena(config, lambda _, p: plays.extend(p))
    assert len(plays) == 4
    for play in plays:
        assert sum(play.points) == 0
        result = replay(play.record)
        assert result.valid and result.complete
        assert result.game.totals == play.points
        # The same bot in two seats is told apart by its seat.
        assert result.players == tuple(
            f"{name} (seat {n + 1})" for n, name in enumerate(play.seats)
        )  # seats counted from 1, as people read them
    assert report.stats["rule"].n == 8
    assert report.stats["random"].n == 8
    # Two names, each in two seats: their per-game means are opposite.
    assert report.stats["rule"].score.mean == -report.stats["random"].score.mean


def test_the_figures_do_not_depend_on_jobs_or_on_the_run() -> None:
    base = ArenaConfig(("rule", "random", "random", "random"), "deals", 8, seed=21)
    one = run_arena(base).to_json()
    again = run_arena(base).to_json()
    two = run_arena(
        ArenaConfig(base.bots, base.mode, base.count, base.seed, base.rules, jobs=2)
    ).to_json()
    for report in (one, again, two):
        for stats in report["bots"].values():
            stats.pop("ms_per_move")
    assert one == again == two


def test_equal_bots_average_zero() -> None:
    report = run_arena(ArenaConfig(("rule", "rule", "rule", "rule"), "deals", 14, seed=2))
    stats = report.stats["rule"]
    assert stats.n == 14 * 4 * 4
    assert abs(stats.score.mean) < 1e-9


def test_every_preset_plays(tmp_path: Path) -> None:
    for preset in ("classic", "pagat", "turkish"):
        config = ArenaConfig(
            ("rule", "random", "random", "random"), "deals", 7, seed=4, rules=Rules.preset(preset)
        )
        plays: list[PlayResult] = []
        run_arena(config, lambda _, p, sink=plays: sink.extend(p))
        for play in plays:
            assert replay(play.record).valid


def _king(*args: str) -> subprocess.CompletedProcess[str]:
    """``king ARGS`` by its entry point, here (its processes for ``--jobs`` are its own)."""
    result = king_here(*args)
    assert "Traceback" not in result.stderr
    return result


def test_the_command_prints_json_and_writes_replayable_records(tmp_path: Path) -> None:
    out = tmp_path / "arena.jsonl"
    result = _king(
        "arena", "--bots", "rule,random,random,random", "--deals", "7", "--jobs", "2",
        "--seed", "5", "--out", str(out), "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["mode"] == "deals"
    assert report["count"] == 7
    assert report["seed"] == 5
    rule = report["bots"]["rule"]
    assert set(rule) >= {"n", "mean", "ci95", "by_contract", "ms_per_move"}
    assert set(rule["by_contract"]) == {c.value for c in Contract}
    lines = out.read_text().splitlines()
    assert len(lines) == 28
    check = _king("replay", str(out), "--json")
    assert check.returncode == 0
    assert all(json.loads(line)["valid"] for line in check.stdout.splitlines())


def test_the_command_refuses_bad_arguments() -> None:
    for args in (
        ("--bots", "rule,random,random"),
        ("--bots", "rule,random,random,nobody"),
        ("--bots", "rule,random,random,random", "--games", "2", "--deals", "3"),
        ("--bots", "rule,random,random,random", "--rules", "martian"),
        ("--bots", "rule,random,random,random", "--deals", "0"),
        ("--bots", "random:depth=3,rule,random,random", "--deals", "1"),
    ):
        result = _king("arena", *args)
        assert result.returncode == 2, args
        assert result.stderr.strip()


def _without_timing(lines: list[str]) -> list[dict[str, object]]:
    records = [json.loads(line) for line in lines]
    for record in records:
        assert record["extra"]["arena"].pop("timing")  # wall-clock: the one thing that differs
    return records


def _figures(stdout: str) -> dict[str, object]:
    report: dict[str, object] = json.loads(stdout)
    for stats in report["bots"].values():  # type: ignore[attr-defined]
        stats.pop("ms_per_move")
    return report


def test_a_stopped_match_goes_on_from_its_file_to_the_figures_of_one_run(tmp_path: Path) -> None:
    match = ("arena", "--bots", "rule,random,rule,random", "--seed", "7", "--json")
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    once = _king(*match, "--deals", "5", "--out", str(whole))
    assert once.returncode == 0, once.stderr
    lines = whole.read_text().splitlines()
    assert len(lines) == 20
    # Stopped in the middle of its third set (and a game abandoned in the second).
    second = [json.loads(line) for line in lines[4:8]]
    second[1]["extra"]["arena"]["abandoned"] = {"bot": "random", "what": "timed out"}
    cut.write_text("\n".join([*lines[:4], *map(json.dumps, second), *lines[8:10]]) + "\n")
    again = _king(*match, "--deals", "5", "--out", str(cut), "--resume")
    assert again.returncode == 0, again.stderr
    assert "going on: 1 of 5 deals were played" in again.stderr
    assert _figures(again.stdout) == _figures(once.stdout)
    assert _without_timing(cut.read_text().splitlines()) == _without_timing(lines)
    # Lengthened: the five sets are kept, three more played, as one run of eight would.
    longer = _king(*match, "--deals", "8", "--out", str(cut), "--resume", "--jobs", "2")
    assert longer.returncode == 0, longer.stderr
    assert "going on: 5 of 8 deals were played" in longer.stderr
    eight = _king(*match, "--deals", "8")
    assert _figures(longer.stdout) == _figures(eight.stdout)
    assert len(cut.read_text().splitlines()) == 32


def test_going_on_from_a_file_of_another_match_is_refused_and_the_file_kept(
    tmp_path: Path,
) -> None:
    out = tmp_path / "arena.jsonl"
    made = _king("arena", "--bots", "rule,random,rule,random", "--deals", "2", "--out", str(out))
    assert made.returncode == 0, made.stderr
    before = out.read_bytes()
    for args, says in (
        (("--bots", "rule,rule,rule,random", "--deals", "2"), "line 1: a game of another match"),
        (("--bots", "rule,random,rule,random", "--deals", "2", "--seed", "2"), "seed 2"),
        (("--bots", "rule,random,rule,random", "--deals", "1"), "line 5: a game of set 2, beyond"),
        (("--bots", "rule,random,rule,random", "--games", "1"), "another match"),
    ):
        result = _king("arena", *args, "--out", str(out), "--resume")
        assert result.returncode == 2, args
        assert says in result.stderr and "the file is left as it was" in result.stderr, args
        assert out.read_bytes() == before
    out.write_bytes(before + b"{not json\n")
    broken = _king(
        "arena", "--bots", "rule,random,rule,random", "--deals", "2", "--out", str(out), "--resume"
    )
    assert broken.returncode == 2 and "line 9: not JSON" in broken.stderr
    alone = _king("arena", "--bots", "rule,random,rule,random", "--deals", "2", "--resume")
    assert alone.returncode == 2 and "give --out" in alone.stderr
