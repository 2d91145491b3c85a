"""Closing the loop: any policy (observation and mask in, action out) as a bot.

A *policy* is any callable ``policy(observation, action_mask) -> action`` over the
vectors of :mod:`king.env.observation`.  :class:`PolicyBot` turns one into a
:class:`~king.bots.protocol.Bot`, so it can play wherever bots play: ``king arena``, the
server, the terminal.  Three ways to name one:

* ``register_policy("mine", fn)`` registers it as the bot ``mine`` in this process;
* the bot spec ``policy:file=PATH`` loads a saved policy: a :class:`LinearPolicy`'s or
  :class:`~king.env.policies.mlp.MlpPolicy`'s ``.npz``, a stable-baselines3 model's
  ``.zip`` or an ``.onnx`` network (:mod:`king.env.policies.loading`; registered when
  :mod:`king.env` is imported, and declared as an entry point, so ``king arena --bots
  policy:file=...`` plays it in process; the bare ``policy`` is the example trained by
  ``examples/rl_train.py``, in a checkout);
* ``cmd:python -m king.env.policies.host PATH.npz`` serves a saved policy as an external
  bot (``docs/bot-protocol.md``), which any ``king arena`` accepts as it is.

>>> policy = LinearPolicy.zeros()
>>> bot = PolicyBot(policy, name="zeros")
>>> from king.game import Game
>>> game = Game(seed=2)
>>> bot.act(game.view(game.declarer))
Declaration(contract=<Contract.NO_TRICKS: 'no-tricks'>, trump=None)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np
from numpy.typing import NDArray

from king.bots.protocol import Bot, BotError, BotSpecError
from king.bots.registry import register
from king.cards import DECK, Card
from king.env.information import INFORMATION_SIZE, encode_information_state
from king.env.observation import (
    ACTION_COUNT,
    CARD_ACTIONS,
    DECLARATION_OFFSET,
    OBS_SIZE,
    OBSERVATION_VERSION,
    action_mask,
    describe_action,
    encode_observation,
)
from king.env.policies.files import PolicyFileError, numbers, read_arrays, refuse, require
from king.rules import ALL_DECLARATIONS, Declaration
from king.view import SeatView

__all__ = [
    "LinearPolicy",
    "LogitsPolicy",
    "Policy",
    "PolicyBot",
    "PolicyFileError",
    "register_policy",
]


class Policy(Protocol):
    """Anything that picks an action (0–61) from an observation and its mask."""

    def __call__(
        self, observation: NDArray[np.float32], action_mask: NDArray[np.int8], /
    ) -> int: ...


class PolicyBot(Bot):
    """A bot that encodes its view, asks the policy, and checks the answer.

    The view is encoded as the observation, or as the information state when the
    policy says it reads one (``policy.observation_size`` is
    :data:`~king.env.information.INFORMATION_SIZE`).

    An answer outside the mask is not corrected: it raises
    :class:`~king.bots.protocol.BotError` naming the bot and the action, so a broken
    policy is seen (the arena abandons that game and reports it).
    """

    def __init__(self, policy: Policy, seed: int = 0, name: str = "policy") -> None:
        super().__init__(seed)
        self.policy = policy
        self.name = name

    def _choose(self, view: SeatView) -> int:
        mask = action_mask(view)
        size = getattr(self.policy, "observation_size", OBS_SIZE)
        encode = encode_information_state if size == INFORMATION_SIZE else encode_observation
        answer = self.policy(encode(view), mask)
        try:
            action = int(answer)
        except (TypeError, ValueError):
            raise BotError(self.name, f"answered {answer!r}, not an action number") from None
        if not 0 <= action < ACTION_COUNT:
            raise BotError(self.name, f"answered action {action}, outside 0-61")
        if not mask[action]:
            legal = ", ".join(describe_action(int(a)) for a in np.flatnonzero(mask))
            raise BotError(
                self.name,
                f"chose action {action} ({describe_action(action)}), which is not legal "
                f"now; legal: {legal}",
            )
        return action

    def declare(self, view: SeatView) -> Declaration:
        """The policy's declaration (an action 52–61)."""
        return ALL_DECLARATIONS[self._choose(view) - DECLARATION_OFFSET]

    def play(self, view: SeatView) -> Card:
        """The policy's card (an action 0–51)."""
        action = self._choose(view)
        assert action < CARD_ACTIONS  # the mask holds only cards while playing
        return DECK[action]


def register_policy(
    name: str,
    policy: Policy | Callable[[int], Policy],
    *,
    summary: str = "a learned policy",
    strength: int = 1,
    seeded: bool = False,
) -> None:
    """Register ``policy`` as the bot ``name`` in this process (``make_bot(name)``,
    ``run_arena``).  With ``seeded=True``, ``policy`` is instead a factory called with
    each bot's seed, for a stochastic policy that must replay exactly."""
    key = name.strip().lower()
    if not key or ":" in key or "," in key:
        raise BotSpecError(f"{name!r} cannot name a bot: use letters, digits, - or _")
    register(key, summary, strength)(_PolicyBots(key, policy, seeded))


@dataclass(frozen=True)
class _PolicyBots:
    """Makes the bots of a registered policy: an object, not a closure, so that it can
    be sent to the arena's worker processes when the policy itself can."""

    key: str
    policy: Policy | Callable[[int], Policy]
    seeded: bool

    def __call__(self, seed: int, options: dict[str, str]) -> PolicyBot:
        if options:
            raise BotSpecError(f"the bot {self.key!r} takes no options, not {', '.join(options)}")
        policy = self.policy
        chosen = (
            cast(Callable[[int], Policy], policy)(seed) if self.seeded else cast(Policy, policy)
        )
        return PolicyBot(chosen, seed=seed, name=self.key)


class LogitsPolicy:
    """A policy that scores every action (its *logits*) and takes the best legal one,
    or samples from the softmax over the legal ones when it has an ``rng``."""

    rng: np.random.Generator | None = None
    #: The length of the vector it reads: the observation's, or the information state's.
    observation_size: int = OBS_SIZE

    def logits(self, observation: NDArray[np.float32]) -> NDArray[np.float32]:
        """The 62 scores of ``observation`` (higher: more likely)."""
        raise NotImplementedError

    def probabilities(
        self, observation: NDArray[np.float32], action_mask: NDArray[np.int8]
    ) -> NDArray[np.float64]:
        """The softmax over the legal actions (zero for the illegal ones)."""
        logits = self.logits(observation).astype(np.float64)
        logits[action_mask == 0] = -np.inf
        logits -= logits.max()
        weights = np.exp(logits)
        result: NDArray[np.float64] = weights / weights.sum()
        return result

    def __call__(self, observation: NDArray[np.float32], action_mask: NDArray[np.int8]) -> int:
        if self.rng is None:
            logits = self.logits(observation)
            return int(np.argmax(np.where(action_mask != 0, logits, -np.inf)))
        return int(self.rng.choice(ACTION_COUNT, p=self.probabilities(observation, action_mask)))


class LinearPolicy(LogitsPolicy):
    """A linear softmax policy: ``logits = weights @ observation + bias``, illegal
    actions masked out; greedy (the most likely legal action) unless ``rng`` is given,
    in which case it samples.  Small, fast, and saved as a ``.npz`` file."""

    KIND = "linear-softmax"

    def __init__(
        self,
        weights: NDArray[np.float32],
        bias: NDArray[np.float32],
        rng: np.random.Generator | None = None,
    ) -> None:
        if weights.shape != (ACTION_COUNT, OBS_SIZE) or bias.shape != (ACTION_COUNT,):
            raise PolicyFileError(
                f"a linear policy has weights ({ACTION_COUNT}, {OBS_SIZE}) and bias "
                f"({ACTION_COUNT},), not {weights.shape} and {bias.shape}"
            )
        self.weights = weights.astype(np.float32)
        self.bias = bias.astype(np.float32)
        self.rng = rng

    @staticmethod
    def zeros() -> LinearPolicy:
        """A policy with every weight zero: it picks the lowest legal action."""
        return LinearPolicy(
            np.zeros((ACTION_COUNT, OBS_SIZE), np.float32), np.zeros(ACTION_COUNT, np.float32)
        )

    def logits(self, observation: NDArray[np.float32]) -> NDArray[np.float32]:
        """``weights @ observation + bias``."""
        result: NDArray[np.float32] = self.weights @ observation + self.bias
        return result

    def save(self, path: str | Path) -> None:
        """Write the weights, with the observation layout's version, to ``path``."""
        with open(path, "wb") as file:
            np.savez_compressed(
                file,
                weights=self.weights,
                bias=self.bias,
                observation_version=np.array(OBSERVATION_VERSION),
                kind=np.array(self.KIND),
            )

    @staticmethod
    def load(path: str | Path, rng: np.random.Generator | None = None) -> LinearPolicy:
        """Read a policy written by :meth:`save`; anything else (another kind of file, a
        policy made for another layout) is refused with
        :data:`~king.env.policies.files.POLICY_FILE`."""
        kind, arrays = read_arrays(path)
        return LinearPolicy.from_arrays(path, kind, arrays, rng)

    @staticmethod
    def from_arrays(
        path: str | Path,
        kind: str,
        arrays: dict[str, NDArray[Any]],
        rng: np.random.Generator | None = None,
    ) -> LinearPolicy:
        """The policy of a file's arrays (:func:`~king.env.policies.files.read_arrays`)."""
        if kind != LinearPolicy.KIND:
            refuse(path, f"it holds a {kind!r} policy, not a linear-softmax one")
        require(path, arrays, ("weights", "bias"))
        weights = numbers(path, arrays["weights"], "weights")
        bias = numbers(path, arrays["bias"], "bias")
        try:
            return LinearPolicy(weights, bias, rng)
        except PolicyFileError as error:
            refuse(path, str(error))
