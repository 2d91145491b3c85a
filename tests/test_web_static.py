"""The page's files: everything they load is shipped and served, nothing comes from
another site, the card faces are what the generator draws, and every string the
scripts show is in the one dictionary a translation would replace."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from king.cards import DECK
from king.server.app import WEB_DIR
from king.server.cardfaces import faces
from king.server.process import ServerProcess


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    db = tmp_path_factory.mktemp("static") / "king.db"
    with ServerProcess(db) as server, httpx.Client(base_url=server.url, timeout=10) as http:
        yield http


def web_files(suffix: str) -> list[Path]:
    return sorted(WEB_DIR.rglob(f"*{suffix}"))


def test_every_file_a_page_loads_is_served(client: httpx.Client) -> None:
    pages = {"/": "index.html", "/t/abcdef": "table.html"}
    for url in pages:
        answer = client.get(url)
        assert answer.status_code == 200
        assert "default-src 'self'" in answer.headers["content-security-policy"]
        for link in re.findall(r'(?:src|href)="([^"]+)"', answer.text):
            if link.startswith("/"):
                assert client.get(link).status_code == 200, link
    for script in web_files(".js"):
        for target in re.findall(r'from "\./([\w.-]+)"', script.read_text()):
            assert (script.parent / target).is_file(), (script.name, target)
            assert client.get(f"/static/js/{target}").status_code == 200
    for card in [*DECK, "back"]:
        answer = client.get(f"/static/cards/{card}.svg")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("image/svg+xml")


def test_nothing_comes_from_another_site() -> None:
    allowed = {"http://www.w3.org/2000/svg"}
    for path in WEB_DIR.rglob("*"):
        if path.is_file():
            for url in re.findall(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s\"')]*", path.read_text()):
                assert url in allowed, (path.name, url)


def test_the_card_faces_are_what_the_generator_draws() -> None:
    drawn = faces()
    shipped = {p.name: p.read_text(encoding="utf-8") for p in (WEB_DIR / "cards").glob("*.svg")}
    assert shipped == drawn
    assert len(shipped) == 53
    assert 'fill="#c62828"' in shipped["QH.svg"] and 'fill="#1b1b1b"' in shipped["QS.svg"]


def test_every_shown_string_is_in_the_dictionary() -> None:
    strings = (WEB_DIR / "js" / "strings.js").read_text()
    keys = set(re.findall(r'^\s*"([\w.-]+)":', strings, re.MULTILINE))
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
    assert answer.status_code == 422
    assert answer.json()["error"]["message"]
