"""A game is the fold of its events: the record, the server's log and a replay rebuild a
game by one function, :func:`king.events.apply`, and every event reads back from the
object the server stores."""

from __future__ import annotations

import random
from typing import Any

import pytest

from king.deal import IllegalMoveError
from king.events import (
    Dealt,
    Declared,
    EventError,
    Played,
    apply,
    event_of,
    events_of,
    from_json,
    to_json,
)
from king.game import Game, IllegalDeclarationError, Phase
from king.record import replay, to_record
from king.rules import Declaration, Rules
from tests.support.games import play_random_game, random_move


@pytest.mark.parametrize(("preset", "seed"), [("classic", 1), ("pagat", 2), ("turkish", 3)])
def test_folding_a_games_events_gives_the_same_game(preset: str, seed: int) -> None:
    game = play_random_game(Rules.preset(preset), seed)
    events = list(events_of(game))
    assert [e.kind for e in events].count("deal") == 20
    again = Game(game.rules, seed, auto_deal=False)
    for event in events:
        # Each event reads back from what the server stores.
        assert from_json(event.kind, to_json(event)) == event
        apply(again, event)
    assert again.totals == game.totals and again.is_over
    assert to_record(again) == to_record(game)
    assert replay(to_record(game)).game.totals == game.totals


def test_a_game_in_progress_lists_the_hands_dealt_but_not_yet_declared() -> None:
    rng = random.Random(5)
    game = Game(seed=5)
    while game.deal_number < 2 or game.phase is not Phase.DECLARING:
        random_move(game, rng)
    events = list(events_of(game))
    assert events[-1] == Dealt(game.declarer, tuple(game.hand(s) for s in range(4)))  # type: ignore[arg-type]
    again = Game(seed=5, auto_deal=False)
    for event in events:
        apply(again, event)
    assert again.phase is Phase.DECLARING and again.view(0) == game.view(0)


def test_an_event_out_of_turn_or_against_the_rules_changes_nothing() -> None:
    game = Game(seed=9)
    declarer = game.declarer
    before = to_record(game)
    allowed = game.allowed_declarations()[0]
    with pytest.raises(EventError, match="is to act"):
        apply(game, Declared((declarer + 1) % 4, allowed))
    apply(game, Declared(declarer, allowed))
    deal = game.deal
    assert deal is not None
    illegal = [c for c in deal.hand(declarer) if c not in deal.legal_moves()]
    if illegal:
        with pytest.raises(IllegalMoveError):
            apply(game, Played(declarer, illegal[0]))
    with pytest.raises(IllegalMoveError):
        apply(game, Played(declarer, next(iter(deal.hand((declarer + 1) % 4)))))
    assert to_record(game)["deals"][0]["plays"] == ""
    assert len(to_record(game)["deals"]) == len(before["deals"])
    # No Tricks twice, then a third time: the rules refuse it, through the same fold.
    twice = Game(seed=9)
    no_tricks = Declaration.parse("no-tricks")
    for _ in range(2):
        apply(twice, Declared(twice.declarer, no_tricks))
        while twice.phase is Phase.PLAYING:
            current = twice.deal
            assert current is not None and current.to_play is not None
            apply(twice, Played(current.to_play, current.legal_moves()[0]))
    with pytest.raises(IllegalDeclarationError, match="played twice"):
        apply(twice, Declared(twice.declarer, no_tricks))
    assert twice.phase is Phase.DECLARING


def test_a_live_action_becomes_its_event_and_folds_as_the_game_acts() -> None:
    game, folded = Game(seed=4), Game(seed=4)
    rng = random.Random(4)
    for _ in range(30):
        seat = game.to_act
        assert seat is not None
        action = rng.choice(game.legal_actions())
        event = event_of(seat, action)
        assert event == (
            Declared(seat, action) if isinstance(action, Declaration) else Played(seat, action)
        )
        assert event.action == action
        game.act(action)
        apply(folded, event)
    assert to_record(folded) == to_record(game)


@pytest.mark.parametrize(
    ("kind", "data", "words"),
    [
        ("deal", {"declarer": 4, "hands": []}, "seat 0-3"),
        ("deal", {"declarer": 0, "hands": ["AS"]}, "four hands"),
        ("deal", {"declarer": 0, "hands": ["AS", "KS", "QS", "1S"]}, "seat 4's hand"),
        ("declare", {"seat": True, "contract": "no-king"}, "seat 0-3"),
        ("declare", {"seat": 0, "contract": "no-kings"}, "not a contract"),
        ("declare", {"seat": 0, "contract": "no-king", "trump": "S"}, "only Trumps"),
        ("declare", {"seat": 0, "contract": "trumps", "trump": "X"}, "suit"),
        ("play", {"seat": 1, "card": 12}, "string"),
        ("play", {"seat": 1, "card": "ZZ"}, "ZZ"),
        ("pass", {"seat": 1}, "not a game event"),
    ],
)
def test_a_bad_event_is_refused_saying_what_is_wrong(
    kind: str, data: dict[str, Any], words: str
) -> None:
    with pytest.raises(EventError, match=words):
        from_json(kind, data)
