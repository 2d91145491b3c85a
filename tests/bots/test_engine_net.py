"""The engine's learned policy and lookahead (``engine/net_play.c``,
``engine/lookahead.c``) held to numba's build of the Python reference
(:mod:`king.bots.compiled`), which the search bot runs today: the same card at tens of
thousands of positions under every contract and rule toggle (float32 logits to the bit,
or a near tie would pick another card), the same rollout values, likelihoods and
declaration values on the same worlds, whatever the threads; and every refusal a clear
error that leaves the instance working."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import pytest
from numpy.typing import NDArray

from king.bots import compiled, engine
from king.bots import position as K
from king.bots.engine import EngineError
from king.bots.net import NetModel, default_model
from king.bots.net_play import INPUTS
from king.bots.rule_play import FULL
from king.bots.sampler import not_held

Position = tuple[NDArray[np.int64], int, int, int]


def _weights() -> tuple[NDArray[np.float32], ...]:
    return default_model().arrays


def _scratch(weights: tuple[NDArray[np.float32], ...]) -> tuple[NDArray[np.float32], ...]:
    """The scratch arrays numba's net_card takes (input, hidden layers, logits)."""
    h1, h2 = weights[1].shape[1], weights[3].shape[1]
    return tuple(np.empty(n, dtype=np.float32) for n in (INPUTS, h1, h2, 52))


def _game(number: int) -> tuple[int, int, int]:
    """Deal ``number``'s contract, trump and rule flags: every contract under every mix
    of the four toggles that change play, Trumps in every suit."""
    contract = number % 7
    flags = (number // 7) % 16
    trump = (number // 112) % 4 if contract == 0 else -1
    return contract, trump, flags


def _deal(rng: random.Random) -> NDArray[np.int64]:
    cards = list(range(52))
    rng.shuffle(cards)
    hands = np.zeros(4, dtype=np.int64)
    for i, card in enumerate(cards):
        hands[i // 13] |= np.int64(1) << card
    return hands


def _positions(deals: int, seed: int) -> Iterator[Position]:
    """Every position of ``deals`` random deals, half the cards the rule policy's and
    half random ones, so positions the policies never reach are checked too."""
    rng = random.Random(seed)
    for number in range(deals):
        contract, trump, flags = _game(number)
        state = K.new_state(_deal(rng), rng.randrange(4))
        while not state[K.S_OVER]:
            yield state.copy(), contract, trump, flags
            legal = int(K.legal_now(state, contract, trump, flags))
            if rng.random() < 0.5:
                card = int(compiled.compiled_rule_card(state, contract, trump, flags))
            else:
                card = rng.choice([c for c in range(52) if legal >> c & 1])
            K.play(state, card, contract, trump, flags)


def test_the_engine_plays_numbas_net_card_at_every_position() -> None:
    """The learned policy's card from the engine is numba's at over 20,000 positions
    (most with a real choice, where a logit one bit off could swap a near tie); every
    third one with the other hands hidden, since the policy reads only what the seat to
    move knows."""
    weights = _weights()
    scratch = _scratch(weights)
    positions = choices = 0
    for state, contract, trump, flags in _positions(420, 61):
        expected = compiled.compiled_net_card(state, contract, trump, flags, *weights, *scratch)
        seen = state.copy()
        if positions % 3 == 0:
            for seat in range(4):
                if seat != state[K.S_TURN]:
                    seen[seat] = 0
        assert engine.net_card(seen, contract, trump, flags, *weights) == expected, positions
        positions += 1
        legal = int(K.legal_now(state, contract, trump, flags))
        choices += legal & (legal - 1) != 0
    assert positions > 20_000
    assert choices > 12_000


def _rollout_case(number: int, rng: random.Random, worlds: int) -> tuple[
    NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], int, Position,
    list[tuple[int, int]],
]:  # fmt: skip
    """A deal some rule cards in, as the seat to move sees it: the position without the
    hands, ``worlds`` deals of what it has not seen, its legal cards, itself, the whole
    position and who played which card so far (seat 0 led)."""
    contract, trump, flags = _game(number * 37)
    state = K.new_state(_deal(rng), 0)
    plays: list[tuple[int, int]] = []
    forbidden = np.zeros(4, dtype=np.int64)
    while not plays or state[K.S_OVER]:  # (a deal may end early: deal another)
        state = K.new_state(_deal(rng), 0)
        plays = []
        forbidden[:] = 0
        for _ in range(rng.randrange(4, 30)):
            card = int(compiled.compiled_rule_card(state, contract, trump, flags))
            seat = int(state[K.S_TURN])
            plays.append((seat, card))
            # What the card shows its seat did not hold (as the search bot's sampler
            # reads a view), so that every world is one where every play was legal.
            trick, led, played = (int(state[i]) for i in (K.S_TRICK, K.S_LED, K.S_PLAYED))
            forbidden[seat] |= not_held(card, trick, led, played, contract, trump, flags)
            K.play(state, card, contract, trump, flags)
            if state[K.S_OVER]:
                break
    me = int(state[K.S_TURN])
    hand = int(state[me])
    counts = np.array(
        [0 if seat == me else K.popcount(state[seat]) for seat in range(4)], dtype=np.int64
    )
    forbidden[me] = 0
    unseen = int(FULL) & ~hand & ~int(state[K.S_PLAYED])
    dealt = np.zeros((worlds, 4), dtype=np.int64)
    seed = np.array([rng.getrandbits(62) | 1], dtype=np.int64)
    assert engine.sample_worlds(unseen, counts, forbidden, me, hand, seed, dealt) == 0
    base = state.copy()
    base[0:4] = 0
    legal = int(K.legal_now(state, contract, trump, flags))
    candidates = np.array([c for c in range(52) if legal >> c & 1], dtype=np.int64)
    return dealt, base, candidates, me, (state, contract, trump, flags), plays


CASES = 6
WORLDS = 48


def test_net_rollouts_are_numbas_on_every_thread_count() -> None:
    """Every candidate of the seat to move in every world, the learned policy playing
    on: the same points as numba's, split over one thread or two."""
    weights = _weights()
    rng = random.Random(62)
    for number in range(CASES):
        worlds, base, candidates, me, (_, contract, trump, flags), _ = _rollout_case(
            number, rng, WORLDS
        )
        shape = (len(worlds), len(candidates))
        expected = np.zeros(shape, dtype=np.int64)
        compiled.net_rollouts(
            worlds, base, candidates, me, contract, trump, flags, *weights, expected
        )  # fmt: skip
        for threads in (1, 2):
            values = np.zeros(shape, dtype=np.int64)
            engine.net_rollouts(
                worlds, base, candidates, me, contract, trump, flags, *weights, values,
                threads=threads,
            )  # fmt: skip
            assert np.array_equal(values, expected), (number, threads)


def test_net_likelihoods_are_numbas() -> None:
    """The log-probability of the others' plays under the learned policy with noise,
    in each world as dealt: numba's, on one thread or two.  The float32 logits are the
    same bits, the softmax the same float64 operations, and the engine's exponential is
    glibc's to the bit (as numba's is on x86-64 Linux); its logarithm is the engine's
    libc's, which differs from glibc's in the last bit for a few arguments in 100,000.
    So every world is within a few units in the last place, and nearly all (here all)
    are the same bits; on another platform numba's own libm decides."""
    weights = _weights()
    rng = random.Random(63)
    same = total = 0
    for number in range(CASES):
        worlds, _, _, me, (_, contract, trump, flags), plays = _rollout_case(number, rng, WORLDS)
        dealt = worlds.copy()  # the hands as dealt: the played cards back to their seats
        for seat, card in plays:
            dealt[:, seat] |= np.int64(1) << card
        moves = np.array([card for _, card in plays], dtype=np.int64)
        expected = np.zeros(len(dealt), dtype=np.float64)
        compiled.net_likelihoods(
            dealt, moves, 0, me, contract, trump, flags, 0.3, *weights, expected
        )  # fmt: skip
        assert (expected < 0.0).any()
        for threads in (1, 2):
            out = np.zeros(len(dealt), dtype=np.float64)
            engine.net_likelihoods(
                dealt, moves, 0, me, contract, trump, flags, 0.3, *weights, out,
                threads=threads,
            )  # fmt: skip
            np.testing.assert_array_max_ulp(out, expected, maxulp=4)
            same += int((out == expected).sum())
            total += len(out)
    assert same >= 0.95 * total


def test_net_declaration_values_are_numbas() -> None:
    """The declarer's points when every seat plays the learned policy from the deal."""
    weights = _weights()
    rng = random.Random(64)
    for number in range(14):
        contract, trump, flags = _game(number * 9)
        worlds = np.array([_deal(rng) for _ in range(16)], dtype=np.int64)
        expected = np.zeros(len(worlds), dtype=np.int64)
        compiled.net_declaration_values(
            worlds, number % 4, contract, trump, flags, *weights, expected
        )  # fmt: skip
        for threads in (1, 2):
            out = np.zeros(len(worlds), dtype=np.int64)
            engine.net_declaration_values(
                worlds, number % 4, contract, trump, flags, *weights, out, threads=threads
            )  # fmt: skip
            assert np.array_equal(out, expected), (number, threads)


def test_lookahead_rollouts_are_numbas_on_every_thread_count() -> None:
    """The rule policy with one step of lookahead in the last tricks, for the seat alone
    or for everyone: the deals of each lookahead are seeded by the world and the
    candidate, so the engine's values are numba's however the worlds are split."""
    rng = random.Random(65)
    for number in range(CASES):
        worlds, base, candidates, me, (_, contract, trump, flags), _ = _rollout_case(
            number, rng, WORLDS
        )
        tricks, inner, everyone = (4, 8, number % 2 == 0) if number % 3 else (6, 4, True)
        shape = (len(worlds), len(candidates))
        expected = np.zeros(shape, dtype=np.int64)
        compiled.lookahead_rollouts(
            worlds, base, candidates, me, contract, trump, flags, tricks, inner, everyone,
            expected,
        )  # fmt: skip
        for threads in (1, 2):
            values = np.zeros(shape, dtype=np.int64)
            engine.lookahead_rollouts(
                worlds, base, candidates, me, contract, trump, flags, tricks, inner, everyone,
                values, threads=threads,
            )  # fmt: skip
            assert np.array_equal(values, expected), (number, threads)


def test_the_engine_plays_numbas_lookahead_card() -> None:
    """The lookahead card and the seed it leaves are numba's at thousands of positions,
    with a few settings of how many tricks it looks in and how many deals."""
    rng = random.Random(66)
    positions = looked = 0
    for state, contract, trump, flags in _positions(70, 67):
        tricks = rng.choice((3, 6, 13))
        worlds = rng.choice((1, 4, 8))
        start = rng.getrandbits(62) | 1
        theirs = np.array([start], dtype=np.int64)
        mine = np.array([start], dtype=np.int64)
        expected = compiled.compiled_lookahead_card(
            state, contract, trump, flags, tricks, worlds, theirs
        )  # fmt: skip
        card = engine.lookahead_card(state, contract, trump, flags, tricks, worlds, mine)
        assert (card, mine[0]) == (expected, theirs[0]), positions
        positions += 1
        looked += theirs[0] != start
    assert positions > 3_000
    assert looked > 1_000


def _position_and_weights() -> tuple[NDArray[np.int64], tuple[NDArray[np.float32], ...]]:
    rng = random.Random(68)
    return K.new_state(_deal(rng), 1), _weights()


@pytest.mark.parametrize(
    "bad",
    ["contract", "trump", "flags", "over", "w1 transposed", "wide", "b3 short", "vector"],
)
def test_net_card_refuses_what_it_cannot_play(bad: str) -> None:
    """A game, a position or weights out of shape are refused with their code, not a
    trap: the weights' shapes are checked against each other and the input."""
    state, weights = _position_and_weights()
    w0, w1, b1, w2, b2, w3, b3 = weights
    contract, trump, flags = 1, -1, 0
    if bad == "contract":
        contract = 7
    elif bad == "trump":
        contract, trump = 0, -1
    elif bad == "flags":
        flags = 16
    elif bad == "over":
        state[K.S_OVER] = 1
    elif bad == "w1 transposed":
        w1 = np.ascontiguousarray(w1.T)
    elif bad == "wide":
        wide = NetModel.random(hidden=(1100, 8))
        w1, b1, w2 = wide.w1, wide.b1, wide.w2
    elif bad == "b3 short":
        b3 = b3[:51]
    elif bad == "vector":
        b1 = b1.reshape(1, -1)
    with pytest.raises(EngineError) as refused:
        engine.net_card(state, contract, trump, flags, w0, w1, b1, w2, b2, w3, b3)
    expected = {"contract": -2, "trump": -2, "flags": -2, "over": -3}.get(bad, -5)
    assert refused.value.code == expected
    # The instance still works, and other widths than the shipped model's are played.
    other = NetModel.random(seed=3, hidden=(40, 24)).arrays
    scratch = _scratch(other)
    want = compiled.compiled_net_card(K.new_state(state[0:4], 1), 1, -1, 0, *other, *scratch)
    assert engine.net_card(K.new_state(state[0:4], 1), 1, -1, 0, *other) == want


def test_the_rollouts_refuse_inconsistent_worlds_and_cards() -> None:
    """Worlds that are no position, candidates not legal for the seat, a seat that is
    not to move, settings out of range: each refused, by its code."""
    rng = random.Random(69)
    weights = _weights()
    worlds, base, candidates, me, (_, contract, trump, flags), _ = _rollout_case(1, rng, 4)
    values = np.zeros((len(worlds), len(candidates)), dtype=np.int64)

    def net(w: NDArray[np.int64], cards: NDArray[np.int64], seat: int) -> None:
        engine.net_rollouts(w, base, cards, seat, contract, trump, flags, *weights, values)

    def look(w: NDArray[np.int64], cards: NDArray[np.int64], seat: int, **kw: int) -> None:
        settings = {"tricks": 4, "inner": 8, **kw}
        engine.lookahead_rollouts(
            w, base, cards, seat, contract, trump, flags, settings["tricks"],
            settings["inner"], True, values,
        )  # fmt: skip

    twice = worlds.copy()
    twice[0, (me + 1) % 4] |= twice[0, me] & -twice[0, me]  # a card in two hands
    illegal = np.array([c for c in range(52) if not worlds[0, me] >> c & 1][:1])
    for run in (net, look):
        for args, code in (
            ((twice, candidates, me), -3),
            ((worlds, illegal, me), -4),
            ((worlds, candidates, (me + 1) % 4), -4),
            ((worlds, candidates, 4), -2),
            ((worlds, np.zeros(0, dtype=np.int64), me), -5),
        ):
            with pytest.raises(EngineError) as refused:
                run(*args)
            assert refused.value.code == code, (run.__name__, code)
    for setting in ({"tricks": 14}, {"inner": 100_000}, {"tricks": -1}):
        with pytest.raises(EngineError) as refused:
            look(worlds, candidates, me, **setting)
        assert refused.value.code == -2


def test_the_likelihoods_and_declarations_refuse_what_no_deal_holds() -> None:
    """Noise outside [0, 1], a play that is not legal in a world, a deal that is not
    four hands of 13: each refused, by its code."""
    weights = _weights()
    rng = random.Random(70)
    dealt = np.array([_deal(rng)], dtype=np.int64)
    out = np.zeros(1, dtype=np.float64)
    first = int(K.lowest(int(dealt[0, 1])))  # seat 1's card, not seat 0's to lead
    cases = (
        (np.array([int(K.lowest(int(dealt[0, 0])))]), 1.5, -2),
        (np.array([first]), 0.3, -4),
        (np.array([52]), 0.3, -4),
    )
    for plays, noise, code in cases:
        with pytest.raises(EngineError) as refused:
            engine.net_likelihoods(dealt, plays, 0, 2, 1, -1, 0, noise, *weights, out)
        assert refused.value.code == code
    short = dealt.copy()
    short[0, 3] &= short[0, 3] - 1
    with pytest.raises(EngineError) as refused:
        engine.net_declaration_values(short, 0, 1, -1, 0, *weights, np.zeros(1, dtype=np.int64))
    assert refused.value.code == -3


def test_lookahead_card_refuses_settings_and_positions_out_of_range() -> None:
    """Too many tricks or deals, a position with a hand of the wrong length: refused."""
    state = K.new_state(_deal(random.Random(71)), 0)
    seed = np.array([5], dtype=np.int64)
    for tricks, worlds in ((14, 8), (4, -1), (4, 100_000)):
        with pytest.raises(EngineError) as refused:
            engine.lookahead_card(state, 1, -1, 0, tricks, worlds, seed)
        assert refused.value.code == -2
    short = state.copy()
    short[2] = 0  # the lookahead deals the others as many cards as they hold
    with pytest.raises(EngineError) as refused:
        engine.lookahead_card(short, 1, -1, 0, 4, 8, seed)
    assert refused.value.code == -3
    assert seed[0] == 5


def test_arrays_outside_the_exchange_area_are_refused() -> None:
    """An entry point called with offsets past the exchange area, or a description of
    the weights naming words past it, refuses with the bounds code."""
    mine = engine.instance()
    words = mine.io.size
    with pytest.raises(EngineError) as refused:
        mine.call("king_net_card", words - 3, 1, -1, 0, 0)
    assert refused.value.code == -1
    state = K.new_state(_deal(random.Random(72)), 0)
    at_state = mine.put(state)
    # The description of the weights (offset, rows, columns of each): w0 past the end.
    about = [words - 10, INPUTS, 52, 0, INPUTS, 128, 0, 128, 1, 0, 128, 64, 0, 64, 1]
    at_about = mine.put(np.array([*about, 0, 52, 64, 0, 52, 1], dtype=np.int64))
    with pytest.raises(EngineError) as refused:
        mine.call("king_net_card", at_state, 1, -1, 0, at_about)
    assert refused.value.code == -1
    with pytest.raises(EngineError) as refused:
        mine.call("king_lookahead_rollouts", 0, 1, 0, words, 1, 0, 1, -1, 0, 4, 8, 1, 0)
    assert refused.value.code == -1
