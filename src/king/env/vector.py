"""Many :class:`~king.env.single.KingVsBotsEnv` stepped together, as Gymnasium's vector
interface (docs/rl.md, "Vector environments").

Gymnasium 1.x resets a finished copy on the *next* step by default
(``AutoresetMode.NEXT_STEP``): the step that ends an episode returns the finished
game's last observation, whose mask is all ``False`` (nothing is legal any more), and
the action of the step after is ignored.  A loop that samples a legal action from every
mask then has none to sample.  :func:`make_vector_env` resets a finished copy in the
*same* step (``AutoresetMode.SAME_STEP``): every observation and mask it returns is a
live episode's, with a legal action in every row; the finished episode's last
observation and ``info`` are under ``info["final_obs"]`` and ``info["final_info"]``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv

from king.env.single import KingVsBotsEnv

__all__ = ["make_vector_env"]


def _env(options: dict[str, Any]) -> gymnasium.Env[Any, Any]:
    return KingVsBotsEnv(**options)


def make_vector_env(
    count: int, *, processes: bool = False, **options: Any
) -> SyncVectorEnv | AsyncVectorEnv:
    """``count`` copies of ``KingVsBotsEnv(**options)``, stepped in this process (or one
    process each with ``processes=True``), each reset in the step that ends its episode
    so that every mask returned has a legal action (``info["action_mask"]``, one row a
    copy); ``reset(seed=s)`` seeds copy ``i`` with ``s + i``."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count is a whole number of copies, 1 or more, not {count!r}")
    makers = [partial(_env, dict(options)) for _ in range(count)]
    if processes:
        return AsyncVectorEnv(makers, autoreset_mode=AutoresetMode.SAME_STEP)
    return SyncVectorEnv(makers, autoreset_mode=AutoresetMode.SAME_STEP)
