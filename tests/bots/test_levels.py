"""The levels people choose (Beginner to Expert): each a registered bot standing for its
spec; each decides from a seat's view alone (the same view, whatever the hidden hands
are, gives the same choice); the weaker ones' careless cards are never absurd; the rule
bot's options are checked."""

from __future__ import annotations

import pytest

from king.bots import BotSpecError, available_bots, make_bot
from king.bots.levels import DEFAULT_LEVEL, LEVELS, level_of
from king.bots.rule.bot import RuleBot, sensible_cards
from king.cards import Card
from king.events import Dealt, events_of
from king.game import Game
from king.rules import Contract, Declaration


def test_every_level_is_a_registered_bot_weakest_first() -> None:
    registered = {info.name: info for info in available_bots()}
    strengths = [registered[level.name].strength for level in LEVELS]
    assert strengths == sorted(strengths) and len(set(strengths)) == len(LEVELS)
    assert level_of(DEFAULT_LEVEL) is not None
    assert registered["search"].strength > registered["expert"].strength  # the engine leads
    for level in LEVELS:
        bot = make_bot(level.name, seed=1)
        assert type(bot) is type(make_bot(level.spec, seed=1))
        bot.close()
    with pytest.raises(BotSpecError, match="takes no options"):
        make_bot("medium:forget=1")


def _twin_games(seed: int) -> tuple[Game, Game, int]:
    """Two games whose first deal gives the declarer the same hand while the other three
    hold each other's cards: the declarer's view is the same in both."""
    first = Game(seed=seed)
    dealt = next(iter(events_of(first)))
    assert isinstance(dealt, Dealt)
    hands = list(dealt.hands)
    seat = dealt.declarer
    others = [s for s in range(4) if s != seat]
    moved = list(hands)
    for a, b in zip(others, others[1:] + others[:1], strict=True):
        moved[b] = hands[a]
    second = Game(seed=seed, auto_deal=False)
    second.deal_cards(moved, seat)
    return first, second, seat


@pytest.mark.parametrize("name", [level.name for level in LEVELS])
def test_a_level_decides_from_the_seats_view_alone(name: str) -> None:
    """Through a deal, the declarer at each level chooses the same declaration and the
    same cards whichever of two ways the hidden hands lie: it sees only its seat's view
    (the same in both), never the others' cards."""
    first, second, seat = _twin_games(23)
    bots = [make_bot(name, seed=3), make_bot(name, seed=3)]
    games = [first, second]
    for _ in range(3 * 4):  # the declaration and the first tricks
        to_act = first.to_act
        assert to_act is not None and to_act == second.to_act
        views = [game.view(to_act) for game in games]
        if to_act != seat:
            move = sorted(views[0].legal_cards)[0] if first.deal else views[0].legal_declarations[0]
            if move not in (views[1].legal_cards if first.deal else views[1].legal_declarations):
                break  # the other hands differ: the others' own moves may differ too
            for game in games:
                game.act(move)
            continue
        assert views[0].to_json() == views[1].to_json()
        choices = [bot.act(view) for bot, view in zip(bots, views, strict=True)]
        assert choices[0] == choices[1], f"{name} saw more than its view"
        for game in games:
            game.act(choices[0])
    for bot in bots:
        bot.close()


def test_careless_cards_are_never_absurd() -> None:
    """Over many deals of No King, the cards a careless level may play never include
    the K♥ where it would take the trick (or lead it) while another card could be
    played."""
    kh = Card.parse("KH")
    checked = 0
    for seed in range(60):
        game = Game(seed=seed)
        game.declare(Declaration(Contract.NO_KING))
        while game.deal is not None and not game.deal.is_over:
            to_act = game.to_act
            assert to_act is not None
            view = game.view(to_act)
            sensible = sensible_cards(view)
            if kh in view.legal_cards and len(view.legal_cards) > 1:
                trick = [card for _, card in view.current_trick]
                takes = not trick or (
                    trick[0].suit == kh.suit and all(c.suit != kh.suit or c < kh for c in trick)
                )
                if takes:
                    assert kh.id not in sensible, (view.current_trick, view.legal_cards)
                    checked += 1
            game.play(Card.from_id(sensible[0]))
    assert checked > 5


def test_the_rule_bots_options_are_checked() -> None:
    assert isinstance(make_bot("rule:forget=0.5&careless=0.2&slip=0", seed=1), RuleBot)
    wrong = {"rule:forget=2": "forget", "rule:careless=x": "careless", "rule:dice=1": "dice"}
    for spec, named in wrong.items():
        with pytest.raises(BotSpecError, match=named):
            make_bot(spec)
