"""Closing the loop: any policy (observation and mask in, action out) as a bot.

A *policy* is any callable ``policy(observation, action_mask) -> action`` over the
vectors of :mod:`king.env.observation`.  :class:`PolicyBot` turns one into a
:class:`~king.bots.base.Bot`, so it can play wherever bots play: ``king arena``, the
server, the terminal.  Three ways to name one:

* ``register_policy("mine", fn)`` registers it as the bot ``mine`` in this process;
* the bot spec ``policy:file=PATH.npz`` loads a :class:`LinearPolicy` saved with
  :meth:`LinearPolicy.save` (registered when :mod:`king.env` is imported, and declared
  as an entry point, so ``king arena --bots policy:file=...`` plays it in process; the
  bare ``policy`` is the example trained by ``examples/rl_train.py``, in a checkout);
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
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, Protocol, cast

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
    """A policy file that cannot be read, or was saved for another observation layout;
    the message says why, and what a policy file must hold."""


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
        """Read a policy written by :meth:`save`; anything else (another kind of file, a
        policy made for another layout) is refused with :data:`POLICY_FILE`."""
        kind, version, weights, bias = _read_policy_file(path)
        if kind != "linear-softmax":
            _refuse(path, f"it holds a {kind!r} policy, not a linear-softmax one")
        if version != OBSERVATION_VERSION:
            raise PolicyFileError(
                f"{path} was trained on observation layout {version}; "
                f"this king encodes layout {OBSERVATION_VERSION}"
            )
        try:
            return LinearPolicy(weights, bias, rng)
        except PolicyFileError as error:
            _refuse(path, str(error))


#: The largest array a policy file may unpack to (the linear policy's weights are ~40 KB).
MAX_ARRAY_BYTES = 16 * 1024 * 1024
#: The arrays of a policy file, as :meth:`LinearPolicy.save` writes them.
POLICY_ARRAYS = ("weights", "bias", "kind", "observation_version")
#: What every refusal of a policy file ends with: what such a file must hold.
POLICY_FILE = (
    "a policy file is the .npz archive that LinearPolicy.save writes, holding the arrays "
    f"weights ({ACTION_COUNT}, {OBS_SIZE}) and bias ({ACTION_COUNT},) of finite numbers, "
    f"kind 'linear-softmax' and observation_version {OBSERVATION_VERSION}"
)
#: What reading a damaged archive raises (RuntimeError: encrypted, or compressed in a
#: way zipfile does not know).
_DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError)
_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = b"PK\x03\x04"


def _refuse(path: str | Path, reason: str) -> NoReturn:
    raise PolicyFileError(f"cannot read a policy from {path}: {reason}; {POLICY_FILE}")


def _archive_trouble(path: str | Path) -> str | None:
    """Why ``path`` is not an .npz archive at all, or ``None`` if it starts like one."""
    try:
        with open(path, "rb") as file:
            head = file.read(6)
    except FileNotFoundError:
        return "there is no such file"
    except OSError as error:
        return f"it cannot be opened ({error.strerror or error})"
    if head.startswith(_ZIP_MAGIC):
        return None
    if head == _NPY_MAGIC:
        return "it holds one .npy array, not an .npz archive of arrays"
    if head[:1] == b"\x80":
        return "it is a Python pickle (an old torch.save?), which is never read"
    return "it is not an .npz archive (a zip file)"


def _missing_arrays(names: list[str]) -> str | None:
    """Why an archive holding ``names`` is not a policy, or ``None`` if it may be."""
    missing = [name for name in POLICY_ARRAYS if name not in names]
    if not missing:
        return None
    if any(name.endswith("data.pkl") for name in names):
        return "it is a PyTorch file (torch.save), not a policy's .npz archive"
    shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
    return f"it lacks the arrays {', '.join(missing)} (it holds: {shown or 'nothing'})"


def _read_policy_file(
    path: str | Path,
) -> tuple[str, int, NDArray[np.float32], NDArray[np.float32]]:
    """The kind, layout version, weights and bias of a policy file, or a refusal."""
    trouble = _archive_trouble(path)
    if trouble is not None:
        _refuse(path, trouble)
    try:
        with np.load(path, allow_pickle=False) as data:
            for member in data.zip.infolist() if data.zip is not None else []:
                if member.file_size > MAX_ARRAY_BYTES:
                    raise ValueError(
                        f"{member.filename} unpacks to {member.file_size} bytes; "
                        f"a policy's arrays are under {MAX_ARRAY_BYTES}"
                    )
            trouble = _missing_arrays(list(data.files))
            if trouble is not None:
                raise ValueError(trouble)
            kind = _text(data["kind"])
            version = _version(data["observation_version"])
            weights = _numbers(data["weights"], "weights")
            bias = _numbers(data["bias"], "bias")
    except _DAMAGED as error:
        _refuse(path, f"it is a damaged zip archive ({error or type(error).__name__})")
    except (OSError, KeyError, ValueError, TypeError) as error:
        _refuse(path, str(error) or type(error).__name__)
    return kind, version, weights, bias


def _text(array: NDArray[Any]) -> str:
    """The ``kind`` array: one string."""
    if array.shape != () or array.dtype.kind != "U":
        raise ValueError(f"its kind is {array.dtype} {array.shape}, not one string")
    return str(array)


def _version(array: NDArray[Any]) -> int:
    """The ``observation_version`` array: one integer."""
    if array.shape != () or array.dtype.kind not in "iu":
        raise ValueError(f"its observation_version is {array.dtype} {array.shape}, not an int")
    return int(array)


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
