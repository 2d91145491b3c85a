"""The compiled search bot's cache: processes that start together on a cache that lacks
an entry point (a fresh install, a change of the kernels) compile it once between them,
the others waiting and then loading what the first one cached."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from king.bots import compiled

#: The entry point taken out of the cache: the quickest to compile again.
DROPPED = "worlds.sample_worlds-*"


def waiting_for(lock: Path) -> set[int]:
    """The processes waiting for an flock on ``lock`` (Linux's ``/proc/locks``: a
    waiter's line reads ``N: -> FLOCK ADVISORY WRITE pid major:minor:inode 0 EOF``)."""
    inode = lock.stat().st_ino
    waiting = set()
    for line in Path("/proc/locks").read_text(encoding="ascii").splitlines():
        fields = line.split()
        if "->" not in fields:
            continue
        kind, _, _, pid, where = fields[fields.index("->") + 1 :][:5]
        if kind == "FLOCK" and int(where.rsplit(":", 1)[1]) == inode:
            waiting.add(int(pid))
    return waiting


def test_two_processes_warming_up_at_once_compile_once(tmp_path: Path) -> None:
    compiled.warm_up()  # the run's shared cache, ready
    shared = Path(compiled.CACHE)
    own = tmp_path / "numba" / shared.name
    shutil.copytree(shared, own, ignore=shutil.ignore_patterns("*.lock"))
    dropped = list(own.glob(f"*/{DROPPED}"))
    assert dropped
    for path in dropped:
        path.unlink()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "NUMBA_DEBUG_CACHE": "1"}
    code = "from king.bots import compiled; compiled.warm_up()"
    lock = own / "compiling.lock"
    with lock.open("a", encoding="utf-8") as held:
        # This test holds the lock, as a third process compiling would: both children
        # must queue for it, rather than compile side by side.
        fcntl.flock(held, fcntl.LOCK_EX)
        children = [
            subprocess.Popen(
                [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True
            )
            for _ in range(2)
        ]
        deadline = time.monotonic() + 60
        while waiting_for(lock) != {child.pid for child in children}:
            assert all(child.poll() is None for child in children), "a child did not wait"
            assert time.monotonic() < deadline, "the children did not queue for the lock"
            time.sleep(0.05)
    logs = [child.communicate(timeout=120)[0] for child in children]
    assert [child.returncode for child in children] == [0, 0]
    saved = [
        sum("data saved to" in line and "sample_worlds" in line for line in log.splitlines())
        for log in logs
    ]
    loaded = [
        any("data loaded from" in line and "sample_worlds" in line for line in log.splitlines())
        for log in logs
    ]
    # One compiled and cached it; the other, once the lock was its, loaded that.
    assert sorted(saved) == [0, 1], logs
    assert loaded[saved.index(0)] and not loaded[saved.index(1)], logs
    assert list(own.glob("*/worlds.sample_worlds-*.nbi"))
