"""What a model file says of itself (its ``about``): how it was trained and what it
measured, so that a model found later can be judged and made again."""

from __future__ import annotations

from typing import Any

from king.training.declarations import DeclareFigures
from king.training.figures import Figures
from king.training.inference import INFERENCE_PLAYER, InferenceLoss
from king.training.options import TrainOptions

__all__ = ["declarations_about", "inference_about", "policy_about"]

#: How the positions were made and labelled.
POSITIONS_DATA = (
    "single deals of self-play, the ten declarations in turn, 10% pagat and 10% turkish "
    "rules; each decision labelled by the search bot's rollout values from that seat's "
    "view (and their standard errors against the rule card); the search bot's card played "
    "(margin 2), a random one 5% of the time"
)
#: What the policy network fitted, by objective.
TARGETS = {
    "gain": "each legal card's value less the rule card's, in steps of 5 points, clipped "
    "to 20 (mean squared error); the rule card's logit raised by the threshold that makes "
    "the held-out tuning half's cards worth most",
    "decision": "the search bot's card (margin 2), label smoothing 0.1",
}
#: How the declarations were made and labelled.
DECLARATIONS_DATA = (
    "whole games of the rule bot's card play; each declaration with a choice labelled by "
    "the search bot's evaluation of every allowed one; the search bot's made, a random "
    "one 10% of the time"
)


def policy_about(
    options: TrainOptions,
    *,
    positions: int,
    held_out: int,
    threshold: float | None,
    figures: Figures,
) -> dict[str, Any]:
    """The policy network's part: how it was trained and how it does on the held-out
    positions."""
    return {
        "trained": {
            "positions": positions,
            "held_out": held_out,
            "budget": options.budget,
            "epochs": options.epochs,
            "hidden": list(options.hidden),
            "seed": options.seed,
            "objective": options.objective,
            "gain_threshold": threshold,
            "data": POSITIONS_DATA,
            "target": TARGETS[options.objective],
        },
        "held_out": {
            "positions": held_out,
            "loss": round(figures.loss, 4),
            "search_card": round(figures.agreement, 4),
            "regret_points": round(figures.regret, 3),
            "rule_is_search_card": round(figures.rule_agreement, 4),
            "rule_regret_points": round(figures.rule_regret, 3),
        },
    }


def inference_about(loss: InferenceLoss, deals: int) -> dict[str, Any]:
    """How well each model places the hidden cards, by trick."""
    return {
        "deals": deals,
        "player": INFERENCE_PLAYER,
        "by_trick": {
            str(t): {
                "uniform": round(u, 4),
                "rule": round(r, 4),
                "net": round(n, 4),
                "rule_alike": round(a, 4),
            }
            for t, u, r, n, a in zip(
                loss.tricks, loss.uniform, loss.rule, loss.net, loss.alike, strict=True
            )
        },
    }


def declarations_about(labelled: int, held_out: int, figures: DeclareFigures) -> dict[str, Any]:
    """The declaration network's part: its data and how it does on the held-out ones."""
    return {
        "labelled": labelled,
        "held_out": held_out,
        "data": DECLARATIONS_DATA,
        "search_declaration": round(figures.agreement, 4),
        "regret_points": round(figures.regret, 3),
        "rule_is_search_declaration": round(figures.rule_agreement, 4),
        "rule_regret_points": round(figures.rule_regret, 3),
    }
