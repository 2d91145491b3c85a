"""Games for the tests: the example records, a random game, one deal."""

from __future__ import annotations

import json
import random
from typing import Any

from king.bots import bot_seed, make_bot
from king.cards import Card, Suit
from king.game import Action, Game
from king.record import to_record
from king.rules import Contract, Declaration, Rules
from tests.support import ROOT

#: The project's copies of the example records of RECORD.md.
EXAMPLES = ROOT / "examples"


def random_action(game: Game, rng: random.Random) -> Action:
    """A uniformly random legal action of the seat to act: a declaration or a card."""
    return rng.choice(game.legal_actions())


def random_move(game: Game, rng: random.Random) -> None:
    """One uniformly random legal move of the game (the one random-game step every test
    takes)."""
    game.act(random_action(game, rng))


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


def play_record_again(text: str, bots: list[str]) -> dict[str, Any]:
    """The record CPython makes for a game of ``text``'s rules and seed with ``bots`` in
    seats 1-3, seeded as every table seeds them, and seat 0's moves taken from ``text``:
    what a table elsewhere (the page's offline one) must have recorded."""
    given = json.loads(text)
    game = Game(Rules.from_spec(given["rules"]), given["seed"])
    players = [make_bot(spec, seed=bot_seed(game.seed, seat + 1)) for seat, spec in enumerate(bots)]
    mine = iter(
        [
            (deal["contract"], deal.get("trump")) if deal["declarer"] == 0 else None
            for deal in given["deals"]
            if "contract" in deal
        ]
    )
    cards = {
        (number, index): word
        for number, deal in enumerate(given["deals"])
        for index, word in enumerate(deal.get("plays", "").split())
    }
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        action: Action
        if view.legal_declarations:
            chosen = next(mine)
            if seat == 0:
                assert chosen is not None
                contract, trump = chosen
                action = Declaration(
                    Contract.parse(contract), None if trump is None else Suit.parse(trump)
                )
            else:
                action = players[seat - 1].declare(view)
        elif seat == 0:
            deal = game.deal
            assert deal is not None
            action = Card.parse(cards[(game.deal_number, len(deal.plays))])
        else:
            action = players[seat - 1].play(view)
        game.act(action)
    return to_record(game, given.get("players"))
