"""The terminal game (``king play``) driven headless at 80x24 with Textual's pilot."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from king.cards import Card
from king.game import Game, Phase
from king.rules import Contract, Declaration, Rules
from king.tui.app import KingApp
from king.tui.render import card_label
from king.tui.screens import InfoScreen
from king.tui.session import PlaySession
from king.tui.widgets import HandView, MessageLine
from tests.support.games import random_move

SIZE = (80, 24)


BOTS = ["random", "random", "random"]


#: With this seed seat 0 (the person) declares the first deal.
SEED_YOU_DECLARE = 6


#: With this seed another seat declares first.
SEED_BOT_DECLARES = 3


Test = Callable[[KingApp, Pilot[None]], Awaitable[None]]


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(coro)


def start(path: Path, seed: int = SEED_YOU_DECLARE, seat: int = 0, **options: Any) -> PlaySession:
    return PlaySession.start(bots=BOTS, rules=Rules(), seed=seed, seat=seat, save=path, **options)


async def drive(
    session: PlaySession, test: Test, *, summaries: bool = True, pause: float = 0
) -> None:
    app = KingApp(session, pause=pause, summaries=summaries)
    async with app.run_test(size=SIZE) as pilot:
        await test(app, pilot)
    session.close()


async def until(pilot: Pilot[None], condition: Callable[[], bool], what: str) -> None:
    """Let the app run until ``condition`` holds (bots think in a thread)."""
    for _ in range(3000):
        if condition():
            return
        await pilot.pause(0.005)
    raise AssertionError(f"timed out waiting for {what}")


def my_turn(app: KingApp) -> bool:
    return app.session.is_human_turn() and not isinstance(app.screen, InfoScreen)


async def my_turn_to_play(app: KingApp, pilot: Pilot[None]) -> None:
    await until(
        pilot,
        lambda: my_turn(app) and app.session.game.phase is Phase.PLAYING,
        "the person's turn to play",
    )
    await pilot.pause()


def message(app: KingApp) -> str:
    return app.query_one(MessageLine).text


def hand_of(app: KingApp) -> HandView:
    return app.query_one(HandView)


async def type_card(pilot: Pilot[None], card: Card) -> None:
    """Type a card as a person would: ``qs``, ``10h``."""
    text = card_label(card)[:-1].lower() + card.suit.letter.lower()
    await pilot.press(*text)
    await pilot.press("enter")


def played(app: KingApp) -> list[Card]:
    deal = app.session.game.deals[-1]
    return deal.plays


def _game_where_no_queens_is_used_up(seed: int) -> Game:
    """A game where seat 0 declares and No Queens has been played twice already."""
    rng = random.Random(seed)
    game = Game(seed=seed)
    queens = Declaration(Contract.NO_QUEENS)
    while True:
        if game.phase is Phase.DECLARING:
            if game.declarer == 0 and game.times_declared(Contract.NO_QUEENS) == 2:
                return game
            allowed = game.allowed_declarations()
            choice = queens if game.declarer != 0 and queens in allowed else rng.choice(allowed)
            if game.declarer == 0 and choice == queens:
                choice = next(d for d in allowed if d != queens)
            game.declare(choice)
        else:
            random_move(game, rng)
