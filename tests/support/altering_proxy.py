"""An HTTP proxy on 127.0.0.1 in front of a server that alters the files a test names, a
given number of times: what a browser on plain http meets when something on the way
(a café's Wi-Fi, a broken cache) changes a file."""

from __future__ import annotations

import http.client
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

from benchmarks.server_process import free_port

__all__ = ["AlteringProxy"]

#: Headers that belong to one hop, never forwarded.
_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "te", "upgrade"}


class AlteringProxy:
    """Forwards every request to ``127.0.0.1:target``; the answers for a path given to
    :meth:`alter` come back with one byte changed, that many times.  :attr:`seen`
    counts the requests for each path."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self.seen: Counter[str] = Counter()
        self._left: dict[str, int] = {}
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                proxy.forward(self)

            def do_POST(self) -> None:
                proxy.forward(self)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def alter(self, path: str, times: int = 1) -> None:
        """Change the next ``times`` answers for ``path`` (its query left out)."""
        with self._lock:
            self._left[path] = times

    def _altered(self, path: str) -> bool:
        with self._lock:
            self.seen[path] += 1
            left = self._left.get(path, 0)
            if left > 0:
                self._left[path] = left - 1
            return left > 0

    def forward(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else None
        upstream = http.client.HTTPConnection("127.0.0.1", self.target, timeout=30)
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in _HOP}
        upstream.request(handler.command, handler.path, body=body, headers=headers)
        answer = upstream.getresponse()
        content = answer.read()
        upstream.close()
        if self._altered(handler.path.split("?", 1)[0]) and content:
            content = bytes([content[0] ^ 0x20]) + content[1:]
        handler.send_response(answer.status, answer.reason)
        for key, value in answer.getheaders():
            if key.lower() not in _HOP:
                handler.send_header(key, value)
        handler.send_header("Content-Length", str(len(content)))
        handler.end_headers()
        handler.wfile.write(content)

    def __enter__(self) -> AlteringProxy:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
