"""The learned policy: one encoding and one network, run as numpy (the ``net`` bot, from
its view) and by the engine (its card, rollouts and likelihoods, on the whole deal's
position), the same card in thousands of random positions; model files that are not
models refused; training that learns; the search bot with the network in its
rollouts.  (tests/bots/test_engine_net.py holds the engine to the Python reference of
:mod:`king.bots.net.play`.)"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from king.bots import BotSpecError, engine, make_bot
from king.bots import position as K
from king.bots.net.bot import (
    DEFAULT_MODEL,
    ModelFileError,
    NetBot,
    NetModel,
    default_model,
    view_input,
)
from king.bots.net.declare import DeclareNet
from king.bots.net.play import INPUTS, encode
from king.bots.rule.play import rule_card
from king.cards import shuffled_hands
from king.cli import run
from king.game import Game
from king.phase import Phase
from king.rules import ALL_DECLARATIONS, Declaration, Rules
from king.training import (
    Positions,
    fit,
    fit_declarations,
    generate,
    generate_declarations,
    inference_loss,
    measure,
    measure_declarations,
)

TOGGLE_SETS = [Rules(), Rules.preset("pagat"), Rules.preset("turkish"), Rules(overruff=True)]


def _trump(declaration: Declaration) -> int:
    return -1 if declaration.trump is None else int(declaration.trump)


def _deal(number: int, rng: random.Random) -> tuple[Rules, Declaration, list[int], Game]:
    rules = replace(TOGGLE_SETS[number % len(TOGGLE_SETS)], two_of_diamonds_starts=False)
    declaration = ALL_DECLARATIONS[number % 10]
    hands = shuffled_hands(rng)
    game = Game(rules, seed=0, auto_deal=False)
    game.deal_cards(hands, number % 4)
    game.declare(declaration)
    return rules, declaration, hands, game


@pytest.mark.parametrize("which", ["shipped", "random"])
def test_the_net_bot_and_the_engines_network_play_the_same_card(which: str) -> None:
    model = default_model() if which == "shipped" else NetModel.random(5)
    bot = NetBot(0, model)
    rng = random.Random(3)
    compared = 0
    for number in range(40):
        rules, declaration, hands, game = _deal(number, rng)
        state = K.new_state(np.array(hands, dtype=np.int64), game.to_act)  # type: ignore[arg-type]
        code, trump = declaration.contract.code, _trump(declaration)
        while game.phase is Phase.PLAYING:
            view = game.view(game.to_act)  # type: ignore[arg-type]
            card = bot.play(view).id
            played = engine.net_card(state, code, trump, rules.flags, *model.arrays)
            assert played == card, (number, view.to_json())
            x, legal = view_input(view)  # the reference: numpy's layers on the view
            logits = model.logits(x)
            ids = [c for c in range(52) if legal >> c & 1]
            assert max(ids, key=lambda c: float(logits[c])) == card, (number, view.to_json())
            compared += view.legal_cards.mask.bit_count() > 1
            choice = rng.choice(list(view.legal_cards)).id
            game.play_unchecked(choice)
            K.play(state, choice, code, trump, rules.flags)
    assert compared > 1400


def test_the_input_holds_only_what_the_seat_to_move_sees() -> None:
    rng = random.Random(4)
    for number in range(30):
        rules, declaration, _, game = _deal(number, rng)
        code, trump = declaration.contract.code, _trump(declaration)
        for _ in range(number % 40):
            game.play_unchecked(rng.choice(list(game.view(game.to_act).legal_cards)).id)  # type: ignore[arg-type]
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        state = K.from_view(view)  # the other hands empty
        whole = state.copy()
        for other in range(4):
            if other != seat:
                whole[other] = game.deal.hand(other).mask  # type: ignore[union-attr]
        a = np.zeros(INPUTS, dtype=np.float32)
        b = np.zeros(INPUTS, dtype=np.float32)
        rule = rule_card(state, code, trump, rules.flags)
        encode(state, code, trump, rules.flags, rule, a)
        encode(whole, code, trump, rules.flags, rule, b)
        assert (a == b).all()
        assert a[:52].sum() == len(view.hand)
        assert a[52:104].sum() == len(view.unseen)


@pytest.mark.slow
def test_net_rollouts_score_as_the_net_bot_plays() -> None:
    model = default_model()
    rng = random.Random(9)
    for number in range(6):
        rules, declaration, hands, game = _deal(number, rng)
        code, trump = declaration.contract.code, _trump(declaration)
        leader = game.to_act
        assert leader is not None
        view = game.view(leader)
        candidates = np.array([c.id for c in view.legal_cards], dtype=np.int64)
        values = np.zeros((1, len(candidates)), dtype=np.int64)
        base = K.new_state(np.zeros(4, dtype=np.int64), leader)
        engine.net_rollouts(
            np.array([hands], dtype=np.int64), base, candidates, leader, code, trump,
            rules.flags, *model.arrays, values,
        )  # fmt: skip
        bot = NetBot(0, model)
        for i, card in enumerate(candidates[:4]):
            _, _, _, replayed = _deal(number, random.Random(0))
            replayed = Game(game.rules, seed=0, auto_deal=False)
            replayed.deal_cards(hands, number % 4)
            replayed.declare(declaration)
            replayed.play_unchecked(int(card))
            while replayed.phase is Phase.PLAYING:
                replayed.play(bot.play(replayed.view(replayed.to_act)))  # type: ignore[arg-type]
            assert values[0, i] == replayed.results[0].points[leader]


@pytest.mark.slow
def test_net_likelihoods_are_the_networks_probabilities_of_the_others_cards() -> None:
    model = default_model()
    rng = random.Random(10)
    noise = 0.2
    for number in (2, 5, 7):
        rules, declaration, hands, game = _deal(number, rng)
        code, trump = declaration.contract.code, _trump(declaration)
        leader = game.to_act
        assert leader is not None
        me = (leader + 1) % 4
        plays: list[int] = []
        expected = 0.0
        for _ in range(9):
            view = game.view(game.to_act)  # type: ignore[arg-type]
            card = rng.choice(list(view.legal_cards)).id
            legal = view.legal_cards.mask
            if view.seat != me and legal.bit_count() > 1:
                x, _ = view_input(view)
                logits = model.logits(x).astype(np.float64)
                ids = [c for c in range(52) if legal >> c & 1]
                weights = np.exp(logits[ids] - logits[ids].max())
                share = weights[ids.index(card)] / weights.sum()
                expected += np.log(noise / len(ids) + (1 - noise) * share)
            plays.append(card)
            game.play_unchecked(card)
        logs = np.zeros(1, dtype=np.float64)
        engine.net_likelihoods(
            np.array([hands], dtype=np.int64), np.array(plays, dtype=np.int64), leader, me,
            code, trump, rules.flags, noise, *model.arrays, logs,
        )  # fmt: skip
        assert logs[0] == pytest.approx(expected, abs=1e-3)


def test_a_model_file_round_trips_and_bad_ones_are_refused(tmp_path: Path) -> None:
    model = NetModel.random(1, (16, 8))
    path = tmp_path / "m.npz"
    NetModel.of(list(model.arrays), {"note": "ş"}, DeclareNet.random(2, 8)).save(path)
    again = NetModel.load(path)
    assert again.about["note"] == "ş" and again.hidden == (16, 8)
    assert all((a == b).all() for a, b in zip(again.arrays, model.arrays, strict=True))
    assert again.declare is not None
    assert all(
        (a == b).all()
        for a, b in zip(again.declare.arrays, DeclareNet.random(2, 8).arrays, strict=True)
    )
    with pytest.raises(ModelFileError, match="d2 is float32"):
        d = DeclareNet.random(2, 8)
        NetModel.of(list(model.arrays), declare=DeclareNet(d.d0, d.d1, d.c1, d.d2[:, :3], d.c2))
    junk = tmp_path / "junk.npz"
    junk.write_text("not a zip")
    with pytest.raises(ModelFileError, match="cannot read a model"):
        NetModel.load(junk)
    with pytest.raises(ModelFileError, match="missing"):
        np.savez(tmp_path / "partial.npz", w1=model.w1)
        NetModel.load(tmp_path / "partial.npz")
    with pytest.raises(ModelFileError, match="w2 is float32"):
        NetModel(model.w0, model.w1, model.b1, model.w2[:3], model.b2, model.w3, model.b3)
    bad = model.w1.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ModelFileError, match="not finite"):
        NetModel.of([model.w0, bad, *model.arrays[2:]])
    with pytest.raises(BotSpecError, match="cannot read a model"):
        make_bot(f"net:file={junk}")
    with pytest.raises(BotSpecError, match="no option 'depth'"):
        make_bot("net:depth=3")


def test_the_shipped_model_says_how_it_was_made_and_what_it_measured() -> None:
    model = NetModel.load(DEFAULT_MODEL)
    about = model.about
    assert about["trained"]["positions"] >= 100_000
    assert about["trained"]["objective"] == "gain"
    held = about["held_out"]
    assert held["positions"] >= 5000
    assert 0.0 < held["regret_points"] < 2 * held["rule_regret_points"]
    assert model.declare is not None and about["declarations"]["labelled"] >= 2000
    by_trick = about["inference"]["by_trick"]
    assert len(by_trick) == 10 and all(0 < v["uniform"] < 2 for v in by_trick.values())
    assert DEFAULT_MODEL.stat().st_size < 3_000_000


def test_training_learns_the_labels_it_is_given() -> None:
    data = generate(240, seed=3, budget=0.004)
    assert len(data) == 240
    legal_counts = np.array([bin(int(m)).count("1") for m in data.legal])
    assert (legal_counts > 1).all()
    assert (np.isnan(data.values).sum(axis=1) == 52 - legal_counts).all()
    before = measure(NetModel.random(0, (32, 16)), data)
    model = fit(data, hidden=(32, 16), epochs=40, batch=32, rate=3e-3)
    after = measure(model, data)
    assert after.loss < before.loss - 0.1
    assert after.regret <= before.regret
    assert after.regret >= 0.0
    assert 0.0 <= after.agreement <= 1.0


def test_king_train_writes_a_model_that_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "net.npz"
    data = tmp_path / "positions.npz"
    with pytest.raises(SystemExit) as done:
        run(["train", "--positions", "120", "--budget", "0.004", "--epochs", "2",
             "--hidden", "16,8", "--data", str(data), "--out", str(out),
             "--inference-deals", "1", "--declarations", "40"])  # fmt: skip
    assert done.value.code == 0
    printed = capsys.readouterr().out
    assert "held out:" in printed and "uniform" in printed
    assert Positions.load(data).x.shape == (120, INPUTS)
    made = NetModel.load(out)
    assert made.about["trained"]["positions"] == 120
    assert made.declare is not None and made.about["declarations"]["labelled"] == 40
    assert (tmp_path / "positions-declarations.npz").exists()
    bot = make_bot(f"net:file={out}", seed=1)
    game = Game(seed=4)
    while game.deal_number < 1:
        choice = bot.act(game.view(game.to_act))  # type: ignore[arg-type]
        if game.phase is Phase.DECLARING:
            game.declare(choice)  # type: ignore[arg-type]
        else:
            game.play(choice)  # type: ignore[arg-type]
    assert sum(game.results[0].points) == game.results[0].declaration.contract.total
    (tmp_path / "text.npz").write_text("mine")
    for args, message in (
        (["--hidden", "16"], "--hidden is two sizes"),
        (["--out", str(tmp_path / "text.npz")], "is not a model: use --force"),
    ):
        with pytest.raises(SystemExit) as failed:
            run(["train", "--positions", "100", *args])
        assert failed.value.code == 2
        assert message in capsys.readouterr().err


@pytest.mark.parametrize("spec", ["search:rollout=net&time=0.02", "search:model=net&time=0.02"])
def test_search_with_the_network_plays_legally_and_repeats_itself(spec: str) -> None:
    plays = []
    for _ in range(2):
        bots = [make_bot(spec if s == 0 else "rule", seed=s) for s in range(4)]
        game = Game(seed=6)
        while game.deal_number < 1:
            seat = game.to_act
            assert seat is not None
            choice = bots[seat].act(game.view(seat))
            if game.phase is Phase.DECLARING:
                game.declare(choice)  # type: ignore[arg-type]
            else:
                game.play(choice)  # type: ignore[arg-type]
        plays.append(game.deals[0].plays)
    assert plays[0] == plays[1]


def test_search1_is_pinned_and_bad_policies_are_named() -> None:
    frozen = make_bot("search1:time=0.05")
    pinned = (frozen.rollout, frozen.model, frozen.margin, frozen.budget)  # type: ignore[attr-defined]
    assert pinned == ("rule", "rule", 2.0, 0.05)
    with pytest.raises(BotSpecError, match="search1 has no option 'rollout'"):
        make_bot("search1:rollout=net")
    with pytest.raises(BotSpecError, match="rollout is rule or net, not 'deep'"):
        make_bot("search:rollout=deep")


@pytest.mark.slow
def test_weighting_worlds_by_the_true_model_of_the_players_places_the_hidden_cards_better() -> None:
    # The players are rule bots: the rule model is the truth, and must beat uniform.
    loss = inference_loss(default_model(), deals=8, worlds=300, player="rule")
    assert loss.tricks[0] == 3 and 40 <= sum(loss.positions) <= 80
    uniform, rule, net, alike = (
        float(np.mean(v)) for v in (loss.uniform, loss.rule, loss.net, loss.alike)
    )
    assert rule < uniform - 0.02
    # Splitting the rule card's share among equal cards costs little against them.
    assert alike < uniform - 0.02
    assert np.isfinite(net) and 0.0 < uniform < np.log(1e3)


def test_the_declaration_network_learns_the_search_bots_declarations() -> None:
    data = generate_declarations(120, seed=4)
    assert data.legal.sum(axis=1).min() >= 2
    assert (np.isnan(data.values) == ~data.legal).all()
    before = measure_declarations(DeclareNet.random(0), data)
    after = measure_declarations(fit_declarations(data, epochs=60), data)
    assert after.agreement > max(before.agreement, after.rule_agreement)
    assert after.regret < before.regret
