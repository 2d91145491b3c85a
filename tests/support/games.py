"""Games for the tests: the example records, a random game, one deal."""

from __future__ import annotations

import random
from typing import Any

from king.game import Game, Phase
from king.record import to_record
from king.rules import Rules
from tests.support import ROOT

#: The project's copies of the example records of RECORD.md.
EXAMPLES = ROOT / "examples"


def random_move(game: Game, rng: random.Random) -> None:
    """One uniformly random legal move of the game: a declaration or a card (the one
    random-game step every test takes)."""
    if game.phase is Phase.DECLARING:
        game.declare(rng.choice(game.allowed_declarations()))
    else:
        deal = game.deal
        assert deal is not None
        game.play(rng.choice(deal.legal_moves()))


def play_random_game(rules: Rules, seed: int) -> Game:
    """A whole game with uniformly random legal declarations and plays."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    while not game.is_over:
        random_move(game, rng)
    return game


def one_deal(seed: int) -> dict[str, Any]:
    """A record of one deal played to its end by the first legal card each time."""
    game = Game(seed=seed)
    game.declare(game.allowed_declarations()[seed % 10])
    while game.deal is not None:
        game.play(game.deal.legal_moves()[0])
    record = to_record(game)
    record["deals"] = record["deals"][:1]
    return record
