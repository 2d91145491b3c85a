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
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from king.table.protocol import PROTOCOL_VERSION

__all__ = [
    "CONTENT_POLICY",
    "OFFLINE_MODULES",
    "SERVER",
    "Layout",
    "build",
    "bundle",
    "integrity",
    "manifest",
    "page_text",
    "runtime_digest",
    "service_worker",
]

_KING = Path(str(resources.files("king")))
WEB_DIR = _KING / "web"


def page_text(name: str, language: str = "en") -> str:
    """A page as it is served (by the server or a static site): its ``<html>`` names its
    language and the table protocol's version, which the page's scripts speak (read
    from there: the version is written once, in :mod:`king.table.protocol`)."""
    text = (WEB_DIR / name).read_text(encoding="utf-8")
    marked = f'<html lang="{language}" data-protocol="{PROTOCOL_VERSION}">'
    return text.replace('<html lang="en">', marked, 1)


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
    "phase.py",
    "record.py",
    "rules.py",
    "table/__init__.py",
    "table/answers.py",
    "table/messages.py",
    "table/moves.py",
    "table/protocol.py",
    "table/reading.py",
    "table/rules.py",
    "table/session.py",
    "texts.py",
    "view.py",
    "bots/__init__.py",
    "bots/analysis.py",
    "bots/arrays.py",
    "bots/engine/__init__.py",
    "bots/engine/browser.py",
    "bots/engine/engine.wasm",
    "bots/engine/engine.wasm.sha256",
    "bots/engine/refusals.py",
    "bots/engine/steps.py",
    "bots/levels.py",
    "bots/plain_arrays.py",
    "bots/position.py",
    "bots/protocol.py",
    "bots/random_bot.py",
    "bots/registry.py",
    "bots/rule/__init__.py",
    "bots/rule/bot.py",
    "bots/rule/declare.py",
    "bots/rule/play.py",
    "bots/search/__init__.py",
    "bots/search/bot.py",
    "bots/search/sampler.py",
    "offline/__init__.py",
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


#: The pages' content security policy: their own scripts (and WebAssembly compiled from
#: their own files), their own styles and images, and no other origin to connect to.
CONTENT_POLICY = (
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; "
    "script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; "
    "connect-src 'self'; base-uri 'none'"
)


@cache
def runtime_digest() -> str:
    """A digest of Pyodide's files (12 hex digits): a static site's folder of them is
    named by it, the same from one build to the next while Pyodide is the same."""
    digest = hashlib.sha256()
    for name in RUNTIME:
        digest.update(name.encode())
        digest.update(hashlib.sha256((WEB_DIR / "pyodide" / name).read_bytes()).digest())
    return digest.hexdigest()[:12]


@dataclass(frozen=True)
class Layout:
    """Where a browser finds the offline game's files: at a King server (the pages at
    the root beside its API, the default), or in the static site ``king site`` writes
    (at ``root``, its scripts and styles in a folder named by the build, Pyodide's in
    one named by its digest, the catalogs as files: :mod:`king.server.site.static`)."""

    root: str = "/"
    static: bool = False

    @property
    def assets(self) -> str:
        """The folder of the scripts, styles, fonts and images."""
        return f"{self.root}static/{build()}/" if self.static else "/static/"

    @property
    def runtime(self) -> str:
        """Pyodide's folder."""
        if self.static:
            return f"{self.root}static/pyodide-{runtime_digest()}/"
        return "/static/pyodide/"

    @property
    def pages(self) -> tuple[str, ...]:
        """The pages a browser keeps (the table page serves the offline game)."""
        if self.static:
            return (self.root, f"{self.root}offline.html", f"{self.root}board.html")
        return ("/", "/offline", "/board")

    @property
    def bundle(self) -> str:
        """The game's Python."""
        return f"{self.root}offline/king-{build()}.zip"

    def catalog(self, code: str) -> str:
        """The page's words in the language ``code``."""
        return f"{self.assets}i18n/{code}.json" if self.static else f"/api/i18n?lang={code}"


#: The server's layout.
SERVER = Layout()


def integrity(layout: Layout = SERVER) -> dict[str, str]:
    """The SHA-256 (hex) of every file the package ships that a browser keeps, by its
    address: the pages' small files, Pyodide's and the game's Python.  The service
    worker keeps a copy only if it is that file (the server's pages and catalogs, which
    it writes for each language, are not shipped files; a static site adds its own)."""
    return dict(_integrity(layout))


@cache
def _integrity(layout: Layout) -> tuple[tuple[str, str], ...]:
    files = {f"{layout.assets}{p.relative_to(WEB_DIR).as_posix()}": p for p in _shell_files()}
    files |= {f"{layout.runtime}{name}": WEB_DIR / "pyodide" / name for name in RUNTIME}
    digests = {url: hashlib.sha256(path.read_bytes()).hexdigest() for url, path in files.items()}
    digests[layout.bundle] = hashlib.sha256(bundle()).hexdigest()
    return tuple(digests.items())


def manifest(
    languages: list[str], layout: Layout = SERVER, own: dict[str, str] | None = None
) -> dict[str, object]:
    """What a browser keeps to play offline: the small files (kept on the first visit)
    and the large ones (kept when the person asks, or at once on a static site), with
    the build they belong to, where the site lives, and each shipped file's digest
    (``own``: the digests of a static site's own files, its pages and catalogs)."""
    shell = [f"{layout.assets}{p.relative_to(WEB_DIR).as_posix()}" for p in _shell_files()]
    strings = [layout.catalog(code) for code in languages]
    if layout.static:
        strings.append(f"{layout.assets}levels.json")  # the home screen's levels
    large = [f"{layout.runtime}{name}" for name in RUNTIME]
    large.append(layout.bundle)
    size = sum((WEB_DIR / "pyodide" / name).stat().st_size for name in RUNTIME) + len(bundle())
    return {
        "build": build(),
        "site": "static" if layout.static else "server",
        "root": layout.root,
        "pages": list(layout.pages),
        "runtime": layout.runtime,
        "shell": [*layout.pages, *shell, *strings],
        "large": large,
        "large_bytes": size,
        "bundle": layout.bundle,
        "integrity": integrity(layout) | (own or {}),
    }


def service_worker(
    languages: list[str], layout: Layout = SERVER, own: dict[str, str] | None = None
) -> str:
    """The service worker's script, with this build's manifest written into it (a new
    build is a new script, which is how a browser learns of it)."""
    template = (WEB_DIR / "js" / "offline" / "service_worker.js").read_text(encoding="utf-8")
    text = json.dumps(manifest(languages, layout, own), sort_keys=True)
    return template.replace("__MANIFEST__", text, 1)
