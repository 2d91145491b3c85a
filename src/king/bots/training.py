"""Training the learned policy (``king train``): self-play positions labelled by the
search bot, and a network fitted to them with numpy alone.

Data.  Single deals are played under the ten declarations in turn (and, in a share of
them, the optional rules); at every decision with a real choice the search bot evaluates
each legal card from that seat's view (sampled worlds weighted by the others' plays,
rule-policy rollouts: :meth:`~king.bots.search.SearchBot.evaluate`), and the position is
kept with each card's value and the standard error of its difference from the rule
card's.  The card played is the one the search bot plays (the best card where it beats
the rule card by two standard errors, else the rule card), now and then a random one,
so that the positions also cover lines good play would not reach.  Each decision is one
seat's view: nothing hidden enters the input.

Fitting.  The network (:mod:`king.bots.net_play`) is fitted by Adam, in plain numpy.
The default objective (``gain``) is a regression of each legal card's value less the
rule card's: the size of a departure is learnt, not only its sign, and the noise of the
values averages out; the rule card's logit is then raised by the threshold that makes
the chosen cards worth most on held-out positions, so that the network departs from the
rule card only where it predicts a clear gain.  ``decision`` fits the search bot's card
itself (cross-entropy, label smoothing); ``softmax`` the softmax of the values, which
was measured weaker than the rule bot (every card that looked better in a few hundred
noisy rollouts becomes a target).  Held-out positions measure the result: how often the
network plays the search bot's card, and how many points per decision its card gives up
against the best evaluated card (its *regret*), next to the rule card's; the mean value
of the card chosen on positions the model never saw is an unbiased estimate of what it
is worth.

Everything is seeded: the same command makes the same model on any machine (up to the
floating-point order of the machine's BLAS).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from king.bots.net import NetModel, view_input
from king.bots.net_declare import D_RULE, DeclareNet, declaration_input, legal_declarations
from king.bots.net_play import I_RULE
from king.cards import Card
from king.game import Game
from king.phase import Phase
from king.rules import ALL_DECLARATIONS, PRESETS, Rules, cycled_declaration
from king.view import SeatView

if TYPE_CHECKING:
    from king.bots.search import SearchBot

__all__ = [
    "Declarations",
    "Positions",
    "fit",
    "fit_declarations",
    "generate",
    "generate_declarations",
    "inference_loss",
    "measure",
    "measure_declarations",
]

#: A share of the deals played under each preset (the rest classic).
RULES_MIX: tuple[tuple[Rules, float], ...] = (
    (PRESETS["pagat"], 0.1),
    (PRESETS["turkish"], 0.1),
)


@dataclass(frozen=True, eq=False)
class Positions:
    """Labelled positions: the input of each (``x``), its legal cards as a mask, each
    legal card's value in points (``values``, NaN for cards not legal) and the contract
    code."""

    x: NDArray[np.float32]
    legal: NDArray[np.int64]
    values: NDArray[np.float32]
    contract: NDArray[np.int8]
    #: The standard error of each card's value less the rule card's, over the same
    #: worlds (0 for the rule card, NaN for cards not legal).
    errors: NDArray[np.float32]

    def __len__(self) -> int:
        return len(self.legal)

    def save(self, path: str | Path) -> None:
        np.savez_compressed(
            path,
            x=self.x,
            legal=self.legal,
            values=self.values,
            contract=self.contract,
            errors=self.errors,
        )

    @staticmethod
    def load(path: str | Path) -> Positions:
        with np.load(path, allow_pickle=False) as data:
            return Positions(
                data["x"], data["legal"], data["values"], data["contract"], data["errors"]
            )

    @staticmethod
    def join(parts: list[Positions]) -> Positions:
        return Positions(
            np.concatenate([p.x for p in parts]),
            np.concatenate([p.legal for p in parts]),
            np.concatenate([p.values for p in parts]),
            np.concatenate([p.contract for p in parts]),
            np.concatenate([p.errors for p in parts]),
        )

    def split(self, share: float, seed: int) -> tuple[Positions, Positions]:
        """A random ``share`` held out, and the rest."""
        order = np.random.default_rng(seed).permutation(len(self))
        cut = int(len(self) * share)
        return self.take(order[cut:]), self.take(order[:cut])

    def take(self, rows: NDArray[np.int64]) -> Positions:
        return Positions(
            self.x[rows],
            self.legal[rows],
            self.values[rows],
            self.contract[rows],
            self.errors[rows],
        )

    @property
    def rule_cards(self) -> NDArray[np.int64]:
        """The rule policy's card in each position (it is part of the input)."""
        out: NDArray[np.int64] = self.x[:, I_RULE : I_RULE + 52].argmax(axis=1)
        return out

    def decisions(self, margin: float) -> NDArray[np.int64]:
        """The search bot's card in each position: the best card when it beats the rule
        card by ``margin`` standard errors of the paired difference, else the rule card
        (as :class:`~king.bots.search.SearchBot` decides)."""
        rows = np.arange(len(self))
        rule = self.rule_cards
        values = np.where(np.isnan(self.values), -np.inf, self.values)
        best = values.argmax(axis=1)
        gain = values[rows, best] - values[rows, rule]
        clear = gain > margin * np.nan_to_num(self.errors[rows, best])
        out: NDArray[np.int64] = np.where(clear & (best != rule), best, rule)
        return out


def _rules_for(rng: random.Random) -> Rules:
    roll = rng.random()
    for rules, share in RULES_MIX:
        if roll < share:
            return rules
        roll -= share
    return PRESETS["classic"]


#: Positions are made in chunks of this many, chunk ``k`` of seed ``s`` with seed
#: ``s + k``, so that chunks made apart (on several machines, say) join into the data
#: one run would make.
CHUNK = 20_000

#: Runs a function on each tuple of arguments (anywhere) and yields the results in order.
ChunkMap = Callable[[Callable[..., "Positions"], list[tuple[Any, ...]]], Iterator["Positions"]]


def generate(
    count: int,
    *,
    seed: int = 0,
    budget: float = 0.04,
    margin: float = 2.0,
    confirm: float = 0.0,
    explore: float = 0.05,
    progress: Callable[[int], None] | None = None,
    chunk: int = CHUNK,
    map_chunks: ChunkMap | None = None,
) -> Positions:
    """``count`` positions from self-play, each labelled by the search bot's evaluation
    with ``budget`` seconds' worth of rollouts (as a count, so the data do not depend on
    the machine).  Where that evaluation would leave the rule card, the position is
    evaluated again, afresh, with ``confirm`` seconds' worth (``0``: not), and that
    second evaluation is kept, to drop departures found by chance (measured: about nine
    in ten departures at 0.04 s come back in a fresh evaluation at 0.25 s, so the default
    does not pay for it).  The card played is the search bot's (``margin``), a random one
    with probability ``explore``.

    The positions come in chunks of ``chunk``, chunk k played from seed ``seed + k``,
    so that ``map_chunks`` (``king train --ray``: one Ray task per chunk) may make them
    anywhere and in any order: the data are the same."""
    sizes = [min(chunk, count - start) for start in range(0, count, chunk)]
    if map_chunks is not None:
        arguments = [
            (size, seed + k, budget, margin, confirm, explore, None) for k, size in enumerate(sizes)
        ]
        parts = []
        for part in map_chunks(_generate_chunk, arguments):
            parts.append(part)
            if progress is not None:
                progress(sum(sizes[: len(parts)]))
        return Positions.join(parts)
    parts = []
    done = 0
    for k, size in enumerate(sizes):

        def counted(n: int, before: int = done) -> None:
            if progress is not None:
                progress(before + n)

        parts.append(_generate_chunk(size, seed + k, budget, margin, confirm, explore, counted))
        done += size
    return Positions.join(parts)


def _generate_chunk(
    count: int,
    seed: int,
    budget: float,
    margin: float,
    confirm: float,
    explore: float,
    progress: Callable[[int], None] | None,
) -> Positions:
    from king.bots.search import SearchBot

    rng = random.Random(seed)
    evaluator = SearchBot(rng.getrandbits(32), budget=budget)
    confirmer = SearchBot(rng.getrandbits(32), budget=confirm) if confirm > 0 else None
    xs: list[NDArray[np.float32]] = []
    legal: list[int] = []
    values: list[NDArray[np.float32]] = []
    errors: list[NDArray[np.float32]] = []
    contracts: list[int] = []
    index = rng.randrange(28)
    while len(legal) < count:
        game = Game(_rules_for(rng), seed=rng.getrandbits(32), auto_deal=False)
        game.deal_cards()
        game.declare(cycled_declaration(index))
        index += 1
        while game.phase is Phase.PLAYING and len(legal) < count:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            cards = list(view.legal_cards)
            if len(cards) == 1:
                game.play(cards[0])
                continue
            x, mask = view_input(view)
            position = _labelled(evaluator, view, x, mask)
            if confirmer is not None and position.decisions(margin)[0] != position.rule_cards[0]:
                position = _labelled(confirmer, view, x, mask)
            row, error_row = position.values[0], position.errors[0]
            xs.append(x)
            legal.append(mask)
            values.append(row)
            errors.append(error_row)
            contracts.append(view.contract.code if view.contract else 0)
            if progress is not None:
                progress(len(legal))
            if rng.random() < explore:
                game.play(rng.choice(cards))
            else:
                game.play_unchecked(int(position.decisions(margin)[0]))
    return Positions(
        np.array(xs, dtype=np.float32),
        np.array(legal, dtype=np.int64),
        np.array(values, dtype=np.float32),
        np.array(contracts, dtype=np.int8),
        np.array(errors, dtype=np.float32),
    )


def _labelled(evaluator: SearchBot, view: SeatView, x: NDArray[np.float32], mask: int) -> Positions:
    """One position with the values of its legal cards by ``evaluator`` and the standard
    errors of their differences from the rule card."""
    table = evaluator.evaluate(view)
    rule = int(x[I_RULE : I_RULE + 52].argmax())
    choices = [card.id for card in table.choices if isinstance(card, Card)]
    base = table.values[:, choices.index(rule)]
    row = np.full(52, np.nan, dtype=np.float32)
    error_row = np.full(52, np.nan, dtype=np.float32)
    for i, card in enumerate(choices):
        gain = table.values[:, i] - base
        row[card] = table.values[:, i].mean()
        error_row[card] = gain.std(ddof=1) / math.sqrt(len(gain))
    return Positions(
        x[None], np.array([mask]), row[None], np.zeros(1, dtype=np.int8), error_row[None]
    )


def _targets(values: NDArray[np.float32], temperature: float) -> NDArray[np.float32]:
    """Soft targets: the softmax of each legal card's value over ``temperature``."""
    scaled = np.where(np.isnan(values), -np.inf, values / temperature)
    scaled -= scaled.max(axis=1, keepdims=True)
    weights = np.exp(scaled)
    out: NDArray[np.float32] = (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


def _gains(data: Positions, scale: float) -> NDArray[np.float32]:
    """Each legal card's value less the rule card's, in ``scale`` points, clipped to 20
    (one king swing should not drown a hundred ordinary decisions); 0 elsewhere."""
    rows = np.arange(len(data))
    base = data.values[rows, data.rule_cards][:, None]
    gain = np.clip((data.values - base) / scale, -20.0, 20.0)
    out: NDArray[np.float32] = np.nan_to_num(gain, nan=0.0).astype(np.float32)
    return out


def with_threshold(model: NetModel, threshold: float) -> NetModel:
    """The model with ``threshold`` added to the rule card's logit: a regression of
    gains then departs from the rule card only where it predicts more than that."""
    w0 = model.w0.copy()
    for card in range(52):
        w0[I_RULE + card, card] += threshold
    return NetModel.of([w0, *model.arrays[1:]], model.about, model.declare)


def calibrate_threshold(
    model: NetModel, held_out: Positions, thresholds: tuple[float, ...] = (0, 0.5, 1, 1.5, 2, 3, 4)
) -> tuple[float, NetModel]:
    """The threshold (and the model with it) whose cards are worth most on
    ``held_out``: the mean value of the card chosen, which the model never saw."""
    best: tuple[float, float, NetModel] | None = None
    for threshold in thresholds:
        candidate = with_threshold(model, threshold)
        regret = measure(candidate, held_out).regret
        if best is None or regret < best[0]:
            best = (regret, threshold, candidate)
    assert best is not None
    return best[1], best[2]


def _one_hot(
    cards: NDArray[np.int64], mask: NDArray[np.bool_], smoothing: float
) -> NDArray[np.float32]:
    """Targets that put ``1 - smoothing`` on each position's card and share the rest
    among its legal cards."""
    share = smoothing / mask.sum(axis=1, keepdims=True)
    out = np.where(mask, share, 0.0)
    out[np.arange(len(cards)), cards] += 1.0 - smoothing
    result: NDArray[np.float32] = out.astype(np.float32)
    return result


def _legal_rows(legal: NDArray[np.int64]) -> NDArray[np.bool_]:
    bits = (legal[:, None] >> np.arange(52, dtype=np.int64)[None, :]) & 1
    out: NDArray[np.bool_] = bits.astype(bool)
    return out


@dataclass(frozen=True)
class Figures:
    """How a model does on labelled positions: its cross-entropy against the search
    bot's card (margin 2), how often it plays that card (and how often the rule card
    is that card, for scale), and the points per decision its card gives up against
    the best evaluated card (and the rule card's)."""

    loss: float
    agreement: float
    regret: float
    rule_agreement: float
    rule_regret: float

    def line(self) -> str:
        return (
            f"loss {self.loss:.3f}  search's card {100 * self.agreement:.1f}% "
            f"(rule {100 * self.rule_agreement:.1f}%)  regret {self.regret:.2f} points "
            f"(rule {self.rule_regret:.2f})"
        )


def measure(model: NetModel, data: Positions, margin: float = 2.0) -> Figures:
    """The figures of ``model`` on ``data``."""
    mask = _legal_rows(data.legal)
    logits = np.where(mask, model.logits(data.x), -np.inf)
    shifted = logits - logits.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    rows = np.arange(len(data))
    decided = data.decisions(margin)
    values = np.where(mask, data.values, -np.inf)
    best = values.max(axis=1)
    chosen = logits.argmax(axis=1)
    rule = data.rule_cards
    return Figures(
        loss=float(-logp[rows, decided].mean()),
        agreement=float((chosen == decided).mean()),
        regret=float((best - values[rows, chosen]).mean()),
        rule_agreement=float((rule == decided).mean()),
        rule_regret=float((best - values[rows, rule]).mean()),
    )


class _Adam:
    """Adam on a list of float32 arrays, updated in place, with weight decay on the
    arrays named by index (the weights, not the biases)."""

    def __init__(
        self, params: list[NDArray[np.float32]], decay: float, decayed: tuple[int, ...]
    ) -> None:
        self.params = params
        self.decay = decay
        self.decayed = decayed
        self.moments = [np.zeros_like(p) for p in params]
        self.squares = [np.zeros_like(p) for p in params]
        self.steps = 0

    def step(self, grads: list[NDArray[np.float32]], rate: float) -> None:
        self.steps += 1
        for i, grad in enumerate(grads):
            g = grad + self.decay * self.params[i] if i in self.decayed else grad
            self.moments[i] = 0.9 * self.moments[i] + 0.1 * g
            self.squares[i] = 0.999 * self.squares[i] + 0.001 * g * g
            m = self.moments[i] / (1 - 0.9**self.steps)
            v = self.squares[i] / (1 - 0.999**self.steps)
            self.params[i][...] = self.params[i] - rate * m / (np.sqrt(v) + 1e-8)


def fit(
    data: Positions,
    *,
    hidden: tuple[int, int] = (128, 64),
    epochs: int = 30,
    batch: int = 256,
    rate: float = 1e-3,
    decay: float = 1e-5,
    temperature: float = 5.0,
    objective: str = "decision",
    margin: float = 2.0,
    smoothing: float = 0.1,
    seed: int = 0,
    held_out: Positions | None = None,
    progress: Callable[[int, Figures | None], None] | None = None,
) -> NetModel:
    """Fit a network to ``data`` by Adam (plain numpy backpropagation), the learning
    rate falling as a cosine over the epochs."""
    model = NetModel.random(seed, hidden)
    params = [a.copy() for a in model.arrays]
    adam = _Adam(params, decay, (0, 1, 3, 5))
    mask_all = _legal_rows(data.legal)
    if objective == "decision":
        target_all = _one_hot(data.decisions(margin), mask_all, smoothing)
    elif objective == "softmax":
        target_all = _targets(data.values, temperature)
    elif objective == "gain":
        target_all = _gains(data, temperature)
    else:
        raise ValueError(f"the objective is decision, softmax or gain, not {objective!r}")
    rng = np.random.default_rng(seed)
    steps = epochs * math.ceil(len(data) / batch)
    for epoch in range(epochs):
        order = rng.permutation(len(data))
        for start in range(0, len(data), batch):
            rows = order[start : start + batch]
            x, mask, target = data.x[rows], mask_all[rows], target_all[rows]
            w0, w1, b1, w2, b2, w3, b3 = params
            z1 = x @ w1 + b1
            a1 = np.maximum(z1, 0.0)
            z2 = a1 @ w2 + b2
            a2 = np.maximum(z2, 0.0)
            out = a2 @ w3.T + b3 + x @ w0
            if objective == "gain":
                # Regression: each legal card's gain over the rule card, so that the
                # size of a departure, not only its sign, is learnt.
                n = mask.sum(axis=1, keepdims=True)
                d3 = (2.0 * np.where(mask, out - target, 0.0) / n / len(rows)).astype(np.float32)
            else:
                logits = np.where(mask, out, -np.inf)
                logits -= logits.max(axis=1, keepdims=True)
                p = np.exp(logits)
                p /= p.sum(axis=1, keepdims=True)
                d3 = ((p - target) / len(rows)).astype(np.float32)
            da2 = d3 @ w3
            d2 = da2 * (z2 > 0)
            da1 = d2 @ w2.T
            d1 = da1 * (z1 > 0)
            grads = [x.T @ d3, x.T @ d1, d1.sum(0), a1.T @ d2, d2.sum(0), d3.T @ a2, d3.sum(0)]
            adam.step(grads, rate * 0.5 * (1 + math.cos(math.pi * adam.steps / steps)))
        if progress is not None:
            current = NetModel.of(params)
            progress(epoch + 1, measure(current, held_out, margin) if held_out else None)
    return NetModel.of(params)


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
    player: str = "search:time=0.02",
) -> InferenceLoss:
    """Play ``deals`` single deals with ``player`` at every seat (neither of the models
    measured), and at the start of each trick from the third on measure, from the
    leader's view, each model's log-loss of where the hidden cards are."""
    from king.bots import compiled
    from king.bots.base import make_bot
    from king.bots.sampler import constraints
    from king.bots.search import _plays, _sample

    rng = random.Random(seed)
    bots = [make_bot(player, seed=rng.getrandbits(32)) for _ in range(4)]
    sums: dict[int, list[float]] = {}
    counts: dict[int, int] = {}
    w0, w1, b1, w2, b2, w3, b3 = model.arrays
    for number in range(deals):
        game = Game(_rules_for(rng), seed=rng.getrandbits(32), auto_deal=False)
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
                current = _sample(constraints(view), rng, worlds)
                sequence = _plays(view)
                dealt = current.copy()
                for who, card in sequence:
                    dealt[:, who] |= 1 << card
                plays = np.array([card for _, card in sequence], dtype=np.int64)
                leader = sequence[0][0]
                rule_logs = np.zeros(worlds, dtype=np.float64)
                net_logs = np.zeros(worlds, dtype=np.float64)
                alike_logs = np.zeros(worlds, dtype=np.float64)
                compiled.rule_likelihoods(
                    dealt, plays, leader, seat, code, trump, flags, noise, False, rule_logs
                )
                compiled.rule_likelihoods(
                    dealt, plays, leader, seat, code, trump, flags, noise, True, alike_logs
                )
                compiled.net_likelihoods(
                    dealt, plays, leader, seat, code, trump, flags, noise,
                    w0, w1, b1, w2, b2, w3, b3, net_logs,
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


# -- declarations ------------------------------------------------------------------------


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
    from king.bots.rule import RuleBot
    from king.bots.search import SearchBot

    rng = random.Random(seed)
    evaluator = SearchBot(rng.getrandbits(32))
    player = RuleBot(0)
    xs: list[NDArray[np.float32]] = []
    legal: list[NDArray[np.bool_]] = []
    values: list[NDArray[np.float32]] = []
    while len(xs) < count:
        game = Game(_rules_for(rng), seed=rng.getrandbits(32))
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
            for choice, mean in zip(table.choices, table.values.mean(axis=0), strict=True):
                row[ALL_DECLARATIONS.index(choice)] = mean
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
    adam = _Adam(params, decay, (0, 1, 3))
    target_all = _one_hot(data.decisions, data.legal, smoothing)
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
