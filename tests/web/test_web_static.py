"""The page's files: everything they load is shipped and served, nothing comes from
another site, the card faces are what the generator draws, and every string the
scripts show is a key of the message catalogs (``king/locales/*/web.json`` and
``game.json``), which the server sends the page in its language."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import httpx
import pytest

from benchmarks.server_process import ServerProcess
from king.bots.levels import LEVELS
from king.cards import DECK
from king.server.http.app import WEB_DIR
from king.server.site import offline
from tests.support.scripts import load_script

faces = load_script("cardfaces").faces


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    db = tmp_path_factory.mktemp("static") / "king.db"
    with ServerProcess(db) as server, httpx.Client(base_url=server.url, timeout=10) as http:
        yield http


def web_files(suffix: str) -> list[Path]:
    return sorted(WEB_DIR.rglob(f"*{suffix}"))


def test_every_file_a_page_loads_is_served(client: httpx.Client) -> None:
    pages = {"/": "index.html", "/t/abcdef": "table.html", "/board": "board.html"}
    for url in pages:
        answer = client.get(url)
        assert answer.status_code == 200
        assert "default-src 'self'" in answer.headers["content-security-policy"]
        for link in re.findall(r'(?:src|href)="([^"]+)"', answer.text):
            if link.startswith("/"):
                assert client.get(link).status_code == 200, link
    for script in web_files(".js"):
        for target in re.findall(r'from "(\.{1,2}/[\w./-]+)"', script.read_text()):
            path = (script.parent / target).resolve()
            assert path.is_file(), (script.name, target)
            address = f"/static/{path.relative_to(WEB_DIR.resolve()).as_posix()}"
            assert client.get(address).status_code == 200, address
        for target in re.findall(r'from "(/static/[\w./-]+)"', script.read_text()):
            assert client.get(target).status_code == 200, (script.name, target)
    for card in [*DECK, "back"]:
        answer = client.get(f"/static/cards/{card}.svg")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("image/svg+xml")
    for stylesheet in web_files(".css"):
        for link in re.findall(r'url\("?(/static/[^")]+)"?\)', stylesheet.read_text()):
            assert client.get(link).status_code == 200, link


def test_nothing_comes_from_another_site() -> None:
    allowed = {"http://www.w3.org/2000/svg"}
    vendored = WEB_DIR / "pyodide"
    for path in WEB_DIR.rglob("*"):
        if vendored in path.parents:
            continue  # Pyodide as pinned (tests/server/test_offline_files.py), below
        # fonts, their licence and the app icons' pixels hold no text to look at
        if path.is_file() and path.suffix not in {".ttf", ".txt", ".png"}:
            for url in re.findall(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s\"')]*", path.read_text()):
                assert url in allowed, (path.name, url)


def test_pyodide_is_told_to_load_everything_from_the_page_s_own_server() -> None:
    """Pyodide's loader names a CDN as its default; the offline worker gives it the page's
    own addresses for everything (the browser test sees every request go there)."""
    loader = (WEB_DIR / "pyodide" / "pyodide.mjs").read_text(encoding="utf-8")
    found = set(re.findall(r"https?://[\w./-]+", loader))
    assert found == {"https://cdn.jsdelivr.net/pyodide/v"}, found
    worker = (WEB_DIR / "js" / "offline" / "worker.js").read_text(encoding="utf-8")
    assert "import(`${manifest.runtime}pyodide.mjs`)" in worker
    assert "indexURL: manifest.runtime," in worker
    assert "lockFileURL: `${manifest.runtime}pyodide-lock.json`" in worker
    # The manifest's folder is the page's own: the server's, or a static site's.
    assert offline.manifest(["en"])["runtime"] == "/static/pyodide/"
    static = offline.Layout(root="/king/", static=True)
    assert (
        offline.manifest(["en"], static)["runtime"]
        == f"/king/static/pyodide-{offline.runtime_digest()}/"
    )


def test_the_card_faces_are_what_the_generator_draws() -> None:
    drawn = faces()
    shipped = {p.name: p.read_text(encoding="utf-8") for p in (WEB_DIR / "cards").glob("*.svg")}
    assert shipped == drawn
    assert len(shipped) == 53
    assert 'fill="#c62828"' in shipped["QH.svg"] and 'fill="#1b1b1b"' in shipped["QS.svg"]


def page_keys() -> set[str]:
    """The keys of the catalogs the page is sent (the English ones: the reference), and
    the words the server derives from the levels for each bot a table may name by its
    spec (``bot.rule``: Medium's word)."""
    folder = resources.files("king") / "locales" / "en"
    keys: set[str] = set()
    for domain in ("game", "web"):
        keys |= set(json.loads((folder / f"{domain}.json").read_text(encoding="utf-8")))
    specs = ["random", *(name for level in LEVELS for name in (level.name, level.spec))]
    return keys | {f"bot.{spec}" for spec in specs}


def asked_keys() -> set[str]:
    """The keys a script may ask for: a counted message (``table.cards.one`` …) and a
    person form (``….you``) by their base key, since t("table.cards", {n}) picks."""
    keys = page_keys()
    forms = {"zero", "one", "two", "few", "many", "other", "you"}
    return keys | {key.rpartition(".")[0] for key in keys if key.rpartition(".")[2] in forms}


def test_every_shown_string_is_in_the_catalogs() -> None:
    keys = asked_keys()
    used: set[str] = set()
    for script in web_files(".js"):
        used |= set(re.findall(r'\bt\("([\w.-]+)"', script.read_text()))
    for page in web_files(".html"):
        used |= set(re.findall(r'data-i18n(?:-label|-placeholder)?="([\w.-]+)"', page.read_text()))
    assert used, "no strings found"
    assert used <= keys, used - keys
    # Pages hold no text of their own: every visible word comes from the dictionary.
    for page in web_files(".html"):
        body = re.split(r"<body[^>]*>", page.read_text(), maxsplit=1)[1]
        body = re.sub(r"<code>.*?</code>", " ", body, flags=re.DOTALL)  # commands, not words
        text = re.sub(r"<[^>]+>", " ", body)
        words = [w for w in text.split() if re.search(r"[A-Za-z]", w)]
        assert not words, (page.name, words)


def test_api_answers_json_errors(client: httpx.Client) -> None:
    assert client.get("/api/health").json()["ok"] is True
    names = [b["name"] for b in client.get("/api/bots").json()]
    assert {"random", "rule"} <= set(names)
    answer = client.get("/api/nothing")
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"
    answer = client.post("/api/tables", content=b"{", headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "bad_json"
    assert answer.json()["error"]["message"]
    # policy files are read from the server's disk: a table cannot seat that bot
    assert "policy" not in names


def test_the_scripts_hold_no_words_of_their_own() -> None:
    """The old built-in English dictionary is gone: strings.js loads the catalog."""
    strings = (WEB_DIR / "js" / "strings.js").read_text()
    assert '"app.tagline"' not in strings and "STRINGS" not in strings
    for script in web_files(".js"):
        text = script.read_text()
        # Text put on the page is a t() call or data from the server, never a literal.
        assert not re.search(r'textContent\s*=\s*"[A-Za-z]', text), script.name
        assert not re.search(r'el\("\w+",\s*"[^"]*",\s*"[A-Za-z]', text), script.name


def test_the_page_is_sent_its_language(client: httpx.Client) -> None:
    answer = client.get("/api/i18n", params={"lang": "xx,tr-TR,fr"})
    data = answer.json()
    assert data["language"] == "tr"
    assert data["languages"]["th"] == "ไทย" and data["languages"]["tr"] == "Türkçe"
    assert data["messages"]["contract.no-queens"] == "Kız Almaz"
    assert data["messages"]["bot.rule"] == data["messages"]["level.medium"] == "Orta"
    assert set(data["messages"]) == page_keys()
    header = {"Accept-Language": "th-TH,th;q=0.9,en;q=0.5"}
    assert client.get("/api/i18n", headers=header).json()["language"] == "th"
    assert client.get("/api/i18n", params={"lang": "de"}).json()["language"] == "en"
    assert client.get("/api/i18n", params={"lang": "x" * 600}).status_code == 422
    # The first paint: <html lang> from ?lang, else from Accept-Language.
    assert '<html lang="th" data-protocol="1">' in client.get("/t/abc", headers=header).text
    assert '<html lang="fr" data-protocol="1">' in client.get("/?lang=fr", headers=header).text
    assert (
        '<html lang="en" data-protocol="1">'
        in client.get("/", headers={"Accept-Language": "de"}).text
    )


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its header."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_the_page_installs_as_a_standalone_app(client: httpx.Client) -> None:
    """ "Add to home screen" gives a standalone King: a manifest with its icons and
    theme colour, linked from both pages and served as a manifest."""
    for url in ("/", "/t/abcdef"):
        text = client.get(url).text
        assert '<link rel="manifest" href="/static/manifest.webmanifest">' in text
        assert '<meta name="theme-color"' in text
    answer = client.get("/static/manifest.webmanifest")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/manifest+json")
    manifest = answer.json()
    assert manifest["display"] == "standalone"
    assert manifest["name"] == manifest["short_name"] == "King"
    assert manifest["start_url"] == manifest["scope"] == "/"
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"])
    sizes = set()
    for icon in manifest["icons"]:
        served = client.get(icon["src"])
        assert served.status_code == 200, icon
        if icon["type"] == "image/png":
            width, height = png_size(served.content)
            assert f"{width}x{height}" == icon["sizes"]
            sizes.add(width)
    assert {192, 512} <= sizes  # what Android asks for
