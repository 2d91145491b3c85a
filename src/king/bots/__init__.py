"""Computer players: one protocol (:class:`Bot`, :mod:`king.bots.protocol`), registered
by name (:mod:`king.bots.registry`), in folders by part: :mod:`king.bots.rule` (the
heuristic player), :mod:`king.bots.search` (sampled worlds, lookahead, the solver),
:mod:`king.bots.net` (the learned policy), :mod:`king.bots.external` (other programs),
:mod:`king.bots.engine` (all of it compiled to WebAssembly); beside them the levels, the
random bot, the analysis of a game and the positions the reference kernels share.

>>> from king.bots import make_bot
>>> make_bot("random", seed=1).name
'random'
"""

from king.bots.protocol import Bot, BotDemand, BotError, BotSpecError, bot_player_name, bot_seed
from king.bots.registry import (
    BotInfo,
    available_bots,
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
