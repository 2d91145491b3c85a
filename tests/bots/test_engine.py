"""The engine (``engine/*.c`` built to WebAssembly, run by wasmtime) held to the Python
reference kernels it was ported from: the rule policy's card at every position of games
under every rule preset, whole playouts, rollouts with the exact best reply, the
likelihoods of the others' plays, the deal of worlds; the same answers split over
threads; and every refusal a clear error that leaves the instance working."""

from __future__ import annotations

import random
import warnings
from dataclasses import replace

import numpy as np
import pytest

from king.bots import engine
from king.bots import position as K
from king.bots.engine import EngineError
from king.bots.position import from_view
from king.bots.rule.bot import choose_card
from king.bots.rule.play import best_reply, rule_card, rule_playout
from king.bots.search import worlds as reference_worlds
from king.cards import shuffled_hands
from king.game import Game
from king.rules import ALL_DECLARATIONS, PRESETS, Declaration, Rules

PRESET_RULES = [*PRESETS.values(), Rules(overruff=True), Rules(forced_penalty=True)]


def _trump(declaration: Declaration) -> int:
    return -1 if declaration.trump is None else int(declaration.trump)


def _game(rules: Rules, hands: list[int], declarer: int, declaration: Declaration) -> Game:
    game = Game(replace(rules, two_of_diamonds_starts=False), seed=0, auto_deal=False)
    game.deal_cards(hands, declarer)
    game.declare(declaration)
    return game


def test_the_engine_plays_the_rule_bots_card_in_games_of_every_preset() -> None:
    """The position a seat reads from its view (the other hands unseen) gives the rule
    bot's card (:func:`king.bots.rule.bot.choose_card`, plain Python), half the game's
    cards being that card and half random ones, so positions the rule bot never
    reaches are checked too."""
    rng = random.Random(51)
    positions = 0
    for number in range(140):
        rules = PRESET_RULES[number % len(PRESET_RULES)]
        declaration = ALL_DECLARATIONS[number % 10]
        game = _game(rules, shuffled_hands(rng), number % 4, declaration)
        code, trump, flags = declaration.contract.code, _trump(declaration), rules.flags
        while game.deal_number == 0:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            expected = choose_card(view)
            assert engine.rule_card(from_view(view), code, trump, flags) == expected
            positions += 1
            legal = [card.id for card in view.legal_cards]
            game.play_unchecked(expected if rng.random() < 0.5 else rng.choice(legal))
    assert positions > 5_000


def _random_world(rng: random.Random) -> tuple[np.ndarray, int, int, int]:  # type: ignore[type-arg]
    contract = rng.randrange(7)
    trump = rng.randrange(4) if contract == 0 else -1
    return np.array(shuffled_hands(rng), dtype=np.int64), contract, trump, rng.randrange(16)


def test_whole_playouts_score_as_the_reference_does() -> None:
    rng = random.Random(52)
    worlds = []
    for _ in range(200):
        hands, contract, trump, flags = _random_world(rng)
        worlds.append((hands, contract, trump, flags))
    for hands, contract, trump, flags in worlds:
        out = np.zeros(1, dtype=np.int64)
        engine.rule_declaration_values(hands.reshape(1, 4), 2, contract, trump, flags, out)
        state = K.new_state(hands, 2)
        rule_playout(state, contract, trump, flags)
        assert out[0] == state[K.S_POINTS + 2]


def _played_to(hands: np.ndarray, contract: int, trump: int, flags: int, cards: int) -> np.ndarray:  # type: ignore[type-arg]
    """The rule policy's deal from ``hands``, stopped with ``cards`` cards played."""
    state = K.new_state(hands, 0)
    for _ in range(cards):
        K.play(state, rule_card(state, contract, trump, flags), contract, trump, flags)
    return state


def test_rollouts_with_the_exact_tail_value_each_card_as_the_reference_does() -> None:
    """Each candidate of the seat to move played, the rule policy to ``tail`` tricks
    from the end, then that seat's best reply (a search of its own lines)."""
    rng = random.Random(53)
    checked = 0
    for number in range(40):
        hands, contract, trump, flags = _random_world(rng)
        state = _played_to(hands, contract, trump, flags, rng.randrange(0, 30))
        if state[K.S_OVER]:
            continue
        me = int(state[K.S_TURN])
        legal = K.legal_now(state, contract, trump, flags)
        candidates = np.array([c for c in range(52) if legal >> c & 1], dtype=np.int64)
        base = state.copy()
        base[0:4] = 0
        world = state[0:4].reshape(1, 4).copy()
        tail = number % 5
        values = np.zeros((1, len(candidates)), dtype=np.int64)
        engine.rule_rollouts(world, base, candidates, me, contract, trump, flags, tail, values)
        stack = np.zeros((15, K.STATE_SIZE), dtype=np.int64)
        for i, card in enumerate(candidates):
            child = state.copy()
            K.play(child, int(card), contract, trump, flags)
            while not child[K.S_OVER] and (13 - child[K.S_TRICKS] > tail or child[K.S_COUNT]):
                K.play(child, rule_card(child, contract, trump, flags), contract, trump, flags)
            expected = (
                child[K.S_POINTS + me]
                if child[K.S_OVER]
                else best_reply(child, me, contract, trump, flags, stack)
            )
            assert values[0, i] == expected
            checked += 1
    assert checked > 100


def _likelihood(
    hands: np.ndarray, plays: list[int], me: int, contract: int, trump: int, flags: int,  # type: ignore[type-arg]
    noise: float, alike: bool,
) -> float:  # fmt: skip
    """The reference's log-probability of the others' plays (what
    :func:`king.bots.compiled.rule_likelihoods` computes), in plain Python."""
    state = K.new_state(hands, 0)
    total = 0.0
    for card in plays:
        turn = int(state[K.S_TURN])
        if turn != me:
            choices = K.popcount(K.legal_now(state, contract, trump, flags))
            if choices > 1:
                p = noise / choices
                rule = rule_card(state, contract, trump, flags)
                if not alike:
                    p += (1.0 - noise) if rule == card else 0.0
                else:
                    earlier = state[K.S_PLAYED] & ~state[K.S_TRICK]
                    same = K.equal_cards(state[turn], rule, earlier, K.PENALTY[contract])
                    if same >> card & 1:
                        p += (1.0 - noise) / K.popcount(same)
                total += float(np.log(p))
        K.play(state, card, contract, trump, flags)
    return total


def test_likelihoods_are_the_references_to_the_last_bit() -> None:
    rng = random.Random(54)
    for number in range(60):
        hands, contract, trump, flags = _random_world(rng)
        state = K.new_state(hands, 0)
        plays = []
        for _ in range(rng.randrange(1, 40)):
            legal = K.legal_now(state, contract, trump, flags)
            options = [c for c in range(52) if legal >> c & 1]
            rule = rule_card(state, contract, trump, flags)
            card = rule if rng.random() < 0.7 else rng.choice(options)
            plays.append(card)
            K.play(state, card, contract, trump, flags)
            if state[K.S_OVER]:
                break
        alike = number % 2 == 1
        out = np.zeros(1, dtype=np.float64)
        engine.rule_likelihoods(
            hands.reshape(1, 4), np.array(plays, dtype=np.int64), 0, number % 4, contract,
            trump, flags, 0.3, alike, out,
        )  # fmt: skip
        expected = _likelihood(hands, plays, number % 4, contract, trump, flags, 0.3, alike)
        assert out[0] == expected  # bit for bit: the same operations in the same order


def test_worlds_are_dealt_as_the_reference_deals_them() -> None:
    """The same generator, the same order of cards, the same seed afterwards: the
    worlds of a search do not depend on which engine dealt them."""
    rng = random.Random(55)
    for _ in range(30):
        hands = shuffled_hands(rng)
        me = rng.randrange(4)
        unseen = sum(hands) - hands[me]
        counts = np.array([13] * 4, dtype=np.int64)
        forbidden = np.zeros(4, dtype=np.int64)
        for seat in range(4):  # a void or two, as the play shows them
            if seat != me and rng.random() < 0.5:
                suit = rng.randrange(4)
                if not hands[seat] & K.SUITS[suit]:
                    forbidden[seat] = K.SUITS[suit]
        start = rng.getrandbits(62) | 1
        mine = np.zeros((40, 4), dtype=np.int64)
        theirs = np.zeros((40, 4), dtype=np.int64)
        seed_mine = np.array([start], dtype=np.int64)
        seed_theirs = np.array([start], dtype=np.int64)
        failures = engine.sample_worlds(unseen, counts, forbidden, me, hands[me], seed_mine, mine)
        with warnings.catch_warnings():  # numpy's int64 scalars wrap, and say so
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = reference_worlds.sample_worlds(
                unseen, counts, forbidden, me, hands[me], seed_theirs, theirs
            )
        assert failures == expected == 0
        assert (mine == theirs).all() and seed_mine[0] == seed_theirs[0]
        for world in mine:
            assert world[me] == hands[me] and int(np.bitwise_or.reduce(world)) == sum(hands)
            assert all(not world[s] & forbidden[s] for s in range(4))


def test_threads_split_the_worlds_and_give_the_same_answers() -> None:
    rng = random.Random(56)
    worlds = np.array([shuffled_hands(rng) for _ in range(3000)], dtype=np.int64)
    one = np.zeros(3000, dtype=np.int64)
    two = np.zeros(3000, dtype=np.int64)
    engine.rule_declaration_values(worlds, 1, 4, -1, 0, one, threads=1)
    engine.rule_declaration_values(worlds, 1, 4, -1, 0, two, threads=2)
    assert (one == two).all() and one.min() < 0


def _deal() -> np.ndarray:  # type: ignore[type-arg]
    return np.array(shuffled_hands(random.Random(57)), dtype=np.int64)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda s: s.__setitem__(K.S_TURN, 7), "a position or deal the rules cannot reach"),
        (lambda s: s.__setitem__(1, s[1] | s[2]), "a position or deal the rules cannot reach"),
        (lambda s: s.__setitem__(0, s[0] | 1 << 60), "a position or deal the rules cannot reach"),
        (lambda s: s.__setitem__(K.S_COUNT, 2), "a position or deal the rules cannot reach"),
    ],
)
def test_a_position_the_rules_cannot_reach_is_refused(change: object, reason: str) -> None:
    state = K.new_state(_deal(), 0)
    change(state)  # type: ignore[operator]
    with pytest.raises(EngineError, match=reason):
        engine.rule_card(state, 1, -1, 0)
    assert engine.rule_card(K.new_state(_deal(), 0), 1, -1, 0) >= 0  # still working


def test_bad_settings_cards_and_offsets_are_refused_with_what_was_wrong() -> None:
    state = K.new_state(_deal(), 0)
    with pytest.raises(EngineError, match="contract, trump"):
        engine.rule_card(state, 9, -1, 0)
    with pytest.raises(EngineError, match="contract, trump"):
        engine.rule_card(state, 0, -1, 0)  # Trumps without a trump suit
    with pytest.raises(EngineError, match="contract, trump"):
        engine.rule_card(state, 1, -1, 99)
    worlds = _deal().reshape(1, 4)
    base = K.new_state(np.zeros(4, dtype=np.int64), 0)
    values = np.zeros((1, 1), dtype=np.int64)
    not_held = next(c for c in range(52) if not worlds[0, 0] >> c & 1)
    with pytest.raises(EngineError, match="not legal"):
        engine.rule_rollouts(worlds, base, np.array([not_held]), 0, 1, -1, 0, 0, values)
    plays = np.array([not_held], dtype=np.int64)
    with pytest.raises(EngineError, match="not legal"):
        engine.rule_likelihoods(worlds, plays, 0, 1, 1, -1, 0, 0.3, False, np.zeros(1))
    short = worlds.copy()
    short[0, 3] &= short[0, 3] - 1  # twelve cards
    with pytest.raises(EngineError, match="cannot reach"):
        engine.rule_declaration_values(short, 0, 1, -1, 0, np.zeros(1, dtype=np.int64))
    mine = engine.instance()
    words = mine.io.size
    with pytest.raises(EngineError, match="exchange area"):
        mine.call("king_rule_card", words - 3, 1, -1, 0)
    with pytest.raises(EngineError, match="exchange area"):
        mine.call("king_rule_card", -1, 1, -1, 0)
    with pytest.raises(EngineError, match="exchange area"):
        mine.call("king_rule_declaration_values", 0, words, 0, 1, -1, 0, 0)
    assert engine.rule_card(state, 1, -1, 0) >= 0


def test_the_engine_never_grows_its_memory() -> None:
    """Its memory is fixed (32 MiB): what an entry point may use is known before it
    runs, in the browser and here alike."""
    mine = engine.instance()
    memory = mine.exports["memory"]
    before = memory.size(mine.store)
    rng = random.Random(58)
    worlds = np.array([shuffled_hands(rng) for _ in range(5000)], dtype=np.int64)
    engine.rule_declaration_values(worlds, 0, 6, -1, 15, np.zeros(5000, dtype=np.int64))
    assert memory.size(mine.store) == before == 512  # pages of 64 KiB
    assert memory.type(mine.store).limits.max == 512
