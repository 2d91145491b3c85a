"""The phone game as a static site (``king site DIR``): the pages, scripts, styles, cards,
fonts, catalogs, Pyodide and the game's Python as plain files that any web server can
serve (a project page, a bucket, ``python -m http.server``), with no King server behind
them: the home screen, the offline table at every level, Learn King, the analysis board
of a finished game, the manifest and the service worker (docs/offline.md).

The same version and base path give the same bytes.  The scripts, styles and images sit
in ``static/BUILD/`` and Pyodide in ``static/pyodide-DIGEST/``, named by their content, so
that any cache may keep them for good; the pages, ``sw.js``, and
``offline/manifest.json`` keep their names (a browser asks for them again).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from king.bots.levels import LEVELS
from king.errors import KingError
from king.server.site import offline
from king.server.site.languages import language_names, page_messages

__all__ = ["SiteError", "WrittenSite", "check_base_path", "site_files", "write_site"]

#: The static site's pages: its file, and the package's page it is made from.
PAGES = {"index.html": "home.html", "offline.html": "table.html", "board.html": "board.html"}
#: What marks a folder as a site written here (so that it may be written over).
_MARK = "offline/manifest.json"
_SAFE_PATH = re.compile(r"^/(?:[A-Za-z0-9._~-]+/)*$")


class SiteError(KingError, ValueError):
    """Why a site cannot be written (a base path that is no path, a folder in use)."""


@dataclass(frozen=True)
class WrittenSite:
    """What ``write_site`` wrote: where, the build, and its size."""

    folder: Path
    build: str
    files: int
    bytes: int


def check_base_path(base: str) -> str:
    """The base path as the site uses it (``/king/``: a slash at each end), or a
    :class:`SiteError` that says what is wrong with it."""
    path = base.strip() or "/"
    if not path.startswith("/"):
        path = f"/{path}"
    if not path.endswith("/"):
        path = f"{path}/"
    if not _SAFE_PATH.match(path) or "/../" in path or "/./" in path:
        raise SiteError(
            f"the base path {base!r} is not a folder of a web address "
            "(letters, digits, '.', '_', '~' and '-' between slashes, as /king/)"
        )
    return path


def _page(name: str, layout: offline.Layout, languages: list[str]) -> bytes:
    """One page of the site: its addresses under the base path and the build's folder,
    its content security policy, and the mark that tells the scripts where they are."""
    text = offline.page_text(name)
    root = layout.root
    text = text.replace('="/static/', f'="{layout.assets}')
    text = text.replace('href="/offline"', f'href="{root}offline.html"')
    text = text.replace('href="/"', f'href="{root}"')
    left = re.findall(r'(?:href|src)="/(?!/)[^"]*"', text)
    if any(not address.split('"')[1].startswith(root) for address in left):
        raise SiteError(f"{name} names an address the static site does not have: {left}")
    head = (
        f'<meta charset="utf-8">\n  <meta http-equiv="Content-Security-Policy" '
        f'content="{offline.CONTENT_POLICY}">\n'
        f'  <meta name="king-site" content="static" data-root="{root}" '
        f'data-languages="{",".join(languages)}">'
    )
    return text.replace('<meta charset="utf-8">', head, 1).encode()


def _web_manifest(layout: offline.Layout) -> bytes:
    """The web app manifest ("Add to home screen") of the site at its base path."""
    manifest = json.loads((offline.WEB_DIR / "manifest.webmanifest").read_text(encoding="utf-8"))
    manifest |= {"id": layout.root, "start_url": layout.root, "scope": layout.root}
    for icon in manifest["icons"]:
        icon["src"] = icon["src"].replace("/static/", layout.assets, 1)
    return (json.dumps(manifest, ensure_ascii=False, indent=1) + "\n").encode()


def _catalog(code: str, languages: dict[str, str]) -> bytes:
    """A language's words, as the server's ``GET /api/i18n`` answers them."""
    strings = {"language": code, "languages": languages, "messages": page_messages(code)}
    return json.dumps(strings, ensure_ascii=False, sort_keys=True).encode()


def _levels() -> bytes:
    """The five levels with their measured strength against Medium (the home screen's
    choice; a server answers ``GET /api/bots``)."""
    levels = [
        {"name": level.name, "vs_rule": level.vs_rule, "interval": level.interval}
        for level in LEVELS
    ]
    return json.dumps(levels).encode()


def site_files(base: str = "/") -> dict[str, bytes]:
    """Every file of the static site at ``base``, by its path in the site's folder."""
    layout = offline.Layout(root=check_base_path(base), static=True)
    names = language_names()
    codes = list(names)
    assets = layout.assets.removeprefix(layout.root)
    runtime = layout.runtime.removeprefix(layout.root)
    files: dict[str, bytes] = {}
    for path in sorted(offline.WEB_DIR.rglob("*")):
        relative = path.relative_to(offline.WEB_DIR).as_posix()
        if not path.is_file() or path.suffix == ".html" or relative.startswith("pyodide/"):
            continue
        files[f"{assets}{relative}"] = path.read_bytes()
    for path in sorted((offline.WEB_DIR / "pyodide").rglob("*")):
        relative = path.relative_to(offline.WEB_DIR / "pyodide").as_posix()
        if path.is_file() and (relative in offline.RUNTIME or relative.startswith("licences/")):
            files[f"{runtime}{relative}"] = path.read_bytes()
    files[f"{assets}manifest.webmanifest"] = _web_manifest(layout)
    files[f"{assets}levels.json"] = _levels()
    for code in codes:
        files[f"{assets}i18n/{code}.json"] = _catalog(code, names)
    for page, template in PAGES.items():
        files[page] = _page(template, layout, codes)
    files[layout.bundle.removeprefix(layout.root)] = offline.bundle()
    # The digests of the site's own files (the pages, catalogs and what was rewritten
    # for it), beside those of the files the package ships.
    own_files = [*PAGES, f"{assets}manifest.webmanifest", f"{assets}levels.json"]
    own_files += [f"{assets}i18n/{code}.json" for code in codes]
    own = {
        f"{layout.root}{name}".removesuffix("index.html"): hashlib.sha256(files[name]).hexdigest()
        for name in own_files
    }
    manifest = offline.manifest(codes, layout, own)
    files[_MARK] = (json.dumps(manifest, sort_keys=True) + "\n").encode()
    files["sw.js"] = offline.service_worker(codes, layout, own).encode()
    return dict(sorted(files.items()))


def _is_site(folder: Path) -> bool:
    """Whether ``folder`` holds a site written here before."""
    try:
        manifest = json.loads((folder / _MARK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("site") == "static"


def write_site(folder: Path, base: str = "/") -> WrittenSite:
    """Write the static site for ``base`` into ``folder`` (absent, empty, or a site
    written here before, which it replaces whole).  The new site is written beside it
    and put in its place by two renames: a web server serving the folder meanwhile
    answers from the old site or the new, never half of each."""
    files = site_files(base)
    folder = folder.absolute()
    if folder.exists() and not folder.is_dir():
        raise SiteError(f"{folder} is a file, not a folder")
    if folder.exists() and any(folder.iterdir()) and not _is_site(folder):
        raise SiteError(f"{folder} is not empty and holds no King site: give an empty folder")
    folder.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        for name, data in files.items():
            path = fresh / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        for path in [fresh, *fresh.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)  # served to anyone, as a site is
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    old = folder.with_name(f".{folder.name}-old-{os.getpid()}")
    if folder.exists():
        folder.rename(old)
    try:
        fresh.rename(folder)
    except OSError:
        if old.exists():
            old.rename(folder)  # the site as it was
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)
    size = sum(len(data) for data in files.values())
    return WrittenSite(folder, offline.build(), len(files), size)
