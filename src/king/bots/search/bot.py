"""``search``: Monte Carlo search over sampled deals, rollouts of the rule policy and an
exact best reply in the last tricks.

To play a card the bot deals the unseen cards to the other seats many times, each time
consistently with everything its view reveals (:mod:`king.bots.search.sampler`); it weights
those worlds by how likely the other players' earlier cards were in each of them, with
the rule policy as the model of their play, and resamples them by weight.  Then, in
every world and for every card it may play (equivalent cards counted once), it plays
the card and lets every seat play the rule policy (:mod:`king.bots.rule.play`, in the
engine, :mod:`king.bots.engine`) until ``tail`` tricks are left, where it searches its own
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
from array import array
from dataclasses import dataclass
from typing import TYPE_CHECKING

from king.bots import engine
from king.bots.engine.steps import (
    Chunk,
    Summary,
    choose,
    declare_values,
    search_chunks,
    setup_words,
    summary,
)
from king.bots.position import distinct, from_view
from king.bots.protocol import Bot, BotDemand, BotSpecError
from king.bots.rule.bot import choose_card
from king.bots.search.sampler import Constraints, constraints
from king.cards import DECK, Card
from king.rules import PENALTY_MASKS, Contract, Declaration
from king.view import SeatView

if TYPE_CHECKING:
    from king.bots.net.bot import NetModel

__all__ = ["ChoiceValues", "SearchBot", "played_so_far"]

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
    """Each legal choice of one decision and its value in each sampled world: ``table``
    holds one row a world of one int a choice, ``offsets`` what is added to each choice's
    values (a declaration: less what it is worth later), and ``summary`` what the engine
    makes of them (the means rank the choices, paired differences give the standard
    error of a comparison)."""

    choices: tuple[Card, ...] | tuple[Declaration, ...]
    table: array[int]
    offsets: tuple[float, ...]
    summary: Summary

    @property
    def worlds(self) -> int:
        return len(self.table) // len(self.choices)

    def column(self, index: int) -> list[float]:
        """Choice ``index``'s value in each world."""
        step = len(self.choices)
        offset = self.offsets[index]
        return [value + offset for value in self.table[index::step]]

    def mean(self, index: int) -> float:
        """The expected value of choice ``index``."""
        return self.summary.means[index]

    def error(self, index: int) -> float:
        """The standard error of that mean."""
        return self.summary.errors[index]

    def best(self) -> int:
        """The index of the choice with the highest mean (the first of equals)."""
        return self.summary.best

    def loss(self, index: int) -> tuple[float, float]:
        """How much choice ``index`` gives up against the best: the mean of the paired
        difference over the same worlds, and its standard error."""
        return self.summary.losses[index], self.summary.loss_errors[index]


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
        self.net = net if net is not None or "net" not in (rollout, model) else _default_net()
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
        #: not seen (:mod:`king.bots.search.lookahead`); 0: the rule card throughout.
        self.lookahead = lookahead
        self.inner = inner
        self.everyone = bool(everyone)

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
        """Try each card in sampled worlds and let the rule policy (the engine) play every
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
        index = choose(engine.platform(), table, len(ids), ids.index(default), self.margin)
        return DECK[ids[index]]

    def _prior_card(self, view: SeatView) -> int:
        """The card the rollout policy itself plays here: kept unless another card is
        clearly better."""
        if self.rollout == "net" and self.net is not None:
            from king.bots.net.bot import net_card_of

            return net_card_of(view, self.net)
        return choose_card(view)

    # -- evaluating every choice (for analysis and hints) --------------------------------

    def evaluate(self, view: SeatView) -> ChoiceValues:
        """What each legal choice of ``view``'s seat is worth, from that view alone: for a
        card, the seat's points for the deal over sampled worlds (weighted by the others'
        plays, as when the bot plays) with the rule policy at every seat after it; for a
        declaration, the same over deals of the other hands, less what the contract
        would be worth on an average later hand (as the bot declares).  Every choice is
        valued in the same worlds, so that two choices compare over them."""
        rng = random.Random(self.rng.getrandbits(64))
        flags = view.rules.flags
        if view.legal_declarations:
            return self._declaration_values(view, rng)
        contract = view.contract
        if contract is None or not view.legal_cards:
            raise ValueError("this view has no choice to evaluate")
        ids = [card.id for card in view.legal_cards]
        code = contract.code
        trump = -1 if view.trump is None else int(view.trump)
        table = self._rollouts(view, ids, rng, code, trump, flags, capped=False)
        found = summary(engine.platform(), table, len(ids))
        return ChoiceValues(tuple(DECK[i] for i in ids), table, (0.0,) * len(ids), found)

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
    ) -> array[int]:
        """The seat's points when it plays card ``ids[i]`` and the rule policy plays on,
        one row a world, over as many sampled worlds as the budget buys, in chunks of
        ``CHUNK`` worlds run ``threads`` at a time (each chunk dealt from its own seed and
        resampled at its own offset, drawn here in order, so the values do not depend
        on the threads).  The rollout count decides (deterministic); with ``capped`` the
        clock also stops it, only to guard against a machine far slower than the
        reference one."""
        speed = NET_ROLLOUTS_PER_SECOND if self.rollout == "net" else ROLLOUTS_PER_SECOND
        rollouts = self.budget * speed * self.threads
        wanted = int(min(self.max_worlds, max(16, rollouts // len(ids))))
        setup = self._setup(view, code, trump, flags, len(ids))
        base = list(from_view(view, with_hand=False))
        plays = [card for _, card in played_so_far(view)]
        model = self.net if "net" in (self.rollout, self.model) else None
        table = array("q")
        done = 0
        start = time.perf_counter()
        while done < wanted:
            chunks = []
            for _ in range(self.threads):
                count = min(CHUNK, wanted - done)
                if count <= 0:
                    break
                chunks.append(Chunk(rng.getrandbits(62) | 1, rng.random(), count))
                done += count
            table.extend(
                search_chunks(
                    engine.platform(), setup, base, plays, ids, model, self.noise, chunks,
                    self.threads,
                )
            )  # fmt: skip
            if capped and time.perf_counter() - start > 4 * self.budget + 0.5:
                break
        return table

    def _setup(
        self, view: SeatView, code: int, trump: int, flags: int, candidates: int
    ) -> list[int]:
        """What the engine's search step reads: what the seat knows, the game, and how
        this bot searches (:data:`king.bots.engine.steps.SETUP_FIELDS`)."""
        sequence = played_so_far(view)
        played_by = [0, 0, 0, 0]
        for seat, card in sequence:
            played_by[seat] |= 1 << card
        return setup_words(
            **_known(constraints(view)), played_by=played_by, contract=code, trump=trump,
            flags=flags, tail=self.tail, lookahead=self.lookahead, inner=self.inner,
            everyone=int(self.everyone), alike=int(self.alike), model=int(self.model == "net"),
            rollout=int(self.rollout == "net"), plays=len(sequence),
            leader=sequence[0][0] if sequence else view.seat, candidates=candidates,
        )  # fmt: skip

    # -- declaring ---------------------------------------------------------------------

    def declare(self, view: SeatView) -> Declaration:
        choices = tuple(view.legal_declarations)
        if len(choices) == 1:
            return choices[0]
        rng = random.Random(self.rng.getrandbits(64))
        return choices[self._declaration_values(view, rng).best()]

    def _declaration_values(self, view: SeatView, rng: random.Random) -> ChoiceValues:
        """Each legal declaration's points in deals of the other hands, less what it
        would be worth on an average later hand (:meth:`_reserve`)."""
        choices = tuple(view.legal_declarations)
        table = self._declaration_table(view, choices, rng)
        offsets = tuple(-self._reserve(view, choice) for choice in choices)
        found = summary(engine.platform(), table, len(choices), offsets)
        return ChoiceValues(choices, table, offsets, found)

    def _declaration_table(
        self, view: SeatView, choices: tuple[Declaration, ...], rng: random.Random
    ) -> array[int]:
        """Each declaration's points for the seat in ``declare_worlds`` deals of the other
        hands, every seat playing the rule policy: one row a deal."""
        setup = setup_words(
            **_known(constraints(view)), played_by=[0, 0, 0, 0], contract=Contract.NO_TRICKS.code,
            trump=-1, flags=view.rules.flags, tail=0, lookahead=0, inner=0, everyone=0,
            alike=0, model=0, rollout=0, plays=0, leader=view.seat, candidates=1,
        )  # fmt: skip
        pairs = [(c.contract.code, -1 if c.trump is None else int(c.trump)) for c in choices]
        seed = rng.getrandbits(62) | 1
        return declare_values(engine.platform(), setup, pairs, seed, self.declare_worlds)

    @staticmethod
    def _reserve(view: SeatView, choice: Declaration) -> float:
        """What taking this contract now gives up: what it would be worth on an average
        later hand; nothing on the seat's last declaration, which has no later."""
        trumps_owed, negatives_owed = view.obligations(view.seat)
        if trumps_owed + negatives_owed <= 1:
            return 0.0
        return TYPICAL_VALUE[choice.contract]


#: Worlds in a chunk of the search (``engine/search.c`` takes at most 1,024).
CHUNK = 256


def _known(known: Constraints) -> dict[str, int | tuple[int, ...]]:
    """What the seat knows, as the engine's setup fields: itself, the unseen cards, its
    hand, how many cards each seat holds, and the cards each cannot hold."""
    return {
        "me": known.me, "unseen": known.unseen, "my_hand": known.my_hand,
        "counts": known.counts, "forbidden": known.forbidden,
    }  # fmt: skip


def _default_net() -> NetModel:
    """The shipped learned policy (numpy: CPython only)."""
    from king.bots.net.bot import default_model

    return default_model()


def stand_in(kept: list[int], card: int) -> int:
    """The card of ``kept`` (cards with equal ones merged, the highest of each run
    kept) that stands for ``card``: the top of its run, the lowest kept card above it in
    its suit.  (``search1`` took the nearest kept card of the suit, which may be a lower
    one that is not equal to it.)"""
    if card in kept:
        return card
    return min(c for c in kept if c // 13 == card // 13 and c > card)


def played_so_far(view: SeatView) -> list[tuple[int, int]]:
    """Every card played in this deal so far, as (seat, card id), in order."""
    sequence = [(t.seat_of(i), c.id) for t in view.tricks for i, c in enumerate(t.cards)]
    sequence.extend((seat, card.id) for seat, card in view.current_trick)
    return sequence


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
