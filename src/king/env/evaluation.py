"""A fixed set of single deals to evaluate on, fair to every contract: deal ``k`` has
the arena's declaration ``k`` (:func:`king.rules.cycled_declaration`) and cards dealt
from a seed derived from one evaluation seed and ``k``.

Seeding each episode with ``reset(seed=k)`` is not that: a seed restarts the contract
cycle, so every such episode is Trumps with spades.  Pass the deals instead:
``env.reset(options={"deal": deal})`` for each ``deal`` of :func:`evaluation_deals`.

>>> deals = evaluation_deals(28, seed=1)
>>> [str(deal.declaration) for deal in deals[:3]]
['trumps S', 'no-tricks', 'no-hearts']
>>> deals == evaluation_deals(28, seed=1), deals == evaluation_deals(28, seed=2)
(True, False)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from king.rules import Declaration, cycled_declaration

__all__ = ["EvaluationDeal", "deal_option", "evaluation_deal", "evaluation_deals"]


@dataclass(frozen=True, slots=True)
class EvaluationDeal:
    """Deal ``index`` of an evaluation set: its declaration and the seed of its cards."""

    index: int
    declaration: Declaration
    seed: int


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def evaluation_deal(index: int, seed: int = 0) -> EvaluationDeal:
    """Deal ``index`` of the evaluation set ``seed`` (the same on every run and platform)."""
    if not _is_int(index) or index < 0 or not _is_int(seed):
        raise ValueError(
            f"an evaluation deal takes an index >= 0 and an int seed, not {index!r} and {seed!r}"
        )
    cards = random.Random(f"king.env.evaluation/{seed}/{index}").getrandbits(63)
    return EvaluationDeal(index, cycled_declaration(index), cards)


def evaluation_deals(count: int, seed: int = 0) -> tuple[EvaluationDeal, ...]:
    """Deals ``0 .. count - 1`` of the evaluation set ``seed``.  With ``count`` a multiple
    of 28 (:data:`~king.rules.DECLARATION_CYCLE`) every contract is declared
    ``count / 7`` times, Trumps ``count / 28`` times in each suit, as in
    ``king arena --deals`` (:data:`~king.rules.DECLARATION_CYCLE` deals a round)."""
    if not _is_int(count) or count < 0:
        raise ValueError(f"count is a number of deals (an int >= 0), not {count!r}")
    return tuple(evaluation_deal(index, seed) for index in range(count))


def deal_option(options: Mapping[str, Any] | None, mode: str) -> EvaluationDeal | None:
    """The evaluation deal asked for in ``reset(options=...)``, if any: the option
    ``"deal"``, an :class:`EvaluationDeal`, in ``mode="deal"`` only (other keys are
    left alone, as PettingZoo's ``api_test`` expects of a reset)."""
    deal = (options or {}).get("deal")
    if deal is None:
        return None
    if not isinstance(deal, EvaluationDeal):
        raise ValueError(
            f"options['deal'] is an EvaluationDeal (from evaluation_deals), not {deal!r}"
        )
    if mode != "deal":
        raise ValueError("an evaluation deal is a single deal: it needs mode='deal'")
    return deal
