"""The declaration network's data and fit: declarations from whole games (the rule bot
playing the cards), each labelled by the search bot's evaluation of every allowed one,
and a small network fitted to the search bot's choices."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from king.bots.net.declare import D_RULE, DeclareNet, declaration_input, legal_declarations
from king.game import Game
from king.phase import Phase
from king.rules import ALL_DECLARATIONS
from king.training.fitting import Adam, one_hot
from king.training.selfplay import rules_for

__all__ = [
    "DeclareFigures",
    "Declarations",
    "fit_declarations",
    "generate_declarations",
    "measure_declarations",
]


@dataclass(frozen=True, eq=False)
class Declarations:
    """Labelled declarations: the input of each (``x``), which of the ten declarations
    were allowed (``legal``) and each allowed one's value to the declarer as the search
    bot judges it (``values``, NaN for the others): its points over sampled deals of the
    other hands, less what it would be worth on an average later hand."""

    x: NDArray[np.float32]
    legal: NDArray[np.bool_]
    values: NDArray[np.float32]

    def __len__(self) -> int:
        return len(self.x)

    def save(self, path: str | Path) -> None:
        np.savez_compressed(path, x=self.x, legal=self.legal, values=self.values)

    @staticmethod
    def load(path: str | Path) -> Declarations:
        with np.load(path, allow_pickle=False) as data:
            return Declarations(data["x"], data["legal"], data["values"])

    def split(self, share: float, seed: int) -> tuple[Declarations, Declarations]:
        order = np.random.default_rng(seed).permutation(len(self))
        cut = int(len(self) * share)
        rest, held = order[cut:], order[:cut]
        return (
            Declarations(self.x[rest], self.legal[rest], self.values[rest]),
            Declarations(self.x[held], self.legal[held], self.values[held]),
        )

    @property
    def decisions(self) -> NDArray[np.int64]:
        """The search bot's declaration in each: the best value."""
        out: NDArray[np.int64] = np.where(self.legal, self.values, -np.inf).argmax(axis=1)
        return out

    @property
    def rule_choices(self) -> NDArray[np.int64]:
        out: NDArray[np.int64] = self.x[:, D_RULE : D_RULE + 10].argmax(axis=1)
        return out


def generate_declarations(
    count: int,
    *,
    seed: int = 0,
    explore: float = 0.1,
    progress: Callable[[int], None] | None = None,
) -> Declarations:
    """``count`` declarations from whole games (the rule bot playing the cards), each
    labelled by the search bot's evaluation of every allowed declaration; the one made
    is the search bot's, a random one with probability ``explore``."""
    from king.bots.rule.bot import RuleBot
    from king.bots.search.bot import SearchBot

    rng = random.Random(seed)
    evaluator = SearchBot(rng.getrandbits(32))
    player = RuleBot(0)
    xs: list[NDArray[np.float32]] = []
    legal: list[NDArray[np.bool_]] = []
    values: list[NDArray[np.float32]] = []
    while len(xs) < count:
        game = Game(rules_for(rng), seed=rng.getrandbits(32))
        while not game.is_over and len(xs) < count:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            if game.phase is not Phase.DECLARING:
                game.play(player.play(view))
                continue
            if len(view.legal_declarations) == 1:
                game.declare(view.legal_declarations[0])
                continue
            table = evaluator.evaluate(view)
            row = np.full(10, np.nan, dtype=np.float32)
            for index, choice in enumerate(table.choices):
                row[ALL_DECLARATIONS.index(choice)] = table.mean(index)
            xs.append(declaration_input(view))
            legal.append(legal_declarations(view))
            values.append(row)
            if progress is not None:
                progress(len(xs))
            if rng.random() < explore:
                game.declare(rng.choice(view.legal_declarations))
            else:
                game.declare(ALL_DECLARATIONS[int(np.nanargmax(row))])
    return Declarations(
        np.array(xs, dtype=np.float32), np.array(legal, dtype=bool), np.array(values, np.float32)
    )


@dataclass(frozen=True)
class DeclareFigures:
    """How often the declaration network makes the search bot's declaration (and the
    rule bot, for scale), and the points per declaration each gives up against it."""

    agreement: float
    regret: float
    rule_agreement: float
    rule_regret: float

    def line(self) -> str:
        return (
            f"search's declaration {100 * self.agreement:.1f}% "
            f"(rule {100 * self.rule_agreement:.1f}%)  regret {self.regret:.2f} points "
            f"(rule {self.rule_regret:.2f})"
        )


def measure_declarations(net: DeclareNet, data: Declarations) -> DeclareFigures:
    """The figures of ``net`` on ``data``."""
    rows = np.arange(len(data))
    values = np.where(data.legal, data.values, -np.inf)
    best = values.max(axis=1)
    chosen = np.where(data.legal, net.logits(data.x), -np.inf).argmax(axis=1)
    rule = data.rule_choices
    decided = data.decisions
    return DeclareFigures(
        agreement=float((chosen == decided).mean()),
        regret=float((best - values[rows, chosen]).mean()),
        rule_agreement=float((rule == decided).mean()),
        rule_regret=float((best - values[rows, rule]).mean()),
    )


def fit_declarations(
    data: Declarations,
    *,
    hidden: int = 32,
    epochs: int = 40,
    batch: int = 128,
    rate: float = 2e-3,
    decay: float = 1e-4,
    smoothing: float = 0.1,
    seed: int = 0,
) -> DeclareNet:
    """Fit the declaration network to the search bot's declarations (cross-entropy with
    label smoothing, Adam, cosine learning rate)."""
    net = DeclareNet.random(seed, hidden)
    params = [a.copy() for a in net.arrays]
    adam = Adam(params, decay, (0, 1, 3))
    target_all = one_hot(data.decisions, data.legal, smoothing)
    rng = np.random.default_rng(seed)
    steps = epochs * math.ceil(len(data) / batch)
    for _ in range(epochs):
        order = rng.permutation(len(data))
        for start in range(0, len(data), batch):
            rows = order[start : start + batch]
            x, mask, target = data.x[rows], data.legal[rows], target_all[rows]
            d0, d1, c1, d2, c2 = params
            z = x @ d1 + c1
            h = np.maximum(z, 0.0)
            logits = np.where(mask, h @ d2.T + c2 + x @ d0, -np.inf)
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            dout = ((p - target) / len(rows)).astype(np.float32)
            dz = (dout @ d2) * (z > 0)
            grads = [x.T @ dout, x.T @ dz, dz.sum(0), dout.T @ h, dout.sum(0)]
            adam.step(grads, rate * 0.5 * (1 + math.cos(math.pi * adam.steps / steps)))
    return DeclareNet(*params)
