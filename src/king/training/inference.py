"""How well the models of the other players place the cards a seat cannot see: the
figures ``king train`` writes into the model file (``about["inference"]``), for the
uniform, rule and learned models the search bot may weigh its sampled worlds by."""

from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from king.bots.net.bot import NetModel
from king.game import Game
from king.phase import Phase
from king.rules import cycled_declaration
from king.training.selfplay import rules_for

__all__ = ["INFERENCE_PLAYER", "InferenceLoss", "inference_loss"]

#: Who plays the deals on which the models are measured (none of the models).
INFERENCE_PLAYER = "search:time=0.02"
#: The engine's threads for the likelihoods: every core, as the measurement has them.
THREADS = os.cpu_count() or 1


@dataclass(frozen=True)
class InferenceLoss:
    """How well each model of the others places the cards a seat cannot see, by the
    trick it is about to lead: the mean of ``-log p`` of each hidden card's true seat,
    ``p`` being the share of sampled worlds (weighted by the model) that put it there.
    ``uniform`` weighs every world consistent with the voids alike; ``rule`` and
    ``net`` weigh them by the likelihood of the others' plays under that policy (with
    ``noise`` of a uniform legal card), as the search bot does; ``alike`` is the rule
    model with the rule card's share split among the cards equal to it (the search
    bot's ``alike=1``)."""

    tricks: tuple[int, ...]
    uniform: tuple[float, ...]
    rule: tuple[float, ...]
    net: tuple[float, ...]
    positions: tuple[int, ...]
    alike: tuple[float, ...]

    def table(self) -> str:
        lines = ["trick  positions  uniform   rule     net      alike"]
        for i, trick in enumerate(self.tricks):
            lines.append(
                f"{trick:>5}  {self.positions[i]:>9}  {self.uniform[i]:.4f}  "
                f"{self.rule[i]:.4f}  {self.net[i]:.4f}  {self.alike[i]:.4f}"
            )
        return "\n".join(lines)


def inference_loss(
    model: NetModel,
    *,
    deals: int = 60,
    worlds: int = 800,
    seed: int = 1,
    noise: float = 0.35,
    player: str = INFERENCE_PLAYER,
) -> InferenceLoss:
    """Play ``deals`` single deals with ``player`` at every seat (neither of the models
    measured), and at the start of each trick from the third on measure, from the
    leader's view, each model's log-loss of where the hidden cards are."""
    from king.bots import engine
    from king.bots.engine.rule import deal_worlds
    from king.bots.registry import make_bot
    from king.bots.search.bot import played_so_far
    from king.bots.search.sampler import constraints

    rng = random.Random(seed)
    bots = [make_bot(player, seed=rng.getrandbits(32)) for _ in range(4)]
    sums: dict[int, list[float]] = {}
    counts: dict[int, int] = {}
    w0, w1, b1, w2, b2, w3, b3 = model.arrays
    for number in range(deals):
        game = Game(rules_for(rng), seed=rng.getrandbits(32), auto_deal=False)
        game.deal_cards()
        game.declare(cycled_declaration(number))
        while game.phase is Phase.PLAYING:
            seat = game.to_act
            assert seat is not None and game.deal is not None
            view = game.view(seat)
            trick = len(view.tricks)
            if not view.current_trick and 2 <= trick <= 11:
                contract = view.contract
                assert contract is not None
                code = contract.code
                trump = -1 if view.trump is None else int(view.trump)
                flags = view.rules.flags
                current = deal_worlds(constraints(view), rng, worlds)
                sequence = played_so_far(view)
                dealt = current.copy()
                for who, card in sequence:
                    dealt[:, who] |= 1 << card
                plays = np.array([card for _, card in sequence], dtype=np.int64)
                leader = sequence[0][0]
                rule_logs = np.zeros(worlds, dtype=np.float64)
                net_logs = np.zeros(worlds, dtype=np.float64)
                alike_logs = np.zeros(worlds, dtype=np.float64)
                engine.rule_likelihoods(
                    dealt, plays, leader, seat, code, trump, flags, noise, False, rule_logs,
                    threads=THREADS,
                )  # fmt: skip
                engine.rule_likelihoods(
                    dealt, plays, leader, seat, code, trump, flags, noise, True, alike_logs,
                    threads=THREADS,
                )  # fmt: skip
                engine.net_likelihoods(
                    dealt, plays, leader, seat, code, trump, flags, noise,
                    w0, w1, b1, w2, b2, w3, b3, net_logs, threads=THREADS,
                )  # fmt: skip
                truth = [game.deal.hand(s).mask for s in range(4)]
                row = sums.setdefault(trick + 1, [0.0, 0.0, 0.0, 0.0])
                for k, logs in enumerate((np.zeros(worlds), rule_logs, net_logs, alike_logs)):
                    weights = np.exp(logs - logs.max())
                    weights /= weights.sum()
                    row[k] += _card_loss(current, weights, truth, seat)
                counts[trick + 1] = counts.get(trick + 1, 0) + 1
            game.play(bots[seat].play(view))
    tricks = tuple(sorted(sums))
    return InferenceLoss(
        tricks,
        tuple(sums[t][0] / counts[t] for t in tricks),
        tuple(sums[t][1] / counts[t] for t in tricks),
        tuple(sums[t][2] / counts[t] for t in tricks),
        tuple(counts[t] for t in tricks),
        tuple(sums[t][3] / counts[t] for t in tricks),
    )


def _card_loss(
    worlds: NDArray[np.int64], weights: NDArray[np.float64], truth: list[int], me: int
) -> float:
    """The mean ``-log p`` over the cards hidden from ``me`` of the weighted share of
    worlds that put each where it truly is (``p`` at least 1e-3)."""
    total = 0.0
    hidden = 0
    for seat in range(4):
        if seat == me:
            continue
        mask = truth[seat]
        while mask:
            card = (mask & -mask).bit_length() - 1
            mask &= mask - 1
            share = float(weights[(worlds[:, seat] >> card) & 1 == 1].sum())
            total -= math.log(max(share, 1e-3))
            hidden += 1
    return total / max(hidden, 1)
