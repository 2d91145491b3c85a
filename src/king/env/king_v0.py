"""``king_v0``, addressed the way PettingZoo's classic games are:
``from king.env import king_v0; env = king_v0.env()``."""

from king.env.aec import env, raw_env

__all__ = ["env", "raw_env"]
