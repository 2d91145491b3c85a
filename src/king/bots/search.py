"""``search``: Monte Carlo search over sampled deals, rollouts of the rule policy and an
exact best reply in the last tricks.

To play a card the bot deals the unseen cards to the other seats many times, each time
consistently with everything its view reveals (:mod:`king.bots.sampler`); it weights
those worlds by how likely the other players' earlier cards were in each of them, with
the rule policy as the model of their play, and resamples them by weight.  Then, in
every world and for every card it may play (equivalent cards counted once), it plays
the card and lets every seat play the rule policy (:mod:`king.bots.rule_play`, compiled
by :mod:`king.bots.compiled`) until ``tail`` tricks are left, where it searches its own
best line exactly against the others' rule cards.  It keeps the rule bot's own card
unless another card scores better over the same worlds by ``margin`` standard errors: a
rollout improvement of the rule policy that only deviates where the evidence is clear.

To declare it plays every allowed contract over deals of the other hands with the rule
policy at every seat, and weighs each against what the same choice is worth on an
average hand, so that a contract that suits this hand unusually well is taken now and
the others are kept for later.

The bot is deterministic given its seed: its budget is counted in rollouts, set from
the time per move with the speed measured on the reference machine, with a wall-clock
cap as a safety net.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from king.bots import compiled
from king.bots.base import Bot, BotDemand, BotSpecError
from king.bots.net import NetModel, default_model, view_input
from king.bots.position import distinct, from_view
from king.bots.rule import choose_card
from king.bots.sampler import Constraints, constraints, sample_world
from king.cards import DECK, Card
from king.rules import PENALTY_MASKS, Contract, Declaration
from king.view import SeatView

__all__ = ["ChoiceValues", "SearchBot"]

#: Compiled rule-policy rollouts (the rest of a deal) per second and thread on the
#: reference machine, counting the sampling and weighting of their worlds.
ROLLOUTS_PER_SECOND = 40_000
#: The same with the learned policy playing the rollouts.
NET_ROLLOUTS_PER_SECOND = 4_000

#: Who may play the rollouts and model the others.
POLICIES = ("rule", "net")

#: What each contract is worth to its declarer on an average hand under policy play
#: (Trumps: with the best trump suit), measured with ``scripts/calibrate_declarations.py``.  A
#: declaration is judged by how much better than this it is with the hand at hand.
TYPICAL_VALUE: dict[Contract, float] = {
    Contract.TRUMPS: 226.1,
    Contract.NO_TRICKS: -160.2,
    Contract.NO_HEARTS: -95.9,
    Contract.NO_QUEENS: -97.2,
    Contract.NO_BOYS: -118.8,
    Contract.NO_KING: -77.4,
    Contract.NO_LAST_TWO: -80.6,
}


@dataclass(frozen=True)
class ChoiceValues:
    """Each legal choice of one decision and its value in each sampled world
    (``values[world, choice]``): the means rank the choices and paired differences
    give the standard error of a comparison."""

    choices: tuple[Card, ...] | tuple[Declaration, ...]
    values: NDArray[np.float64]

    def mean(self, index: int) -> float:
        """The expected value of choice ``index``."""
        return float(self.values[:, index].mean())

    def error(self, index: int) -> float:
        """The standard error of that mean."""
        column = self.values[:, index]
        return float(column.std(ddof=1)) / math.sqrt(len(column)) if len(column) > 1 else 0.0

    def best(self) -> int:
        """The index of the choice with the highest mean (the first of equals)."""
        return int(np.argmax(self.values.mean(axis=0)))

    def loss(self, index: int) -> tuple[float, float]:
        """How much choice ``index`` gives up against the best: the mean of the paired
        difference over the same worlds, and its standard error."""
        gain = self.values[:, self.best()] - self.values[:, index]
        error = float(gain.std(ddof=1)) / math.sqrt(len(gain)) if len(gain) > 1 else 0.0
        return float(gain.mean()), error


class SearchBot(Bot):
    """The strongest player: sampled worlds, inference, playouts and an exact solver."""

    name = "search"

    def __init__(
        self,
        seed: int = 0,
        *,
        budget: float = 1.0,
        threads: int = 2,
        tail: int = 0,
        noise: float = 0.35,
        max_worlds: int = 4000,
        declare_worlds: int = 160,
        margin: float = 2.0,
        rollout: str = "rule",
        model: str = "rule",
        net: NetModel | None = None,
        alike: bool = False,
        top_stand_in: bool = True,
        lookahead: int = 0,
        inner: int = 8,
        everyone: bool = False,
    ) -> None:
        super().__init__(seed)
        for option, value in (("rollout", rollout), ("model", model)):
            if value not in POLICIES:
                raise BotSpecError(f"search option {option} is rule or net, not {value!r}")
        if lookahead and (tail or rollout != "rule"):
            raise BotSpecError(
                "search option lookahead plays the seat's last tricks in rule rollouts: "
                "it cannot go with tail or rollout=net"
            )
        #: Who plays the rollouts, and who models the others' earlier plays.
        self.rollout = rollout
        self.model = model
        self.net = net if net is not None or "net" not in (rollout, model) else default_model()
        if self.net is not None:
            compiled.warm_up_net(self.net.arrays)
        self.budget = budget
        self.threads = threads
        #: Tricks left when the exact best reply to the others' rule cards takes over
        #: (measured no better than rule rollouts to the end, so 0 by default).
        self.tail = tail
        self.noise = noise
        self.max_worlds = max_worlds
        self.declare_worlds = declare_worlds
        self.margin = margin
        #: Whether the model of the others shares the rule card's probability among the
        #: cards equal to it (a player indifferent between equal cards).
        self.alike = bool(alike)
        #: Whether the rule card's stand-in among merged cards is the card equal to it
        #: (``search1`` took the nearest, sometimes another card).
        self.top_stand_in = bool(top_stand_in)
        #: The tricks left from which the seat (``everyone``: every seat) plays its
        #: rollouts' cards by one step of lookahead over ``inner`` deals of what it has
        #: not seen (:mod:`king.bots.lookahead`); 0: the rule card throughout.
        self.lookahead = lookahead
        self.inner = inner
        self.everyone = bool(everyone)
        compiled.warm_up()
        if lookahead:
            compiled.warm_up_lookahead()

    def demand(self) -> BotDemand:
        # Each lookahead decision deals ``inner`` more worlds of its own.
        worlds = self.max_worlds * (1 + self.inner) if self.lookahead else self.max_worlds
        return BotDemand(self.budget, self.threads, worlds, self.tail)

    # -- playing -----------------------------------------------------------------------

    def play(self, view: SeatView) -> Card:
        legal = view.legal_cards.mask
        contract = view.contract
        if contract is None or legal == 0:
            raise ValueError("the search bot was asked to play when it cannot")
        if legal.bit_count() == 1:
            return DECK[legal.bit_length() - 1]
        code = contract.code
        trump = -1 if view.trump is None else int(view.trump)
        flags = view.rules.flags
        played = view.played.mask
        trick_mask = sum(card.mask for _, card in view.current_trick)
        candidates = distinct(legal, played & ~trick_mask, PENALTY_MASKS[code])
        ids = [c for c in range(52) if candidates >> c & 1]
        if len(ids) == 1:
            return DECK[ids[0]]
        compiled.set_threads(self.threads)
        rng = random.Random(self.rng.getrandbits(64))
        return self._play_by_rollouts(view, ids, rng, code, trump, flags)

    def _play_by_rollouts(
        self,
        view: SeatView,
        ids: list[int],
        rng: random.Random,
        code: int,
        trump: int,
        flags: int,
    ) -> Card:
        """Try each card in sampled worlds and let the rule policy (compiled) play every
        seat to the end of the deal; keep the rule bot's own card unless another does
        better by a clear margin over the same worlds (a rollout improvement of the rule
        policy, which is also the model of the other players)."""
        default = self._prior_card(view)
        if default not in ids and self.top_stand_in:  # an equal card stands for it
            default = stand_in(ids, default)
        elif default not in ids:  # search1: the nearest, which may be another card
            same = [c for c in ids if c // 13 == default // 13]
            default = min(same, key=lambda c: abs(c - default)) if same else ids[0]
        table = self._rollouts(view, ids, rng, code, trump, flags, capped=True)
        means = table.mean(axis=0)
        best = int(np.argmax(means))
        base_index = ids.index(default)
        if best == base_index or len(table) < 2:
            return DECK[default]
        gain = table[:, best] - table[:, base_index]
        error = float(gain.std(ddof=1)) / math.sqrt(len(gain))
        if float(gain.mean()) > self.margin * error:
            return DECK[ids[best]]
        return DECK[default]

    def _prior_card(self, view: SeatView) -> int:
        """The card the rollout policy itself plays here: kept unless another card is
        clearly better."""
        if self.rollout == "net" and self.net is not None:
            x, legal = view_input(view)
            logits = self.net.logits(x)
            return max((c for c in range(52) if legal >> c & 1), key=lambda c: float(logits[c]))
        return choose_card(view)

    def _worlds(
        self,
        view: SeatView,
        known: Constraints,
        sequence: list[tuple[int, int]],
        rng: random.Random,
        count: int,
        code: int,
        trump: int,
        flags: int,
    ) -> NDArray[np.int64]:
        """``count`` sampled worlds (current hands); once the others have played, drawn
        from twice as many by the likelihood of their plays so far."""
        others_played = any(seat != view.seat for seat, _ in sequence)
        if not others_played or self.noise >= 1.0:
            return deal_worlds(known, rng, count)
        pool = 2 * count
        current = deal_worlds(known, rng, pool)
        dealt = current.copy()
        for seat, card in sequence:
            dealt[:, seat] |= 1 << card
        plays = np.array([card for _, card in sequence], dtype=np.int64)
        logs = np.zeros(pool, dtype=np.float64)
        leader = sequence[0][0]
        if self.model == "net" and self.net is not None:
            w0, w1, b1, w2, b2, w3, b3 = self.net.arrays
            compiled.net_likelihoods(
                dealt, plays, leader, view.seat, code, trump, flags, self.noise,
                w0, w1, b1, w2, b2, w3, b3, logs,
            )  # fmt: skip
        else:
            compiled.rule_likelihoods(
                dealt, plays, leader, view.seat, code, trump, flags, self.noise,
                self.alike, logs,
            )  # fmt: skip
        weights = np.exp(logs - logs.max())
        weights /= weights.sum()
        # Systematic resampling: ``count`` worlds in proportion to their weights.
        positions = (rng.random() + np.arange(count)) / count
        picks = np.minimum(np.searchsorted(np.cumsum(weights), positions), pool - 1)
        chosen: NDArray[np.int64] = current[picks]
        return chosen

    # -- evaluating every choice (for analysis and hints) --------------------------------

    def evaluate(self, view: SeatView) -> ChoiceValues:
        """What each legal choice of ``view``'s seat is worth, from that view alone: for a
        card, the seat's points for the deal over sampled worlds (weighted by the others'
        plays, as when the bot plays) with the rule policy at every seat after it; for a
        declaration, the same over deals of the other hands, less what the contract
        would be worth on an average later hand (as the bot declares).  ``values[w][i]``
        is choice ``i`` in world ``w``, so that two choices compare over the same
        worlds."""
        rng = random.Random(self.rng.getrandbits(64))
        compiled.set_threads(self.threads)
        flags = view.rules.flags
        if view.legal_declarations:
            choices = list(view.legal_declarations)
            worlds = deal_worlds(constraints(view), rng, self.declare_worlds)
            table = np.zeros((len(worlds), len(choices)), dtype=np.float64)
            out = np.zeros(len(worlds), dtype=np.int64)
            for i, choice in enumerate(choices):
                trump = -1 if choice.trump is None else int(choice.trump)
                compiled.rule_declaration_values(
                    worlds, view.seat, choice.contract.code, trump, flags, out
                )
                table[:, i] = out - self._reserve(view, choice)
            return ChoiceValues(tuple(choices), table)
        contract = view.contract
        if contract is None or not view.legal_cards:
            raise ValueError("this view has no choice to evaluate")
        ids = [card.id for card in view.legal_cards]
        code = contract.code
        trump = -1 if view.trump is None else int(view.trump)
        table = self._rollouts(view, ids, rng, code, trump, flags, capped=False)
        return ChoiceValues(tuple(DECK[i] for i in ids), table)

    def _rollouts(
        self,
        view: SeatView,
        ids: list[int],
        rng: random.Random,
        code: int,
        trump: int,
        flags: int,
        *,
        capped: bool,
    ) -> NDArray[np.float64]:
        """``values[world, i]``: the seat's points when it plays card ``ids[i]`` and the
        rule policy plays on, over as many sampled worlds as the budget buys.  The
        rollout count decides (deterministic); with ``capped`` the clock also stops it,
        only to guard against a machine far slower than the reference one."""
        known = constraints(view)
        sequence = played_so_far(view)
        base = _base_state(view)
        cand = np.array(ids, dtype=np.int64)
        speed = NET_ROLLOUTS_PER_SECOND if self.rollout == "net" else ROLLOUTS_PER_SECOND
        rollouts = self.budget * speed * self.threads
        wanted = int(min(self.max_worlds, max(16, rollouts // len(ids))))
        chunks: list[NDArray[np.int64]] = []
        done = 0
        start = time.perf_counter()
        while done < wanted:
            count = min(wanted - done, 256 * self.threads)
            worlds = self._worlds(view, known, sequence, rng, count, code, trump, flags)
            values = np.zeros((count, len(ids)), dtype=np.int64)
            if self.rollout == "net" and self.net is not None:
                w0, w1, b1, w2, b2, w3, b3 = self.net.arrays
                compiled.net_rollouts(
                    worlds, base, cand, view.seat, code, trump, flags,
                    w0, w1, b1, w2, b2, w3, b3, values,
                )  # fmt: skip
            elif self.lookahead:
                compiled.lookahead_rollouts(
                    worlds, base, cand, view.seat, code, trump, flags, self.lookahead,
                    self.inner, self.everyone, values,
                )  # fmt: skip
            else:
                compiled.rule_rollouts(
                    worlds, base, cand, view.seat, code, trump, flags, self.tail, values
                )
            chunks.append(values)
            done += count
            if capped and time.perf_counter() - start > 4 * self.budget + 0.5:
                break
        table: NDArray[np.float64] = np.concatenate(chunks).astype(np.float64)
        return table

    # -- declaring ---------------------------------------------------------------------

    def declare(self, view: SeatView) -> Declaration:
        choices = view.legal_declarations
        if len(choices) == 1:
            return choices[0]
        compiled.set_threads(self.threads)
        rng = random.Random(self.rng.getrandbits(64))
        known = constraints(view)
        worlds = deal_worlds(known, rng, self.declare_worlds)
        flags = view.rules.flags
        best: Declaration | None = None
        best_score = -math.inf
        out = np.zeros(len(worlds), dtype=np.int64)
        for choice in choices:
            trump = -1 if choice.trump is None else int(choice.trump)
            compiled.rule_declaration_values(
                worlds, view.seat, choice.contract.code, trump, flags, out
            )
            value = float(out.mean())
            score = value - self._reserve(view, choice)
            if score > best_score:
                best, best_score = choice, score
        assert best is not None
        return best

    @staticmethod
    def _reserve(view: SeatView, choice: Declaration) -> float:
        """What taking this contract now gives up: what it would be worth on an average
        later hand; nothing on the seat's last declaration, which has no later."""
        trumps_owed, negatives_owed = view.obligations(view.seat)
        if trumps_owed + negatives_owed <= 1:
            return 0.0
        return TYPICAL_VALUE[choice.contract]


def stand_in(kept: list[int], card: int) -> int:
    """The card of ``kept`` (cards with equal ones merged, the highest of each run
    kept) that stands for ``card``: the top of its run, the lowest kept card above it in
    its suit.  (``search1`` took the nearest kept card of the suit, which may be a lower
    one that is not equal to it.)"""
    if card in kept:
        return card
    return min(c for c in kept if c // 13 == card // 13 and c > card)


def needs_compiling() -> bool | None:
    """Whether building a search bot now compiles its kernels (numba has no usable cache
    of them: the first run after an install, or after the kernels changed); ``None``
    when this numba does not say."""
    return compiled.needs_compiling()


def deal_worlds(known: Constraints, rng: random.Random, count: int) -> NDArray[np.int64]:
    """``count`` worlds dealt by the kernel; the rare one it cannot deal is dealt by the
    exhaustive search of :func:`king.bots.sampler.sample_world`."""
    worlds = np.zeros((count, 4), dtype=np.int64)
    seed = np.array([rng.getrandbits(62) | 1], dtype=np.int64)
    counts = np.array(known.counts, dtype=np.int64)
    forbidden = np.array(known.forbidden, dtype=np.int64)
    failures = compiled.sample_worlds(
        known.unseen, counts, forbidden, known.me, known.my_hand, seed, worlds
    )
    if failures:
        for row in range(count):
            if worlds[row, known.me] == 0 and known.my_hand:
                worlds[row] = sample_world(known, rng)
    return worlds


def played_so_far(view: SeatView) -> list[tuple[int, int]]:
    """Every card played in this deal so far, as (seat, card id), in order."""
    sequence = [(t.seat_of(i), c.id) for t in view.tricks for i, c in enumerate(t.cards)]
    sequence.extend((seat, card.id) for seat, card in view.current_trick)
    return sequence


def _base_state(view: SeatView) -> NDArray[np.int64]:
    """The position of the view with the hands left for the worlds to fill."""
    state: NDArray[np.int64] = from_view(view, with_hand=False)
    return state


_OPTIONS = {
    "time": ("budget", float),
    "threads": ("threads", int),
    "tail": ("tail", int),
    "noise": ("noise", float),
    "worlds": ("max_worlds", int),
    "margin": ("margin", float),
    "rollout": ("rollout", str),
    "model": ("model", str),
    "alike": ("alike", int),  # 0 or 1
    "lookahead": ("lookahead", int),
    "inner": ("inner", int),
    "everyone": ("everyone", int),  # 0 or 1
}

#: The most of each bounded option: tricks in a deal, and inner deals a decision.
_MOST = {"alike": 1, "everyone": 1, "lookahead": 13, "inner": 64}


def build(seed: int, options: dict[str, str]) -> SearchBot:
    return SearchBot(seed, **_parse(options))  # type: ignore[arg-type]


def _parse(options: dict[str, str]) -> dict[str, float | int | str]:
    """The keyword arguments of a spec's options, each checked."""
    kwargs: dict[str, float | int | str] = {}
    for key, value in options.items():
        if key not in _OPTIONS:
            raise BotSpecError(
                f"the search bot has no option {key!r}: use {', '.join(sorted(_OPTIONS))}"
            )
        name, kind = _OPTIONS[key]
        if kind is str:
            kwargs[name] = value
            continue
        try:
            number = kind(value)
        except ValueError:
            raise BotSpecError(f"search option {key} must be a number, not {value!r}") from None
        if (
            not math.isfinite(number)
            or number < 0
            or (
                kind is int and number < 1 and key not in ("tail", "alike", "lookahead", "everyone")
            )
            or number > _MOST.get(key, math.inf)
        ):
            raise BotSpecError(f"search option {key} is out of range: {value}")
        kwargs[name] = number
    return kwargs


#: ``search1``: today's search bot with every setting but its time pinned, the baseline
#: that search v2 is measured against; it stays as it is when ``search``'s defaults move.
SEARCH1 = {
    "tail": 0,
    "noise": 0.35,
    "max_worlds": 4000,
    "declare_worlds": 160,
    "margin": 2.0,
    "rollout": "rule",
    "model": "rule",
    "alike": False,
    "top_stand_in": False,
    "lookahead": 0,
    "inner": 8,
    "everyone": False,
}


def build_search1(seed: int, options: dict[str, str]) -> SearchBot:
    unknown = set(options) - {"time", "threads"}
    if unknown:
        raise BotSpecError(
            f"search1 has no option {sorted(unknown)[0]!r}: it is pinned; use time or threads"
        )
    return SearchBot(seed, **(_parse(options) | SEARCH1))  # type: ignore[arg-type]
