"""A trained network's policy, played with numpy alone: a multilayer perceptron over
the observation, as stable-baselines3's ``MlpPolicy`` (and most small policies) is.

:class:`MlpPolicy` holds the layers of the policy's path (the actor; a critic plays no
part in choosing) and its activation, takes the most likely legal action (or samples
with an ``rng``), and saves to an ``.npz`` file that :func:`king.env.load_policy` and
the bot spec ``policy:file=`` read with no pickle and no torch.

>>> import numpy as np
>>> from king.env.observation import ACTION_COUNT, OBS_SIZE
>>> hidden = (np.zeros((8, OBS_SIZE)), np.zeros(8))
>>> layers = [hidden, (np.zeros((ACTION_COUNT, 8)), np.arange(62.0))]
>>> policy = MlpPolicy(layers, "relu")
>>> mask = np.zeros(ACTION_COUNT, np.int8); mask[[3, 40]] = 1
>>> policy(np.zeros(OBS_SIZE, np.float32), mask)  # the legal action with the largest logit
40
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from king.env.information import INFORMATION_SIZE
from king.env.observation import ACTION_COUNT, OBS_SIZE, OBSERVATION_VERSION
from king.env.policies.base import LogitsPolicy
from king.env.policies.files import PolicyFileError, numbers, read_arrays, refuse, require, text

__all__ = ["ACTIVATIONS", "MlpPolicy"]

Array = NDArray[np.float32]


def _relu(x: Array) -> Array:
    return np.maximum(x, np.float32(0))


def _elu(x: Array) -> Array:
    result: Array = np.where(x > 0, x, np.expm1(np.minimum(x, np.float32(0))))
    return result


def _leaky_relu(x: Array) -> Array:
    result: Array = np.where(x > 0, x, np.float32(0.01) * x)
    return result


def _silu(x: Array) -> Array:
    result: Array = (x / (np.float32(1) + np.exp(-x))).astype(np.float32)
    return result


#: The activations a policy may use between its layers, by the name torch gives them in
#: lower case (``nn.Tanh`` is ``tanh``, ``nn.LeakyReLU`` with its default slope is
#: ``leaky_relu``).
ACTIVATIONS: dict[str, Callable[[Array], Array]] = {
    "tanh": np.tanh,
    "relu": _relu,
    "elu": _elu,
    "leaky_relu": _leaky_relu,
    "silu": _silu,
}


class MlpPolicy(LogitsPolicy):
    """``logits = W_n @ f(… f(W_1 @ observation + b_1) …) + b_n`` with the activation
    ``f`` between layers; greedy, or sampling from the softmax with ``rng``."""

    KIND = "mlp-softmax"

    def __init__(
        self,
        layers: Sequence[tuple[NDArray[Any], NDArray[Any]]],
        activation: str,
        rng: np.random.Generator | None = None,
    ) -> None:
        if activation not in ACTIVATIONS:
            raise PolicyFileError(
                f"the activation {activation!r} is not one of {', '.join(ACTIVATIONS)}"
            )
        self.observation_size = _check_shapes([(w.shape, b.shape) for w, b in layers])
        self.layers = [(w.astype(np.float32), b.astype(np.float32)) for w, b in layers]
        self.activation = activation
        self.rng = rng

    def logits(self, observation: NDArray[np.float32]) -> NDArray[np.float32]:
        """The last layer's 62 outputs."""
        function = ACTIVATIONS[self.activation]
        x = observation.astype(np.float32, copy=False)
        for weights, bias in self.layers[:-1]:
            x = function(weights @ x + bias)
        weights, bias = self.layers[-1]
        result: NDArray[np.float32] = weights @ x + bias
        return result

    def save(self, path: str | Path) -> None:
        """Write the layers, the activation and the observation layout's version."""
        arrays: dict[str, NDArray[Any]] = {
            "kind": np.array(self.KIND),
            "observation_version": np.array(OBSERVATION_VERSION),
            "activation": np.array(self.activation),
            "layer_count": np.array(len(self.layers)),
        }
        for index, (weights, bias) in enumerate(self.layers):
            arrays[f"weight_{index}"] = weights
            arrays[f"bias_{index}"] = bias
        with open(path, "wb") as file:
            np.savez_compressed(file, **arrays)  # type: ignore[arg-type]

    @staticmethod
    def load(path: str | Path, rng: np.random.Generator | None = None) -> MlpPolicy:
        """Read a policy written by :meth:`save`, or refuse it in one sentence."""
        kind, arrays = read_arrays(path)
        return MlpPolicy.from_arrays(path, kind, arrays, rng)

    @staticmethod
    def from_arrays(
        path: str | Path,
        kind: str,
        arrays: dict[str, NDArray[Any]],
        rng: np.random.Generator | None = None,
    ) -> MlpPolicy:
        """The policy of a file's arrays (:func:`~king.env.policies.files.read_arrays`)."""
        if kind != MlpPolicy.KIND:
            refuse(path, f"it holds a {kind!r} policy, not an mlp-softmax one")
        require(path, arrays, ("activation", "layer_count"))
        count = arrays["layer_count"]
        if count.shape != () or count.dtype.kind not in "iu" or not 1 <= int(count) <= 16:
            refuse(path, "its layer_count is not a whole number from 1 to 16")
        names = [(f"weight_{i}", f"bias_{i}") for i in range(int(count))]
        require(path, arrays, tuple(name for pair in names for name in pair))
        layers = [(numbers(path, arrays[w], w), numbers(path, arrays[b], b)) for w, b in names]
        try:
            return MlpPolicy(layers, text(path, arrays["activation"], "activation"), rng)
        except PolicyFileError as error:
            refuse(path, str(error))


def _check_shapes(shapes: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> int:
    """The length of the vector the layers read (the observation's or the information
    state's); refused unless they chain from it to the 62 actions."""
    if not shapes:
        raise PolicyFileError("a network policy has at least one layer")
    first = shapes[0][0]
    width = first[1] if len(first) == 2 and first[1] == INFORMATION_SIZE else OBS_SIZE
    for index, (weights, bias) in enumerate(shapes):
        if len(weights) != 2 or weights[1] != width or bias != (weights[0],):
            raise PolicyFileError(
                f"layer {index} takes {width} numbers, so its weights are (n, {width}) "
                f"and its bias (n,), not {weights} and {bias}"
            )
        width = weights[0]
    if width != ACTION_COUNT:
        raise PolicyFileError(f"the last layer gives {ACTION_COUNT} logits, not {width}")
    return shapes[0][0][1]
