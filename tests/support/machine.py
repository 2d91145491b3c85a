"""The machine shared by the run's xdist workers, and a test that needs it as if alone.

A test marked ``alone`` measures times (the shared tables' fault run: every table moves
again within 3 s of a fault, on two cores under its own load).  The other workers' tests
go on meanwhile, every process of theirs at the lowest priority (nice 19): the scheduler
gives them only the CPU the ``alone`` test leaves, and no core stands idle while it runs.
Each worker notes its process id in the run's folder; the ``alone`` test lowers the
others' process trees, thread by thread (Linux keeps a priority per thread), and again
every half second while it runs, so that a process started meanwhile is caught too.
Afterwards every thread lowered gets its priority back where the run may raise one (as
root, CI's case); where it may not, the ``alone`` test's own worker lowers itself as
well, and the run goes on with every worker at one priority."""

from __future__ import annotations

import fcntl
import functools
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: The priority the other workers' processes get while an ``alone`` test runs.
LOWEST = 19
#: How often the other workers' processes are looked for again meanwhile (seconds).
AGAIN_EVERY = 0.5
#: The lock an ``alone`` block holds, in the run's folder.
ALONE_LOCK = "alone.lock"


def run_folder(base: Path) -> Path:
    """The folder every worker of the run shares, from a worker's ``getbasetemp()``."""
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@functools.cache
def note_worker(folder: Path) -> None:
    """Note this worker's process id in the run's ``folder`` (once a process)."""
    workers = folder / "workers"
    workers.mkdir(exist_ok=True)
    (workers / str(os.getpid())).touch()


def _workers(folder: Path) -> list[int]:
    return [int(p.name) for p in (folder / "workers").glob("*") if p.name.isdigit()]


def _children() -> dict[int, list[int]]:
    """Every process's children, from /proc (none known on a system without it: there
    the workers share the machine as they are)."""
    children: dict[int, list[int]] = {}
    if not os.path.isdir("/proc"):
        return children
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        parent = int(stat[stat.rfind(")") + 2 :].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    return children


def _tree(root: int, children: dict[int, list[int]]) -> Iterator[int]:
    stack = [root]
    while stack:
        pid = stack.pop()
        yield pid
        stack.extend(children.get(pid, ()))


def _threads(roots: list[int]) -> Iterator[int]:
    """Every thread of the process trees under ``roots``."""
    children = _children()
    for root in roots:
        for pid in _tree(root, children):
            try:
                yield from (int(t) for t in os.listdir(f"/proc/{pid}/task"))
            except OSError:
                continue  # ended meanwhile


def lower(roots: list[int], before: dict[int, int]) -> None:
    """Give every thread of the process trees under ``roots`` the lowest priority,
    noting in ``before`` the priority each had (or inherited) first."""
    for thread in _threads(roots):
        try:
            now = os.getpriority(os.PRIO_PROCESS, thread)
            if now < LOWEST:
                before.setdefault(thread, now)
                os.setpriority(os.PRIO_PROCESS, thread, LOWEST)
        except OSError:
            continue  # ended meanwhile, or not ours to change


def _restore(roots: list[int], before: dict[int, int], usual: int) -> bool:
    """Give the threads under ``roots`` their priorities back (``usual`` to those
    started meanwhile); False where the run may not raise a priority."""
    for thread in _threads(roots):
        try:
            os.setpriority(os.PRIO_PROCESS, thread, before.get(thread, usual))
        except PermissionError:
            return False
        except OSError:
            continue  # ended meanwhile
    return True


@contextmanager
def as_if_alone(folder: Path, me: int | None = None) -> Iterator[None]:
    """Run the block with the workers noted in ``folder`` but ``me`` (this process)
    at the lowest priority; afterwards theirs back, or, where the run may not raise a
    priority, ``me`` lowered too.  One such block at a time in a run."""
    me = os.getpid() if me is None else me
    with (folder / ALONE_LOCK).open("a") as gate:
        fcntl.flock(gate, fcntl.LOCK_EX)
        usual = os.getpriority(os.PRIO_PROCESS, me)
        before: dict[int, int] = {}
        done = threading.Event()

        def others() -> list[int]:
            return [pid for pid in _workers(folder) if pid != me]

        def keep_others_low() -> None:
            while not done.wait(AGAIN_EVERY):
                lower(others(), before)

        lower(others(), before)

        watcher = threading.Thread(target=keep_others_low, daemon=True)
        watcher.start()
        try:
            yield
        finally:
            done.set()
            watcher.join()
            if not _restore(others(), before, usual):
                lower([me], {})


@contextmanager
def apart_from_alone(folder: Path) -> Iterator[None]:
    """Run the block while no ``alone`` block of the run does (for a test that sets
    priorities of its own)."""
    with (folder / ALONE_LOCK).open("a") as gate:
        fcntl.flock(gate, fcntl.LOCK_SH)
        yield
