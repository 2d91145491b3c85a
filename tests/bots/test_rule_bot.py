"""The ``rule`` bot: legal over whole games, the obvious move in textbook positions,
deterministic, and far stronger than random play."""

from __future__ import annotations

import random
from typing import Any

import pytest

from king.bots import BotSpecError, make_bot
from king.bots.position import S_PLAYED, S_VOIDS, from_view
from king.bots.random_bot import RandomBot
from king.bots.rule.bot import RuleBot
from king.cards import FULL_MASK, SUIT_MASKS, CardSet, Suit, shuffled_hands
from king.game import Action, Game, Phase
from king.record import replay, to_record
from king.rules import NEGATIVE_CONTRACTS, Contract, Declaration, Rules
from king.view import SeatView
from tests.support.games import random_move


def _play_game(rules: Rules, seed: int) -> Game:
    """Four rule bots play a whole game; every answer must be among the legal ones."""
    game = Game(rules, seed=seed)
    bots = [make_bot("rule", seed=seed * 4 + seat) for seat in range(4)]
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        action: Action
        if game.phase is Phase.DECLARING:
            action = bots[seat].declare(view)
            assert action in view.legal_declarations
        else:
            action = bots[seat].play(view)
            assert action in view.legal_cards
        game.act(action)
    return game


@pytest.mark.parametrize("preset", ["classic", "pagat", "turkish"])
def test_rule_bots_play_whole_games_legally(preset: str) -> None:
    for seed in range(2):
        game = _play_game(Rules.preset(preset), seed)
        assert game.is_over
        assert sum(game.totals) == 0
        trumps = [r.declaration.contract is Contract.TRUMPS for r in game.results]
        assert sum(trumps) == 8


def test_rule_bot_is_deterministic_for_a_seed() -> None:
    first = to_record(_play_game(Rules.preset("classic"), 5))
    second = to_record(_play_game(Rules.preset("classic"), 5))
    assert first == second


def test_card_counting_matches_the_view() -> None:
    """The bot's mask picture of a position agrees with the view's own accessors."""
    rng = random.Random(11)
    for trial in range(30):
        game = Game(Rules(), seed=trial)
        random_move(game, rng)
        for _ in range(rng.randrange(0, 50)):
            random_move(game, rng)
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        state = from_view(view)
        unseen = FULL_MASK & ~int(state[seat]) & ~int(state[S_PLAYED])
        assert unseen == view.unseen.mask
        for other, suits in enumerate(view.voids()):
            assert state[S_VOIDS + other] == sum(1 << suit for suit in suits)


def test_rule_bot_rejects_unknown_options() -> None:
    with pytest.raises(BotSpecError):
        make_bot("rule:depth=3")
    assert isinstance(make_bot("rule", seed=1), RuleBot)


# -- textbook positions ---------------------------------------------------------------


def _position(hands: list[str], contract: str, plays: str, rules: str = "classic") -> SeatView:
    """The view of the seat to act after ``plays`` in a one-deal record, declarer 0."""
    deal: dict[str, Any] = {"declarer": 0, "hands": hands, "plays": plays}
    name, _, trump = contract.partition(" ")
    deal["contract"] = name
    if trump:
        deal["trump"] = trump
    record = {"format": "king-record/1", "rules": rules, "seed": 0, "deals": [deal]}
    report = replay(record)
    assert report.valid, report.fault
    seat = report.game.to_act
    assert seat is not None
    return report.game.view(seat)


def _rule_card(view: SeatView) -> str:
    card = RuleBot(0).play(view)
    assert card in view.legal_cards
    return str(card)


SPADES = "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"


def test_no_king_discards_the_king_of_hearts_when_void() -> None:
    hands = [
        SPADES,
        "KH 7H 3H AD KD QD JD TD 9D 8D 7D 6D 5D",
        "AH QH JH TH 9H 8H 4D 3D 2D AC KC QC JC",
        "6H 5H 4H 2H TC 9C 8C 7C 6C 5C 4C 3C 2C",
    ]
    view = _position(hands, "no-king", "2S")
    assert view.seat == 1
    assert _rule_card(view) == "KH"


def test_no_queens_discards_a_queen_when_void() -> None:
    hands = [
        SPADES,
        "QH 7H 3H QD 9D 5D 4D 3D 2D QC 4C 3C 2C",
        "AH KH JH TH 9H 8H AD KD JD AC KC JC TC",
        "6H 5H 4H 2H TD 8D 7D 6D 9C 8C 7C 6C 5C",
    ]
    view = _position(hands, "no-queens", "AS")
    assert _rule_card(view) in {"QH", "QD", "QC"}


@pytest.mark.parametrize("rules", ["classic", "pagat"])
def test_no_queens_drops_the_queen_of_spades_under_the_ace(rules: str) -> None:
    hands = [
        "AS 9S 8S 7S AH KH QH 2H AD KD QD 2D 2C",
        "QS 3S JH TH 9H JD TD 9D AC KC QC JC TC",
        "KS JS TS 6S 8H 7H 6H 8D 7D 6D 9C 8C 7C",
        "5S 4S 2S 5H 4H 3H 5D 4D 3D 6C 5C 4C 3C",
    ]
    view = _position(hands, "no-queens", "AS", rules)
    assert _rule_card(view) == "QS"


def test_negative_contract_ducks_under_the_current_winner() -> None:
    hands = [
        "9D AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S",
        "KD TD 8D 2D AH KH QH JH TH 9H 8H 7H 6H",
        "AD QD JD 7D 6D 5D 2S 5H 4H 3H 2H AC KC",
        "4D 3D QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
    ]
    view = _position(hands, "no-tricks", "9D")
    assert _rule_card(view) == "8D"


def test_trumps_ruffs_with_the_lowest_trump_that_wins() -> None:
    hands = [
        "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S",
        "6H 5H AD KD QD JD TD 9D 8D 7D 6D 5D 4D",
        "QH 8H 3H 3D 2D AC KC QC JC TC 9C 8C 7C",
        "AH KH JH TH 9H 7H 4H 2H 6C 5C 4C 3C 2C",
    ]
    view = _position(hands, "trumps H", "AS 6H")
    assert view.seat == 2
    assert _rule_card(view) == "8H"


def test_trumps_does_not_waste_a_high_card_on_a_lost_trick() -> None:
    hands = [
        "AS 7D 6D 5D 4D 3D 2D 8C 7C 6C 5C 4C 3C",
        "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S 2C",
        "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H",
        "AD KD QD JD TD 9D 8D AC KC QC JC TC 9C",
    ]
    view = _position(hands, "trumps S", "2D 2S 2H")
    assert view.seat == 3
    assert _rule_card(view) == "8D"


def test_declares_trumps_with_eight_spades_to_the_ace_king_queen_jack() -> None:
    hands = [
        "AS KS QS JS TS 9S 8S 7S 2H 3D 4D 5C 6C",
        "6S 5S 4S 3S AH KH QH JH TH 9H 8H 7H 6H",
        "2S 5H 4H 3H AD KD QD JD TD 9D 8D 7D 6D",
        "5D 2D AC KC QC JC TC 9C 8C 7C 4C 3C 2C",
    ]
    game = Game(Rules(), seed=0, auto_deal=False)
    game.deal_cards([CardSet.parse(h) for h in hands], 0)
    declaration = RuleBot(0).declare(game.view(0))
    assert declaration == Declaration(Contract.TRUMPS, Suit.SPADES)


# -- strength -------------------------------------------------------------------------


def _deal_points(
    hands: tuple[int, int, int, int], declaration: Declaration, bots: list[Any]
) -> list[int]:
    game = Game(Rules(), seed=0, auto_deal=False)
    game.deal_cards(list(hands), 0)
    game.declare(declaration)
    deal = game.deal
    assert deal is not None
    while not deal.is_over:
        seat = deal.to_play
        assert seat is not None
        game.play(bots[seat].play(game.view(seat)))
    return deal.points()


@pytest.mark.slow
def test_rule_bot_beats_random_play_in_duplicate_deals() -> None:
    """Forty deals; each contract is played with the rule bot in each seat against three
    random bots, and again with four random bots: the rule bot must gain clearly."""
    rng = random.Random(2024)
    gains: dict[Contract, float] = dict.fromkeys(Contract, 0.0)
    deals = 40
    for _ in range(deals):
        hands = shuffled_hands(rng)
        longest = max(Suit, key=lambda s: (hands[0] & SUIT_MASKS[s]).bit_count())
        choices = [Declaration(c) for c in NEGATIVE_CONTRACTS]
        choices.append(Declaration(Contract.TRUMPS, longest))
        for declaration in choices:
            for seat in range(4):
                seeds = [rng.randrange(1 << 30) for _ in range(4)]
                randoms: list[Any] = [RandomBot(s) for s in seeds]
                base = _deal_points(hands, declaration, randoms)
                mixed: list[Any] = [RandomBot(s) for s in seeds]
                mixed[seat] = RuleBot(seat)
                points = _deal_points(hands, declaration, mixed)
                gains[declaration.contract] += (points[seat] - base[seat]) / (4 * deals)
    for contract, gain in gains.items():
        assert gain > 20, (contract, gains)
    assert sum(gains.values()) / len(gains) > 50, gains
