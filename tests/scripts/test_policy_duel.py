"""``scripts/policy_duel.py``: a variant of the rule policy (an edited copy of
``engine/rule_play.c``, built into an engine of its own) against the rule policy on
duplicate deals.  An unchanged copy gains nothing anywhere; a copy that no longer fears
the last two tricks loses in No Last Two and nowhere else."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from king.rules import Contract
from tests.support.scripts import load_script

RULE_PLAY = Path(__file__).resolve().parents[2] / "engine" / "rule_play.c"


def _script() -> ModuleType:
    return load_script("policy_duel")


def _variant(folder: Path, name: str, old: str, new: str) -> Path:
    source = RULE_PLAY.read_text(encoding="utf-8")
    assert source.count(old) == 1
    path = folder / f"{name}.c"
    path.write_text(source.replace(old, new), encoding="utf-8")
    return path


@pytest.mark.slow
def test_an_unchanged_copy_gains_nothing(tmp_path: Path) -> None:
    duel = _script()
    path = _variant(tmp_path, "same", "static const i64 KH", "static const i64 KH")
    gains, codes = duel.duel(duel.load_variant(path), 140, 3, 0)
    assert gains.shape == (140, 4)
    assert not gains.any()
    assert sorted(set(codes.tolist())) == [c.code for c in Contract]


@pytest.mark.slow
def test_a_variant_that_ignores_the_last_two_tricks_loses_there_alone(tmp_path: Path) -> None:
    duel = _script()
    path = _variant(
        tmp_path, "reckless", "if (code == NO_LAST_TWO) return 90.0;",
        "if (code == NO_LAST_TWO) return 0.0;",
    )  # fmt: skip
    gains, codes = duel.duel(duel.load_variant(path), 280, 3, 0)
    mean, interval, means = duel.summary(gains, codes)
    assert means[Contract.NO_LAST_TWO] < -50
    assert all(means[c] == 0 for c in Contract if c is not Contract.NO_LAST_TWO)
    assert mean == pytest.approx(means[Contract.NO_LAST_TWO] / 7)
    assert interval > 0


@pytest.mark.slow
def test_a_file_that_is_not_the_policy_is_refused(tmp_path: Path) -> None:
    duel = _script()
    other = tmp_path / "other.c"
    other.write_text("int x = 1;\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"not a copy of engine/rule_play\.c"):
        duel.load_variant(other)
    broken = _variant(tmp_path, "broken", "static const i64 KH", "static const i64 KH +")
    with pytest.raises(SystemExit, match="does not compile"):
        duel.load_variant(broken)


@pytest.mark.slow
def test_the_lookahead_policy_is_measured_the_same_way() -> None:
    """``--lookahead``: the rule policy with lookahead in the last tricks takes the seat;
    it gains in No Last Two, and the command line wants a variant or it, not both."""
    duel = _script()
    gains, codes = duel.duel(duel.lookahead_player(4, 8), 210, 3, 0)
    _, _, means = duel.summary(gains, codes)
    assert means[Contract.NO_LAST_TWO] > 0
    with pytest.raises(SystemExit):
        duel.main(["--deals", "20"])
    with pytest.raises(SystemExit):
        duel.main(["--lookahead", "14", "--deals", "20"])
