"""Policies as bots: PolicyBot, register_policy, the ``policy:file=`` spec, the external
policy bot, and the trained example measured in the arena."""

from __future__ import annotations

import io
import json
import pickle
import random
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest

from benchmarks.server_process import free_port
from king.arena import ArenaConfig, ArenaSetupError, run_arena
from king.bots import BotError, BotSpecError, make_bot
from king.bots import registry as bots_base
from king.env import (
    ACTION_COUNT,
    OBS_SIZE,
    LinearPolicy,
    MlpPolicy,
    PolicyBot,
    PolicyFileError,
    action_mask,
    encode_observation,
    load_policy,
    register_policy,
)
from king.env.observation import OBSERVATION_VERSION
from king.env.policies.files import POLICY_FILE
from king.env.policies.host import serve, view_from_json
from king.game import Game, Phase
from tests.support import ROOT
from tests.support.games import random_move
from tests.support.services import local_king

EXAMPLE_POLICY = ROOT / "examples" / "rl_policy.npz"


@pytest.fixture(autouse=True)
def _registry_per_test() -> Iterator[None]:
    """Bots a test registers stay in that test (the registry is global)."""
    with bots_base.scoped_registry():
        yield


def _lowest(observation: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _random_policy(seed: int):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    return lambda observation, mask: int(rng.choice(np.flatnonzero(mask)))


def test_a_registered_policy_plays_whole_games_in_the_arena() -> None:
    register_policy("test-lowest", _lowest, summary="lowest legal action")
    bot = make_bot("test-lowest", seed=3)
    assert isinstance(bot, PolicyBot) and bot.name == "test-lowest"
    report = run_arena(ArenaConfig(("test-lowest", "random", "random", "random"), "games", 1))
    assert report.abandoned == []
    assert report.stats["test-lowest"].n == 4


def test_a_seeded_policy_factory_gets_each_bots_seed() -> None:
    seeds: list[int] = []

    def factory(seed: int):  # type: ignore[no-untyped-def]
        seeds.append(seed)
        return _random_policy(seed)

    register_policy("test-seeded", factory, seeded=True)
    config = ArenaConfig(("test-seeded", "random", "random", "random"), "deals", 2)
    first = run_arena(config).to_json()
    second = run_arena(config).to_json()
    assert first["bots"]["test-seeded"]["mean"] == second["bots"]["test-seeded"]["mean"]
    assert len(set(seeds)) > 1
    with pytest.raises(BotSpecError, match="takes no options"):
        make_bot("test-seeded:x=1")
    with pytest.raises(BotSpecError, match="cannot name a bot"):
        register_policy("bad:name", _lowest)


def test_an_illegal_answer_is_reported_not_corrected() -> None:
    register_policy("test-zero", lambda observation, mask: 0)
    report = run_arena(ArenaConfig(("test-zero", "random", "random", "random"), "deals", 1))
    assert report.abandoned, "a policy that plays 2S regardless must be caught"
    assert "chose action 0 (2S), which is not legal" in report.abandoned[0]["what"]
    game = Game(seed=1)
    bot = PolicyBot(lambda observation, mask: 99, name="wild")
    with pytest.raises(BotError, match="answered action 99, outside 0-61"):
        bot.act(game.view(game.declarer))
    bot = PolicyBot(lambda observation, mask: "x", name="text")  # type: ignore[arg-type, return-value]
    with pytest.raises(BotError, match="not an action number"):
        bot.act(game.view(game.declarer))


def test_linear_policy_files_round_trip_and_refuse_other_layouts(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    policy = LinearPolicy(
        rng.normal(size=(ACTION_COUNT, OBS_SIZE)).astype(np.float32),
        rng.normal(size=ACTION_COUNT).astype(np.float32),
    )
    path = tmp_path / "p.npz"
    policy.save(path)
    again = load_policy(path)
    game = Game(seed=3)
    for _ in range(30):
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        observation, mask = encode_observation(view), action_mask(view)
        assert again(observation, mask) == policy(observation, mask)
        probabilities = policy.probabilities(observation, mask)
        assert probabilities.sum() == pytest.approx(1.0)
        assert (probabilities[mask == 0] == 0).all()
        sampled = load_policy(path, sample=True, seed=1)(observation, mask)
        assert mask[sampled]
        if game.phase is Phase.DECLARING:
            game.declare(PolicyBot(again).declare(view))
        else:
            game.play(PolicyBot(again).play(view))

    bot = make_bot(f"policy:file={path}", seed=1)
    assert isinstance(bot, PolicyBot) and bot.name == "policy:p.npz"
    assert isinstance(make_bot(f"policy:file={path}&sample=1", seed=1), PolicyBot)

    old = tmp_path / "old.npz"
    np.savez(
        old, weights=policy.weights, bias=policy.bias, observation_version=0, kind="linear-softmax"
    )
    with pytest.raises(PolicyFileError, match="trained on observation layout 0"):
        load_policy(old)
    small = tmp_path / "small.npz"
    np.savez(
        small,
        weights=np.zeros((62, 5)),
        bias=np.zeros(62),
        observation_version=1,
        kind="linear-softmax",
    )
    with pytest.raises(PolicyFileError, match="weights"):
        load_policy(small)
    with pytest.raises(PolicyFileError, match="cannot read"):
        load_policy(tmp_path / "missing.npz")
    with pytest.raises(BotSpecError, match="cannot read"):
        make_bot(f"policy:file={tmp_path / 'missing.npz'}")
    bare = make_bot("policy", seed=2)
    assert isinstance(bare, PolicyBot) and bare.name == "policy:rl_policy.npz"
    with pytest.raises(BotSpecError, match="takes file= and sample="):
        make_bot(f"policy:file={path}&temperature=2")


def test_a_view_rebuilt_from_json_observes_the_same() -> None:
    rng = random.Random(6)
    game = Game(seed=6)
    checked = 0
    while not game.is_over and checked < 400:
        for seat in range(4):
            view = game.view(seat)
            legal = [str(d) for d in view.legal_declarations] or [str(c) for c in view.legal_cards]
            rebuilt = view_from_json(json.loads(json.dumps(view.to_json())), legal)
            assert rebuilt == view
            assert np.array_equal(encode_observation(rebuilt), encode_observation(view))
            checked += 1
        random_move(game, rng)


def test_the_policy_bot_speaks_the_external_protocol() -> None:
    game = Game(seed=2)
    seat = game.declarer
    view = game.view(seat)
    requests = [
        {"type": "hello", "protocol": "king-bot/1", "seat": seat, "seed": 1, "rules": "classic"},
        {
            "type": "declare",
            "id": 1,
            "view": view.to_json(),
            "legal": [str(d) for d in view.legal_declarations],
        },
        {"type": "bye"},
    ]
    out = io.StringIO()
    serve(
        PolicyBot(LinearPolicy.zeros(), name="zeros"),
        io.StringIO("\n".join(map(json.dumps, requests))),
        out,
    )
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert answers[0] == {"type": "hello", "protocol": "king-bot/1", "name": "zeros"}
    assert answers[1] == {"id": 1, "declare": "no-tricks"}


def test_king_arena_measures_a_saved_policy_through_cmd(tmp_path: Path) -> None:
    """The external policy bot plays exactly as the same policy in process."""
    path = tmp_path / "p.npz"
    rng = np.random.default_rng(2)
    LinearPolicy(
        rng.normal(size=(ACTION_COUNT, OBS_SIZE)).astype(np.float32),
        np.zeros(ACTION_COUNT, np.float32),
    ).save(path)
    command = f"cmd:{sys.executable} -m king.env.policies.host {path}"
    external = run_arena(ArenaConfig((command, "random", "random", "random"), "deals", 1))
    inside = run_arena(
        ArenaConfig((f"policy:file={path}", "random", "random", "random"), "deals", 1)
    )
    assert external.abandoned == [] and inside.abandoned == []
    assert (
        external.to_json()["bots"][command]["mean"]
        == inside.to_json()["bots"][f"policy:file={path}"]["mean"]
    )


def test_the_cli_refuses_a_bad_policy_file() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "king.env.policies.host", "no-such-file.npz"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2 and "cannot read a policy" in result.stderr


def test_the_bare_spec_needs_a_file_outside_a_checkout(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from king.env.policies import loading as policy

    monkeypatch.setattr(policy, "EXAMPLE_POLICY", tmp_path / "none.npz")
    with pytest.raises(BotSpecError, match="needs its file here"):
        make_bot("policy")


def test_the_trained_example_beats_random() -> None:
    policy = load_policy(EXAMPLE_POLICY)
    register_policy("example-linear", policy)
    report = run_arena(ArenaConfig(("example-linear", "random", "random", "random"), "deals", 14))
    stats = report.stats["example-linear"]
    assert report.abandoned == []
    assert stats.score.mean - stats.score.ci95 > 0, report.table()


def test_the_training_example_runs(tmp_path: Path) -> None:
    out = tmp_path / "tiny.npz"
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "rl_train.py"),
            "--games=1",
            "--deals=4",
            "--epochs=1",
            "--arena-deals=2",
            f"--out={out}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "agrees with rule" in result.stdout and "linear" in result.stdout
    assert load_policy(out).weights.shape == (ACTION_COUNT, OBS_SIZE)


def _lowest_legal(observation, mask):  # type: ignore[no-untyped-def]
    """At the top of a module: it reaches the arena's worker processes."""
    return int(np.flatnonzero(mask)[0])


def test_a_registered_policy_plays_in_the_worker_processes_of_jobs_2() -> None:
    """The arena's workers are spawned: a policy registered in this process is handed
    to them; one that cannot be (a lambda) is refused in a sentence before any game."""
    register_policy("test-top-level", _lowest_legal)
    config = ArenaConfig(("test-top-level", "random", "random", "random"), "deals", 4, jobs=2)
    report = run_arena(config)
    assert report.abandoned == [] and report.stats["test-top-level"].n == 16
    alone = run_arena(ArenaConfig(config.bots, "deals", 4, jobs=1))
    assert alone.stats["test-top-level"].score.mean == report.stats["test-top-level"].score.mean
    register_policy("test-lambda", lambda observation, mask: int(np.flatnonzero(mask)[0]))
    with pytest.raises(ArenaSetupError, match="'test-lambda' was registered in this process"):
        run_arena(ArenaConfig(("test-lambda", "random", "random", "random"), "deals", 2, jobs=2))


def _torch_like(path: Path) -> None:
    """A file laid out as ``torch.save`` writes one (a zip of data.pkl and storages)."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("model/data.pkl", pickle.dumps({"weight": [0.0] * 4}))
        archive.writestr("model/version", "3\n")
        archive.writestr("model/data/0", bytes(16))


def _bad_policy_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Every kind of wrong file, and what its refusal must say is wrong."""
    good = {
        "weights": np.zeros((ACTION_COUNT, OBS_SIZE), np.float32),
        "bias": np.zeros(ACTION_COUNT, np.float32),
        "observation_version": np.array(OBSERVATION_VERSION),
        "kind": np.array("linear-softmax"),
    }
    cases: dict[str, tuple[Path, str]] = {}

    def npz(name: str, reason: str, **arrays: object) -> None:
        path = tmp_path / f"{name}.npz"
        np.savez(path, **arrays)  # type: ignore[arg-type]
        cases[name] = (path, reason)

    def raw(name: str, reason: str, content: bytes) -> None:
        path = tmp_path / f"{name}.npz"
        path.write_bytes(content)
        cases[name] = (path, reason)

    raw("text", "is not an .npz archive", b"weights = [0.1, 0.2]\n")
    raw("empty", "is not an .npz archive", b"")
    raw("pickle", "is a Python pickle", pickle.dumps({"weights": [0.0]}))
    raw("broken-zip", "is a damaged zip archive", b"PK\x03\x04" + bytes(40))
    one = io.BytesIO()
    np.save(one, good["weights"])
    raw("npy", "holds one .npy array", one.getvalue())
    _torch_like(tmp_path / "torch.npz")
    cases["torch"] = (tmp_path / "torch.npz", "is a PyTorch file")
    npz("no-kind", "lacks the arrays kind", **{k: v for k, v in good.items() if k != "kind"})
    npz("other-arrays", "lacks the arrays weights, bias", a=np.zeros(3))
    npz(
        "wrong-shape",
        r"weights \(62, 602\) and bias \(62,\), not \(62, 5\)",
        **{**good, "weights": np.zeros((ACTION_COUNT, 5))},
    )
    npz("transposed", "not \\(602, 62\\)", **{**good, "weights": good["weights"].T})
    npz("text-weights", "weights are <U3, not numbers", **{**good, "weights": np.array("abc")})
    npz("nan-bias", "bias hold NaN", **{**good, "bias": np.full(ACTION_COUNT, np.nan)})
    npz("kind-number", "its kind is int64", **{**good, "kind": np.array(3)})
    npz("other-kind", "holds a 'mlp' policy", **{**good, "kind": np.array("mlp")})
    npz("version-text", "observation_version is <U1", **{**good, "observation_version": "x"})
    return cases


def test_every_bad_policy_file_is_refused_saying_what_a_policy_file_holds(
    tmp_path: Path,
) -> None:
    for name, (path, reason) in _bad_policy_files(tmp_path).items():
        with pytest.raises(PolicyFileError) as caught:
            load_policy(path)
        message = str(caught.value)
        assert message.startswith(f"cannot read a policy from {path}: "), (name, message)
        assert re.search(reason, message), (name, message)
        assert message.endswith(POLICY_FILE) and "\n" not in message, (name, message)
        assert "is not a file in the archive" not in message
        with pytest.raises(BotSpecError, match=re.escape(POLICY_FILE)):
            make_bot(f"policy:file={path}")


def test_a_network_policy_saves_loads_and_plays_with_numpy(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    layers = [
        (rng.normal(size=(16, OBS_SIZE)), rng.normal(size=16)),
        (rng.normal(size=(ACTION_COUNT, 16)), rng.normal(size=ACTION_COUNT)),
    ]
    policy = MlpPolicy(layers, "relu")
    policy.save(tmp_path / "mlp.npz")
    again = load_policy(tmp_path / "mlp.npz")
    assert isinstance(again, MlpPolicy) and again.activation == "relu"
    game = Game(seed=6)
    for move in range(60):
        view = game.view(game.to_act)
        observation, mask = encode_observation(view), action_mask(view)
        assert again(observation, mask) == policy(observation, mask)
        chosen = policy(observation, mask)
        assert mask[chosen] == 1
        hidden = np.maximum(layers[0][0] @ observation + layers[0][1], 0)
        logits = layers[1][0] @ hidden + layers[1][1]
        assert chosen == int(np.argmax(np.where(mask == 1, logits, -np.inf)))
        random_move(game, random.Random(move))
    report = run_arena(
        ArenaConfig((f"policy:file={tmp_path / 'mlp.npz'}", *["random"] * 3), "deals", 2)
    )
    assert report.abandoned == []


def test_a_bad_network_file_is_refused_in_one_sentence(tmp_path: Path) -> None:
    good = MlpPolicy([(np.zeros((ACTION_COUNT, OBS_SIZE)), np.zeros(ACTION_COUNT))], "tanh")
    good.save(tmp_path / "good.npz")
    with np.load(tmp_path / "good.npz") as data:
        arrays = dict(data)
    cases = {
        "gelu": ({"activation": np.array("gelu")}, "activation 'gelu' is not one of"),
        "gap": ({"layer_count": np.array(2)}, "lacks the arrays weight_1, bias_1"),
        "none": ({"layer_count": np.array(0)}, "layer_count is not a whole number"),
        "short": ({"weight_0": np.zeros((ACTION_COUNT, 5))}, r"layer 0 takes 602 numbers"),
        "nan": ({"bias_0": np.full(ACTION_COUNT, np.nan)}, "bias_0 hold NaN"),
    }
    for name, (change, reason) in cases.items():
        path = tmp_path / f"{name}.npz"
        np.savez(path, **{**arrays, **change})
        with pytest.raises(PolicyFileError, match=reason) as caught:
            load_policy(path)
        assert str(caught.value).endswith(POLICY_FILE), name


def test_the_owner_seats_a_policy_by_a_long_path_at_the_local_table(tmp_path: Path) -> None:
    """``king --bots policy:file=PATH``: a path longer than a bot's name once could be
    (60 characters: the table failed to start) is taken as it is."""
    folder = tmp_path / ("a-rather-long-folder-name-for-models-" * 3)
    folder.mkdir()
    path = folder / "linear.npz"
    LinearPolicy.zeros().save(path)
    port = free_port()
    spec = f"policy:file={path}"
    assert len(spec) > 100
    with local_king(tmp_path, "--bots", spec, "--port", str(port)):
        tables = httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=10).json()["open"]
    assert [s["bot"] for s in tables[0]["seats"] if s["kind"] == "bot"] == [spec] * 3


def test_the_shipped_ppo_baseline_plays_with_numpy_alone() -> None:
    """examples/ppo_king.npz (docs/rl.md's baseline): the network MaskablePPO learned on
    the batched environment, read without torch, plays whole deals as a bot."""
    policy = load_policy(ROOT / "examples" / "ppo_king.npz")
    assert isinstance(policy, MlpPolicy) and policy.activation == "relu"
    assert [w.shape for w, _ in policy.layers] == [(256, 602), (256, 256), (62, 256)]
    bots = (f"policy:file={ROOT / 'examples' / 'ppo_king.npz'}", "rule", "rule", "rule")
    report = run_arena(ArenaConfig(bots, "deals", 4))
    assert report.abandoned == [] and report.stats[bots[0]].n == 16
