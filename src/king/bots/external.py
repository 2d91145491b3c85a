"""External bots: any program that speaks ``king-bot/1`` (docs/bot-protocol.md), one
JSON object per line on its standard input and output.

The host is the referee: an answer that is illegal, not JSON, late, or missing because
the program died raises :class:`~king.bots.base.BotError` naming the bot and what it
did, and the process is stopped.
"""

from __future__ import annotations

import json
import queue
import shlex
import subprocess
import threading
import time
from collections import deque
from typing import IO, Any, NoReturn

from king.bots.base import Bot, BotError, BotSpecError
from king.cards import Card, CardParseError
from king.deal import explain_illegal
from king.jsontext import JSONTextError, is_int, loads
from king.rules import Declaration, RulesError
from king.texts import quoted, seat_name
from king.view import SeatView

__all__ = ["PROTOCOL", "ExternalBot"]

PROTOCOL = "king-bot/1"
_EOF = object()
_TOO_LONG = object()
#: The longest line read from a bot, in characters.
MAX_LINE = 64 * 1024


class ExternalBot(Bot):
    """A seat played by another program, started on first use."""

    name = "cmd"

    def __init__(self, command: str, seed: int = 0, timeout: float = 5.0) -> None:
        super().__init__(seed)
        try:
            self.argv = shlex.split(command)
        except ValueError as error:
            raise BotSpecError(f"cannot read the bot command {command!r}: {error}") from None
        if not self.argv:
            raise BotSpecError("'cmd:' needs the command that starts the bot")
        self.command = command
        self.timeout = timeout
        self.label = f"cmd:{command}"
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=20)
        self._next_id = 0
        self._seat: int | None = None

    # -- the process ----------------------------------------------------------------

    def _start(self, view: SeatView) -> None:
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
        self._process = process
        assert process.stdout is not None and process.stderr is not None
        threading.Thread(target=self._pump, args=(process.stdout,), daemon=True).start()
        threading.Thread(target=self._drain, args=(process.stderr,), daemon=True).start()
        self._seat = view.seat
        self._send(
            {
                "type": "hello",
                "protocol": PROTOCOL,
                "seat": view.seat,
                "seed": self.seed,
                "rules": view.rules.to_spec(),
            }
        )
        answer = self._receive(self.timeout * 2, "the handshake")
        if answer.get("type") != "hello" or answer.get("protocol") != PROTOCOL:
            self._fail(f"answered the handshake with {_short(answer)}, not a {PROTOCOL} hello")
        name = answer.get("name")
        if isinstance(name, str) and name.strip():
            self.label = f"{name.strip()[:60]} ({self.label})"

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

    def _send(self, message: dict[str, Any]) -> None:
        process = self._process
        assert process is not None and process.stdin is not None
        try:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            self._fail(self._exit_note("stopped reading its input"))

    def _receive(self, timeout: float, what: str) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                item = self._lines.get(timeout=max(left, 0.0))
            except queue.Empty:
                self._fail(f"gave no answer to {what} within {timeout:g} s")
            if item is _EOF:
                self._fail(self._exit_note(f"closed its output during {what}"))
            if item is _TOO_LONG:
                self._fail(f"answered {what} with a line of over {MAX_LINE} characters")
            line = str(item).strip()
            if not line:
                continue
            try:
                message = loads(line)
            except JSONTextError as error:
                self._fail(f"answered garbage to {what}: {_short(line)} is not JSON ({error})")
            if not isinstance(message, dict):
                self._fail(f"answered {_short(line)} to {what}, not a JSON object")
            return message

    def _exit_note(self, what: str) -> str:
        process = self._process
        code = None
        if process is not None:
            try:
                code = process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                code = None
        note = what if code is None else f"crashed (exit status {code}): {what}"
        time.sleep(0.05)  # let the stderr reader catch the last lines
        if self._stderr:
            note += f"; its last error output: {self._stderr[-1][:200]}"
        return note

    def _fail(self, what: str) -> NoReturn:
        self.close()
        raise BotError(self.label, what)

    # -- the protocol ----------------------------------------------------------------

    def _ask(self, kind: str, view: SeatView, legal: list[str], key: str) -> str:
        if self._process is None:
            self._start(view)
        elif self._seat != view.seat:
            who = seat_name(view.seat)
            raise BotError(self.label, f"was asked to act for {who}, not its own")
        self._next_id += 1
        request_id = self._next_id
        self._send({"type": kind, "id": request_id, "view": view.to_json(), "legal": legal})
        answer = self._receive(self.timeout, f"request {request_id} ({kind})")
        if not is_int(answer.get("id")) or answer.get("id") != request_id:
            self._fail(f"answered id {answer.get('id')!r} to request {request_id}")
        value = answer.get(key)
        if not isinstance(value, str):
            self._fail(f"answered {_short(answer)} to a {kind} request: no {key!r} string")
        return str(value)

    def declare(self, view: SeatView) -> Declaration:
        legal = [str(d) for d in view.legal_declarations]
        text = self._ask("declare", view, legal, "declare")
        try:
            declaration = Declaration.parse(text)
        except RulesError as error:
            self._fail(f"answered garbage {text!r} to a declare request: {error}")
        if declaration not in view.legal_declarations:
            self._fail(f"answered an illegal declaration {text!r}: not one of {legal}")
        return declaration

    def play(self, view: SeatView) -> Card:
        legal = [str(c) for c in view.legal_cards]
        text = self._ask("play", view, legal, "card")
        try:
            card = Card.parse(text)
        except CardParseError as error:
            self._fail(f"answered garbage {text!r} to a play request: {error}")
        if card not in view.legal_cards:
            self._fail(f"answered an illegal card {card}: {_why(view, card)}")
        return card

    def close(self) -> None:
        process = self._process
        if process is None:
            return
        self._process = None
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


def _short(value: object) -> str:
    return quoted(value if isinstance(value, str) else json.dumps(value), 80)


def _why(view: SeatView, card: Card) -> str:
    """The engine's sentence for why ``card`` is illegal in this view."""
    trick = view.current_trick
    trick_mask = 0
    for _, played in trick:
        trick_mask |= played.mask
    return explain_illegal(
        view.seat,
        card.id,
        view.hand.mask,
        trick_mask,
        trick[0][1].suit if trick else -1,
        view.played.mask,
        view.contract.code if view.contract is not None else 0,
        -1 if view.trump is None else int(view.trump),
        view.rules.flags,
    )
