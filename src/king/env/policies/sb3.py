"""A stable-baselines3 model's ``.zip`` (``model.save(...)`` of ``PPO`` or sb3-contrib's
``MaskablePPO`` with an ``MlpPolicy``) read as an :class:`~king.env.policies.mlp.MlpPolicy`,
without unpickling anything.

``stable_baselines3``'s own ``load`` unpickles parts of the archive (the spaces, the
schedules: cloudpickle, which runs whatever code a file carries), so it must never see a
file one did not make.  Here only two members are read: ``data``, as JSON (the
``policy_kwargs`` it states in words: ``net_arch``, ``activation_fn``), and
``policy.pth``, the weights, through ``torch.load(..., weights_only=True)``, torch's
loader that refuses everything but tensors and plain containers (torch's documentation
calls it the way to load files from sources one does not trust).  The actor's layers
are ``mlp_extractor.policy_net.*`` and ``action_net``; the critic is left out.
"""

from __future__ import annotations

import importlib
import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from king.env.policies.files import DAMAGED, MAX_ARRAY_BYTES, PolicyFileError, refuse
from king.env.policies.mlp import ACTIVATIONS, MlpPolicy

__all__ = ["is_sb3_archive", "mlp_of_state", "read_sb3"]

#: torch's class names of the activations :data:`~king.env.policies.mlp.ACTIVATIONS` knows.
TORCH_ACTIVATIONS = {
    "Tanh": "tanh",
    "ReLU": "relu",
    "ELU": "elu",
    "LeakyReLU": "leaky_relu",
    "SiLU": "silu",
}
#: ``policy_kwargs`` that change nothing in how the actor turns an observation into logits.
HARMLESS_KWARGS = {
    "net_arch",
    "activation_fn",
    "ortho_init",
    "share_features_extractor",
    "log_std_init",
    "optimizer_class",
    "optimizer_kwargs",
    "normalize_images",
}
_LAYER = re.compile(r"mlp_extractor\.policy_net\.(\d+)\.weight")


def is_sb3_archive(path: str | Path) -> bool:
    """Whether ``path`` is a zip that holds a stable-baselines3 model's members."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (OSError, *DAMAGED):
        return False
    return {"data", "policy.pth"} <= names


def read_sb3(path: str | Path, rng: np.random.Generator | None = None) -> MlpPolicy:
    """The actor of the model saved at ``path``, or a :class:`PolicyFileError` saying
    why it cannot be played."""
    try:
        with zipfile.ZipFile(path) as archive:
            for member in archive.infolist():
                if member.file_size > MAX_ARRAY_BYTES:
                    refuse(path, f"{member.filename} unpacks to {member.file_size} bytes")
            data = json.loads(archive.read("data"))
            weights = archive.read("policy.pth")
    except (OSError, KeyError, ValueError, *DAMAGED) as error:
        refuse(path, f"it is not a readable stable-baselines3 model ({error})")
    activation = _activation(path, data)
    state = _state_dict(path, weights)
    try:
        return mlp_of_state(state, activation, rng)
    except PolicyFileError as error:
        refuse(path, str(error))


def _activation(path: str | Path, data: object) -> str:
    """The activation the model's ``policy_kwargs`` name (sb3's default: ``Tanh``)."""
    kwargs = data.get("policy_kwargs", {}) if isinstance(data, dict) else None
    if not isinstance(kwargs, dict):
        refuse(path, "its data is not a stable-baselines3 model's")
    unknown = sorted(set(kwargs) - HARMLESS_KWARGS - {":type:", ":serialized:"})
    if unknown:
        refuse(
            path,
            f"its policy_kwargs set {', '.join(unknown)}, which this reader does not "
            "rebuild: export the policy with king.env.export_onnx instead",
        )
    named = str(kwargs.get("activation_fn", "Tanh"))
    name = named.rsplit(".", 1)[-1].strip("'<>\" ")
    if name not in TORCH_ACTIVATIONS:
        known = ", ".join(TORCH_ACTIVATIONS)
        refuse(path, f"its activation {named} is not one of {known}: export it with export_onnx")
    return TORCH_ACTIVATIONS[name]


def _state_dict(path: str | Path, content: bytes) -> dict[str, NDArray[np.float32]]:
    """The tensors of ``policy.pth``, read by torch's weights-only loader."""
    try:
        torch: Any = importlib.import_module("torch")
    except ImportError:
        refuse(
            path,
            "reading a stable-baselines3 model needs torch (pip install torch); or, where "
            "torch is, king.env.export_policy(model, 'policy.npz') writes one numpy plays",
        )
    try:
        state = torch.load(io.BytesIO(content), map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds for a bad or unsafe file
        refuse(path, f"torch's weights-only loader refused policy.pth ({error})")
    if not isinstance(state, dict):
        refuse(path, "its policy.pth is not a state dict")
    return {
        str(key): value.detach().cpu().numpy().astype(np.float32)
        for key, value in state.items()
        if hasattr(value, "detach")
    }


def mlp_of_state(
    state: dict[str, NDArray[Any]], activation: str, rng: np.random.Generator | None = None
) -> MlpPolicy:
    """The actor of an sb3 ``ActorCriticPolicy``'s state dict: the policy net's linear
    layers in order, then ``action_net``."""
    indices = sorted(int(m.group(1)) for key in state if (m := _LAYER.fullmatch(key)))
    names = [f"mlp_extractor.policy_net.{index}" for index in indices] + ["action_net"]
    missing = [f"{name}.weight" for name in names if f"{name}.weight" not in state]
    if missing or f"{names[-1]}.bias" not in state:
        raise PolicyFileError(
            "its weights lack action_net (is it an actor-critic MlpPolicy of PPO or MaskablePPO?)"
        )
    layers = [(state[f"{name}.weight"], state[f"{name}.bias"]) for name in names]
    if activation not in ACTIVATIONS:
        raise PolicyFileError(f"the activation {activation!r} is not one of {list(ACTIVATIONS)}")
    return MlpPolicy(layers, activation, rng)
