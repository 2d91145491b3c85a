"""The search bot: legal and deterministic, reads endgames exactly, and beats random."""

from __future__ import annotations

import pytest

from king.arena import ArenaConfig, run_arena
from king.bots import BotSpecError, make_bot
from king.bots.search.bot import SEARCH1, SearchBot, stand_in
from king.game import Game
from king.record import replay
from king.rules import PRESETS, Rules

FAST = "search:time=0.02&worlds=64"


def _play_deal(spec: str, rules: Rules, seed: int, seat_bot: int = 0) -> Game:
    bots = [make_bot(spec if s == seat_bot else "random", seed=seed + s) for s in range(4)]
    game = Game(rules, seed=seed)
    while game.deal_number < 1:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        choice = bots[seat].act(view)
        if game.deal is None:
            assert choice in view.legal_declarations
            game.declare(choice)  # type: ignore[arg-type]
        else:
            assert choice in view.legal_cards
            game.play(choice)  # type: ignore[arg-type]
    return game


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_search_plays_legally_under_every_preset(preset: str) -> None:
    for seed in range(2):
        game = _play_deal(FAST, Rules.preset(preset), seed, seat_bot=seed % 4)
        assert sum(game.results[0].points) == game.results[0].declaration.contract.total


def test_search_is_deterministic_given_its_seed() -> None:
    first = _play_deal(FAST, Rules(), 5)
    second = _play_deal(FAST, Rules(), 5)
    assert first.deals[0].plays == second.deals[0].plays
    assert first.deals[0].declaration == second.deals[0].declaration


def _endgame_record(hands: list[str], contract: str, plays: str) -> dict:  # type: ignore[type-arg]
    return {
        "format": "king-record/1",
        "deals": [{"declarer": 0, "hands": hands, "contract": contract, "plays": plays}],
    }


def test_search_sheds_the_king_of_hearts_when_void() -> None:
    # No King.  Seat 1 holds the KH and no diamonds; diamonds are led: it must get rid of
    # the king at once.
    hands = [
        "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
        "KH QH JH TH 9H AS KS QS JS TS 9S 8S 7S",
        "AH 8H 7H 6H 5H 4H 3H 2H 6S 5S 4S 3S 2S",
        "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
    ]
    game = replay(_endgame_record(hands, "no-king", "2D")).game
    bot = make_bot(FAST, seed=1)
    assert str(bot.act(game.view(1))) == "KH"


def test_search_beats_random_on_duplicate_deals() -> None:
    config = ArenaConfig((FAST, "random", "random", "random"), "deals", 7, seed=11)
    report = run_arena(config)
    assert report.abandoned == []
    search = report.stats[FAST]
    random_bot = report.stats["random"]
    assert search.score.mean > 30
    assert search.score.mean > random_bot.score.mean


@pytest.mark.parametrize(
    "spec",
    [
        "search:depth=2",
        "search:time=fast",
        "search:time=-1",
        "search:threads=0",
        "search:alike=2",
        "search1:alike=1",
    ],
)
def test_bad_search_options_are_refused(spec: str) -> None:
    with pytest.raises(BotSpecError):
        make_bot(spec)


def test_search_options_are_read() -> None:
    bot = make_bot("search:time=0.3&threads=1&tail=4&worlds=99", seed=2)
    assert isinstance(bot, SearchBot)
    assert (bot.budget, bot.threads, bot.tail, bot.max_worlds) == (0.3, 1, 4, 99)
    # The older model (the kernel's quick policy and a solver) is gone: named, refused.
    with pytest.raises(BotSpecError, match="model is rule or net, not 'kernel'"):
        make_bot("search:model=kernel")


def test_equal_cards_options_and_the_pinned_baseline() -> None:
    """``alike`` (the model of the others shares the rule card's probability among the
    cards equal to it) is an option of ``search``; ``search1`` keeps the exact model
    and its old stand-in for the rule card."""
    assert make_bot("search:alike=0").alike is False  # type: ignore[attr-defined]
    assert make_bot("search:alike=1").alike is True  # type: ignore[attr-defined]
    baseline = make_bot("search1")
    assert isinstance(baseline, SearchBot)
    assert (baseline.alike, baseline.top_stand_in, baseline.noise) == (False, False, 0.35)
    assert SEARCH1["alike"] is False


def test_the_rule_cards_stand_in_is_the_top_of_its_run() -> None:
    """Clubs: the 2 (id 0) alone (another seat holds the 3), the 4 to the 7 (ids 2-5)
    one run, kept as the 7.  The rule card 4 is nearer the 2 than the 7, but the 7 is
    the card equal to it."""
    kept = [0, 5, 20]  # the 2 and the 7 of clubs, and a diamond
    assert stand_in(kept, 2) == 5
    assert min((c for c in kept if c < 13), key=lambda c: abs(c - 2)) == 0  # search1's
    assert stand_in(kept, 5) == 5
    assert stand_in(kept, 0) == 0
