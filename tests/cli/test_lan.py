"""Playing on a phone from the computer: ``king --lan`` prints the address a phone on the
home network opens (chosen from the machine's interfaces, here given through
``KING_LAN_ADDRESSES``: the tests connect only to 127.0.0.1) and a QR code that reads
as exactly that address, the lobby shows both, and invitation links use the address
the server is reachable at; the local game keeps its port from day to day."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import httpx
import numpy as np
import pytest
import zxingcpp
from playwright.sync_api import Browser

from benchmarks.server_process import ServerProcess, free_port
from king.server.run import LOCAL_PORT
from tests.support.services import local_king

#: Blocks are light modules (the code reads on a dark terminal); each line is two rows.
_HALVES = {"█": (255, 255), " ": (0, 0), "▀": (255, 0), "▄": (0, 255)}


def read_terminal_qr(lines: list[str]) -> str:
    """What a QR code drawn with block characters says."""
    rows: list[list[int]] = []
    for line in lines:
        pairs = [_HALVES[char] for char in line]
        rows.append([top for top, _ in pairs])
        rows.append([bottom for _, bottom in pairs])
    image = np.kron(np.array(rows, dtype=np.uint8), np.ones((6, 6), dtype=np.uint8))
    found = zxingcpp.read_barcodes(image)
    assert len(found) == 1, "one QR code"
    return str(found[0].text)


@pytest.mark.slow
def test_king_lan_shows_a_phone_the_address_it_chose_as_text_and_as_qr_codes(
    tmp_path: Path, browser: Browser
) -> None:
    port = free_port()
    # Loopback, link-local and a less usual private range lose to the home router's.
    given = "127.0.0.1,169.254.3.3,10.20.30.40,192.168.7.9"
    with local_king(tmp_path, "--lan", "--port", str(port), env={"KING_LAN_ADDRESSES": given}) as (
        _,
        lines,
    ):
        address = f"http://192.168.7.9:{port}/"
        told = next(n for n, line in enumerate(lines) if "on a phone" in line)
        assert lines[told].endswith(f"open {address} — or scan this:")
        assert read_terminal_qr(lines[told + 1 : -1]) == address
        local = f"http://127.0.0.1:{port}"
        site = httpx.get(f"{local}/api/site", timeout=10).json()
        assert site["lan_url"] == site["phone_url"] == address
        assert site["public_url"] == address.rstrip("/")
        # The lobby shows the same address and a code that reads as it.
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.goto(f"{local}/")
        page.wait_for_selector("#open-tables li")  # the lobby is ready
        page.locator("#btn-phone").click()
        page.wait_for_selector("#dlg-phone[open]")
        assert page.locator("#phone-url").inner_text() == address
        page.wait_for_function("() => document.getElementById('phone-qr').complete")
        assert read_page_qr(page) == [address]
        # An invitation link is built on that address, not on the one this browser used.
        body = {
            "seats": [
                {"kind": "human"},
                {"kind": "human"},
                {"kind": "bot", "bot": "rule"},
                {"kind": "bot", "bot": "rule"},
            ],
            "name": "Ada",
        }
        claim = httpx.post(f"{local}/api/tables", json=body, timeout=10).json()
        page.goto(f"{local}/t/{claim['table']}#token={claim['token']}")
        page.locator("#btn-invite").click()
        assert page.locator("#invite-link").input_value() == f"{address}t/{claim['table']}"
        context.close()


#: The lobby's QR image drawn on a canvas, as grey pixels (what a phone's camera sees).
QR_PIXELS = """() => {
  const image = document.getElementById("phone-qr");
  const size = 400;
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = size;
  const context = canvas.getContext("2d");
  context.fillStyle = "#fff";
  context.fillRect(0, 0, size, size);
  context.imageSmoothingEnabled = false;
  context.drawImage(image, 0, 0, size, size);
  const rgba = context.getImageData(0, 0, size, size).data;
  const grey = [];
  for (let i = 0; i < rgba.length; i += 4) grey.push(rgba[i]);
  return grey;
}"""


def read_page_qr(page: object) -> list[str]:
    grey = np.array(page.evaluate(QR_PIXELS), dtype=np.uint8).reshape(400, 400)  # type: ignore[attr-defined]
    return [str(found.text) for found in zxingcpp.read_barcodes(grey)]


def test_the_local_game_keeps_its_port_and_says_when_it_must_take_another(
    tmp_path: Path,
) -> None:
    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", LOCAL_PORT))
        holder.listen()
    except OSError:
        pass  # another program holds it already: the same case
    try:
        with local_king(tmp_path) as (_, lines):
            said = "\n".join(lines)
            assert f"port {LOCAL_PORT} is taken" in said
            assert "king --port PORT chooses one" in said
            table = next(line for line in lines if "your table is at" in line)
            assert f"127.0.0.1:{LOCAL_PORT}/" not in table
    finally:
        holder.close()


@pytest.mark.parametrize("url", ["ftp://king.example.org", "https://king.example.org/king"])
def test_king_serve_refuses_a_public_address_it_cannot_build_links_on(url: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "king", "serve", "--public-url", url],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 2
    assert "an http:// or https:// address with no path" in run.stderr + run.stdout


def test_king_serve_builds_invitations_on_its_public_address(
    tmp_path: Path, browser: Browser
) -> None:
    public = "https://king.example.org"
    extra = ("--public-url", public)
    with ServerProcess(tmp_path / "king.db", extra=extra) as server:
        site = httpx.get(f"{server.url}/api/site", timeout=10).json()
        assert site == {**site, "public_url": public, "lan_url": None, "phone_url": f"{public}/"}
        body = {"seats": [{"kind": "human"}] * 2 + [{"kind": "bot", "bot": "rule"}] * 2}
        claim = httpx.post(f"{server.url}/api/tables", json={**body, "name": "Ada"}, timeout=10)
        table = claim.json()
        page = browser.new_page()
        page.goto(f"{server.url}/t/{table['table']}#token={table['token']}")
        page.locator("#btn-invite").click()
        assert page.locator("#invite-link").input_value() == f"{public}/t/{table['table']}"
        page.close()


def test_one_bot_fills_the_three_seats_and_a_resumed_game_says_what_it_does_not_use(
    tmp_path: Path,
) -> None:
    port = free_port()
    with local_king(tmp_path, "--port", str(port), "--bots", "random") as (_, lines):
        tables = httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=10).json()["open"]
        assert [s["bot"] for s in tables[0]["seats"]] == [None, "random", "random", "random"]
        assert not any("not used" in line for line in lines)
    with local_king(tmp_path, "--port", str(port), "--bots", "rule", "--rules", "pagat") as (
        _,
        lines,
    ):
        said = "\n".join(lines)
        assert "your unfinished game goes on, so --bots and --rules are not used" in said
        assert "(add --new to start a new game with them)" in said
        tables = httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=10).json()["open"]
        assert [s["bot"] for s in tables[0]["seats"]] == [None, "random", "random", "random"]
