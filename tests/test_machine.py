"""The run's workers share the machine: while a test marked ``alone`` runs, every
process of the other workers, those they start meanwhile included, runs at the lowest
priority, and the ``alone`` worker's own processes keep theirs; afterwards the others
get theirs back where the run may raise a priority (as root), and otherwise the
``alone`` worker's go down to theirs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.machine import (
    AGAIN_EVERY,
    LOWEST,
    apart_from_alone,
    as_if_alone,
    run_folder,
)

#: A worker stand-in: a process with a child of its own, and a second child started
#: when the file it is given appears.
WORKER = """
import os, subprocess, sys, time
from pathlib import Path
first = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
print(first.pid, flush=True)
go = Path(sys.argv[1])
while not go.exists():
    time.sleep(0.05)
second = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
print(second.pid, flush=True)
time.sleep(60)
"""


def _niceness(pid: int) -> set[int]:
    return {os.getpriority(os.PRIO_PROCESS, int(t)) for t in os.listdir(f"/proc/{pid}/task")}


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[list[subprocess.Popen[str]]]:
    started = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(tmp_path / f"go{n}")],
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    (tmp_path / "workers").mkdir()
    for worker in started:
        (tmp_path / "workers" / str(worker.pid)).touch()
    yield started
    for worker in started:
        worker.kill()
        worker.wait()


def test_the_others_run_lowest_while_an_alone_test_runs_and_it_after(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, workers: list[subprocess.Popen[str]]
) -> None:
    # Not beside the run's own alone test, which would lower this worker meanwhile.
    with apart_from_alone(run_folder(tmp_path_factory.getbasetemp())):
        _lowered_and_given_back(tmp_path, workers)


def _lowered_and_given_back(tmp_path: Path, workers: list[subprocess.Popen[str]]) -> None:
    other, alone = workers
    assert other.stdout is not None and alone.stdout is not None
    others_child, alones_child = int(other.stdout.readline()), int(alone.stdout.readline())
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    assert mine < LOWEST, (
        "this worker runs at the lowest priority already (an alone test ran before this"
        " one in the run, not as root): run this test on its own"
    )
    with as_if_alone(tmp_path, me=alone.pid):
        assert _niceness(other.pid) == {LOWEST}
        assert _niceness(others_child) == {LOWEST}
        assert LOWEST not in _niceness(alone.pid) | _niceness(alones_child)
        # A process the other worker starts meanwhile runs at the lowest priority too.
        (tmp_path / "go0").touch()
        started = int(other.stdout.readline())
        time.sleep(AGAIN_EVERY * 2)
        assert _niceness(started) == {LOWEST}
        assert LOWEST not in _niceness(alone.pid)
    if os.geteuid() == 0:  # the priorities given back, the one started meanwhile's too
        for pid in (other.pid, others_child, started, alone.pid, alones_child):
            assert _niceness(pid) == {mine}, pid
    else:  # every worker at one priority
        for pid in (other.pid, others_child, started, alone.pid, alones_child):
            assert _niceness(pid) == {LOWEST}, pid
    assert os.getpriority(os.PRIO_PROCESS, 0) == mine  # this process was no worker named
