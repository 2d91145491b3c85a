"""The search bot's steps in the engine (``engine/search.c``, :mod:`king.bots.engine.steps`)
held to the engine's own parts and to plain Python: a chunk of worlds is the deal of the
same seed played out by the rollouts, weighted by the likelihoods of the others' plays
and resampled as the bot's formula says; the choice and the summary are the Python
formulas' to the bit; threads change nothing; a bad setup is refused."""

from __future__ import annotations

import math
import random
from array import array

import numpy as np
import pytest

from king.bots import engine
from king.bots.engine import EngineError
from king.bots.engine.steps import Chunk, choose, search_chunks, summary
from king.bots.position import distinct, from_view
from king.bots.rule.bot import choose_card
from king.bots.search.bot import SearchBot, played_so_far
from king.bots.search.sampler import constraints
from king.cards import shuffled_hands
from king.game import Game
from king.phase import Phase
from king.rules import ALL_DECLARATIONS, PENALTY_MASKS, Rules
from king.view import SeatView

PLATFORM = engine.platform()


def _views(seed: int, count: int) -> list[SeatView]:
    """Views of seats about to play, from games played on by the rule bot (some at a
    trick's start, some inside one), every declaration in turn."""
    rng = random.Random(seed)
    views = []
    number = 0
    while len(views) < count:
        game = Game(Rules(), seed=rng.getrandbits(32), auto_deal=False)
        game.deal_cards(shuffled_hands(rng), number % 4)
        game.declare(ALL_DECLARATIONS[number % 10])
        stop = rng.randrange(0, 40)
        for _ in range(stop):
            seat = game.to_act
            assert seat is not None
            game.play_unchecked(choose_card(game.view(seat)))
        if game.phase is Phase.PLAYING and game.deal_number == 0:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            if len(view.legal_cards) > 1:
                views.append(view)
        number += 1
    return views


def _parts(view: SeatView, bot: SearchBot) -> tuple[list[int], list[int], list[int], list[int]]:
    contract = view.contract
    assert contract is not None
    trump = -1 if view.trump is None else int(view.trump)
    legal = view.legal_cards.mask
    trick = sum(card.mask for _, card in view.current_trick)
    kept = distinct(legal, view.played.mask & ~trick, PENALTY_MASKS[contract.code])
    ids = [c for c in range(52) if kept >> c & 1]
    setup = bot._setup(view, contract.code, trump, view.rules.flags, len(ids))
    base = [int(word) for word in from_view(view, with_hand=False)]
    plays = [card for _, card in played_so_far(view)]
    return setup, base, plays, ids


def test_a_chunk_without_weighting_is_the_deal_of_its_seed_played_out() -> None:
    """With ``noise`` 1 the others' plays weigh nothing: the chunk's worlds are
    ``sample_worlds`` from the same seed, and its values the rollouts' in them."""
    bot = SearchBot(1, tail=2)
    for view in _views(61, 25):
        setup, base, plays, ids = _parts(view, bot)
        chunk = Chunk(seed=12345, u=0.5, count=40)
        values = search_chunks(PLATFORM, setup, base, plays, ids, None, 1.0, [chunk], 1)
        known = constraints(view)
        worlds = np.zeros((40, 4), dtype=np.int64)
        seed = np.array([12345], dtype=np.int64)
        counts = np.array(known.counts, dtype=np.int64)
        forbidden = np.array(known.forbidden, dtype=np.int64)
        engine.sample_worlds(known.unseen, counts, forbidden, known.me, known.my_hand, seed, worlds)
        expected = np.zeros((40, len(ids)), dtype=np.int64)
        contract, trump, flags = setup[15], setup[16], setup[17]
        engine.rule_rollouts(
            worlds, np.array(base), np.array(ids), view.seat, contract, trump, flags, 2, expected
        )
        assert list(values) == expected.reshape(-1).tolist()


def _resampled(view: SeatView, setup: list[int], plays: list[int], chunk: Chunk) -> np.ndarray:  # type: ignore[type-arg]
    """The bot's formula in plain Python: twice the chunk's worlds dealt from its seed,
    each weighted by the rule model's likelihood of the others' plays, ``count`` of them
    drawn by systematic resampling at ``u``."""
    known = constraints(view)
    pool = np.zeros((2 * chunk.count, 4), dtype=np.int64)
    seed = np.array([chunk.seed], dtype=np.int64)
    counts = np.array(known.counts, dtype=np.int64)
    forbidden = np.array(known.forbidden, dtype=np.int64)
    engine.sample_worlds(known.unseen, counts, forbidden, known.me, known.my_hand, seed, pool)
    dealt = pool | np.array(setup[11:15], dtype=np.int64)
    logs = np.zeros(len(pool), dtype=np.float64)
    sequence = played_so_far(view)
    engine.rule_likelihoods(
        dealt, np.array(plays), sequence[0][0], view.seat, setup[15], setup[16], setup[17],
        0.35, False, logs,
    )  # fmt: skip
    weights = [math.exp(log - max(logs)) for log in logs]
    total = 0.0
    for weight in weights:
        total += weight
    picks = []
    running, pick = 0.0, 0
    for i in range(chunk.count):
        position = (chunk.u + i) / chunk.count * total
        while pick < len(pool) - 1 and running + weights[pick] < position:
            running += weights[pick]
            pick += 1
        picks.append(pick)
    return pool[picks]


def test_a_weighted_chunk_resamples_the_worlds_as_the_formula_says() -> None:
    bot = SearchBot(2)
    checked = 0
    for view in _views(62, 40):
        setup, base, plays, ids = _parts(view, bot)
        if not any(seat != view.seat for seat, _ in played_so_far(view)):
            continue
        chunk = Chunk(seed=777, u=0.25, count=30)
        values = search_chunks(PLATFORM, setup, base, plays, ids, None, 0.35, [chunk], 1)
        worlds = _resampled(view, setup, plays, chunk)
        expected = np.zeros((30, len(ids)), dtype=np.int64)
        engine.rule_rollouts(
            worlds, np.array(base), np.array(ids), view.seat, setup[15], setup[16], setup[17],
            0, expected,
        )  # fmt: skip
        assert list(values) == expected.reshape(-1).tolist()
        checked += 1
    assert checked > 20


def test_chunks_give_the_same_table_on_any_threads() -> None:
    bot = SearchBot(3, lookahead=3, inner=4)
    view = _views(63, 1)[0]
    setup, base, plays, ids = _parts(view, bot)
    chunks = [Chunk(seed=2 * i + 1, u=i / 7, count=64) for i in range(5)]
    one = search_chunks(PLATFORM, setup, base, plays, ids, None, 0.35, chunks, 1)
    two = search_chunks(PLATFORM, setup, base, plays, ids, None, 0.35, chunks, 2)
    assert len(one) == 5 * 64 * len(ids) and one == two


def _mean_error(column: list[float]) -> tuple[float, float]:
    total = 0.0
    for value in column:
        total += value
    mean = total / len(column)
    squares = 0.0
    for value in column:
        squares += (value - mean) * (value - mean)
    n = len(column)
    return mean, (math.sqrt(squares / (n - 1)) / math.sqrt(n) if n > 1 else 0.0)


def test_the_choice_and_the_summary_are_the_formulas_to_the_bit() -> None:
    rng = random.Random(64)
    for trial in range(200):
        columns = rng.randrange(1, 9)
        rows = rng.randrange(1, 60)
        spread = rng.choice((1, 30, 400))
        table = array("q", [rng.randrange(-spread, spread) for _ in range(rows * columns)])
        offsets = [rng.uniform(-200, 200) for _ in range(columns)] if trial % 2 else None
        found = summary(PLATFORM, table, columns, offsets)
        column = [[float(table[w * columns + j]) for w in range(rows)] for j in range(columns)]
        shift = offsets or [0.0] * columns
        means = [_mean_error(column[j])[0] + shift[j] for j in range(columns)]
        best = max(range(columns), key=lambda j: (means[j], -j))
        assert found.best == best
        for j in range(columns):
            mean, error = _mean_error(column[j])
            assert found.means[j] == mean + shift[j] and found.errors[j] == error
            gap = [column[best][w] - column[j][w] for w in range(rows)]
            loss, loss_error = _mean_error(gap)
            assert found.losses[j] == loss + (shift[best] - shift[j])
            assert found.loss_errors[j] == loss_error
        prior = rng.randrange(columns)
        plain = [_mean_error(column[j])[0] for j in range(columns)]
        top = max(range(columns), key=lambda j: (plain[j], -j))
        gain, error = _mean_error([column[top][w] - column[prior][w] for w in range(rows)])
        expected = top if top != prior and rows > 1 and gain > 2.0 * error else prior
        assert choose(PLATFORM, table, columns, prior, 2.0) == expected


def test_declaration_values_are_the_playouts_of_the_deals_of_the_seed() -> None:
    rng = random.Random(65)
    game = Game(Rules(), seed=7)
    seat = game.to_act
    assert seat is not None
    view = game.view(seat)
    bot = SearchBot(4)
    choices = tuple(view.legal_declarations)
    table = bot._declaration_table(view, choices, random.Random(9))
    seed = random.Random(9).getrandbits(62) | 1
    known = constraints(view)
    worlds = np.zeros((bot.declare_worlds, 4), dtype=np.int64)
    engine.sample_worlds(
        known.unseen, np.array(known.counts), np.array(known.forbidden), known.me,
        known.my_hand, np.array([seed]), worlds,
    )  # fmt: skip
    for i, choice in enumerate(choices):
        out = np.zeros(len(worlds), dtype=np.int64)
        trump = -1 if choice.trump is None else int(choice.trump)
        engine.rule_declaration_values(worlds, seat, choice.contract.code, trump, 0, out)
        assert list(table[i :: len(choices)]) == out.tolist()
    assert rng  # (the deals are the seed's, not this generator's)


def test_a_bad_setup_or_chunk_is_refused_with_what_was_wrong() -> None:
    bot = SearchBot(5)
    view = _views(66, 1)[0]
    setup, base, plays, ids = _parts(view, bot)

    def run(setup: list[int], ids: list[int], chunk: Chunk, noise: float = 0.35) -> None:
        search_chunks(PLATFORM, setup, base, plays, ids, None, noise, [chunk], 1)

    fine = Chunk(seed=1, u=0.5, count=8)
    short = list(setup)
    short[3 + (view.seat + 1) % 4] -= 1  # one card fewer than the unseen cards fill
    with pytest.raises(EngineError, match="out of range"):
        run(short, ids, fine)
    with pytest.raises(EngineError, match="out of range"):
        run(setup, ids, Chunk(seed=1, u=1.0, count=8))
    with pytest.raises(EngineError, match="out of range"):
        run(setup, ids, fine, noise=1.5)
    with pytest.raises(EngineError, match="too many or too few"):
        run(setup, ids, Chunk(seed=1, u=0.5, count=2000))
    not_legal = next(c for c in range(52) if not view.legal_cards.mask >> c & 1)
    with pytest.raises(EngineError, match="not legal"):
        run(setup, [*ids[:1], not_legal], fine)
    with pytest.raises(EngineError, match="too many or too few"):
        choose(PLATFORM, array("q", [1, 2, 3]), 0, 0, 2.0)
    run(setup, ids, fine)  # still working
