"""What the server hands a browser so that the game plays on without it: the Python
the page's Web Worker runs (a zip of the core, the bots that need no engine and the
offline table), the service worker that keeps the files, and the build they belong to.

The *build* is a digest of everything the offline game is made of (the pages' files,
the vendored Pyodide, the Python bundle), so that a browser knows when a newer version
is served; it names the service worker's caches and the bundle's address.  Pyodide's
files are served from ``/static/pyodide/`` like every other asset (docs/offline.md).
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from functools import cache
from importlib import resources
from pathlib import Path

__all__ = [
    "OFFLINE_MODULES",
    "build",
    "bundle",
    "integrity",
    "manifest",
    "service_worker",
]

_KING = Path(str(resources.files("king")))
WEB_DIR = _KING / "web"

#: The modules of the ``king`` package that the page's worker imports (the offline table
#: and all it needs; ``tests/server/test_offline_bundle.py`` imports it from this list
#: alone, with no numpy and no site-packages).
OFFLINE_MODULES = (
    "__init__.py",
    "board.py",
    "cards.py",
    "deal.py",
    "errors.py",
    "events.py",
    "game.py",
    "jsontext.py",
    "messages.py",
    "phase.py",
    "record.py",
    "rules.py",
    "table_rules.py",
    "texts.py",
    "view.py",
    "bots/__init__.py",
    "bots/analysis.py",
    "bots/arrays.py",
    "bots/base.py",
    "bots/engine/__init__.py",
    "bots/engine/browser.py",
    "bots/engine/engine.wasm",
    "bots/engine/engine.wasm.sha256",
    "bots/engine/refusals.py",
    "bots/engine/steps.py",
    "bots/levels.py",
    "bots/plain_arrays.py",
    "bots/position.py",
    "bots/random_bot.py",
    "bots/rule.py",
    "bots/rule_declare.py",
    "bots/rule_play.py",
    "bots/sampler.py",
    "bots/search.py",
    "offline/__init__.py",
    "offline/requests.py",
    "offline/saved.py",
    "offline/table.py",
)
#: Pyodide's files, which the worker loads (the large part of an offline install).
RUNTIME = (
    "pyodide.mjs",
    "pyodide.asm.js",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
#: The pages a browser keeps for offline use (the table page serves the offline game).
PAGES = ("/", "/offline", "/board")
#: The zip's entries carry this date, so that the same sources give the same bytes.
_EPOCH = (2020, 1, 1, 0, 0, 0)


@cache
def bundle() -> bytes:
    """The zip of :data:`OFFLINE_MODULES` under ``king/`` (the worker unpacks it onto
    its ``sys.path``), byte for byte the same for the same sources."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in OFFLINE_MODULES:
            entry = zipfile.ZipInfo(f"king/{name}", _EPOCH)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, (_KING / name).read_bytes())
    return out.getvalue()


def _shell_files() -> list[Path]:
    """The pages' small files: scripts, styles, fonts, card faces, icons (no pages,
    which are kept at their own addresses, and not Pyodide)."""
    return sorted(
        path
        for path in WEB_DIR.rglob("*")
        if path.is_file()
        and path.suffix not in (".html", ".htm")
        and "pyodide" not in path.relative_to(WEB_DIR).parts
    )


@cache
def build() -> str:
    """The digest that names this version of the offline game (16 hex digits)."""
    digest = hashlib.sha256(bundle())
    for path in sorted(WEB_DIR.rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(WEB_DIR).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@cache
def integrity() -> dict[str, str]:
    """The SHA-256 (hex) of every file the package ships that a browser keeps, by its
    address: the pages' small files, Pyodide's and the game's Python.  The service
    worker keeps a copy only if it is that file (the pages and the catalogs, which the
    server writes for each language, are not shipped files)."""
    files = {f"/static/{p.relative_to(WEB_DIR).as_posix()}": p for p in _shell_files()}
    files |= {f"/static/pyodide/{name}": WEB_DIR / "pyodide" / name for name in RUNTIME}
    digests = {url: hashlib.sha256(path.read_bytes()).hexdigest() for url, path in files.items()}
    digests[f"/offline/king-{build()}.zip"] = hashlib.sha256(bundle()).hexdigest()
    return digests


def manifest(languages: list[str]) -> dict[str, object]:
    """What a browser keeps to play offline: the small files (kept on the first visit)
    and the large ones (kept when the person asks), with the build they belong to and
    each shipped file's digest."""
    shell = [f"/static/{p.relative_to(WEB_DIR).as_posix()}" for p in _shell_files()]
    strings = [f"/api/i18n?lang={code}" for code in languages]
    large = [f"/static/pyodide/{name}" for name in RUNTIME]
    large.append(f"/offline/king-{build()}.zip")
    size = sum((WEB_DIR / "pyodide" / name).stat().st_size for name in RUNTIME) + len(bundle())
    return {
        "build": build(),
        "shell": [*PAGES, *shell, *strings],
        "large": large,
        "large_bytes": size,
        "bundle": f"/offline/king-{build()}.zip",
        "integrity": integrity(),
    }


def service_worker(languages: list[str]) -> str:
    """The service worker's script, with this build's manifest written into it (a new
    build is a new script, which is how a browser learns of it)."""
    template = (WEB_DIR / "js" / "offline" / "service_worker.js").read_text(encoding="utf-8")
    return template.replace("__MANIFEST__", json.dumps(manifest(languages)), 1)
