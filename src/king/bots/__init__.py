"""Computer players: one protocol (:class:`Bot`), registered by name.

>>> from king.bots import make_bot
>>> make_bot("random", seed=1).name
'random'
"""

from king.bots.base import (
    Bot,
    BotDemand,
    BotError,
    BotInfo,
    BotSpecError,
    available_bots,
    bot_player_name,
    bot_seed,
    make_bot,
    parse_spec,
    register,
    strongest_bot,
)

__all__ = [
    "Bot",
    "BotDemand",
    "BotError",
    "BotInfo",
    "BotSpecError",
    "available_bots",
    "bot_player_name",
    "bot_seed",
    "make_bot",
    "parse_spec",
    "register",
    "strongest_bot",
]
