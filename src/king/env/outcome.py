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

from king.cards import Seat
from king.game import Game
from king.phase import DealResult

__all__ = ["REWARDS", "RewardKind", "check_reward", "deal_info", "deal_reward", "game_info"]

RewardKind = Literal["points", "above_par", "sign"]
#: The values of the ``reward`` option, the default first.
REWARDS: tuple[RewardKind, ...] = ("points", "above_par", "sign")


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
