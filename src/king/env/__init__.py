"""King for reinforcement learning (the optional extra ``rl``): see docs/rl.md.

* ``king_v0`` — a PettingZoo AEC environment, four agents (``king_v0.env()``,
  ``king_v0.raw_env``);
* :class:`KingVsBotsEnv` — a Gymnasium environment: one learner against three bots;
  :func:`make_vector_env` — many of them as Gymnasium's vector interface, every mask
  a live episode's; :class:`BatchedKingEnv` — hundreds of single deals stepped at once
  by the engine (compiled), against bots or a frozen snapshot of the learner;
* ``observation="information"`` (:mod:`king.env.information`) — the whole public
  history, for methods that need the information state;
* :func:`encode_observation`, :func:`action_mask` — the vectors both give, from one
  seat's view only;
* :class:`PolicyBot`, :func:`register_policy`, :func:`load_policy` — any policy as a
  bot, for ``king arena`` and the tables: a :class:`LinearPolicy` or
  :class:`MlpPolicy` (numpy), a stable-baselines3 model's ``.zip``, an ONNX network
  (:class:`OnnxPolicy`; :func:`export_policy` and :func:`export_onnx` write them);
* :func:`evaluation_deals` — a fixed set of deals, fair to every contract, to evaluate
  on; :class:`SelfPlay` — the learner's frozen copies as its opponents.

The observation and policy parts need only numpy and load at once (importing this
package registers the ``policy:file=PATH`` bot); the environments load PettingZoo and
Gymnasium on first use, so a policy served as an external bot starts quickly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from king.env.evaluation import EvaluationDeal, evaluation_deals
from king.env.observation import (
    ACTION_COUNT,
    LAYOUT,
    OBS_SIZE,
    action_mask,
    action_of,
    describe_action,
    encode_observation,
    field_slice,
)
from king.env.opponents import SelfPlay
from king.env.outcome import REWARDS
from king.env.policies.base import LinearPolicy, LogitsPolicy, Policy, PolicyBot, register_policy
from king.env.policies.files import PolicyFileError
from king.env.policies.loading import load_policy
from king.env.policies.mlp import MlpPolicy
from king.env.table import IllegalActionError

if TYPE_CHECKING:
    from king.env import king_v0
    from king.env.aec import env, raw_env
    from king.env.batch import BatchedKingEnv
    from king.env.policies.onnx import OnnxPolicy, export_onnx, export_policy
    from king.env.single import KingVsBotsEnv
    from king.env.vector import make_vector_env

__all__ = [
    "ACTION_COUNT",
    "BatchedKingEnv",
    "LAYOUT",
    "OBS_SIZE",
    "REWARDS",
    "EvaluationDeal",
    "IllegalActionError",
    "KingVsBotsEnv",
    "LinearPolicy",
    "LogitsPolicy",
    "MlpPolicy",
    "OnnxPolicy",
    "Policy",
    "PolicyBot",
    "PolicyFileError",
    "SelfPlay",
    "action_mask",
    "action_of",
    "describe_action",
    "encode_observation",
    "env",
    "evaluation_deals",
    "export_onnx",
    "export_policy",
    "field_slice",
    "king_v0",
    "load_policy",
    "make_vector_env",
    "raw_env",
    "register_policy",
]

_LAZY = {
    "king_v0": ("king.env.king_v0", None),
    "env": ("king.env.aec", "env"),
    "raw_env": ("king.env.aec", "raw_env"),
    "KingVsBotsEnv": ("king.env.single", "KingVsBotsEnv"),
    "make_vector_env": ("king.env.vector", "make_vector_env"),
    "BatchedKingEnv": ("king.env.batch", "BatchedKingEnv"),
    "OnnxPolicy": ("king.env.policies.onnx", "OnnxPolicy"),
    "export_onnx": ("king.env.policies.onnx", "export_onnx"),
    "export_policy": ("king.env.policies.onnx", "export_policy"),
}


def __getattr__(name: str) -> Any:
    """Load the environments (PettingZoo, Gymnasium) only when they are asked for."""
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'king.env' has no attribute {name!r}")
    module = importlib.import_module(target[0])
    value = module if target[1] is None else getattr(module, target[1])
    globals()[name] = value
    return value
