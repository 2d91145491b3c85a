"""The programs behind external bots: one process speaking ``king-bot/1`` or
``king-bot/2`` (docs/bot-protocol.md) over its standard input and output, and the pool
that keeps ``king-bot/2`` programs running from one game to the next.

A ``king-bot/1`` program serves one game and exits; a ``king-bot/2`` program says so in
its handshake and is told each new game (``game``) and its end (``over``), so that a
program that is slow to start (a torch model) starts once per seat and worker process,
not once per game.  A program that failed is stopped and never reused: the next game
starts a new one.
"""

from __future__ import annotations

import json
import multiprocessing.util
import os
import queue
import subprocess
import threading
import time
from collections import deque
from typing import IO, Any, NoReturn

from king.bots.protocol import BotError
from king.jsontext import JSONTextError, loads
from king.texts import quoted

__all__ = ["ENGINES", "MAX_LINE", "PROTOCOL", "PROTOCOL_MANY", "Engine", "EnginePool"]

#: The protocol of a program that serves one game.
PROTOCOL = "king-bot/1"
#: The protocol of a program that serves game after game.
PROTOCOL_MANY = "king-bot/2"
_EOF = object()
_TOO_LONG = object()
#: The longest line read from a bot, in characters.
MAX_LINE = 64 * 1024


class Engine:
    """One running program: its handshake done, its lines read by a thread of its own.

    ``label`` names it in errors (the name it gave, then its ``cmd:`` spec); ``many``
    says it serves game after game (``king-bot/2``)."""

    def __init__(self, argv: list[str], label: str, timeout: float, hello: dict[str, Any]) -> None:
        self.argv = argv
        self.label = label
        self.timeout = timeout
        self.many = False
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=20)
        self._next_id = 0
        self._process = self._spawn()
        self._handshake(hello)

    def _spawn(self) -> subprocess.Popen[str]:
        try:
            process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
            )
        except OSError as error:
            raise BotError(self.label, f"could not be started: {error.strerror or error}") from None
        assert process.stdout is not None and process.stderr is not None
        threading.Thread(target=self._pump, args=(process.stdout,), daemon=True).start()
        threading.Thread(target=self._drain, args=(process.stderr,), daemon=True).start()
        return process

    def _handshake(self, hello: dict[str, Any]) -> None:
        self.send(
            {"type": "hello", "protocol": PROTOCOL, "versions": [PROTOCOL, PROTOCOL_MANY], **hello}
        )
        answer = self.receive(self.timeout * 2, "the handshake")
        spoken = answer.get("protocol")
        if answer.get("type") != "hello" or spoken not in (PROTOCOL, PROTOCOL_MANY):
            self.fail(
                f"answered the handshake with {short(answer)}, not a {PROTOCOL} or "
                f"{PROTOCOL_MANY} hello"
            )
        self.many = spoken == PROTOCOL_MANY
        name = answer.get("name")
        if isinstance(name, str) and name.strip():
            self.label = f"{name.strip()[:60]} ({self.label})"

    @property
    def alive(self) -> bool:
        """Whether the program still runs."""
        return self._process.poll() is None

    def next_id(self) -> int:
        """A request number, new for this program (counted across its games)."""
        self._next_id += 1
        return self._next_id

    # -- lines in and out -------------------------------------------------------------

    def _pump(self, stream: IO[str]) -> None:
        while True:
            try:
                line = stream.readline(MAX_LINE + 1)
            except (ValueError, OSError):  # closed under us (the bot was shut down)
                break
            if not line:
                break
            if len(line) > MAX_LINE:  # an answer is a few hundred bytes: this is garbage
                self._lines.put(_TOO_LONG)
                break
            self._lines.put(line)
        self._lines.put(_EOF)

    def _drain(self, stream: IO[str]) -> None:
        try:
            for line in stream:
                self._stderr.append(line.rstrip("\n"))
        except (ValueError, OSError):  # closed under us (the bot was shut down)
            pass

    def send(self, message: dict[str, Any]) -> None:
        """Write one line; a program that stopped reading has failed."""
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps(message) + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            self.fail(self._exit_note("stopped reading its input"))

    def receive(self, timeout: float, what: str) -> dict[str, Any]:
        """The next JSON object the program writes, within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                item = self._lines.get(timeout=max(left, 0.0))
            except queue.Empty:
                self.fail(f"gave no answer to {what} within {timeout:g} s")
            if item is _EOF:
                self.fail(self._exit_note(f"closed its output during {what}"))
            if item is _TOO_LONG:
                self.fail(f"answered {what} with a line of over {MAX_LINE} characters")
            line = str(item).strip()
            if not line:
                continue
            try:
                message = loads(line)
            except JSONTextError as error:
                self.fail(f"answered garbage to {what}: {short(line)} is not JSON ({error})")
            if not isinstance(message, dict):
                self.fail(f"answered {short(line)} to {what}, not a JSON object")
            return message

    def _exit_note(self, what: str) -> str:
        try:
            code: int | None = self._process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        note = what if code is None else f"crashed (exit status {code}): {what}"
        time.sleep(0.05)  # let the stderr reader catch the last lines
        if self._stderr:
            note += f"; its last error output: {self._stderr[-1][:200]}"
        return note

    def fail(self, what: str) -> NoReturn:
        """Stop the program and raise the error that names it and what it did."""
        self.stop()
        raise BotError(self.label, what)

    def stop(self) -> None:
        """Say ``bye``, close its input, and kill it if it has not exited within a
        second."""
        process = self._process
        try:
            if process.poll() is None and process.stdin is not None:
                process.stdin.write(json.dumps({"type": "bye"}) + "\n")
                process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass
        try:
            if process.stdin is not None:
                process.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        try:
            process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


class EnginePool:
    """The ``king-bot/2`` programs of this process that wait for their next game, by
    command line.  A worker process of the arena plays its games one after another, so
    a seat's program is taken for a game and given back after it: one program per seat
    that needs it, for the whole match."""

    def __init__(self) -> None:
        self._idle: dict[tuple[str, ...], list[Engine]] = {}
        self._lock = threading.Lock()

    def take(self, argv: list[str], label: str, timeout: float, game: dict[str, Any]) -> Engine:
        """A program for a new game (``game``: its seat, seed and rules): a waiting one
        told the game, else a new one, whose handshake carries it."""
        key = tuple(argv)
        while True:
            with self._lock:
                waiting = self._idle.get(key, [])
                engine = waiting.pop() if waiting else None
            if engine is None:
                engine = Engine(argv, label, timeout, game)
                break
            if engine.alive:  # it may have died while it waited: then a new one
                engine.timeout = timeout
                break
            engine.stop()
        if engine.many:
            engine.send({"type": "game", **game})
        return engine

    def give_back(self, engine: Engine) -> None:
        """The game is over: a ``king-bot/2`` program is told so and waits for the
        next; a ``king-bot/1`` program is stopped."""
        if not engine.many or not engine.alive:
            engine.stop()
            return
        try:
            engine.send({"type": "over"})
        except BotError:
            return  # it had stopped reading: stopped, and not kept
        with self._lock:
            self._idle.setdefault(tuple(engine.argv), []).append(engine)

    def forget(self) -> None:
        """In a forked child: the waiting programs are the parent's, not to be used."""
        self._idle = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        """Stop every waiting program (at exit)."""
        with self._lock:
            waiting = [engine for engines in self._idle.values() for engine in engines]
            self._idle.clear()
        for engine in waiting:
            engine.stop()


#: This process's pool.
ENGINES = EnginePool()
# At exit, in this process and in the arena's worker processes alike (multiprocessing
# runs its finalizers in both; a worker leaves without running atexit's).
multiprocessing.util.Finalize(None, ENGINES.close, exitpriority=10)
os.register_at_fork(after_in_child=ENGINES.forget)


def short(value: object) -> str:
    """A value as an error message quotes it: JSON, cut to 80 characters."""
    return quoted(value if isinstance(value, str) else json.dumps(value), 80)
