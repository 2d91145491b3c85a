"""The game API for search methods (docs/rl.md, "A game API for search"): a clone is
independent and deals what the game would; a determinized game is one world a seat's
view allows, which that seat cannot tell from the real one (the same information-state
key), and a world that contradicts the plays is refused in words."""

from __future__ import annotations

import random

import pytest

from king.bots.search.sampler import constraints, sample_world
from king.cards import CardSet
from king.game import Game, GameStateError
from king.phase import Phase


def played_until(game: Game, rng: random.Random, stop: int) -> Game:
    """``game`` after ``stop`` random legal actions."""
    for _ in range(stop):
        game.act(rng.choice(game.legal_actions()))
    return game


def test_a_clone_is_independent_and_deals_what_the_game_would() -> None:
    rng = random.Random(3)
    game = played_until(Game(seed=8), rng, 40)
    before = game.view(None).to_json(), game.totals, game.hand(0)
    copy = game.clone()
    played_until(copy, random.Random(4), 300)  # into later deals
    assert (game.view(None).to_json(), game.totals, game.hand(0)) == before
    # Played the same way, the two deal the same next deals.
    twin = game.clone()
    for _ in range(200):
        action = rng.choice(game.legal_actions())
        game.act(action)
        twin.act(action)
    assert game.deal_number == twin.deal_number > 1
    assert [game.hand(s) for s in range(4)] == [twin.hand(s) for s in range(4)]
    assert game.view(None).to_json() == twin.view(None).to_json()


@pytest.mark.parametrize("actions", [0, 1, 9, 30, 77, 140])
def test_a_determinized_game_is_one_the_seat_cannot_tell_from_the_real_one(actions: int) -> None:
    rng = random.Random(actions)
    game = played_until(Game(seed=21), rng, actions)
    seat = game.to_act
    assert seat is not None
    view = game.view(seat)
    differs = 0
    for _ in range(50):
        world = game.determinized(sample_world(constraints(view), rng))
        assert world.view(seat).key() == view.key()
        assert world.legal_actions() == game.legal_actions()
        differs += any(world.hand(s) != game.hand(s) for s in range(4))
        played_until(world, rng, 60)  # it plays on, by the rules
    assert differs, "the hidden cards were dealt otherwise"
    assert game.view(seat).key() == view.key()  # the game itself untouched


def test_the_key_changes_when_the_seat_learns_something() -> None:
    game = played_until(Game(seed=2), random.Random(2), 20)
    seat = game.to_act
    assert seat is not None
    before = game.view(seat).key()
    game.act(game.legal_actions()[0])
    assert game.view(seat).key() != before


def test_a_world_that_does_not_fit_is_refused_in_words() -> None:
    rng = random.Random(5)
    game = played_until(Game(seed=13), rng, 30)
    assert game.phase is Phase.PLAYING
    held = [game.hand(s) for s in range(4)]
    with pytest.raises(ValueError, match="as many cards as it holds now"):
        game.determinized([held[0].mask | held[1].mask, 0, held[2], held[3]])
    assert game.deal is not None
    stranger = game.deal.plays[0]  # a card already played
    swapped = [CardSet(h.mask) for h in held]
    one = next(iter(held[0]))
    swapped[0] = CardSet((held[0].mask & ~one.mask) | stranger.mask)
    with pytest.raises(ValueError, match="the cards held now, no others"):
        game.determinized(swapped)
    # A seat that showed a void is dealt a card of that suit: the plays no longer fit.
    refused = 0
    for _ in range(200):
        masks = [h.mask for h in held]
        everything = masks[0] | masks[1] | masks[2] | masks[3]
        cards = list(CardSet(everything))
        rng.shuffle(cards)
        dealt: list[CardSet] = []
        start = 0
        for h in held:
            dealt.append(CardSet.of(cards[start : start + len(h)]))
            start += len(h)
        try:
            game.determinized(dealt)
        except ValueError as error:
            assert str(error).startswith("the hands do not fit the plays so far: ")
            refused += 1
    assert refused, "some shuffles contradict a void the plays showed"
    over = Game(seed=1)
    while not over.is_over:
        over.act(rng.choice(over.legal_actions()))
    with pytest.raises(GameStateError, match="no cards are held now"):
        over.determinized(["", "", "", ""])
