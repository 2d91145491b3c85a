"""What the server hands a browser for the offline game: Pyodide's files as vendored
(each the sha256 recorded, a lock file that lists no packages, the licence texts), the
Python bundle (enough to run the offline table with no numpy and no site-packages), the
service worker with its build, and the manifest of what to keep."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from benchmarks.server_process import ServerProcess
from king.server.site import offline

PYODIDE = offline.WEB_DIR / "pyodide"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("offline") / "king.db", bot_pause=0) as process:
        yield process


def test_the_vendored_pyodide_is_the_pinned_one_file_for_file() -> None:
    vendor = json.loads((PYODIDE / "VENDOR.json").read_text(encoding="utf-8"))
    assert vendor["package"] == "pyodide" and vendor["version"] == "0.29.3"
    listed = vendor["sha256"]
    present = {p.relative_to(PYODIDE).as_posix() for p in PYODIDE.rglob("*") if p.is_file()} - {
        "VENDOR.json"
    }
    assert set(listed) == present, "every file is listed, and only those"
    for name, digest in listed.items():
        assert hashlib.sha256((PYODIDE / name).read_bytes()).hexdigest() == digest, name
    for name in offline.RUNTIME:
        assert name in listed


def test_the_lock_file_lists_no_packages_and_the_licences_ship() -> None:
    lock = json.loads((PYODIDE / "pyodide-lock.json").read_text(encoding="utf-8"))
    assert lock["packages"] == {}
    assert lock["info"]["python"].startswith("3.13")
    licences = PYODIDE / "licences"
    assert "Mozilla Public License Version 2.0" in (licences / "MPL-2.0.txt").read_text()
    assert "PYTHON SOFTWARE FOUNDATION LICENSE" in (licences / "CPython-LICENSE.txt").read_text()
    assert "MIT" in (licences / "Emscripten-MIT.txt").read_text()


def test_the_bundle_runs_the_offline_table_alone_with_no_numpy(tmp_path: Path) -> None:
    zipfile.ZipFile(io.BytesIO(offline.bundle())).extractall(tmp_path)
    script = (
        "import sys; sys.modules['numpy'] = None; sys.path.insert(0, sys.argv[1]);"
        "from king.offline.table import OfflineTable;"
        "from king.bots.arrays import PLAIN; assert PLAIN;"
        "t = OfflineTable.new('classic', 1, bots=('random',) * 3, bot_pause=0.0);"
        't.receive(\'{"v": 1, "type": "hello", "token": "t"}\');'
        "[t.advance() for _ in range(60) if t.bot_delay() is not None];"
        "import king; assert king.__file__.startswith(sys.argv[1]), king.__file__;"
        "print(t.seq)"
    )
    # -S: no site-packages (the browser has none), -I: nothing from the environment.
    run = subprocess.run(
        [sys.executable, "-S", "-I", "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) >= 4
    assert offline.bundle() == offline.bundle.__wrapped__(), "the same sources, the same bytes"


def test_the_server_serves_the_worker_its_files_and_a_service_worker_per_build(
    server: ServerProcess,
) -> None:
    manifest = httpx.get(f"{server.url}/offline/manifest.json", timeout=10).json()
    build = manifest["build"]
    assert build == offline.build() and len(build) == 16
    sw = httpx.get(f"{server.url}/sw.js", timeout=10)
    assert sw.status_code == 200 and sw.headers["content-type"].startswith("text/javascript")
    assert f'"build": "{build}"' in sw.text and "__MANIFEST__" not in sw.text
    for address in (*manifest["large"], *manifest["shell"]):
        answer = httpx.get(f"{server.url}{address}", timeout=30)
        assert answer.status_code == 200, address
    wasm = httpx.get(f"{server.url}/static/pyodide/pyodide.asm.wasm", timeout=30)
    assert wasm.headers["content-type"] == "application/wasm"
    assert manifest["large_bytes"] >= sum(
        (PYODIDE / name).stat().st_size for name in offline.RUNTIME
    )
    stale = httpx.get(f"{server.url}/offline/king-0000000000000000.zip", timeout=10)
    assert stale.status_code == 404 and build in stale.text
    page = httpx.get(f"{server.url}/offline", timeout=10)
    assert (
        page.status_code == 200 and "'wasm-unsafe-eval'" in page.headers["content-security-policy"]
    )
