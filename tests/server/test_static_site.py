"""``king site``: the static site's files (tests/web/test_web_site.py plays them in
Chromium).  The same version gives the same bytes; every address a page, the web app
manifest or the service worker names is a file of the site, under its base path; every
digest the service worker checks is the digest of that file; a folder in use is never
written over, a bad base path is refused in words, and nothing is left half-written."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from king.server.site import offline
from king.server.site.static import SiteError, check_base_path, site_files
from tests.support.cli import king_here


def tree(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_the_site_is_the_same_bytes_for_the_same_version_and_is_written_over_whole(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "site"
    done = king_here("site", str(folder), "--base-path", "/king/", "--json")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    before = tree(folder)
    assert figures["files"] == len(before) and figures["build"] == offline.build()
    assert figures["bytes"] == sum((folder / name).stat().st_size for name in before)
    # Written again over itself, as a publisher updates the folder: the same bytes, and
    # nothing left beside it.
    again = king_here("site", str(folder), "--base-path", "/king/")
    assert again.returncode == 0, again.stderr
    assert f"wrote build {offline.build()}" in again.stdout
    assert tree(folder) == before
    assert [p.name for p in tmp_path.iterdir()] == ["site"]
    assert site_files("/king/") == site_files("/king/")


@pytest.mark.parametrize("base", ["/", "/king/", "/games/king/"])
def test_every_address_the_site_names_is_one_of_its_files_under_its_base(base: str) -> None:
    files = site_files(base)
    served = {f"{base}{name}".removesuffix("index.html") for name in files}
    manifest = json.loads(files["offline/manifest.json"])
    assert manifest["site"] == "static" and manifest["root"] == base
    named = [*manifest["shell"], *manifest["large"], manifest["bundle"]]
    assert set(named) <= served, set(named) - served
    # Every digest is the file's own (a service worker keeps nothing else).
    for address, digest in manifest["integrity"].items():
        name = address.removeprefix(base) or "index.html"
        assert hashlib.sha256(files[name]).hexdigest() == digest, address
    assert set(manifest["integrity"]) == set(named), "every kept file is checked"
    # The service worker carries the same manifest.
    worker = files["sw.js"].decode()
    assert f"const MANIFEST = {json.dumps(manifest, sort_keys=True)};" in worker
    # The pages name no address outside the site, and say where they are.
    for page in ("index.html", "offline.html", "board.html"):
        text = files[page].decode()
        for address in re.findall(r'(?:href|src)="(/[^"]*)"', text):
            assert address.split("#")[0] in served, (page, address)
        assert f'name="king-site" content="static" data-root="{base}"' in text
        assert f'http-equiv="Content-Security-Policy" content="{offline.CONTENT_POLICY}"' in text
    app = json.loads(files[f"static/{offline.build()}/manifest.webmanifest"])
    assert app["start_url"] == app["scope"] == app["id"] == base
    assert {icon["src"] for icon in app["icons"]} <= served
    # Named by content: the build's folder, Pyodide's by its digest.
    runtime = f"static/pyodide-{offline.runtime_digest()}/"
    assert {name.split("/")[1] for name in files if name.startswith("static/")} == {
        offline.build(),
        runtime.split("/")[1],
    }
    assert f"{runtime}licences/README.txt" in files


def test_a_folder_in_use_or_a_bad_base_path_is_refused_in_words(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine", encoding="utf-8")
    refused = king_here("site", str(mine))
    assert refused.returncode == 2
    said = f"king: {mine} is not empty and holds no King site: give an empty folder\n"
    assert refused.stderr == said
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    a_file = tmp_path / "file"
    a_file.write_text("x", encoding="utf-8")
    assert king_here("site", str(a_file)).stderr == f"king: {a_file} is a file, not a folder\n"
    for base in ("/a b/", "/../x/", "http://host/king/", "/king/?x"):
        with pytest.raises(SiteError, match="is not a folder of a web address"):
            check_base_path(base)
    assert check_base_path("king") == "/king/" and check_base_path("") == "/"
    bad = king_here("site", str(tmp_path / "new"), "--base-path", "/a b/")
    assert bad.returncode == 2 and "not a folder of a web address" in bad.stderr
    assert not (tmp_path / "new").exists()
