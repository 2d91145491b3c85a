"""Every registered bot plays whole games under every preset, legally and
deterministically; bot specifications are checked."""

from __future__ import annotations

import pytest

from king.bots import BotSpecError, available_bots, make_bot, parse_spec, strongest_bot
from king.bots.levels import level_of
from king.game import Game
from king.record import dump, replay
from king.rules import PRESETS, Rules

#: Quick settings for bots whose defaults think for a long time.
QUICK = {"search": "search:time=0.01&worlds=16", "search1": "search1:time=0.01"}


def _quick(name: str) -> str:
    return QUICK.get(name, name)


def _play_game(specs: list[str], rules: Rules, seed: int) -> Game:
    bots = [make_bot(spec, seed=seed * 10 + seat) for seat, spec in enumerate(specs)]
    game = Game(rules, seed=seed)
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        choice = bots[seat].act(view)
        if game.deal is None:
            assert choice in view.legal_declarations
        else:
            assert choice in view.legal_cards
        game.act(choice)
    for bot in bots:
        bot.close()
    return game


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_registered_bot_plays_a_whole_game_under_every_preset(preset: str) -> None:
    names = [info.name for info in available_bots()]
    assert {"random", "rule", "search"} <= set(names)
    specs = ([_quick(n) for n in names] * 4)[:4]
    game = _play_game(specs, Rules.preset(preset), seed=len(preset))
    assert sum(game.totals) == 0
    report = replay(dump(game))
    assert report.valid and report.complete


#: The bots whose determinism is their own: a level of the search bot is the search bot
#: (tested at quick settings) at its level's settings, which take a minute a game.
OWN_ENGINES = [
    info.name
    for info in available_bots()
    if (level := level_of(info.name)) is None or not level.engine
]


@pytest.mark.slow
@pytest.mark.parametrize("name", OWN_ENGINES)
def test_bots_are_deterministic_given_their_seed(name: str) -> None:
    first = _play_game([_quick(name)] * 4, Rules(), seed=7)
    second = _play_game([_quick(name)] * 4, Rules(), seed=7)
    assert [d.plays for d in first.deals] == [d.plays for d in second.deals]
    assert first.totals == second.totals


def test_the_registry_orders_by_strength() -> None:
    infos = available_bots()
    assert [i.strength for i in infos] == sorted((i.strength for i in infos), reverse=True)
    assert strongest_bot() == infos[0].name
    assert all(i.summary for i in infos)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("rule", ("rule", {})),
        (" Random ", ("random", {})),
        ("search:time=0.5&worlds=20", ("search", {"time": "0.5", "worlds": "20"})),
        ("cmd:python my bot.py", ("cmd", "python my bot.py")),
    ],
)
def test_bot_specs_parse(spec: str, expected: tuple[str, object]) -> None:
    assert parse_spec(spec) == expected


@pytest.mark.parametrize("spec", ["", "nobody", "cmd:", "random:x", "random:seed=3", "rule:=3"])
def test_bad_bot_specs_are_refused_clearly(spec: str) -> None:
    with pytest.raises(BotSpecError) as info:
        make_bot(spec)
    assert str(info.value)
