"""docs/deploy.md's nginx and Caddy configurations, run as written: each block is taken
from the document itself and checked by its program (``nginx -t``, ``caddy validate``);
the shared-tables ones then run on 127.0.0.1 in front of three real server processes
(PostgreSQL, Redis), with a certificate the test makes.  A page in Chromium opens the
site on a port other than 443 (so its POSTs need the ``Host`` passed with its port),
creates a table against the computer and plays; the table's owner is killed
(``kill -9``) on the person's turn, the page plays on and is reloaded (a third of its
requests then go first to the dead process), and it has seen no failed request, no
403 or 5xx, no error in its console and no failed WebSocket handshake."""

from __future__ import annotations

import json
import os
import ssl
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import Browser, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from benchmarks.server_process import free_port
from tests.support.documented import need
from tests.support.pages import CHROMIUM, CHROMIUM_ARGS, PHONE, asked
from tests.support.reverse_proxies import (
    Certificate,
    PageTraffic,
    ReverseProxy,
    documented_proxy,
    make_certificate,
    play_cards,
)
from tests.support.services import Cluster, query


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    return make_certificate(tmp_path_factory.mktemp("certificate"))


@pytest.fixture(scope="module")
def trusting_browser(
    tmp_path_factory: pytest.TempPathFactory, certificate: Certificate
) -> Iterator[Browser]:
    """Debian's Chromium trusting the test's certificate as a real one (a page whose
    certificate errors are merely let through may not register its service worker,
    and says so in its console)."""
    need(CHROMIUM, "chromium")
    home = tmp_path_factory.mktemp("home")
    trust = f"--ignore-certificate-errors-spki-list={certificate.spki}"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[*CHROMIUM_ARGS, trust],
            env={**os.environ, "HOME": str(home)},
        )
        yield chromium
        chromium.close()


@pytest.mark.parametrize(
    ("marker", "servers"),
    [("nginx", 1), ("nginx-shared", 3), ("caddy", 1), ("caddy-shared", 3)],
)
def test_every_documented_block_passes_its_programs_check(
    marker: str, servers: int, tmp_path: Path, certificate: Certificate
) -> None:
    """Each block, the one-process ones included, is valid as written, with no warning
    (and a Caddyfile is as ``caddy fmt`` writes it: copied and reformatted alike)."""
    proxy = documented_proxy(marker, tmp_path, [free_port() for _ in range(servers)], certificate)
    output = proxy.check()
    assert "not formatted" not in output, output
    assert "[warn]" not in output, output


@pytest.fixture
def proxied(
    request: pytest.FixtureRequest, cluster: Cluster, tmp_path: Path, certificate: Certificate
) -> Iterator[ReverseProxy]:
    """The documented block (the parameter) in front of the cluster, checked by its
    program, then running."""
    proxy = documented_proxy(
        request.param, tmp_path, [p.port for p in cluster.processes], certificate
    )
    proxy.check()
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()


@dataclass
class Played:
    """What the page played through the proxy, around the kill."""

    table: str
    before: list[str]  # the person's cards before the kill
    after: list[str]  # and after it
    fence: int  # the killed owner's fencing number
    victim: int  # its port
    went_on: float  # seconds from the kill to the first card the server took after it


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("proxied", ["nginx-shared", "caddy-shared"], indirect=True)
def test_a_page_plays_through_the_proxy_while_the_tables_owner_is_killed(
    proxied: ReverseProxy, cluster: Cluster, trusting_browser: Browser, certificate: Certificate
) -> None:
    check_http(proxied, certificate)
    traffic = PageTraffic()
    try:
        played = play_through_a_kill(trusting_browser, traffic, proxied, cluster)
    except (AssertionError, PlaywrightError) as error:
        pytest.fail(f"{error}\nthe pages noticed:\n" + "\n".join(traffic.failures))
    finally:
        traffic.stop()
    refused = proxied.refusals(played.victim)
    print(
        f"\n{type(proxied).__name__}: {traffic.report()}; a card taken {played.went_on:.2f} s "
        f"after the kill; the dead process refused {refused} of the proxy's connections"
    )
    assert not traffic.failures, "the pages noticed:\n" + "\n".join(traffic.failures)
    assert refused > 0, "the proxy never tried the dead process: its retries went untested"
    logged = played_in_log(cluster, played.table)
    assert [card for card, _ in logged] == played.before + played.after
    # Every card played after the kill was written by the table's next owner.
    assert all(fence > played.fence for _, fence in logged[len(played.before) :])


def play_through_a_kill(
    browser: Browser, traffic: PageTraffic, proxy: ReverseProxy, cluster: Cluster
) -> Played:
    """Create a table from the lobby and play four cards; kill the table's owner on the
    person's turn and play a card at once; then a visitor opens the lobby (every file
    asked of the proxy: a third of them sent first to the dead process) and the person
    reloads the page and plays five more cards."""
    context = browser.new_context(viewport=PHONE, reduced_motion="reduce")
    page = traffic.watch(context.new_page())
    table = create_table_from_the_lobby(page, proxy)
    before = play_cards(page, 4, timeout=60)
    asked(page)
    victim = cluster.process_of(cluster.owners()[table])
    assert victim is not None
    fence = last_fence(cluster, table)
    victim.kill()
    killed = traffic.mark_kill()
    after = play_cards(page, 1, timeout=30)
    went_on = time.monotonic() - killed
    visit_the_lobby(browser, traffic, proxy)
    page.reload()
    page.wait_for_selector("#hand .card")
    after += play_cards(page, 5, timeout=60)
    owner = cluster.process_of(cluster.owners()[table])
    assert owner is not None and owner is not victim
    traffic.stop()
    context.close()
    return Played(table, before, after, fence, victim.port, went_on)


def visit_the_lobby(browser: Browser, traffic: PageTraffic, proxy: ReverseProxy) -> None:
    """A newcomer's lobby, with nothing cached, until its service worker has kept its
    files."""
    context = browser.new_context(viewport=PHONE, reduced_motion="reduce")
    page = traffic.watch(context.new_page())
    page.goto(f"{proxy.url}/")
    page.wait_for_selector('body[data-ready="true"]')
    page.wait_for_function("navigator.serviceWorker.ready.then(() => true)")
    page.wait_for_load_state("networkidle")
    context.close()


def check_http(proxy: ReverseProxy, certificate: Certificate) -> None:
    """Port 80's stand-in sends people to https with the path kept; a POST from the
    site's own page (its Origin, port included) is taken, and the session cookie is
    Secure (the server read X-Forwarded-Proto)."""
    moved = httpx.get(f"http://127.0.0.1:{proxy.http}/t/abc?x=1", timeout=10)
    assert moved.status_code == proxy.redirect, moved
    assert moved.headers["location"].startswith("https://127.0.0.1")
    assert moved.headers["location"].endswith("/t/abc?x=1")
    body = {"name": "Ada", "seats": [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3}
    trust = ssl.create_default_context(cafile=certificate.authority)
    with httpx.Client(verify=trust, timeout=10) as client:
        made = client.post(f"{proxy.url}/api/tables", json=body, headers={"Origin": proxy.url})
    assert made.status_code == 201, made.text
    cookie = next(c for c in made.headers.get_list("set-cookie") if c.startswith("king_session="))
    assert "; secure" in cookie.lower(), cookie


def create_table_from_the_lobby(page: Page, proxy: ReverseProxy) -> str:
    """Play against the computer from the home screen (a POST through the proxy)."""
    page.goto(f"{proxy.url}/")
    page.wait_for_selector('body[data-ready="true"]')
    page.click("#btn-play-computer")
    page.wait_for_url("**/t/*")
    page.wait_for_selector("#hand .card")
    return page.url.rsplit("/", 1)[-1].split("?")[0].split("#")[0]


def last_fence(cluster: Cluster, table: str) -> int:
    rows = query(cluster.db, "SELECT MAX(fence) FROM events WHERE table_id = ?", (table,))
    return int(rows[0][0])


def played_in_log(cluster: Cluster, table: str) -> list[tuple[str, int]]:
    """The person's (seat 0's) cards in the table's log, in order, with their fences."""
    rows = query(
        cluster.db,
        "SELECT data, fence FROM events WHERE table_id = ? AND kind = 'play' ORDER BY number",
        (table,),
    )
    moves = [(json.loads(data), int(fence)) for data, fence in rows]
    return [(move["card"], fence) for move, fence in moves if move["seat"] == 0]
