"""Computer players at a server's tables: which bots a table may ask for, and running
them off the event loop so that a thinking bot never stalls another table."""

from __future__ import annotations

import asyncio
import logging
import random
from concurrent.futures import ThreadPoolExecutor

from king.bots import Bot, BotSpecError, available_bots, make_bot, parse_spec
from king.cards import Card
from king.rules import Declaration
from king.view import SeatView

__all__ = ["BotRunner", "check_bot_spec", "fallback_choice", "bot_seed"]

log = logging.getLogger("king.server")

Action = Declaration | Card


def check_bot_spec(spec: str) -> str:
    """The bot spec, checked: a registered bot (with its options).  External programs
    (``cmd:…``) are refused: a web request must never start a process."""
    name, options = parse_spec(spec)
    if isinstance(options, str):
        raise BotSpecError("a table cannot run external programs ('cmd:' bots)")
    known = {info.name for info in available_bots()}
    if name not in known:
        raise BotSpecError(f"no bot is called {name!r}: choose from {', '.join(sorted(known))}")
    make_bot(spec).close()  # checks the options too
    return spec.strip()


def bot_seed(table_seed: int, seat: int, stand_in: bool = False) -> int:
    """A bot's seed, derived from its table's seed and its seat."""
    return (table_seed * 8 + seat * 2 + (1 if stand_in else 0)) % 2**63


def fallback_choice(view: SeatView, rng: random.Random) -> Action:
    """A random legal choice, for a bot that failed to answer."""
    if view.legal_declarations:
        return rng.choice(view.legal_declarations)
    return rng.choice(list(view.legal_cards))


class BotRunner:
    """A pool of threads shared by every table's bots."""

    def __init__(self, threads: int) -> None:
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="king-bot")

    async def choose(self, bot: Bot, view: SeatView) -> Action:
        """The bot's choice for ``view``, computed in the pool.  A bot that raises or
        answers something illegal is replaced for this move by a random legal choice."""
        loop = asyncio.get_running_loop()
        try:
            action = await loop.run_in_executor(self._pool, bot.act, view)
        except Exception:
            log.exception("bot %s failed at seat %d; playing a random legal move", bot, view.seat)
            return fallback_choice(view, random.Random(view.seat))
        legal = (
            action in view.legal_declarations
            if isinstance(action, Declaration)
            else isinstance(action, Card) and action in view.legal_cards
        )
        if not legal:
            log.error("bot %s answered %r, which is not legal; playing a random move", bot, action)
            return fallback_choice(view, random.Random(view.seat))
        return action

    def close(self) -> None:
        """Stop the threads (a bot still thinking finishes in the background)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
