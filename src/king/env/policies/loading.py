"""Any saved policy by its file, and the bot spec ``policy:file=PATH`` that plays one.

:func:`load_policy` reads what the file is, not what its name says: a numpy ``.npz``
(:class:`~king.env.policies.base.LinearPolicy`, :class:`~king.env.policies.mlp.MlpPolicy`), a
stable-baselines3 model's ``.zip`` (:mod:`king.env.policies.sb3`: its actor, read with
torch's weights-only loader) or, by its suffix, an ``.onnx`` network
(:class:`~king.env.policies.onnx.OnnxPolicy`).  Nothing is unpickled.  The bot reads a
file, so a table seats it only when its owner names it (``king --bots
policy:file=model.zip``), never for a visitor.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from king.bots.protocol import BotSpecError
from king.bots.registry import BotInfo
from king.env.policies.base import LinearPolicy, LogitsPolicy, PolicyBot
from king.env.policies.files import PolicyFileError, read_arrays, refuse
from king.env.policies.mlp import MlpPolicy

__all__ = ["EXAMPLE_POLICY", "POLICY_BOT", "build_policy_bot", "load_policy"]


def load_policy(path: str | Path, *, sample: bool = False, seed: int = 0) -> LogitsPolicy:
    """The policy saved at ``path``: greedy, or sampling from ``seed`` with
    ``sample=True``; any other file is refused with a :class:`PolicyFileError`."""
    rng = np.random.default_rng(seed) if sample else None
    if Path(path).suffix.lower() == ".onnx":
        from king.env.policies.onnx import OnnxPolicy

        return OnnxPolicy(path, rng)
    from king.env.policies.sb3 import is_sb3_archive, read_sb3

    if is_sb3_archive(path):
        return read_sb3(path, rng)
    kind, arrays = read_arrays(path)
    if kind == MlpPolicy.KIND:
        return MlpPolicy.from_arrays(path, kind, arrays, rng)
    if kind != LinearPolicy.KIND:
        refuse(path, f"it holds a {kind!r} policy, not a linear-softmax or mlp-softmax one")
    return LinearPolicy.from_arrays(path, kind, arrays, rng)


#: The policy trained by ``examples/rl_train.py``, used by the bare spec ``policy`` in a
#: source checkout (examples are not installed with the package).
EXAMPLE_POLICY = Path(__file__).resolve().parents[4] / "examples" / "rl_policy.npz"


def build_policy_bot(seed: int, options: dict[str, str]) -> PolicyBot:
    """The bot of ``policy:file=PATH`` (``&sample=1``: it samples, from its seed)."""
    unknown = set(options) - {"file", "sample"}
    if unknown:
        raise BotSpecError(f"the policy bot takes file= and sample=, not {', '.join(unknown)}")
    path = options.get("file") or str(EXAMPLE_POLICY)
    if "file" not in options and not EXAMPLE_POLICY.is_file():
        raise BotSpecError("the policy bot needs its file here: policy:file=PATH")
    sample = options.get("sample", "0").lower() in ("1", "true", "yes")
    try:
        policy = load_policy(path, sample=sample, seed=random.Random(seed).getrandbits(32))
    except PolicyFileError as error:
        raise BotSpecError(str(error)) from None
    return PolicyBot(policy, seed=seed, name=f"policy:{Path(path).name}")


#: The ``policy`` bot, declared to :mod:`king.bots` as an entry point of the group
#: ``king.bots`` (pyproject.toml), so that the bots layer names no adapter.
POLICY_BOT = BotInfo(
    "policy",
    "a saved policy: policy:file=PATH (.npz, an sb3 .zip, .onnx; &sample=1 samples); "
    "bare, the example's",
    1,
    build_policy_bot,
    tables=False,
)
