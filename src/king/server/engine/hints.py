"""Hints at a table that was created with them: on request, the engine's value of each
legal choice for the person to act, worked out from that seat's view alone (the view is
taken on the event loop and is all the engine is given), in the bot threads on the
table's own account, one evaluation at a time per table, and told only to the
connections that asked at that position."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol

from king.bots.analysis import AnalysisOptions, Hint, engine, hint
from king.bots.search.bot import SearchBot
from king.cards import Seat
from king.game import Game
from king.server.engine.players import BotRunner
from king.server.engine.preparing import PREPARING
from king.table import messages

__all__ = ["HintClient", "TableHints", "position_of"]

log = logging.getLogger("king.server")


class HintClient(Protocol):
    def send(self, text: str) -> None: ...


def position_of(game: Game) -> tuple[int, int]:
    """Where the game stands: the deal, and the cards played in it so far (-1 while its
    contract is being declared)."""
    deal = game.deal
    return game.deal_number, -1 if deal is None else len(deal.plays)


class TableHints:
    """One table's hints: asked for a seat at a position, evaluated once, sent to each
    connection that asked for it while that position lasts."""

    def __init__(self, owner: str, runner: BotRunner, options: AnalysisOptions) -> None:
        self.owner = owner
        self.runner = runner
        self.options = options
        self._bot: SearchBot | None = None
        self._lock = asyncio.Lock()
        #: The hint of the position now (seat, position) once worked out, and the
        #: connections it was sent to (each is answered once at a position).
        self._done: tuple[tuple[int, tuple[int, int]], str] | None = None
        self._answered: list[HintClient] = []
        self._waiting: dict[tuple[int, tuple[int, int]], list[HintClient]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    def ask(self, game: Game, seat: Seat, client: HintClient) -> None:
        """Evaluate the position for ``seat`` (the seat to act) and send the hint to
        ``client``; a repeated question at one position is answered once."""
        if self._closed:
            return
        key = (seat, position_of(game))
        if self._done is not None and self._done[0] == key:
            if client not in self._answered:
                self._answered.append(client)
                client.send(self._done[1])
            return
        waiting = self._waiting.get(key)
        if waiting is not None:
            if client not in waiting:
                waiting.append(client)
            return
        self._waiting[key] = [client]
        view = game.view(seat)
        task = asyncio.get_running_loop().create_task(self._work(key, lambda bot: hint(bot, view)))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _work(
        self, key: tuple[int, tuple[int, int]], evaluate: Callable[[SearchBot], Hint]
    ) -> None:
        try:
            async with self._lock:
                if self._bot is None:
                    await PREPARING.ready(self.options.bot)  # else it compiles on the loop
                    self._bot = await self.runner.run(self.owner, lambda: engine(self.options))
                bot = self._bot
                found = await self.runner.run(self.owner, lambda: evaluate(bot))
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug: logged; the person can ask again
            log.exception("%s: a hint failed", self.owner)
            self._waiting.pop(key, None)
            return
        finally:
            if self._closed:
                self._free()
        if self._closed:
            return
        deal, plays = key[1]
        text = messages.dumps(messages.hint(deal, max(plays, 0), found.to_json()))
        self._done = (key, text)
        self._answered = self._waiting.pop(key, [])
        for client in self._answered:
            client.send(text)

    def forget(self, client: HintClient) -> None:
        """A connection is gone: nothing more is sent to it."""
        if client in self._answered:
            self._answered.remove(client)
        for clients in self._waiting.values():
            if client in clients:
                clients.remove(client)

    def close(self) -> None:
        """Send nothing more, and free the engine once no evaluation uses it."""
        self._closed = True
        self._waiting.clear()
        self.runner.forget(self.owner)
        if not self._lock.locked():
            self._free()

    def _free(self) -> None:
        if self._bot is not None:
            self._bot.close()
            self._bot = None
