"""``scripts/obligation_experiment.py``: the plan that values what a declarer still owes.
Its worth of a state is the expected best schedule of the remaining declarations (checked
by hand on small tables), and a bot declaring by it plays whole legal games."""

from __future__ import annotations

import itertools
from types import ModuleType

import numpy as np

from king.rules import MAX_PER_NEGATIVE, NEGATIVE_CONTRACTS
from tests.support.scripts import load_script


def _script() -> ModuleType:
    return load_script("obligation_experiment")


FULL = (MAX_PER_NEGATIVE,) * len(NEGATIVE_CONTRACTS)


def test_the_worth_of_what_is_owed_is_the_best_schedule_over_the_hands() -> None:
    plan_type = _script().ObligationPlan
    # Two hands: one good for Trumps, one good for No King (column 5).
    values = np.array(
        [
            [300.0, -200, -100, -100, -150, -90, -100],
            [100.0, -150, -100, -100, -120, -10, -100],
        ]
    )
    plan = plan_type(values)
    assert plan.worth(0, 0, FULL) == 0.0
    assert plan.worth(1, 0, FULL) == 200.0  # the mean Trumps value
    assert plan.worth(0, 1, FULL) == (-90 + -10) / 2  # the best negative on each hand
    # With one of each owed: take Trumps on the first hand, No King on the second.
    one_each = plan.worth(1, 1, FULL)
    by_hand = [
        max(values[h, 0] + plan.worth(0, 1, FULL), values[h, 5] + plan.worth(1, 0, FULL))
        for h in range(2)
    ]
    assert one_each == sum(by_hand) / 2
    # A contract used up is not available any more: only No Boys (column 4) is left.
    only_boys = tuple(2 if i == 3 else 0 for i in range(len(FULL)))
    assert plan.worth(0, 1, only_boys) == (-150 + -120) / 2


def test_every_reachable_state_has_a_choice_and_more_owed_is_worth_more_freedom() -> None:
    rng = np.random.default_rng(3)
    plan = _script().ObligationPlan(rng.normal(0, 100, size=(50, 7)))
    for trumps, negatives in itertools.product(range(3), range(4)):
        assert np.isfinite(plan.worth(trumps, negatives, FULL))
    # A negative kept for later is worth at least its mean (the best of six is kept).
    assert plan.worth(0, 1, FULL) >= plan.values[:, 1:].mean(axis=0).max()
