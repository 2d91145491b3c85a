"""The fixtures every test may ask for (a browser, the real PostgreSQL and Redis, a
database of each backend, three server processes) and the markers given by what a test
asks for: ``browser``, ``postgres``, ``cluster``, and ``slow`` for a test's PostgreSQL
run (the SQLite one is the inner loop's).  Helpers live in :mod:`tests.support`."""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from king.server.store.event_log import Database
from tests.support import ROOT
from tests.support.machine import as_if_alone, note_worker, run_folder
from tests.support.pages import CHROMIUM, CHROMIUM_ARGS
from tests.support.services import Cluster, start_cluster

# Hypothesis: the examples each test asks for, drawn from a fixed seed in CI (a run is
# repeatable: a failure seen there is seen again with the same command), afresh at
# a developer's desk.  HYPOTHESIS_PROFILE chooses.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile(
    "dev", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

#: The fixtures whose parameter is a backend of the event log.
_BACKEND_FIXTURES = ("database", "module_database", "databases")


#: Where each folder's files come in a run, the first first: the long files (the pages,
#: the terminal) early, so that the workers finish together, then the rest; the
#: server's (which time takeovers and latencies) and the engine's later.  Folders not
#: named, and the files at the top, come in between.  (xdist keeps this order with
#: ``--no-loadscope-reorder``: pyproject.toml's addopts.)  A test marked ``alone`` (the
#: fault run; the first minute's, whose server answers within half a second while Expert
#: gets ready) comes just before the bots', at :data:`ALONE_PLACE`: its neighbours
#: meanwhile are then the engine's tests, which keep no times of their own.
_FOLDER_ORDER = {"scripts": 0, "web": 1, "tui": 2, "server": 6, "arena": 7, "cli": 8, "bots": 9}
ALONE_PLACE = 8.5


#: The folders of a person's own data that a run replaces with its own: nothing a test
#: does may read or write the person's saved games, settings, caches or databases.
OWN_FOLDERS = {
    "HOME": "",
    "XDG_DATA_HOME": ".local/share",
    "XDG_CONFIG_HOME": ".config",
    "XDG_CACHE_HOME": ".cache",
    "XDG_STATE_HOME": ".local/state",
}
_OWN_HOME = pytest.StashKey[Path]()


def _own_home(config: pytest.Config) -> None:
    """Give the run a HOME and XDG folders of its own, in a temporary folder removed at
    its end (the xdist workers inherit them).  The person's ``king play`` game, ``king``
    database and settings are then out of every test's reach, whatever it calls."""
    home = Path(tempfile.mkdtemp(prefix="king-test-home-"))
    config.stash[_OWN_HOME] = home
    for name, below in OWN_FOLDERS.items():
        folder = home / below
        folder.mkdir(parents=True, exist_ok=True)
        os.environ[name] = str(folder)


#: Tests that need a researcher's libraries (torch, stable-baselines3, Tianshou,
#: onnxruntime): collected only with ``--research`` (``.ci/research`` installs them).
RESEARCH = ROOT / "tests" / "research"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--research",
        action="store_true",
        help="also collect tests/research (pip install -e '.[test,research]' first)",
    )


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Leave tests/research out unless ``--research`` is given."""
    if collection_path.is_relative_to(RESEARCH) and not config.getoption("--research"):
        return True
    return None


def pytest_configure(config: pytest.Config) -> None:
    """The run's first process (not an xdist worker) gives the run a home of its own."""
    if hasattr(config, "workerinput"):
        return
    _own_home(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the run's home."""
    home = config.stash.get(_OWN_HOME, None)
    if home is not None:
        shutil.rmtree(home, ignore_errors=True)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pyproject.toml's addopts): a worker per core and one more.  About a
    tenth of a run waits (a server starting, a socket, a page's timers) with a core idle:
    the extra worker's tests run then.  PYTEST_XDIST_AUTO_NUM_WORKERS still decides."""
    given = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "").strip()
    if given:
        if not given.isdigit() or int(given) < 1:
            raise pytest.UsageError(
                f"PYTEST_XDIST_AUTO_NUM_WORKERS={given!r}: give a count of 1 or more"
            )
        return int(given)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) + 1


#: A test that takes longer than this (seconds of its call, in the inner loop's run) is
#: ``slow``: the inner loop (``pytest -m "not slow"``) leaves it out.  That run's summary
#: names any that is not marked so (a list to act on, never a failure: times vary with
#: the machine; in a whole run, beside the long tests, every call takes longer).
SLOW_AFTER = 5.0


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Note a test's call that took longer than :data:`SLOW_AFTER` unmarked."""
    if report.when == "call" and report.duration > SLOW_AFTER and "slow" not in report.keywords:
        _SLOW_SEEN.append((report.duration, report.nodeid))


_SLOW_SEEN: list[tuple[float, str]] = []


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Name the tests that took longer than :data:`SLOW_AFTER` and are not ``slow``, in
    a run that leaves the slow ones out."""
    if _SLOW_SEEN and "not slow" in (terminalreporter.config.option.markexpr or ""):
        terminalreporter.section("slow tests not marked slow")
        for seconds, nodeid in sorted(_SLOW_SEEN, reverse=True):
            terminalreporter.write_line(f"{seconds:7.2f}s {nodeid}")


def _order(item: pytest.Item) -> tuple[float, str]:
    if item.get_closest_marker("alone") is not None:
        return (ALONE_PLACE, str(item.path))
    parts = Path(str(item.path)).relative_to(ROOT / "tests").parts
    place = _FOLDER_ORDER.get(parts[0], 5) if len(parts) > 1 else 5
    return (place, str(item.path))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Order the files (:data:`_FOLDER_ORDER`; a file's tests keep their order) and mark
    each test by what it asks for (pyproject.toml lists the markers)."""
    items.sort(key=_order)
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        params = getattr(getattr(item, "callspec", None), "params", {})
        on_postgres = any(params.get(name) == "postgresql" for name in _BACKEND_FIXTURES)
        if "browser" in names:
            item.add_marker(pytest.mark.browser)
        if on_postgres or "postgres_server" in names:
            item.add_marker(pytest.mark.postgres)
        if on_postgres:
            item.add_marker(pytest.mark.slow)  # the same test ran on SQLite
        if names & {"cluster", "redis_server"}:
            item.add_marker(pytest.mark.cluster)


@pytest.fixture(autouse=True)
def _share_the_machine(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """Every test shares the machine with the other workers' tests; while one marked
    ``alone`` runs, theirs run at the lowest priority (:mod:`tests.support.machine`)."""
    folder = run_folder(tmp_path_factory.getbasetemp())
    note_worker(folder)
    if request.node.get_closest_marker("alone") is None:
        yield
        return
    with as_if_alone(folder):
        yield


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian's Chromium through Playwright, with a throwaway HOME; one per test module."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        if os.environ.get("CI"):  # CI installs it (.ci/run): a skip there would hide a failure
            pytest.fail("Debian's chromium is missing: apt-get install -y chromium")
        pytest.skip("Debian's chromium is missing: apt-get install -y chromium")
    home = tmp_path_factory.mktemp("home")
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            env={**os.environ, "HOME": str(home)},
        )
        yield chromium
        chromium.close()


#: The event log's backends: every server test runs against each.
BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    """One real PostgreSQL server for the whole run (a fresh database per test)."""
    from benchmarks.backends import PostgresServer, ServiceMissingError

    try:
        server = PostgresServer().start()
    except ServiceMissingError as error:
        pytest.fail(str(error))  # CI installs it (.ci/run); never a skip
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[Any]:
    """One real Redis for the whole run (tests keep apart by their own key prefixes or
    their own databases)."""
    from benchmarks.backends import RedisServer, ServiceMissingError

    try:
        server = RedisServer().start()
    except ServiceMissingError as error:
        pytest.fail(str(error))  # CI installs it (.ci/run); never a skip
    yield server
    server.stop()


def _database(request: pytest.FixtureRequest, folder: Path) -> Database:
    if request.param == "sqlite":
        return folder / "king.db"
    address: str = request.getfixturevalue("postgres_server").create_database()
    return address


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Database:
    """An empty database for one test: a SQLite file, or a new PostgreSQL database."""
    return _database(request, tmp_path)


@pytest.fixture(scope="module", params=BACKENDS)
def module_database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Database:
    """An empty database for one test module, in each backend."""
    return _database(request, tmp_path_factory.mktemp("db"))


@pytest.fixture(params=BACKENDS)
def databases(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Database]:
    """Makes empty databases of one backend, for a test that needs several."""
    made = itertools.count()

    def make() -> Database:
        if request.param == "sqlite":
            return tmp_path / f"king-{next(made)}.db"
        address: str = request.getfixturevalue("postgres_server").create_database()
        return address

    return make


@pytest.fixture
def cluster(postgres_server: Any, redis_server: Any) -> Iterator[Cluster]:
    """Three server processes sharing tables (each test its own database and Redis)."""
    yield from start_cluster(postgres_server, redis_server)
