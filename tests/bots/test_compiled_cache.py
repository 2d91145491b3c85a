"""The compiled search bot's cache: processes that start together on a cache that lacks
an entry point (a fresh install, a change of the kernels) compile it once between them,
the others waiting and then loading what the first one cached."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from king.bots import compiled

#: Compiling this entry point alone takes seconds (the others stay in the cache).
DROPPED = "compiled.rule_declaration_values-*"


def cpu_seconds(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


@pytest.mark.slow
def test_two_processes_warming_up_at_once_compile_once(tmp_path: Path) -> None:
    compiled.warm_up()  # the run's shared cache, ready
    shared = Path(compiled.CACHE)
    own = tmp_path / "numba" / shared.name
    shutil.copytree(shared, own, ignore=shutil.ignore_patterns("*.lock"))
    dropped = list(own.glob(f"*/{DROPPED}"))
    assert dropped
    for path in dropped:
        path.unlink()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    code = "from king.bots import compiled; compiled.warm_up()"
    children = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    used = []
    for child in children:
        _, status, usage = os.wait4(child.pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        used.append(cpu_seconds(usage))
    for child in children:
        assert child.stderr is not None
        child.stderr.close()
    # One compiled (seconds of work); the other waited on the lock and loaded its cache.
    assert max(used) > 3 * min(used), used
    assert list(own.glob("*/compiled.rule_declaration_values-*.nbi"))
