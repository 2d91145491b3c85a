"""A network trained by a researcher's own library plays at every table of king, by its
file: a MaskablePPO model as sb3 saves it, the same exported to numpy and to ONNX, a
plain ``torch.nn.Module`` exported to ONNX; and nothing in a model file is run.

Needs torch, sb3-contrib and onnxruntime (``pip install -e ".[test,research]"``; on the
project's machines ``pip install torch==2.13.0`` first); collected with ``--research``
(``.ci/research`` runs them)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
import torch
from playwright.sync_api import Browser
from sb3_contrib import MaskablePPO

from benchmarks.server_process import free_port
from king.bots import BotSpecError, make_bot
from king.env import (
    KingVsBotsEnv,
    MlpPolicy,
    OnnxPolicy,
    PolicyFileError,
    export_onnx,
    export_policy,
    load_policy,
)
from king.env.observation import ACTION_COUNT, OBS_SIZE
from tests.support.pages import step
from tests.support.services import local_king

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[MaskablePPO, Path]]:
    """A tiny MaskablePPO trained for a few hundred steps, saved as sb3 saves it."""
    folder = tmp_path_factory.mktemp("model")
    env = KingVsBotsEnv(opponents="random", seat=None, mode="deal", reward_scale=0.01)
    model = MaskablePPO("MlpPolicy", env, seed=3, n_steps=128, batch_size=64, n_epochs=2, verbose=0)
    model.learn(total_timesteps=384)
    path = folder / "tiny.zip"
    model.save(path)
    yield model, path
    env.close()


def observations(count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Observations and masks of real positions, declarations and plays."""
    env = KingVsBotsEnv(opponents="rule", seat=None, mode="game", contract=None)
    observation, info = env.reset(seed=5)
    seen = []
    rng = np.random.default_rng(5)
    while len(seen) < count:
        mask = info["action_mask"].astype(np.int8)
        seen.append((observation, mask))
        observation, _, over, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if over:
            observation, info = env.reset()
    return seen


def test_the_saved_model_plays_as_sb3_predicts_with_numpy_alone(
    trained: tuple[MaskablePPO, Path], tmp_path: Path
) -> None:
    model, path = trained
    from_zip = load_policy(path)
    assert isinstance(from_zip, MlpPolicy) and from_zip.activation == "tanh"
    export_policy(model, tmp_path / "tiny.npz")
    export_policy(model, tmp_path / "tiny.onnx")
    from_npz, from_onnx = load_policy(tmp_path / "tiny.npz"), load_policy(tmp_path / "tiny.onnx")
    assert isinstance(from_onnx, OnnxPolicy)
    for observation, mask in observations(300):
        expected, _ = model.predict(observation, action_masks=mask.astype(bool), deterministic=True)
        chosen = {p(observation, mask) for p in (from_zip, from_npz, from_onnx)}
        assert chosen == {int(expected)}


def arena(*bots: str, deals: int = 2) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "king", "arena", "--deals", str(deals), "--bots", ",".join(bots)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_king_arena_plays_the_model_by_its_file(
    trained: tuple[MaskablePPO, Path], tmp_path: Path
) -> None:
    _, path = trained
    report = arena(f"policy:file={path}", "random", "random", "random")
    row = next(line for line in report.splitlines() if line.startswith(f"policy:file={path}"))
    assert row.split()[1] == "8" and "abandoned" not in report.lower(), report


def test_a_plain_torch_module_plays_once_exported_to_onnx(tmp_path: Path) -> None:
    """Any network over the observation: here one that knows the lowest legal card is
    action 0 of its logits' ranking (it scores each action by minus its number)."""

    class Lowest(torch.nn.Module):
        def forward(self, observation: torch.Tensor) -> torch.Tensor:
            ramp = -torch.arange(ACTION_COUNT, dtype=torch.float32)
            return observation[:, :1] * 0 + ramp

    export_onnx(Lowest(), tmp_path / "lowest.onnx")
    policy = load_policy(tmp_path / "lowest.onnx")
    for observation, mask in observations(50):
        assert policy(observation, mask) == int(np.flatnonzero(mask)[0])
    report = arena(f"policy:file={tmp_path / 'lowest.onnx'}", "random", "random", "random")
    assert "lowest.onnx " in report and "abandoned" not in report.lower(), report


def test_the_model_sits_at_a_browser_table_by_name(
    trained: tuple[MaskablePPO, Path], tmp_path: Path, browser: Browser
) -> None:
    """``king --bots policy:file=MODEL.zip``: the person plays a whole deal in Chromium
    against three copies of the model."""
    _, path = trained
    port = free_port()
    chosen = ("--bots", f"policy:file={path}", "--bot-pause", "0", "--port", str(port))
    with local_king(tmp_path, *chosen) as (_, lines):
        address = next(line.split(" at ", 1)[1] for line in lines if "your table is at" in line)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(address)
        page.locator("#hand .card").first.wait_for(timeout=30_000)
        while step(page) != "summary":
            pass
        assert page.locator("#dlg-summary[open]").count() == 1
        page.close()
        tables = httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=10).json()["open"]
        bots = [seat["bot"] for seat in tables[0]["seats"] if seat["kind"] == "bot"]
        assert bots == [f"policy:file={path}"] * 3


def _sb3_like(path: Path, kwargs: object, weights: bytes) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps({"policy_kwargs": kwargs}))
        archive.writestr("policy.pth", weights)


class _Boom:
    """What a hostile pickle carries: unpickling it would create a file."""

    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.target), "w"))


def test_nothing_in_a_model_file_is_run_and_what_cannot_be_rebuilt_is_refused(
    trained: tuple[MaskablePPO, Path], tmp_path: Path
) -> None:
    _, path = trained
    planted = tmp_path / "planted"
    hostile = tmp_path / "hostile.zip"
    buffer = tmp_path / "boom.pth"
    torch.save({"weights": _Boom(planted)}, buffer)
    _sb3_like(hostile, {}, buffer.read_bytes())
    with pytest.raises(PolicyFileError, match="weights-only loader refused"):
        load_policy(hostile)
    assert not planted.exists()
    with zipfile.ZipFile(path) as archive:
        weights = archive.read("policy.pth")
    custom = tmp_path / "custom.zip"
    _sb3_like(custom, {"features_extractor_class": "<class 'Mine'>"}, weights)
    with pytest.raises(PolicyFileError, match=r"features_extractor_class.*export_onnx"):
        load_policy(custom)
    gelu = tmp_path / "gelu.zip"
    _sb3_like(gelu, {"activation_fn": "<class 'torch.nn.modules.activation.GELU'>"}, weights)
    with pytest.raises(BotSpecError, match=r"activation .*GELU.* is not one of"):
        make_bot(f"policy:file={gelu}")
    wrong = tmp_path / "wrong.onnx"
    torch.onnx.export(
        torch.nn.Linear(OBS_SIZE - 2, ACTION_COUNT),
        (torch.zeros(1, OBS_SIZE - 2),),
        str(wrong),
        dynamo=False,
    )
    with pytest.raises(PolicyFileError, match=f"not one input of {OBS_SIZE} or 3718 numbers"):
        load_policy(wrong)


def test_maskable_ppo_trains_on_the_batched_environment_as_it_is(tmp_path: Path) -> None:
    """``sb3_vec_env``: MaskablePPO steps 64 deals at once, its masks from the engine;
    the saved model plays by its file."""
    from king.env import BatchedKingEnv
    from king.env.sb3_vec import sb3_vec_env

    venv = sb3_vec_env(BatchedKingEnv(64, opponents="rule", seat=None, reward_scale=0.01), 1)
    model = MaskablePPO("MlpPolicy", venv, seed=1, n_steps=8, batch_size=128, verbose=0)
    model.learn(total_timesteps=1024)
    assert model.num_timesteps >= 1024
    masks = venv.env_method("action_masks")
    assert len(masks) == 64 and all(m.any() for m in masks)
    model.save(tmp_path / "batched.zip")
    report = arena(f"policy:file={tmp_path / 'batched.zip'}", "rule", "rule", "rule")
    assert "abandoned" not in report.lower(), report
