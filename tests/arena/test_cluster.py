"""Work on a real local Ray cluster (`ray start --head` on 127.0.0.1): `king arena
--ray` prints the same figures as `--jobs 2` for the same seed, the training data made
as Ray tasks are the data made here, and a cluster that is not there is one line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.server_process import free_port
from tests.support import ROOT

pytestmark = pytest.mark.cluster

RAY = Path(sys.executable).with_name("ray")


def king(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "king", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=ROOT / "tests",
    )


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A one-node Ray cluster with two CPUs on 127.0.0.1; yields its address."""
    if not RAY.exists():
        pytest.fail('Ray is missing: pip install -e ".[test]" installs it (or "king[cluster]")')
    # Ray's socket paths must be short: a folder under /tmp, not pytest's deep one.
    temp = Path("/tmp") / f"king-ray-{os.getpid()}"
    port = free_port()
    # A home of its own for the cluster and every client of this module: Ray reads
    # settings there (~/.ray/auth_token), which must not come from the machine's.
    patch = pytest.MonkeyPatch()
    patch.setenv("HOME", str(tmp_path_factory.mktemp("ray-home")))
    patch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    env = dict(os.environ)
    started = subprocess.run(
        [
            str(RAY),
            "start",
            "--head",
            "--node-ip-address",
            "127.0.0.1",
            "--port",
            str(port),
            "--num-cpus",
            "2",
            "--include-dashboard",
            "false",
            "--disable-usage-stats",
            "--temp-dir",
            str(temp),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        check=False,
    )
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        yield f"127.0.0.1:{port}"
    finally:
        subprocess.run([str(RAY), "stop", "--force"], capture_output=True, timeout=120, check=False)
        shutil.rmtree(temp, ignore_errors=True)
        patch.undo()


def figures(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The report without the time per move (the one figure that depends on where the
    bots ran)."""
    assert result.returncode == 0, result.stderr[-3000:]
    report: dict[str, Any] = json.loads(result.stdout)
    assert report["sets_counted"] == report["count"]
    for stats in report["bots"].values():
        assert stats.pop("ms_per_move") > 0
    return report


@pytest.mark.slow
def test_ray_prints_the_figures_of_jobs(cluster: str) -> None:
    common = ("arena", "--bots", "rule,random,rule,random", "--deals", "6", "--seed", "7")
    on_ray = king(*common, "--ray", cluster, "--json")
    in_processes = king(*common, "--jobs", "2", "--json")
    assert figures(on_ray) == figures(in_processes)
    games = ("arena", "--bots", "rule,random,random,random", "--games", "2", "--seed", "3")
    assert figures(king(*games, "--ray", cluster, "--json")) == figures(
        king(*games, "--jobs", "2", "--json")
    )


def test_a_missing_cluster_or_a_bad_address_is_one_line() -> None:
    port = free_port()
    absent = king(
        "arena",
        "--bots",
        "rule,rule,rule,rule",
        "--deals",
        "1",
        "--ray",
        f"127.0.0.1:{port}",
        timeout=60,
    )
    assert absent.returncode == 1
    assert f"nothing answers at 127.0.0.1:{port}" in absent.stderr
    assert "Traceback" not in absent.stderr
    bad = king("arena", "--bots", "rule,rule,rule,rule", "--deals", "1", "--ray", "nonsense")
    assert bad.returncode == 1 and "--ray takes auto or HOST:PORT" in bad.stderr
    both = king(
        "arena", "--bots", "rule,rule,rule,rule", "--deals", "1", "--ray", "auto", "--jobs", "2"
    )
    assert both.returncode == 2 and "not both" in both.stderr


SELF_PLAY = """
import sys
from functools import partial

import numpy as np

from king.training import generate
from king.cluster import ray_map

here = generate(90, seed=5, budget=0.005, chunk=40)
on_ray = partial(ray_map, address=sys.argv[1])
there = generate(90, seed=5, budget=0.005, chunk=40, map_chunks=on_ray)
for name in ("x", "legal", "values", "contract", "errors"):
    assert np.array_equal(getattr(here, name), getattr(there, name), equal_nan=True), name
print("same", len(here))
"""


@pytest.mark.slow
def test_self_play_data_made_on_the_cluster_are_the_data_made_here(cluster: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", SELF_PLAY, cluster],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["same", "90"]


STOPPING = """
import sys
import time

import ray

from king.cluster import ray_map

address = sys.argv[1]


def negate(number):
    return -number


def nap(seconds):
    time.sleep(seconds)


# Read to the end many times: no finished task may be cancelled (a race inside Ray
# that aborts the driver when it is).
for round in range(40):
    assert list(ray_map(negate, [(-n,) for n in range(8)], address)) == list(range(8))
# Stop early: the two sleeping tasks are cancelled and their CPUs come back.
results = ray_map(nap, [(0,), (120,), (120,)], address)
assert next(results) is None
time.sleep(1)
assert ray.available_resources().get("CPU", 0) < 2
results.close()
deadline = time.monotonic() + 30
while ray.available_resources().get("CPU", 0) < 2:
    assert time.monotonic() < deadline, ray.available_resources()
    time.sleep(0.2)
print("freed")
"""


@pytest.mark.slow
def test_a_map_read_to_its_end_cancels_nothing_and_one_stopped_early_frees_the_cluster(
    cluster: str,
) -> None:
    result = subprocess.run(
        [sys.executable, "-c", STOPPING, cluster],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["freed"]
