"""``net``: the learned policy, as a model file and as a bot.

The model (:class:`NetModel`) is the small network of :mod:`king.bots.net.play`, trained
by ``king train`` (:mod:`king.training`) to choose the card the search bot's
evaluation finds best.  It ships in the package (``models/net.npz``: the weights, and a
JSON description of how it was trained and what it measured), and plays with numpy
alone: the bot reads its view into a position, encodes it with the same encoding the
engine's rollouts use, and takes the most likely legal card, a fraction of a
millisecond per card.  It declares with the model's declaration network
(:mod:`king.bots.net.declare`), or as the rule bot does when the model has none.
"""

from __future__ import annotations

import functools
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from king.bots.net.declare import DeclareNet
from king.bots.net.play import INPUTS, encode
from king.bots.position import from_view
from king.bots.protocol import Bot, BotSpecError
from king.bots.rule.declare import choose_declaration
from king.bots.rule.play import rule_card
from king.cards import DECK, Card
from king.errors import KingError
from king.rules import Declaration
from king.view import SeatView

__all__ = ["DEFAULT_MODEL", "ModelFileError", "NetBot", "NetModel", "default_model"]

#: The model that ships with king.
DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "net.npz"

#: The layout a model file must have: its arrays, and the format it names.
MODEL_FORMAT = "king-net/1"
_ARRAYS = ("w0", "w1", "b1", "w2", "b2", "w3", "b3")


class ModelFileError(KingError, ValueError):
    """A model file that cannot be read, or was made for another input layout."""


@dataclass(frozen=True, eq=False)
class NetModel:
    """The network's weights (float32, C order) and what is known about them."""

    w0: NDArray[np.float32]
    w1: NDArray[np.float32]
    b1: NDArray[np.float32]
    w2: NDArray[np.float32]
    b2: NDArray[np.float32]
    w3: NDArray[np.float32]
    b3: NDArray[np.float32]
    about: dict[str, Any] = field(default_factory=dict)
    #: The declaration network, when the model has one (else the bot declares as
    #: ``rule``).
    declare: DeclareNet | None = None

    def __post_init__(self) -> None:
        h1, h2 = self.w1.shape[1], self.w2.shape[1]
        shapes = {
            "w0": (INPUTS, 52),
            "w1": (INPUTS, h1),
            "b1": (h1,),
            "w2": (h1, h2),
            "b2": (h2,),
            "w3": (52, h2),
            "b3": (52,),
        }
        for name, shape in shapes.items():
            array = getattr(self, name)
            if array.shape != shape or array.dtype != np.float32:
                raise ModelFileError(
                    f"model array {name} is {array.dtype}{list(array.shape)}, "
                    f"not float32{list(shape)}"
                )
            if not np.isfinite(array).all():
                raise ModelFileError(f"model array {name} holds a value that is not finite")
        if self.declare is not None:
            wrong = self.declare.shapes_ok()
            if wrong:
                raise ModelFileError(wrong)

    @property
    def arrays(self) -> tuple[NDArray[np.float32], ...]:
        """The weights in the order the kernels take them."""
        return (self.w0, self.w1, self.b1, self.w2, self.b2, self.w3, self.b3)

    @staticmethod
    def of(
        arrays: list[NDArray[np.float32]],
        about: dict[str, Any] | None = None,
        declare: DeclareNet | None = None,
    ) -> NetModel:
        """A model of its seven card arrays in kernel order."""
        w0, w1, b1, w2, b2, w3, b3 = arrays
        return NetModel(w0, w1, b1, w2, b2, w3, b3, about or {}, declare)

    @property
    def hidden(self) -> tuple[int, int]:
        return (self.w1.shape[1], self.w2.shape[1])

    @staticmethod
    def random(seed: int = 0, hidden: tuple[int, int] = (128, 64)) -> NetModel:
        """Fresh weights (He initialisation), the start of training."""
        rng = np.random.default_rng(seed)
        h1, h2 = hidden

        def layer(rows: int, cols: int, fan_in: int) -> NDArray[np.float32]:
            weights = rng.standard_normal((rows, cols)) * np.sqrt(2.0 / fan_in)
            out: NDArray[np.float32] = weights.astype(np.float32)
            return out

        return NetModel(
            np.zeros((INPUTS, 52), dtype=np.float32),
            layer(INPUTS, h1, 60),  # about 60 of the inputs are set at a time
            np.zeros(h1, dtype=np.float32),
            layer(h1, h2, h1),
            np.zeros(h2, dtype=np.float32),
            layer(52, h2, h2) * np.float32(0.1),
            np.zeros(52, dtype=np.float32),
        )

    def logits(self, x: NDArray[np.float32]) -> NDArray[np.float32]:
        """The 52 card logits of one input (or of a batch, one row each)."""
        h1 = np.maximum(x @ self.w1 + self.b1, np.float32(0.0))
        h2 = np.maximum(h1 @ self.w2 + self.b2, np.float32(0.0))
        out: NDArray[np.float32] = np.asarray(
            h2 @ self.w3.T + self.b3 + x @ self.w0, dtype=np.float32
        )
        return out

    def save(self, path: str | Path) -> None:
        """Write the model as an ``.npz`` with its description beside the weights."""
        about = json.dumps({"format": MODEL_FORMAT, **self.about}, ensure_ascii=False)
        arrays = {name: getattr(self, name) for name in _ARRAYS}
        if self.declare is not None:
            for name, array in zip(DeclareNet.NAMES, self.declare.arrays, strict=True):
                arrays[f"declare_{name}"] = array
        with open(path, "wb") as out:
            np.savez_compressed(out, about=np.array(about), **arrays)

    @staticmethod
    def load(path: str | Path) -> NetModel:
        """Read a model saved by :meth:`save`; anything else raises
        :class:`ModelFileError` saying what is wrong."""
        try:
            with np.load(path, allow_pickle=False) as data:
                missing = [name for name in ("about", *_ARRAYS) if name not in data.files]
                if missing:
                    raise ModelFileError(f"{path}: not a king model (missing {', '.join(missing)})")
                about = json.loads(str(data["about"]))
                arrays = {name: np.ascontiguousarray(data[name]) for name in _ARRAYS}
                names = [f"declare_{name}" for name in DeclareNet.NAMES]
                declare = (
                    DeclareNet(*(np.ascontiguousarray(data[name]) for name in names))
                    if all(name in data.files for name in names)
                    else None
                )
        except (OSError, ValueError, zipfile.BadZipFile, json.JSONDecodeError) as error:
            if isinstance(error, ModelFileError):
                raise
            raise ModelFileError(f"{path}: cannot read a model: {error}") from None
        if not isinstance(about, dict) or about.get("format") != MODEL_FORMAT:
            raise ModelFileError(f"{path}: not a {MODEL_FORMAT} model")
        return NetModel(about=about, declare=declare, **arrays)


@functools.cache
def default_model() -> NetModel:
    """The shipped model, read once."""
    return NetModel.load(DEFAULT_MODEL)


def view_input(view: SeatView) -> tuple[NDArray[np.float32], int]:
    """The network's input for the seat to play in ``view``, and its legal cards."""
    contract = view.contract
    if contract is None:
        raise ValueError("the net bot was asked to play before the declaration")
    trump = -1 if view.trump is None else int(view.trump)
    flags = view.rules.flags
    state = from_view(view)
    rule = int(rule_card(state, contract.code, trump, flags))
    x = np.zeros(INPUTS, dtype=np.float32)
    encode(state, contract.code, trump, flags, rule, x)
    return x, view.legal_cards.mask


class NetBot(Bot):
    """The learned policy's most likely card and declaration."""

    name = "net"

    def __init__(self, seed: int = 0, model: NetModel | None = None) -> None:
        super().__init__(seed)
        self.model = model if model is not None else default_model()

    def declare(self, view: SeatView) -> Declaration:
        if self.model.declare is None or len(view.legal_declarations) == 1:
            return choose_declaration(view)
        return self.model.declare.choose(view)

    def play(self, view: SeatView) -> Card:
        legal = view.legal_cards.mask
        if not legal & (legal - 1):
            return DECK[legal.bit_length() - 1]
        return DECK[net_card_of(view, self.model)]


def net_card_of(view: SeatView, model: NetModel) -> int:
    """The learned policy's card for the seat to play in ``view``, from the engine
    (``engine/net_play.c``; :meth:`NetModel.logits` over :func:`view_input` is the
    readable reference the tests hold it to)."""
    from king.bots import engine

    contract = view.contract
    if contract is None:
        raise ValueError("the net bot was asked to play before the declaration")
    trump = -1 if view.trump is None else int(view.trump)
    state = from_view(view)
    return engine.net_card(state, contract.code, trump, view.rules.flags, *model.arrays)


def build(seed: int, options: dict[str, str]) -> NetBot:
    unknown = set(options) - {"file"}
    if unknown:
        raise BotSpecError(f"the net bot has no option {sorted(unknown)[0]!r}: use file")
    if "file" in options:
        try:
            return NetBot(seed, NetModel.load(options["file"]))
        except ModelFileError as error:
            raise BotSpecError(str(error)) from None
    return NetBot(seed)
