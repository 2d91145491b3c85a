"""The batched environment as stable-baselines3's ``VecEnv``, so that ``PPO`` and
sb3-contrib's ``MaskablePPO`` train on it as they are:

>>> from king.env import BatchedKingEnv
>>> from king.env.sb3_vec import sb3_vec_env
>>> model = MaskablePPO("MlpPolicy", sb3_vec_env(BatchedKingEnv(64)))  # doctest: +SKIP

The class is made on first use (stable-baselines3 is imported then, never before), and
answers ``env_method("action_masks")`` with every copy's mask, as ``MaskablePPO`` asks.
An episode only ever terminates (a deal ends), so no ``terminal_observation`` is needed
to bootstrap from, and none is given.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from king.env.batch import BatchedKingEnv
from king.env.observation import ACTION_COUNT

__all__ = ["sb3_vec_env"]


def sb3_vec_env(env: BatchedKingEnv, seed: int | None = None) -> Any:
    """``env`` behind stable-baselines3's ``VecEnv`` interface (needs stable-baselines3)."""
    return _adapter()(env, seed)


@cache
def _adapter() -> type:
    """The adapter class: :class:`BatchedVecEnv` on stable-baselines3's ``VecEnv``."""
    base: type = importlib.import_module("stable_baselines3.common.vec_env").VecEnv
    return type("BatchedVecEnv", (BatchedVecEnv, base), {})


class BatchedVecEnv:
    """What sb3 asks of a vector environment, answered by a :class:`BatchedKingEnv`
    (mixed into ``VecEnv`` by :func:`sb3_vec_env`)."""

    num_envs: int

    def __init__(self, env: BatchedKingEnv, seed: int | None) -> None:
        self.env = env
        self.render_mode = None
        self._next_seed = seed
        self._masks: NDArray[np.bool_] = np.ones((env.num_envs, ACTION_COUNT), bool)
        self._actions = np.zeros(env.num_envs, np.int64)
        spaces = (env.single_observation_space, env.single_action_space)
        super().__init__(env.num_envs, *spaces)  # type: ignore[call-arg]

    def reset(self) -> NDArray[np.float32]:
        observation, info = self.env.reset(seed=self._next_seed)
        self._next_seed = None
        self._masks = info["action_mask"]
        return observation

    def step_async(self, actions: Any) -> None:
        self._actions = np.asarray(actions, np.int64).reshape(self.num_envs)

    def step_wait(self) -> tuple[Any, ...]:
        observation, reward, terminated, _, info = self.env.step(self._actions)
        self._masks = info["action_mask"]
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for copy in np.flatnonzero(terminated):
            points = info["points"][copy].tolist()
            infos[copy] = {"points": points, "seat": int(info["seat"][copy])}
        return observation, reward.astype(np.float32), terminated, infos

    def seed(self, seed: int | None = None) -> list[int | None]:
        self._next_seed = seed
        return [seed] * self.num_envs

    def close(self) -> None:
        self.env.close()

    def action_masks(self) -> NDArray[np.bool_]:
        """Every copy's legal actions now, one row a copy."""
        return self._masks

    def _chosen(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        owner = self if attr_name == "action_masks" else self.env
        return [getattr(owner, attr_name)] * len(self._chosen(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(self, name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        chosen = self._chosen(indices)
        if name == "action_masks":
            return [self._masks[i] for i in chosen]
        return [getattr(self.env, name)(*args, **kwargs)] * len(chosen)

    def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
        return [False] * len(self._chosen(indices))
