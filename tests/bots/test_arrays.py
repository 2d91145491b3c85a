"""One source for the rule policy: on plain Python sequences (the browser's offline game,
which has no numpy) it chooses exactly what it chooses on numpy."""

from __future__ import annotations

import subprocess
import sys

import pytest

from king.bots.plain_arrays import Grid, array, zeros
from king.rules import PRESETS

POSITIONS = 100_000


def _choices(mode: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "tests.support.rule_choices", mode, str(POSITIONS)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_the_rule_policy_chooses_the_same_on_plain_sequences_as_on_numpy() -> None:
    runs = {mode: _choices(mode) for mode in ("plain", "numpy")}
    outputs = {mode: run.communicate(timeout=600)[0].splitlines() for mode, run in runs.items()}
    assert all(run.returncode == 0 for run in runs.values())
    plain, numpy = outputs["plain"], outputs["numpy"]
    assert len(plain) >= POSITIONS
    declarations = sum(1 for line in plain if not line.split()[-1].isdigit())
    assert declarations >= 1000, "the positions include the declarer's choices"
    assert {line.split()[0] for line in plain} == set(PRESETS), "games of every preset"
    differing = [(a, b) for a, b in zip(plain, numpy, strict=True) if a != b]
    assert differing == [], f"{len(differing)} choices differ, first {differing[:3]}"


def test_a_grid_reads_as_numpy_indexes_it() -> None:
    table = array([[1.0, 2.0], [3.0, 4.0]], dtype=float)
    assert isinstance(table, Grid)
    assert table[1, 0] == 3.0 and table[0][1] == 2.0
    cube = array([[[1, 2]], [[3, 4]]], dtype=int)
    assert cube[1, 0, 1] == 4
    assert zeros(3, dtype=int) == [0, 0, 0]
    assert array((5, 6), dtype=float) == [5.0, 6.0]
