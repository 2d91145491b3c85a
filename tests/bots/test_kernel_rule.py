"""The rule policy run two ways: the ``rule`` bot (the Python reference, on the position
it reads from its view) and the engine (on its own position of the whole deal, every
hand known, as its rollouts see it), the same card in every one of thousands of random
positions, under every contract and the toggles that change play; so the view is read
into a position exactly.  Then the engine's rollouts over several worlds of one view
against the reference's playouts, what its likelihoods reward, and the reference's
playouts and best reply against the core engine and plain enumeration."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from king.bots import engine
from king.bots import position as K
from king.bots.position import from_view
from king.bots.rule.bot import choose_card
from king.bots.rule.play import best_reply, rule_card, rule_playout
from king.cards import CardSet, shuffled_hands
from king.game import Game
from king.rules import ALL_DECLARATIONS, Contract, Declaration, Rules

TOGGLE_SETS = [
    Rules(),
    Rules.preset("pagat"),
    Rules.preset("turkish"),
    Rules(overruff=True),
    Rules(forced_penalty=True),
]


def _trump(declaration: Declaration) -> int:
    return -1 if declaration.trump is None else int(declaration.trump)


def _game(rules: Rules, hands: list[int], declarer: int, declaration: Declaration) -> Game:
    game = Game(replace(rules, two_of_diamonds_starts=False), seed=0, auto_deal=False)
    game.deal_cards(hands, declarer)
    game.declare(declaration)
    return game


def _random_deal(
    number: int, rng: random.Random
) -> tuple[Rules, Declaration, list[int], Game, np.ndarray]:  # type: ignore[type-arg]
    """Deal ``number`` of a test: its rules and declaration in turn, random hands, the
    engine's game and the kernel's position, both at the first card."""
    rules = TOGGLE_SETS[number % len(TOGGLE_SETS)]
    declaration = ALL_DECLARATIONS[number % 10]
    hands = shuffled_hands(rng)
    game = _game(rules, hands, number % 4, declaration)
    leader = game.to_act
    assert leader is not None
    return rules, declaration, hands, game, K.new_state(np.array(hands, dtype=np.int64), leader)


#: What a seat sees of a position: everything but the other hands.
VISIBLE = [
    K.S_PLAYED, K.S_TRICK, K.S_LEADER, K.S_TURN, K.S_COUNT, K.S_TRICKS, K.S_TOP,
    K.S_TOP_SEAT, K.S_LED, K.S_OVER, *range(K.S_POINTS, K.S_POINTS + 4),
    *range(K.S_VOIDS, K.S_VOIDS + 4),
]  # fmt: skip


def test_the_rule_bot_and_the_engine_play_the_same_card() -> None:
    rng = random.Random(77)
    positions = 0
    for number in range(300):
        rules, declaration, _, game, state = _random_deal(number, rng)
        code, trump, flags = declaration.contract.code, _trump(declaration), rules.flags
        # Half the cards are the rule bot's, half random: positions the rule bot reaches
        # and positions it never would.
        while game.deal_number == 0:
            seat = game.to_act
            assert seat is not None and state[K.S_TURN] == seat
            view = game.view(seat)
            seen = from_view(view)
            # The view read into a position is the engine's position, hands hidden.
            assert seen[seat] == state[seat]
            assert all(seen[other] == 0 for other in range(4) if other != seat)
            # (The winner so far means nothing between tricks: the engine keeps the last.)
            fields = VISIBLE if state[K.S_COUNT] else [i for i in VISIBLE if i != K.S_TOP_SEAT]
            assert [seen[i] for i in fields] == [state[i] for i in fields], (number, positions)
            expected = choose_card(view)
            assert engine.rule_card(state, code, trump, flags) == expected, (number, positions)
            positions += 1
            legal = [c.id for c in game.view(seat).legal_cards]
            card = expected if rng.random() < 0.5 else rng.choice(legal)
            game.play_unchecked(card)
            K.play(state, card, code, trump, flags)
    assert positions > 12_000


def test_rule_playouts_score_as_the_python_rule_bot_does() -> None:
    rng = random.Random(8)
    for number in range(60):
        rules, declaration, _, game, state = _random_deal(number, rng)
        rule_playout(state, declaration.contract.code, _trump(declaration), rules.flags)
        while game.deal_number == 0:
            seat = game.to_act
            assert seat is not None
            game.play_unchecked(choose_card(game.view(seat)))
        assert list(state[K.S_POINTS : K.S_POINTS + 4]) == list(game.results[0].points)
        assert sum(state[K.S_POINTS : K.S_POINTS + 4]) == declaration.contract.total


def test_rollouts_value_each_candidate_in_each_world_as_a_whole_playout() -> None:
    """A seat some tricks into a deal, its legal cards tried in several deals of the
    cards it has not seen (each seat as many as it holds, none of a suit it showed
    void): each of the engine's values is the reference's whole playout of that card
    in that world, the worlds split over one thread or two."""
    rng = random.Random(9)
    checked = varied = 0
    for number in range(8):
        rules, declaration, _, _, state = _random_deal(number, rng)
        code, trump, flags = declaration.contract.code, _trump(declaration), rules.flags
        for _ in range(rng.randrange(4, 30)):
            K.play(state, rule_card(state, code, trump, flags), code, trump, flags)
            if state[K.S_OVER]:
                break
        if state[K.S_OVER]:
            continue
        me = int(state[K.S_TURN])
        hand = int(state[me])
        counts = np.array([0 if s == me else K.popcount(state[s]) for s in range(4)])
        forbidden = np.zeros(4, dtype=np.int64)
        for seat in range(4):
            for suit in range(4):
                if seat != me and state[K.S_VOIDS + seat] >> suit & 1:
                    forbidden[seat] |= K.SUITS[suit]
        unseen = ((1 << 52) - 1) & ~hand & ~int(state[K.S_PLAYED])
        worlds = np.zeros((6, 4), dtype=np.int64)
        seed = np.array([number + 1], dtype=np.int64)
        assert engine.sample_worlds(unseen, counts, forbidden, me, hand, seed, worlds) == 0
        base = state.copy()
        base[0:4] = 0
        legal = K.legal_now(state, code, trump, flags)
        candidates = np.array([c for c in range(52) if legal >> c & 1], dtype=np.int64)
        tables = []
        for threads in (1, 2):
            values = np.zeros((len(worlds), len(candidates)), dtype=np.int64)
            engine.rule_rollouts(
                worlds, base, candidates, me, code, trump, flags, 0, values, threads=threads
            )  # fmt: skip
            tables.append(values)
        assert np.array_equal(tables[0], tables[1]), number
        for w, world in enumerate(worlds):
            for i, card in enumerate(candidates):
                child = base.copy()
                child[0:4] = world
                K.play(child, int(card), code, trump, flags)
                rule_playout(child, code, trump, flags)
                assert tables[0][w, i] == child[K.S_POINTS + me], (number, w, i)
                checked += 1
        varied += len(set(tables[0].ravel())) > 1  # the card or the world matters
    assert checked > 150
    assert varied >= 4


def test_likelihoods_reward_worlds_where_the_others_played_the_rule_card() -> None:
    rng = random.Random(10)
    hands = shuffled_hands(rng)
    declaration = ALL_DECLARATIONS[2]  # No Tricks
    code, flags = declaration.contract.code, Rules().flags
    state = K.new_state(np.array(hands, dtype=np.int64), 0)
    plays = []
    for _ in range(8):
        card = rule_card(state, code, -1, flags)
        plays.append(card)
        K.play(state, card, code, -1, flags)
    dealt = np.array([hands, hands], dtype=np.int64)
    logs = np.zeros(2, dtype=np.float64)
    engine.rule_likelihoods(
        dealt, np.array(plays, dtype=np.int64), 0, 0, code, -1, flags, 0.2, False, logs
    )
    assert logs[0] == logs[1] < 0.0
    # Every other seat played the rule card: each choice counts 0.8 plus its share.
    assert logs[0] > 6 * np.log(0.8)


def test_likelihoods_can_count_a_card_equal_to_the_rule_card_as_it() -> None:
    """A player who plays a card equal to the rule card (the search bot plays the
    highest of equal cards): the exact model counts it as a departure, ``alike`` as one
    of the cards that share the rule card's probability."""
    code, flags = Contract.NO_TRICKS.code, Rules().flags
    hands = [CardSet.parse(text).mask for text in (
        "2S 3S 4S AH KH QH JH TH 9H 8H 7H 6H 5H",
        "5S AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D",
        "6S 7S 8S AC KC QC JC TC 9C 8C 7C 6C 5C",
        "9S TS JS QS KS AS 2H 3H 4H 2D 4C 3C 2C",
    )]  # fmt: skip
    state = K.new_state(np.array(hands, dtype=np.int64), 1)
    led = CardSet.parse("5S").mask.bit_length() - 1  # alone of its kind in that hand
    K.play(state, led, code, -1, flags)
    rule = rule_card(state, code, -1, flags)
    hand = int(state[2])
    same = int(K.equal_cards(hand, rule, 0, int(K.PENALTY[code])))
    equal = [c for c in range(52) if same >> c & 1 and c != rule]
    assert equal, "seat 2 holds a run of spades: some card equals the rule card"
    plays = np.array([led, equal[0]], dtype=np.int64)
    dealt = np.array([hands], dtype=np.int64)
    exact = np.zeros(1, dtype=np.float64)
    alike = np.zeros(1, dtype=np.float64)
    engine.rule_likelihoods(dealt, plays, 1, 0, code, -1, flags, 0.2, False, exact)
    engine.rule_likelihoods(dealt, plays, 1, 0, code, -1, flags, 0.2, True, alike)
    choices = bin(int(K.legal_now(state, code, -1, flags))).count("1")
    # Seat 1's lead counts the same in both; seat 2's card is a departure in one, and
    # in the other a share of the rule card's 0.8 with the cards equal to it.
    share = 0.2 / choices + 0.8 / (len(equal) + 1)
    assert alike[0] - exact[0] == pytest.approx(np.log(share) - np.log(0.2 / choices))


def _best_line(start: tuple[Rules, list[int], int, Declaration], plays: list[int], me: int) -> int:
    """Plain enumeration with the engine: every card of ``me``, the rule card for the
    others, to the end; ``me``'s best points."""
    game = _game(*start)
    for card in plays:
        game.play_unchecked(card)
    if game.deal_number != 0:
        return game.results[0].points[me]
    seat = game.to_act
    assert seat is not None
    view = game.view(seat)
    if seat != me:
        return _best_line(start, [*plays, choose_card(view)], me)
    return max(_best_line(start, [*plays, card.id], me) for card in view.legal_cards)


def test_best_reply_is_the_best_line_against_the_rule_players() -> None:
    rng = random.Random(11)
    checked = 0
    for number in range(70):
        rules, declaration, hands, game, state = _random_deal(number, rng)
        code, trump, flags = declaration.contract.code, _trump(declaration), rules.flags
        # Rule play to four tricks from the end, then the best line of one seat.
        plays: list[int] = []
        while game.deal_number == 0 and (state[K.S_TRICKS] < 9 or state[K.S_COUNT]):
            card = choose_card(game.view(game.to_act))  # type: ignore[arg-type]
            game.play_unchecked(card)
            plays.append(card)
            K.play(state, card, code, trump, flags)
        if game.deal_number != 0:
            continue
        me = number % 4
        stack = np.empty((15, K.STATE_SIZE), dtype=np.int64)
        value = best_reply(state.copy(), me, code, trump, flags, stack)
        assert value == _best_line((rules, hands, number % 4, declaration), plays, me), number
        # Never worse than playing the rule card oneself.
        playout = state.copy()
        rule_playout(playout, code, trump, flags)
        assert value >= playout[K.S_POINTS + me]
        checked += 1
    assert checked > 40
