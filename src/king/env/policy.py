"""Closing the loop: any policy (observation and mask in, action out) as a bot.

A *policy* is any callable ``policy(observation, action_mask) -> action`` over the
vectors of :mod:`king.env.observation`.  :class:`PolicyBot` turns one into a
:class:`~king.bots.base.Bot`, so it can play wherever bots play: ``king arena``, the
server, the terminal.  Three ways to name one:

* ``register_policy("mine", fn)`` registers it as the bot ``mine`` in this process;
* the bot spec ``policy:file=PATH.npz`` loads a :class:`LinearPolicy` saved with
  :meth:`LinearPolicy.save` (registered when :mod:`king.env` is imported; the bare
  ``policy`` is the example trained by ``examples/rl_train.py``, in a checkout);
* ``cmd:python -m king.env.policy_bot PATH.npz`` serves a saved policy as an external
  bot (``docs/bot-protocol.md``), which any ``king arena`` accepts as it is.

>>> policy = LinearPolicy.zeros()
>>> bot = PolicyBot(policy, name="zeros")
>>> from king.game import Game
>>> game = Game(seed=2)
>>> bot.act(game.view(game.declarer))
Declaration(contract=<Contract.NO_TRICKS: 'no-tricks'>, trump=None)
"""

from __future__ import annotations

import random
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np
from numpy.typing import NDArray

from king.bots.base import Bot, BotError, BotInfo, BotSpecError, register
from king.cards import DECK, Card
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
from king.errors import KingError
from king.rules import ALL_DECLARATIONS, Declaration
from king.view import SeatView

__all__ = [
    "LinearPolicy",
    "Policy",
    "PolicyBot",
    "PolicyFileError",
    "load_policy",
    "register_policy",
]


class Policy(Protocol):
    """Anything that picks an action (0–61) from an observation and its mask."""

    def __call__(
        self, observation: NDArray[np.float32], action_mask: NDArray[np.int8], /
    ) -> int: ...


class PolicyFileError(KingError, ValueError):
    """A policy file that cannot be read, or was saved for another observation layout."""


class PolicyBot(Bot):
    """A bot that encodes its view, asks the policy, and checks the answer.

    An answer outside the mask is not corrected: it raises
    :class:`~king.bots.base.BotError` naming the bot and the action, so a broken
    policy is seen (the arena abandons that game and reports it).
    """

    def __init__(self, policy: Policy, seed: int = 0, name: str = "policy") -> None:
        super().__init__(seed)
        self.policy = policy
        self.name = name

    def _choose(self, view: SeatView) -> int:
        mask = action_mask(view)
        answer = self.policy(encode_observation(view), mask)
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


class LinearPolicy:
    """A linear softmax policy: ``logits = weights @ observation + bias``, illegal
    actions masked out; greedy (the most likely legal action) unless ``rng`` is given,
    in which case it samples.  Small, fast, and saved as a ``.npz`` file."""

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

    def probabilities(
        self, observation: NDArray[np.float32], action_mask: NDArray[np.int8]
    ) -> NDArray[np.float64]:
        """The softmax over the legal actions (zero for the illegal ones)."""
        logits = (self.weights @ observation + self.bias).astype(np.float64)
        logits[action_mask == 0] = -np.inf
        logits -= logits.max()
        weights = np.exp(logits)
        result: NDArray[np.float64] = weights / weights.sum()
        return result

    def __call__(self, observation: NDArray[np.float32], action_mask: NDArray[np.int8]) -> int:
        if self.rng is None:
            logits = self.weights @ observation + self.bias
            return int(np.argmax(np.where(action_mask != 0, logits, -np.inf)))
        return int(self.rng.choice(ACTION_COUNT, p=self.probabilities(observation, action_mask)))

    def save(self, path: str | Path) -> None:
        """Write the weights, with the observation layout's version, to ``path``."""
        with open(path, "wb") as file:
            np.savez_compressed(
                file,
                weights=self.weights,
                bias=self.bias,
                observation_version=np.array(OBSERVATION_VERSION),
                kind=np.array("linear-softmax"),
            )

    @staticmethod
    def load(path: str | Path, rng: np.random.Generator | None = None) -> LinearPolicy:
        """Read a policy written by :meth:`save`; refuses one made for another layout."""
        try:
            loaded = np.load(path, allow_pickle=False)
            if not isinstance(loaded, np.lib.npyio.NpzFile):
                raise ValueError("it holds one array, not a policy's .npz archive")
            with loaded as data:
                members = data.zip.infolist() if data.zip is not None else []
                for member in members:
                    if member.file_size > MAX_ARRAY_BYTES:
                        raise ValueError(
                            f"{member.filename} unpacks to {member.file_size} bytes; "
                            f"a policy's arrays are under {MAX_ARRAY_BYTES}"
                        )
                kind = str(data["kind"])
                version = int(data["observation_version"])
                weights = _numbers(data["weights"], "weights")
                bias = _numbers(data["bias"], "bias")
        except (OSError, KeyError, ValueError, TypeError, EOFError, zipfile.BadZipFile) as error:
            raise PolicyFileError(f"cannot read a policy from {path}: {error}") from None
        if kind != "linear-softmax":
            raise PolicyFileError(f"{path} holds a {kind!r} policy, not a linear-softmax one")
        if version != OBSERVATION_VERSION:
            raise PolicyFileError(
                f"{path} was trained on observation layout {version}; "
                f"this king encodes layout {OBSERVATION_VERSION}"
            )
        try:
            return LinearPolicy(weights, bias, rng)
        except PolicyFileError as error:
            raise PolicyFileError(f"{path}: {error}") from None


#: The largest array a policy file may unpack to (the linear policy's weights are ~40 KB).
MAX_ARRAY_BYTES = 16 * 1024 * 1024


def _numbers(array: NDArray[Any], name: str) -> NDArray[np.float32]:
    """A policy array, refused unless it holds finite real numbers."""
    if array.dtype.kind not in "fiu":
        raise ValueError(f"the {name} are {array.dtype}, not numbers")
    numbers = array.astype(np.float32)
    if not np.isfinite(numbers).all():
        raise ValueError(f"the {name} hold NaN or infinite values")
    return numbers


def load_policy(path: str | Path, *, sample: bool = False, seed: int = 0) -> LinearPolicy:
    """A saved :class:`LinearPolicy`: greedy, or sampling from ``seed`` with
    ``sample=True``."""
    return LinearPolicy.load(path, np.random.default_rng(seed) if sample else None)


#: The policy trained by ``examples/rl_train.py``, used by the bare spec ``policy`` in a
#: source checkout (examples are not installed with the package).
EXAMPLE_POLICY = Path(__file__).resolve().parents[3] / "examples" / "rl_policy.npz"


def build_policy_bot(seed: int, options: dict[str, str]) -> PolicyBot:
    unknown = set(options) - {"file", "sample"}
    if unknown:
        raise BotSpecError(f"the policy bot takes file= and sample=, not {', '.join(unknown)}")
    path = options.get("file") or str(EXAMPLE_POLICY)
    if "file" not in options and not EXAMPLE_POLICY.is_file():
        raise BotSpecError("the policy bot needs its file here: policy:file=PATH.npz")
    sample = options.get("sample", "0").lower() in ("1", "true", "yes")
    try:
        policy = load_policy(path, sample=sample, seed=random.Random(seed).getrandbits(32))
    except PolicyFileError as error:
        raise BotSpecError(str(error)) from None
    return PolicyBot(policy, seed=seed, name=f"policy:{Path(path).name}")


#: The ``policy`` bot, declared to :mod:`king.bots` as an entry point of the group
#: ``king.bots`` (pyproject.toml), so that the bots layer names no adapter.
POLICY_BOT = BotInfo(
    "policy",
    "a saved linear policy: policy:file=PATH.npz (&sample=1 samples); bare, the example's",
    1,
    build_policy_bot,
    tables=False,
)
