"""Networks as portable files: a policy exported to ONNX (:func:`export_onnx`, with torch)
and played by onnxruntime (:class:`OnnxPolicy`, no torch), and any trained policy
written as a numpy ``.npz`` (:func:`export_policy`).

An ONNX file is a graph of standard operators and its weights: loading it runs no
Python, so a network from anyone may be played.  The graph takes ``observation``,
float32 ``(batch, 602)``, and gives ``logits``, ``(batch, 62)``; the policy takes the
most likely legal action, or samples from the softmax with an ``rng``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from king.env.information import INFORMATION_SIZE
from king.env.observation import ACTION_COUNT, OBS_SIZE
from king.env.policies.base import LinearPolicy, LogitsPolicy
from king.env.policies.files import PolicyFileError, refuse
from king.env.policies.mlp import MlpPolicy
from king.env.policies.sb3 import TORCH_ACTIVATIONS, mlp_of_state

__all__ = ["OnnxPolicy", "as_mlp", "export_onnx", "export_policy"]

#: torch's activation module of each name :data:`~king.env.policies.mlp.ACTIVATIONS` knows.
_MODULES = {name: torch_name for torch_name, name in TORCH_ACTIVATIONS.items()}


class OnnxPolicy(LogitsPolicy):
    """A policy network read from an ``.onnx`` file and run by onnxruntime."""

    def __init__(self, path: str | Path, rng: np.random.Generator | None = None) -> None:
        try:
            runtime: Any = importlib.import_module("onnxruntime")
        except ImportError:
            refuse(path, "playing an .onnx network needs onnxruntime (pip install onnxruntime)")
        try:
            options = runtime.SessionOptions()
            options.intra_op_num_threads = 1  # one move at a time: threads only cost
            self.session = runtime.InferenceSession(
                str(path), options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # onnxruntime raises its own kinds for a bad file
            refuse(path, f"onnxruntime cannot load it ({str(error).splitlines()[0]})")
        inputs, outputs = self.session.get_inputs(), self.session.get_outputs()
        sizes = (OBS_SIZE, INFORMATION_SIZE)
        if len(inputs) != 1 or list(inputs[0].shape)[-1:] not in ([OBS_SIZE], [INFORMATION_SIZE]):
            shapes = [list(i.shape) for i in inputs]
            refuse(
                path,
                f"its network takes {shapes}, not one input of {sizes[0]} or {sizes[1]} numbers",
            )
        if list(outputs[0].shape)[-1:] != [ACTION_COUNT]:
            refuse(path, f"its network gives {list(outputs[0].shape)}, not {ACTION_COUNT} logits")
        self.input = inputs[0].name
        self.observation_size = int(inputs[0].shape[-1])
        self.batched = len(inputs[0].shape) == 2
        self.rng = rng

    def logits(self, observation: NDArray[np.float32]) -> NDArray[np.float32]:
        """The network's output for one observation."""
        x = observation.astype(np.float32, copy=False)
        result = self.session.run(None, {self.input: x[None] if self.batched else x})[0]
        logits: NDArray[np.float32] = np.asarray(result, np.float32).reshape(ACTION_COUNT)
        return logits


def as_mlp(model: object) -> MlpPolicy | LinearPolicy:
    """``model`` as a numpy policy: an :class:`MlpPolicy` or :class:`LinearPolicy` as
    it is, a stable-baselines3 model (``PPO``, ``MaskablePPO`` with an ``MlpPolicy``) by
    its actor's weights."""
    if isinstance(model, MlpPolicy | LinearPolicy):
        return model
    policy = getattr(model, "policy", None)
    if policy is None or not hasattr(policy, "state_dict"):
        raise PolicyFileError(
            f"{type(model).__name__} is not a stable-baselines3 model; export a "
            "torch.nn.Module with export_onnx"
        )
    activation = TORCH_ACTIVATIONS.get(getattr(policy.activation_fn, "__name__", ""), "")
    state = {key: value.detach().cpu().numpy() for key, value in policy.state_dict().items()}
    return mlp_of_state(state, activation)


def export_policy(model: object, path: str | Path) -> None:
    """Write ``model`` (an sb3 model, an :class:`MlpPolicy` or :class:`LinearPolicy`;
    for ``.onnx`` also any ``torch.nn.Module``) where the bot spec ``policy:file=PATH``
    plays it: ``.npz`` for numpy alone, ``.onnx`` for onnxruntime."""
    suffix = Path(path).suffix.lower()
    if suffix == ".onnx":
        export_onnx(model, path)
    elif suffix == ".npz":
        as_mlp(model).save(path)
    else:
        raise PolicyFileError(f"a policy is exported to .npz or .onnx, not {suffix or path!r}")


def export_onnx(model: object, path: str | Path, observation_size: int | None = None) -> None:
    """Write ``model`` as an ONNX graph from ``observation`` ``(batch, 602)`` (or the
    information state's 3,718) to ``logits`` ``(batch, 62)`` (needs torch; playing it
    needs only onnxruntime).  A ``torch.nn.Module`` reads ``observation_size`` numbers
    (the observation's unless said)."""
    torch: Any = importlib.import_module("torch")
    if isinstance(model, torch.nn.Module):
        module, size = model, observation_size or OBS_SIZE
    else:
        policy = as_mlp(model)
        module, size = _module(torch, policy), policy.observation_size
    module.eval()
    torch.onnx.export(
        module,
        (torch.zeros(1, size),),
        str(path),
        input_names=["observation"],
        output_names=["logits"],
        dynamic_axes={"observation": {0: "batch"}, "logits": {0: "batch"}},
        dynamo=False,  # the exporter that needs no onnxscript
    )


def _module(torch: Any, policy: MlpPolicy | LinearPolicy) -> Any:
    """A torch ``Sequential`` that computes ``policy``'s logits."""
    if isinstance(policy, LinearPolicy):
        layers, activation = [(policy.weights, policy.bias)], "tanh"
    else:
        layers, activation = policy.layers, policy.activation
    parts: list[Any] = []
    for index, (weights, bias) in enumerate(layers):
        linear = torch.nn.Linear(weights.shape[1], weights.shape[0])
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(weights))
            linear.bias.copy_(torch.from_numpy(bias))
        parts.append(linear)
        if index < len(layers) - 1:
            parts.append(getattr(torch.nn, _MODULES[activation])())
    return torch.nn.Sequential(*parts)
