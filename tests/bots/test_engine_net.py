"""The engine's learned policy and lookahead (``engine/net_play.c``,
``engine/lookahead.c``) held to the Python reference they were ported from
(:mod:`king.bots.net.play`, :mod:`king.bots.search.lookahead`, run as plain Python on numpy
arrays): the same card at thousands of positions under every contract, trump and mix of
rule toggles (float32 logits to the bit, or a near tie would pick another card), the
same rollout values, likelihoods (to the last bit here, within a few units in the
last place wherever the libm's logarithm differs) and declaration values on the same
worlds, the same lookahead card and seed, and the same answers whatever the threads;
and every refusal a clear error that leaves the instance working.  The reference is
slow as plain Python, so it plays the shorter lines and a sample of the positions, and
the engine's threads are checked against each other on many more worlds."""

from __future__ import annotations

import math
import random
import warnings
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from king.bots import engine
from king.bots import position as K
from king.bots.engine import EngineError
from king.bots.net import play as net_play
from king.bots.net.bot import NetModel, default_model
from king.bots.net.play import INPUTS
from king.bots.rule.play import FULL, rule_card
from king.bots.search import lookahead as reference_lookahead
from king.bots.search.sampler import not_held

Position = tuple[NDArray[np.int64], int, int, int]
Weights = tuple[NDArray[np.float32], ...]


def _weights() -> Weights:
    return default_model().arrays


def _scratch(weights: Weights) -> Weights:
    """The scratch arrays the reference's net_card takes (input, hidden layers, logits)."""
    h1, h2 = weights[1].shape[1], weights[3].shape[1]
    return tuple(np.empty(n, dtype=np.float32) for n in (INPUTS, h1, h2, 52))


def _net_card(state: NDArray[np.int64], contract: int, trump: int, flags: int,
              weights: Weights) -> int:  # fmt: skip
    """The reference's learned card, as plain Python."""
    return int(net_play.net_card(state, contract, trump, flags, *weights, *_scratch(weights)))


def _game(number: int) -> tuple[int, int, int]:
    """Deal ``number``'s contract, trump and rule flags: every contract under every mix
    of the four toggles that change play, Trumps in every suit (448 deals in all)."""
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


def _positions(deals: int, seed: int, share: float) -> Iterator[Position]:
    """About ``share`` of the positions of ``deals`` random deals, half the cards the
    rule policy's and half random ones, so positions the policies never reach are
    checked too."""
    rng = random.Random(seed)
    for number in range(deals):
        contract, trump, flags = _game(number)
        state = K.new_state(_deal(rng), rng.randrange(4))
        while not state[K.S_OVER]:
            if rng.random() < share:
                yield state.copy(), contract, trump, flags
            legal = int(K.legal_now(state, contract, trump, flags))
            if rng.random() < 0.5:
                card = rule_card(state, contract, trump, flags)
            else:
                card = rng.choice([c for c in range(52) if legal >> c & 1])
            K.play(state, card, contract, trump, flags)


@pytest.mark.slow
def test_the_engine_plays_the_references_net_card() -> None:
    """The learned policy's card from the engine is the reference's at 4,000 positions
    of deals of every contract, trump and mix of toggles (most with a real
    choice, where a logit one bit off could swap a near tie); every third one with the
    other hands hidden, since the policy reads only what the seat to move knows."""
    weights = _weights()
    positions = choices = 0
    for state, contract, trump, flags in _positions(448, 61, 0.2):
        expected = _net_card(state, contract, trump, flags, weights)
        seen = state.copy()
        if positions % 3 == 0:
            for seat in range(4):
                if seat != state[K.S_TURN]:
                    seen[seat] = 0
        assert engine.net_card(seen, contract, trump, flags, *weights) == expected, positions
        positions += 1
        legal = int(K.legal_now(state, contract, trump, flags))
        choices += legal & (legal - 1) != 0
    assert positions > 4_000
    assert choices > 3_000


def _rollout_case(
    number: int, rng: random.Random, worlds: int, played: range = range(4, 30)
) -> tuple[
    NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], int, Position,
    list[tuple[int, int]],
]:  # fmt: skip
    """A deal ``played`` rule cards in (at random), as the seat to move sees it: the
    position without the hands, ``worlds`` deals of what it has not seen, its legal
    cards, itself, the whole position and who played which card so far (seat 0 led)."""
    contract, trump, flags = _game(number * 37)
    state = K.new_state(_deal(rng), 0)
    plays: list[tuple[int, int]] = []
    forbidden = np.zeros(4, dtype=np.int64)
    while not plays or state[K.S_OVER]:  # (a deal may end early: deal another)
        state = K.new_state(_deal(rng), 0)
        plays = []
        forbidden[:] = 0
        for _ in range(rng.choice(played)):
            card = rule_card(state, contract, trump, flags)
            seat = int(state[K.S_TURN])
            plays.append((seat, card))
            # What the card shows its seat did not hold (as the search bot's sampler
            # reads a view), so that every world is one where every play was legal.
            trick, led, played_cards = (int(state[i]) for i in (K.S_TRICK, K.S_LED, K.S_PLAYED))
            forbidden[seat] |= not_held(card, trick, led, played_cards, contract, trump, flags)
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
#: Of each case's worlds, how many the reference plays too (it is slow).
CHECKED = 4


def _threads_agree(call: Callable[..., None], shape: tuple[int, ...], dtype: type) -> Any:
    """``call(out, threads=threads)`` on one thread and on two: the same answers; those."""
    answers = []
    for threads in (1, 2):
        out = np.zeros(shape, dtype=dtype)
        call(out, threads=threads)
        answers.append(out)
    assert np.array_equal(answers[0], answers[1])
    return answers[0]


def _playout_after(base: NDArray[np.int64], world: NDArray[np.int64], card: int, me: int,
                   contract: int, trump: int, flags: int, weights: Weights) -> int:  # fmt: skip
    """The reference's rollout: ``card`` played in ``world``, then the learned policy at
    every seat to the end; ``me``'s points."""
    child = base.copy()
    child[0:4] = world
    K.play(child, card, contract, trump, flags)
    while not child[K.S_OVER]:
        K.play(child, _net_card(child, contract, trump, flags, weights), contract, trump, flags)
    return int(child[K.S_POINTS + me])


def test_net_rollouts_are_the_references_on_every_thread_count() -> None:
    """Every candidate of the seat to move in every world, the learned policy playing
    on: the same points on one thread or two, and the reference's in the worlds it
    plays."""
    weights = _weights()
    rng = random.Random(62)
    checked = 0
    for number in range(CASES):
        worlds, base, candidates, me, (_, contract, trump, flags), _ = _rollout_case(
            number, rng, WORLDS, range(28, 44)
        )
        run = partial(
            engine.net_rollouts, worlds, base, candidates, me, contract, trump, flags, *weights
        )
        values = _threads_agree(run, (len(worlds), len(candidates)), np.int64)
        for w in range(CHECKED):
            for i, card in enumerate(candidates):
                expected = _playout_after(
                    base, worlds[w], int(card), me, contract, trump, flags, weights
                )
                assert values[w, i] == expected, (number, w, i)
                checked += 1
    assert checked > 30


def _likelihood(dealt: NDArray[np.int64], plays: NDArray[np.int64], me: int, contract: int,
                trump: int, flags: int, noise: float, weights: Weights,
                as_written: bool) -> float:  # fmt: skip
    """The reference's log-probability of the others' plays in one dealt world (seat 0
    led), each seat playing the learned policy mixed with ``noise`` of a uniform legal
    card.  The probabilities are the softmax of the reference's float32 logits taken in
    float64, as the engine takes them; ``as_written``, those of
    :func:`king.bots.net.play.net_probabilities` run as plain Python, where numpy's
    scalars make its subtraction and exponential float32."""
    x, h1, h2, logits = _scratch(weights)
    probs = np.zeros(52, dtype=np.float64)
    state = K.new_state(dealt, 0)
    total = 0.0
    for card in (int(c) for c in plays):
        legal = int(K.legal_now(state, contract, trump, flags))
        choices = K.popcount(legal)
        if state[K.S_TURN] != me and choices > 1:
            if as_written:
                net_play.net_probabilities(
                    state, contract, trump, flags, *weights, x, h1, h2, logits, probs
                )  # fmt: skip
                p = float(probs[card])
            else:
                rule = rule_card(state, contract, trump, flags)
                net_play.encode(state, contract, trump, flags, rule, x)
                net_play.net_logits(x, legal, *weights, h1, h2, logits)
                ids = [c for c in range(52) if legal >> c & 1]
                top = max(float(logits[c]) for c in ids)
                exps = [math.exp(float(logits[c]) - top) for c in ids]
                whole = 0.0
                for e in exps:
                    whole += e
                p = exps[ids.index(card)] / whole
            total += math.log(noise / choices + (1.0 - noise) * p)
        K.play(state, card, contract, trump, flags)
    return total


def test_net_likelihoods_are_the_references() -> None:
    """The log-probability of the others' plays under the learned policy with noise,
    in each world as dealt: the same on one thread or two, and the reference's in the
    worlds it computes: the float32 logits the same bits, the softmax the same float64
    operations, the exponential glibc's to the bit (as CPython's is on Linux), the
    logarithm the engine's libc's, which differs from glibc's in the last bit for a few
    arguments in 100,000.  So every world is within a few units in the last place, and
    nearly all (here all) are the same bits; elsewhere the platform's libm decides.  The
    reference's own :func:`~king.bots.net.play.net_probabilities`, run as plain Python,
    rounds its exponentials to float32: within a few parts in 10^8 of the engine's."""
    weights = _weights()
    rng = random.Random(63)
    same = total = 0
    for number in range(CASES):
        worlds, _, _, me, (_, contract, trump, flags), plays = _rollout_case(
            number, rng, WORLDS, range(4, 30)
        )
        dealt = worlds.copy()  # the hands as dealt: the played cards back to their seats
        for seat, card in plays:
            dealt[:, seat] |= np.int64(1) << card
        moves = np.array([card for _, card in plays], dtype=np.int64)
        run = partial(
            engine.net_likelihoods, dealt, moves, 0, me, contract, trump, flags, 0.3, *weights
        )
        logs = _threads_agree(run, (len(dealt),), np.float64)
        assert (logs < 0.0).any()
        for w in range(CHECKED):
            args = (dealt[w], moves, me, contract, trump, flags, 0.3, weights)
            expected = _likelihood(*args, as_written=False)
            np.testing.assert_array_max_ulp(logs[w], expected, maxulp=4)
            same += int(logs[w] == expected)
            total += 1
        as_written = _likelihood(dealt[0], moves, me, contract, trump, flags, 0.3, weights, True)
        assert logs[0] == pytest.approx(as_written, rel=1e-7)
    assert same >= 0.9 * total


def test_net_declaration_values_are_the_references() -> None:
    """The declarer's points when every seat plays the learned policy from the deal:
    the same on one thread or two, and the reference's in the worlds it plays."""
    weights = _weights()
    rng = random.Random(64)
    for number in range(14):
        contract, trump, flags = _game(number * 9)
        worlds = np.array([_deal(rng) for _ in range(16)], dtype=np.int64)
        declarer = number % 4
        run = partial(
            engine.net_declaration_values, worlds, declarer, contract, trump, flags, *weights
        )
        values = _threads_agree(run, (len(worlds),), np.int64)
        state = K.new_state(worlds[0], declarer)
        while not state[K.S_OVER]:
            K.play(state, _net_card(state, contract, trump, flags, weights), contract, trump, flags)
        assert values[0] == state[K.S_POINTS + declarer], number


def _world_seed(world: NDArray[np.int64], candidate: int) -> int:
    """The seed of the lookahead's deals after ``candidate`` in ``world``: its hands
    mixed (FNV-1a over the four words) with the candidate, odd, as int64."""
    mixed = 1469598103934665603
    for hand in world:
        mixed = ((mixed ^ (int(hand) & (1 << 64) - 1)) * 1099511628211) & (1 << 64) - 1
    seed = (mixed ^ (candidate * 2654435761)) | 1
    return seed - (1 << 64) if seed >= 1 << 63 else seed


def _lookahead_playout(base: NDArray[np.int64], world: NDArray[np.int64], i: int, card: int,
                       me: int, game: tuple[int, int, int],
                       setting: tuple[int, int, bool]) -> int:  # fmt: skip
    """The reference's rollout with lookahead: ``card`` (candidate ``i``) played in
    ``world``, then the rule policy, ``me`` (with ``everyone``, every seat) looking
    ahead in its last ``tricks`` tricks over ``inner`` deals; ``me``'s points."""
    contract, trump, flags = game
    tricks, inner, everyone = setting
    seed = np.array([_world_seed(world, i)], dtype=np.int64)
    child = base.copy()
    child[0:4] = world
    K.play(child, card, contract, trump, flags)
    while not child[K.S_OVER]:
        if everyone or child[K.S_TURN] == me:
            move = reference_lookahead.lookahead_card(
                child, contract, trump, flags, tricks, inner, seed
            )  # fmt: skip
        else:
            move = rule_card(child, contract, trump, flags)
        K.play(child, move, contract, trump, flags)
    return int(child[K.S_POINTS + me])


#: (tricks, inner deals, everyone) of each case of the lookahead's rollouts.
LOOKAHEAD_SETTINGS = ((4, 8, False), (3, 4, True), (6, 2, False), (2, 8, True), (5, 3, True))


def test_lookahead_rollouts_are_the_references_on_every_thread_count() -> None:
    """The rule policy with one step of lookahead in the last tricks, for the seat alone
    or for everyone: the deals of each lookahead are seeded by the world and the
    candidate, so the values are the same however the worlds are split, and the
    reference's in the worlds it plays."""
    rng = random.Random(65)
    checked = 0
    for number, setting in enumerate(LOOKAHEAD_SETTINGS):
        worlds, base, candidates, me, (_, contract, trump, flags), _ = _rollout_case(
            number, rng, WORLDS, range(4, 30)
        )
        tricks, inner, everyone = setting
        run = partial(
            engine.lookahead_rollouts, worlds, base, candidates, me, contract, trump, flags,
            tricks, inner, everyone,
        )  # fmt: skip
        values = _threads_agree(run, (len(worlds), len(candidates)), np.int64)
        for w in range(CHECKED):
            for i, card in enumerate(candidates):
                with warnings.catch_warnings():  # numpy's int64 scalars wrap, and say so
                    warnings.simplefilter("ignore", RuntimeWarning)
                    expected = _lookahead_playout(
                        base, worlds[w], i, int(card), me, (contract, trump, flags), setting
                    )
                assert values[w, i] == expected, (number, w, i)
                checked += 1
    assert checked > 30


@pytest.mark.slow
def test_the_engine_plays_the_references_lookahead_card() -> None:
    """The lookahead card and the seed it leaves are the reference's at about a thousand
    positions of deals of every contract, trump and mix of toggles, with a few settings
    of how many tricks it looks in and how many deals."""
    rng = random.Random(66)
    positions = looked = 0
    for state, contract, trump, flags in _positions(448, 67, 0.04):
        tricks = rng.choice((3, 6, 13))
        worlds = rng.choice((1, 2, 4))
        start = rng.getrandbits(62) | 1
        theirs = np.array([start], dtype=np.int64)
        mine = np.array([start], dtype=np.int64)
        with warnings.catch_warnings():  # numpy's int64 scalars wrap, and say so
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = reference_lookahead.lookahead_card(
                state, contract, trump, flags, tricks, worlds, theirs
            )  # fmt: skip
        card = engine.lookahead_card(state, contract, trump, flags, tricks, worlds, mine)
        assert (card, mine[0]) == (expected, theirs[0]), positions
        positions += 1
        looked += theirs[0] != start
    assert positions > 800
    assert looked > 250


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
    want = _net_card(K.new_state(state[0:4], 1), 1, -1, 0, other)
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
