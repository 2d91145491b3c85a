"""Shared helpers for the tests."""

from __future__ import annotations

import random
from pathlib import Path

from king.game import Game, Phase
from king.rules import Rules

#: The project's copies of the example records of RECORD.md.
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def play_random_game(rules: Rules, seed: int) -> Game:
    """A whole game with uniformly random legal declarations and plays."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    while not game.is_over:
        if game.phase is Phase.DECLARING:
            game.declare(rng.choice(game.allowed_declarations()))
        else:
            deal = game.deal
            assert deal is not None
            game.play(rng.choice(deal.legal_moves()))
    return game
