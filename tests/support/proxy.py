"""A TCP proxy on 127.0.0.1 that a test can cut and heal: one server process's way to
Redis, so that it alone loses Redis while it still reaches PostgreSQL; or, forwarding
from another loopback address (``source``), a browser that the server sees as somebody
else's device (a phone on the home network: 127.0.0.2 is not the machine's own)."""

from __future__ import annotations

import asyncio
import contextlib
import threading

from benchmarks.server_process import free_port


class CuttableProxy:
    """Forwards every connection to ``127.0.0.1:target``.  :meth:`cut` is a network
    partition, not a refusal: bytes stop arriving both ways and new connections hang,
    so the server process finds out only by its own timeouts.  :meth:`heal` resets the
    connections that lived through the cut (their streams lost bytes) and forwards
    again."""

    def __init__(self, target: int, source: str | None = None) -> None:
        self.target = target
        #: The address the proxy's own connections come from (None: the usual one).
        self.source = source
        self.port = free_port()
        self._cut = False
        self._writers: set[asyncio.StreamWriter] = set()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="proxy", daemon=True)

    def start(self) -> CuttableProxy:
        self._thread.start()
        self._ready.wait(10)
        return self

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", self.port)
        )
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._cut:  # accepted, never answered
            self._writers.add(writer)
            return
        try:
            local = None if self.source is None else (self.source, 0)
            up_reader, up_writer = await asyncio.open_connection(
                "127.0.0.1", self.target, local_addr=local
            )
        except OSError:
            writer.close()
            return
        self._writers |= {writer, up_writer}
        await asyncio.gather(
            self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
        )

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                if self._cut:
                    continue  # lost in the partition
                writer.write(data)
                await writer.drain()
        finally:
            self._writers.discard(writer)
            with contextlib.suppress(Exception):
                writer.close()

    def cut(self) -> None:
        """From now on nothing gets through, until :meth:`heal`."""
        self._loop.call_soon_threadsafe(lambda: setattr(self, "_cut", True))

    def heal(self) -> None:
        """Reset the connections that lived through the cut; forward new ones."""

        def mend() -> None:
            for writer in list(self._writers):
                writer.transport.abort()
            self._writers.clear()
            self._cut = False

        self._loop.call_soon_threadsafe(mend)

    def close(self) -> None:
        """Stop: every connection reset and every task of the proxy ended first (a
        task left pending is reported when the loop is collected)."""

        async def shut() -> None:
            for writer in list(self._writers):
                writer.transport.abort()
            self._writers.clear()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._loop.stop()

        asyncio.run_coroutine_threadsafe(shut(), self._loop)
        self._thread.join(5)
