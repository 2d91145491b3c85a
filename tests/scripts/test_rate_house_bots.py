"""``scripts/rate_house_bots.py``: the gap between two bots on the rating scale, from
whole arena games.  The gap it finds is the most likely one (the likelihood falls on
both sides of it), and a bot that places first in every game has no finite gap and says
so."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from king.server.people.ratings import SCALE
from tests.support.cli import king_here
from tests.support.scripts import load_script


def _script() -> ModuleType:
    return load_script("rate_house_bots")


def arena(folder: Path, bots: str, sets: int) -> Path:
    out = folder / f"{bots.replace(',', '-')}.jsonl"
    done = king_here(
        "arena", "--bots", bots, "--games", str(sets), "--seed", "3", "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    return out


def test_the_gap_is_the_most_likely_one_and_a_sweep_has_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script()
    mixed = arena(tmp_path, "net,rule,rule,rule", 2)
    games = script.read_games([mixed], "net", "rule")
    assert len(games) == 8 and all(sum(strong for _, strong in game) == 1 for game in games)
    gap, low, high = script.fit(games, 1.0)
    assert low < gap < high
    best = script.log_likelihood(games, gap, 1.0)
    assert best > script.log_likelihood(games, gap + 1, 1.0)
    assert best > script.log_likelihood(games, gap - 1, 1.0)
    assert script.main([str(mixed), "--strong", "net", "--weak", "rule"]) == 0
    assert f"{gap * SCALE:+.0f} shown points" in capsys.readouterr().out
    # rule places above random in every game: no finite gap, said as such.
    sweep = arena(tmp_path, "rule,random,random,random", 1)
    assert script.main([str(sweep), "--strong", "random", "--weak", "rule"]) == 1
    assert "beyond" in capsys.readouterr().out


def test_a_file_of_other_bots_or_not_of_games_is_refused(tmp_path: Path) -> None:
    script = _script()
    sweep = arena(tmp_path, "rule,random,random,random", 1)
    with pytest.raises(SystemExit, match="are not search and rule"):
        script.read_games([sweep], "search", "rule")
    junk = tmp_path / "junk.jsonl"
    junk.write_text(json.dumps({"format": "nothing"}) + "\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"junk\.jsonl:1: not a game record"):
        script.read_games([junk], "search", "rule")
