"""Debian's nginx and Caddy on 127.0.0.1 in front of real server processes, configured
by the blocks of docs/deploy.md themselves (so the documented configuration is the one
tested), with a certificate authority and a server certificate made by ``openssl``.

A block is found by the HTML comment just before its fence (``<!-- deploy: nginx -->``);
only what a test must change is changed: the ports it listens on, the servers' ports,
the certificate and the name."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import ConsoleMessage, Page, Request, Response, WebSocket
from playwright.sync_api import Error as PlaywrightError

from benchmarks.server_process import free_port
from tests.support.documented import documented_block, need
from tests.support.pages import CHOICES, LEGAL, asked

NGINX = Path("/usr/sbin/nginx")
CADDY = Path("/usr/bin/caddy")
OPENSSL = Path("/usr/bin/openssl")
#: The name and the backend ports the documentation uses.
DOCUMENTED_NAME = "king.example.org"
DOCUMENTED_PORTS = (8000, 8001, 8002, 8003)


def _sub(pattern: str, replacement: str, text: str) -> str:
    """Replace, and insist that the documentation still has what is replaced."""
    changed, count = re.subn(pattern, replacement, text)
    assert count, f"the documented block has no {pattern!r} any more"
    return changed


def _backends(text: str, backends: list[int]) -> str:
    """The documented ports 8000-8003 become the test's servers' ports, in order."""
    documented = [p for p in DOCUMENTED_PORTS if f"127.0.0.1:{p}" in text]
    assert len(documented) == len(backends), (documented, backends)
    for old, new in zip(documented, backends, strict=True):
        text = text.replace(f"127.0.0.1:{old}", f"127.0.0.1:{new}")
    return text


@dataclass(frozen=True)
class Certificate:
    """A server certificate for 127.0.0.1 and localhost, signed by a test authority."""

    authority: Path
    chain: Path  # the certificate then the authority's, as Let's Encrypt's fullchain.pem
    key: Path
    spki: str  # the base64 SHA-256 of its public key (Chromium's trust-this-key flag)


def _openssl(folder: Path, *args: str) -> bytes:
    done = subprocess.run([str(OPENSSL), *args], cwd=folder, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


#: A new P-256 key, unencrypted (``openssl req``'s words).
_NEW_KEY = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes")
_AUTHORITY = (
    *("-subj", "/CN=king test authority", "-days", "2"),
    *("-addext", "basicConstraints=critical,CA:TRUE"),
    *("-addext", "keyUsage=critical,keyCertSign,cRLSign"),
)
_SERVER_EXTENSIONS = """subjectAltName=IP:127.0.0.1,DNS:localhost
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
"""


def make_certificate(folder: Path) -> Certificate:
    """A certificate authority and a server certificate it signs, with ``openssl``."""
    need(OPENSSL, "openssl")
    folder.mkdir(parents=True, exist_ok=True)
    _openssl(folder, "req", "-x509", *_NEW_KEY, "-keyout", "ca.key", "-out", "ca.pem", *_AUTHORITY)
    _openssl(folder, "req", *_NEW_KEY, "-keyout", "privkey.pem", "-out", "server.csr",
             "-subj", "/CN=127.0.0.1")  # fmt: skip
    (folder / "server.ext").write_text(_SERVER_EXTENSIONS)
    _openssl(folder, "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-days", "2", "-extfile", "server.ext",
             "-out", "cert.pem")  # fmt: skip
    chain = folder / "fullchain.pem"
    chain.write_bytes((folder / "cert.pem").read_bytes() + (folder / "ca.pem").read_bytes())
    (folder / "pub.pem").write_bytes(
        _openssl(folder, "x509", "-in", "cert.pem", "-noout", "-pubkey")
    )
    der = _openssl(folder, "pkey", "-pubin", "-in", "pub.pem", "-outform", "der")
    spki = base64.b64encode(hashlib.sha256(der).digest()).decode()
    return Certificate(folder / "ca.pem", chain, folder / "privkey.pem", spki)


def nginx_site(block: str, https: int, http: int, backends: list[int], cert: Certificate) -> str:
    """A documented nginx block on the test's ports, servers and certificate."""
    text = _sub(r"listen 443 ssl;", f"listen 127.0.0.1:{https} ssl;", block)
    text = _sub(r"listen 80;", f"listen 127.0.0.1:{http};", text)
    text = _sub(r"ssl_certificate +\S+;", f"ssl_certificate {cert.chain};", text)
    text = _sub(r"ssl_certificate_key +\S+;", f"ssl_certificate_key {cert.key};", text)
    text = _sub(rf"server_name {re.escape(DOCUMENTED_NAME)};", "server_name 127.0.0.1;", text)
    return _backends(text, backends)


def caddy_site(block: str, https: int, http: int, backends: list[int], cert: Certificate) -> str:
    """A documented Caddyfile on the test's ports, servers and certificate: the global
    options give the ports, turn off the admin endpoint and the system trust store
    (which a test must not touch) and log each try of a server; ``tls`` gives the
    test's certificate in place of one Caddy would fetch."""
    options = (
        "{\n"
        "\tadmin off\n"
        "\tskip_install_trust\n"
        f"\thttp_port {http}\n"
        f"\thttps_port {https}\n"
        "\tdefault_bind 127.0.0.1\n"
        "\tdebug\n"  # the log then says which server each request was sent to
        "}\n\n"
    )
    text = _sub(
        rf"(?m)^{re.escape(DOCUMENTED_NAME)} {{$",
        f"127.0.0.1 {{\n\ttls {cert.chain} {cert.key}",
        block,
    )
    return options + _backends(text, backends)


def documented_proxy(
    marker: str, folder: Path, backends: list[int], cert: Certificate
) -> ReverseProxy:
    """The block marked ``marker`` (``nginx…`` or ``caddy…``) on two free ports in
    front of ``backends``, ready to check and start."""
    https, http = free_port(), free_port()
    block = documented_block(marker)
    if marker.startswith("nginx"):
        need(NGINX, "nginx-light")
        return Nginx(folder, https, http, nginx_site(block, https, http, backends, cert))
    need(CADDY, "caddy")
    return Caddy(folder, https, http, caddy_site(block, https, http, backends, cert))


def wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    """Until ``process`` listens on ``port`` (its ``log`` said when it exits first)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        assert process.poll() is None, f"it exited ({process.returncode}):\n{log.read_text()}"
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port} after 20 s:\n{log.read_text()}")


def stop_process(process: subprocess.Popen[bytes]) -> None:
    """End ``process`` by its pid: SIGTERM, then SIGKILL after 10 s."""
    if process.poll() is not None:
        return
    os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)


class ReverseProxy:
    """nginx or Caddy in a child process, listening on ``https`` (and ``http``, port
    80's stand-in) on 127.0.0.1; :meth:`check` asks the program itself whether the
    configuration is valid, :meth:`start` runs it, :meth:`stop` ends it by its pid."""

    #: The status of the redirect from port 80 to HTTPS.
    redirect = 301

    def __init__(self, folder: Path, https: int, http: int) -> None:
        self.folder = folder
        self.https = https
        self.http = http
        self.log = folder / "proxy.log"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.https}"

    def command(self, *, check: bool) -> list[str]:
        raise NotImplementedError

    def environment(self) -> dict[str, str]:
        return dict(os.environ)

    def check(self) -> str:
        """The program's own check of the configuration; its output (it must pass)."""
        done = subprocess.run(
            self.command(check=True),
            capture_output=True,
            text=True,
            timeout=60,
            env=self.environment(),
            check=False,
        )
        output = done.stdout + done.stderr
        assert done.returncode == 0, f"{self.command(check=True)} failed:\n{output}"
        return output

    def start(self) -> ReverseProxy:
        with self.log.open("ab") as log:
            self._process = subprocess.Popen(
                self.command(check=False),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.environment(),
            )
        wait_for_port(self.https, self._process, self.log)
        wait_for_port(self.http, self._process, self.log)
        return self

    def stop(self) -> None:
        if self._process is not None:
            stop_process(self._process)

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def refusals(self, port: int) -> int:
        """How many times the log says a server at ``port`` refused a connection."""
        raise NotImplementedError


class Nginx(ReverseProxy):
    """Debian's nginx with a minimal nginx.conf of the test's that includes the site:
    every path (pid, logs, temporary files) in the test's folder."""

    redirect = 301  # the documented ``return 301``

    def __init__(self, folder: Path, https: int, http: int, site: str) -> None:
        super().__init__(folder, https, http)
        (folder / "site.conf").write_text(site)
        # As root, the workers would run as nobody, who may not enter pytest's
        # folders (mode 0700) to write their temporary files.
        user = "user root;\n" if os.geteuid() == 0 else ""
        temp = "".join(
            f"    {kind}_temp_path {folder / kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (folder / "nginx.conf").write_text(
            f"{user}worker_processes 1;\npid {folder / 'nginx.pid'};\n"
            f"error_log {folder / 'error.log'} info;\n"
            "events { worker_connections 256; }\n"
            f"http {{\n    access_log {folder / 'access.log'};\n{temp}"
            f"    include {folder / 'site.conf'};\n}}\n"
        )

    def command(self, *, check: bool) -> list[str]:
        folder = self.folder
        base = [str(NGINX), "-p", f"{folder}/", "-e", str(folder / "error.log")]
        base += ["-c", str(folder / "nginx.conf")]
        return [*base, "-t"] if check else [*base, "-g", "daemon off;"]

    def refusals(self, port: int) -> int:
        log = (self.folder / "error.log").read_text(errors="replace")
        upstream = f'upstream: "http://127.0.0.1:{port}/'
        return sum(
            "(111: Connection refused)" in line and upstream in line for line in log.splitlines()
        )


class Caddy(ReverseProxy):
    """Caddy with its home, data and configuration folders in the test's folder."""

    redirect = 308  # Caddy's own redirect to HTTPS

    def __init__(self, folder: Path, https: int, http: int, site: str) -> None:
        super().__init__(folder, https, http)
        self.config = folder / "Caddyfile"
        self.config.write_text(site)

    def environment(self) -> dict[str, str]:
        folders = {name: self.folder / name.lower() for name in ("HOME", "XDG_DATA_HOME")}
        folders["XDG_CONFIG_HOME"] = self.folder / "config"
        for path in folders.values():
            path.mkdir(exist_ok=True)
        return {**os.environ, **{name: str(path) for name, path in folders.items()}}

    def command(self, *, check: bool) -> list[str]:
        verb = "validate" if check else "run"
        return [str(CADDY), verb, "--config", str(self.config), "--adapter", "caddyfile"]

    def refusals(self, port: int) -> int:
        address = f"127.0.0.1:{port}"
        lines = self.output().splitlines()
        return sum("connection refused" in line and address in line for line in lines)


class PageTraffic:
    """Everything the pages watched (and their service worker) met going wrong: failed
    requests, answers of 403 or 5xx, console errors, page errors, WebSockets whose
    handshake failed or that closed before a single message; and what they asked,
    before and after a kill.

    A request that the browser cancelled for the page (``net::ERR_ABORTED``: the
    lobby's polling when a table opens, a card's picture whose element was replaced
    before it loaded) is counted apart: the page dropped it, nothing failed it.  A
    request the proxy or a server failed is another error (``ERR_CONNECTION_RESET``,
    ``ERR_EMPTY_RESPONSE``…) or an answer of 502."""

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.requests = [0, 0]  # before the kill, after it
        self.sockets = [0, 0]
        self.killed: float | None = None
        self.reconnected_after: float | None = None
        self.listening = True
        self.dropped: list[str] = []

    def watch(self, page: Page) -> Page:
        """Watch a page (new, in a context of its own) from now on; the page."""
        context = page.context
        # The context's requests include the service worker's: it answers the page
        # from its kept copies when the server's answer is a 5xx, which would hide
        # a proxy's failure from the page's own.
        context.on("request", self._request)
        context.on("requestfailed", self._request_failed)
        context.on("response", self._response)
        page.on("console", self._console)
        page.on("pageerror", lambda error: self._fail(f"page error: {error}"))
        page.on("websocket", self._socket)
        return page

    def _fail(self, what: str) -> None:
        if self.listening:
            self.failures.append(f"{time.strftime('%H:%M:%S')} {what}")

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self._fail(f"console: {message.text}")

    def _request(self, _: Request) -> None:
        self.requests[self.killed is not None] += 1

    def _request_failed(self, request: Request) -> None:
        if request.failure == "net::ERR_ABORTED":
            self.dropped.append(request.url)
        else:
            self._fail(f"{request.method} {request.url} failed: {request.failure}")

    def _response(self, response: Response) -> None:
        if response.status == 403 or response.status >= 500:
            self._fail(f"{response.request.method} {response.url}: {response.status}")

    def _socket(self, socket: WebSocket) -> None:
        killed = self.killed
        self.sockets[killed is not None] += 1
        heard: list[bool] = []

        def frame(_: object) -> None:
            if not heard and killed is not None and self.reconnected_after is None:
                self.reconnected_after = time.monotonic() - killed
            heard.append(True)

        def close(_: object) -> None:
            if not heard:
                self._fail(f"WebSocket {socket.url} closed before any message")

        socket.on("framereceived", frame)
        socket.on("socketerror", lambda error: self._fail(f"WebSocket {socket.url}: {error}"))
        socket.on("close", close)

    def mark_kill(self) -> float:
        """Note the kill, now; the time noted."""
        self.killed = time.monotonic()
        return self.killed

    def stop(self) -> None:
        """Stop listening (before the page is closed, which closes its sockets)."""
        self.listening = False

    def report(self) -> str:
        again = self.reconnected_after
        heard = "never" if again is None else f"{again:.2f} s after it"
        return (
            f"{sum(self.requests)} requests ({self.requests[1]} after the kill) and "
            f"{sum(self.sockets)} WebSockets ({self.sockets[1]} after the kill, the first "
            f"heard from {heard}), {len(self.dropped)} dropped by the page {self.dropped}, "
            f"{len(self.failures)} failures"
        )


def play_cards(page: Page, count: int, timeout: float) -> list[str]:
    """Play ``count`` cards by clicking (declaring, and closing a deal's summary, when
    the page asks); the cards, each once it has left the hand (the server took it)."""
    played: list[str] = []
    deadline = time.monotonic() + timeout
    while len(played) < count:
        assert time.monotonic() < deadline, f"only {len(played)} of {count} cards played"
        try:
            now = asked(page, timeout=1.0)
        except PlaywrightError:
            continue
        card = _act(page, now)
        if card is not None:
            played.append(card)
    return played


#: The card has left the hand (the server took the move), or the page offers it again
#: (the move never reached the server: its connection was lost under it).
_TAKEN_OR_OFFERED = """card => {
  const there = document.querySelector(`#hand .card[data-card="${card}"]`);
  if (!there) return 'taken';
  return document.body.dataset.busy === 'false' && there.dataset.legal === 'true' && 'offered';
}"""


def _act(page: Page, now: str) -> str | None:
    """Do what the page asks; the card played, if one was (and the server took it)."""
    try:
        if now == "summary":
            page.click("#summary-continue", timeout=1500)
        elif now == "declare":
            page.locator(f"{CHOICES}:not([disabled])").first.click(timeout=1500)
        elif now == "play":
            card = page.locator(LEGAL).first.get_attribute("data-card", timeout=1500)
            page.click(f'#hand .card[data-card="{card}"]', timeout=1500)
            done = page.wait_for_function(_TAKEN_OR_OFFERED, arg=card, timeout=10000)
            if done.json_value() == "taken":
                return card
            page.wait_for_timeout(100)  # a person would click again, but not at once
    except PlaywrightError:
        pass  # the page changed under the click: ask again
    return None
