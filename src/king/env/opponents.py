"""The three seats that play against the learner in ``KingVsBotsEnv``: bots named by
spec, or frozen copies of the learner itself (:class:`SelfPlay`).

A self-play seat plays a *snapshot*: the policy that ``SelfPlay.snapshot()`` returned,
taken at the first ``reset()`` and again after every ``refresh_every`` learner steps.
Between two refreshes the opponents play the same snapshot, whatever the learner's own
policy has become meanwhile.

>>> import numpy as np
>>> from king.env import LinearPolicy
>>> live = LinearPolicy.zeros()
>>> play = SelfPlay.copying(live, refresh_every=1000)
>>> frozen = play.snapshot()
>>> frozen is live, np.array_equal(frozen.weights, live.weights)
(False, True)
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from king.bots.protocol import Bot
from king.bots.registry import make_bot
from king.cards import Seat
from king.env.policies.base import Policy, PolicyBot

__all__ = ["Opponent", "Opponents", "SelfPlay"]


@dataclass(frozen=True, slots=True)
class SelfPlay:
    """Frozen copies of the learner as opponents.

    ``snapshot()`` must return a policy (``policy(observation, mask) -> action``) that
    will not change when the learner trains on: e.g. a function over a copy of the
    weights.  It is called at the first ``reset()`` and after every ``refresh_every``
    calls of ``step()``; every self-play seat of the environment plays the latest one.
    """

    snapshot: Callable[[], Policy]
    refresh_every: int = 10_000
    name: str = "self-play"

    def __post_init__(self) -> None:
        if not callable(self.snapshot):
            raise ValueError(
                "SelfPlay takes a function that returns a frozen copy of the learner's "
                f"policy, not {self.snapshot!r}"
            )
        every = self.refresh_every
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError(f"refresh_every is a number of steps (an int >= 1), not {every!r}")

    @staticmethod
    def copying(policy: Policy, refresh_every: int = 10_000) -> SelfPlay:
        """Snapshots made by ``copy.deepcopy(policy)``: right for a policy object that
        holds its own weights (a :class:`~king.env.LinearPolicy`, a torch module), not
        for a plain function that reads a live model (it would be copied as itself)."""
        return SelfPlay(lambda: copy.deepcopy(policy), refresh_every)


#: What sits in an opponent's seat: a bot spec (``"rule"``, ``"policy:file=..."``) or
#: the learner's frozen self.
Opponent = str | SelfPlay


def read_opponents(opponents: Opponent | Sequence[Opponent]) -> tuple[Opponent, ...]:
    """One opponent for all three seats, or three in seat order after the learner; a
    bad bot spec fails here, with the bot registry's message."""
    if isinstance(opponents, (str, SelfPlay)):
        chosen: list[Opponent] = [opponents] * 3
    else:
        chosen = list(opponents)
    if len(chosen) != 3:
        raise ValueError(f"opponents is one bot spec or three, not {len(chosen)}")
    for opponent in chosen:
        if isinstance(opponent, str):
            make_bot(opponent).close()
        elif not isinstance(opponent, SelfPlay):
            raise ValueError(f"an opponent is a bot spec or a SelfPlay, not {opponent!r}")
    return tuple(chosen)


class Opponents:
    """The other seats' bots for one episode after another, and the self-play seats'
    snapshots, refreshed on the learner's step count."""

    def __init__(self, opponents: Opponent | Sequence[Opponent]) -> None:
        self.specs = read_opponents(opponents)
        self.steps = 0
        self._snapshots: list[tuple[SelfPlay, Policy]] = []
        self._bots: dict[Seat, Bot] = {}
        self._frozen: dict[Seat, tuple[SelfPlay, PolicyBot]] = {}

    def name(self, index: int) -> str:
        """The name of opponent ``index`` (0–2, in seat order after the learner)."""
        spec = self.specs[index]
        return spec if isinstance(spec, str) else spec.name

    def _snapshot(self, play: SelfPlay) -> Policy:
        """``play``'s current snapshot, taken now if it has none yet."""
        for known, policy in self._snapshots:
            if known is play:
                return policy
        policy = play.snapshot()
        self._snapshots.append((play, policy))
        return policy

    def seat(self, learner: Seat, rng: random.Random) -> None:
        """Seat new bots around ``learner``, each with a seed drawn from ``rng``."""
        self.close()
        for other in range(1, 4):
            spec = self.specs[other - 1]
            seed = rng.getrandbits(32)
            seat = (learner + other) & 3
            if isinstance(spec, str):
                self._bots[seat] = make_bot(spec, seed)
            else:
                bot = PolicyBot(self._snapshot(spec), seed=seed, name=spec.name)
                self._bots[seat] = bot
                self._frozen[seat] = (spec, bot)

    def bot(self, seat: Seat) -> Bot:
        """The bot in ``seat``."""
        return self._bots[seat]

    def count_step(self) -> None:
        """One more learner step: take new snapshots where one is due, and hand them to
        the seats that play them (from their next move on)."""
        self.steps += 1
        for index, (play, _) in enumerate(self._snapshots):
            if self.steps % play.refresh_every == 0:
                self._snapshots[index] = (play, play.snapshot())
        for play, bot in self._frozen.values():
            bot.policy = self._snapshot(play)

    def close(self) -> None:
        """Stop the bots (an external ``cmd:`` bot is a process)."""
        for bot in self._bots.values():
            bot.close()
        self._bots = {}
        self._frozen = {}
