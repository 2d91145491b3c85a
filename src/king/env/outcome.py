"""What a finished deal is worth to one seat: the reward kinds both environments offer,
and the JSON-friendly form of a deal's result that they put in ``info``.

Par is the core's (:attr:`king.rules.Contract.par`, the arena's measure), so a reward
"above par" here is the number ``king arena --deals`` reports.

>>> from king.phase import DealResult
>>> from king.rules import Declaration
>>> result = DealResult(0, 2, Declaration.parse("no-queens"), (0, -100, -300, 0))
>>> [deal_reward(result, seat, "above_par") for seat in range(4)]
[100.0, 0.0, -200.0, 100.0]
>>> deal_reward(result, 2, "sign"), deal_reward(result, 2, "points")
(-1.0, -300.0)
>>> deal_info(result, 0)["above_par"]
100.0
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from king.cards import Seat
from king.game import Game
from king.phase import DealResult
from king.rules import Contract

__all__ = [
    "INFOS",
    "REWARDS",
    "InfoKind",
    "RewardKind",
    "check_info",
    "check_reward",
    "deal_info",
    "deal_reward",
    "game_info",
    "info_arrays",
]

RewardKind = Literal["points", "above_par", "sign"]
#: The values of the ``reward`` option, the default first.
REWARDS: tuple[RewardKind, ...] = ("points", "above_par", "sign")


InfoKind = Literal["dicts", "arrays"]
#: The values of the ``info`` option, the default first.
INFOS: tuple[InfoKind, ...] = ("dicts", "arrays")


def check_reward(reward: object) -> RewardKind:
    """The ``reward`` option, or a ``ValueError`` that names the choices."""
    if not isinstance(reward, str) or reward not in REWARDS:
        choices = ", ".join(repr(kind) for kind in REWARDS)
        raise ValueError(f"reward is one of {choices}, not {reward!r}")
    return reward


def above_par(result: DealResult, seat: Seat) -> float:
    """``seat``'s points in the deal minus the contract's par."""
    return result.points[seat] - result.declaration.contract.par


def deal_reward(result: DealResult, seat: Seat, kind: RewardKind) -> float:
    """``seat``'s reward for a finished deal, before ``reward_scale``: its points, its
    points above par, or the sign of those (+1, 0 or -1)."""
    if kind == "points":
        return float(result.points[seat])
    gain = above_par(result, seat)
    if kind == "above_par":
        return gain
    return float((gain > 0) - (gain < 0))


def deal_info(result: DealResult, seat: Seat) -> dict[str, Any]:
    """A finished deal as ``info`` shows it to ``seat``: plain ints, floats, strings and
    lists (the keys of :meth:`king.view.SeatView.to_json`'s results, and more)."""
    declaration = result.declaration
    return {
        "deal": result.number,
        "declaration": str(declaration),
        "contract": declaration.contract.value,
        "trump": None if declaration.trump is None else declaration.trump.letter,
        "declarer": result.declarer,
        "points": list(result.points),
        "par": declaration.contract.par,
        "seat": seat,
        "above_par": above_par(result, seat),
    }


def game_info(game: Game) -> dict[str, Any]:
    """What ``info`` adds when a whole game is over: each seat's total and the winners."""
    return {"totals": list(game.totals), "winners": game.winners()}


def check_info(info: object) -> InfoKind:
    """The ``info`` option, or a ``ValueError`` that names the choices."""
    if not isinstance(info, str) or info not in INFOS:
        choices = ", ".join(repr(kind) for kind in INFOS)
        raise ValueError(f"info is one of {choices}, not {info!r}")
    return info


def info_arrays() -> dict[str, Any]:
    """``info="arrays"``: the same keys at every step, each a number or a fixed-shape
    array (no strings, no ``None``, no lists that grow), which replay buffers that
    stack ``info`` (Tianshou's) store as they are.  A deal's keys hold the last deal
    that ended since the agent last acted (``deal_over`` 1), else their blanks."""
    return {
        "deal_over": 0,
        "deal": -1,
        "contract": -1,
        "trump": -1,
        "declarer": -1,
        "points": np.zeros(4, np.float32),
        "above_par": 0.0,
        "game_over": 0,
        "totals": np.zeros(4, np.float32),
        "winners": np.zeros(4, np.int8),
    }


#: ``contract`` in ``info="arrays"``: the contract's index in this order.
CONTRACTS: tuple[Contract, ...] = tuple(Contract)


def add_deal(info: dict[str, Any], result: DealResult, seat: Seat) -> None:
    """Put a finished deal into ``info``, in the form its keys show."""
    if "deal_over" not in info:
        info.setdefault("deals", []).append(deal_info(result, seat))
        return
    declaration = result.declaration
    trump = declaration.trump
    info.update(
        deal_over=1,
        deal=result.number,
        contract=CONTRACTS.index(declaration.contract),
        trump=-1 if trump is None else int(trump),
        declarer=result.declarer,
        points=np.array(result.points, np.float32),
        above_par=above_par(result, seat),
    )


def add_game(info: dict[str, Any], game: Game) -> None:
    """Put a finished game's totals and winners into ``info``."""
    if "deal_over" not in info:
        info.update(game_info(game))
        return
    winners = np.zeros(4, np.int8)
    winners[game.winners()] = 1
    info.update(game_over=1, totals=np.array(game.totals, np.float32), winners=winners)
