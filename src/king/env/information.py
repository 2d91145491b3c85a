"""The information state: a seat's observation with the whole public history, for
methods that need it (CFR-style methods, recurrent-free networks that must see the order
of play): ``observation="information"`` in both environments.

It is the 602 numbers of :func:`~king.env.observation.encode_observation`, then the
deal's tricks in order (each trick's leader, and its cards by position, the trick in
progress included) and the game's finished deals (each declaration, its declarer, and
each seat's points), all written from the observer's seat as the observation is.
:data:`INFORMATION_LAYOUT` names every range (docs/rl.md has the table);
:func:`information_tensors` gives the same numbers shaped for a network (the tricks as
a ``(13, 4, 52)`` tensor, the deals as ``(20, …)`` rows).  Like the observation, it is
built from a :class:`~king.view.SeatView` only.

>>> from king.game import Game
>>> game = Game(seed=7)
>>> for _ in range(6):
...     game.act(game.legal_actions()[0])
>>> state = encode_information_state(game.view(game.to_act))
>>> state.shape, int(state[field_range("history_cards")].sum())
((3718,), 5)
>>> information_tensors(game.view(game.to_act))["history_cards"].shape
(13, 4, 52)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from king.env.observation import (
    LAYOUT,
    OBS_SIZE,
    Field,
    bounds_of,
    encode_observation,
    observation_bounds,
    slice_of,
)
from king.rules import ALL_DECLARATIONS, GAME_DEALS
from king.view import SeatView

__all__ = [
    "INFORMATION_LAYOUT",
    "INFORMATION_SIZE",
    "OBSERVATIONS",
    "ObservationKind",
    "encode_information_state",
    "field_range",
    "information_bounds",
    "information_layout_table",
    "information_tensors",
    "observation_kind",
]

_TRICKS = 13
_DECLARATIONS = len(ALL_DECLARATIONS)
_MAX_DEAL = 650.0

#: Each range after the observation's, with the shape :func:`information_tensors` gives it.
_HISTORY: tuple[tuple[str, tuple[int, ...], float, str], ...] = (
    (
        "history_cards",
        (_TRICKS, 4, 52),
        0.0,
        "the deal's tricks in order, the one in progress included: index = start + 208 * "
        "trick + 52 * position + card id (position 0 is the card led)",
    ),
    (
        "history_leaders",
        (_TRICKS, 4),
        0.0,
        "the relative seat that led each trick: start + 4 * trick + seat",
    ),
    (
        "game_declarations",
        (GAME_DEALS, _DECLARATIONS),
        0.0,
        "each finished deal's declaration: start + 10 * deal + the declaration's action "
        "index (the six negatives, then Trumps S H D C)",
    ),
    (
        "game_declarers",
        (GAME_DEALS, 4),
        0.0,
        "each finished deal's declarer, as a relative seat: start + 4 * deal + seat",
    ),
    (
        "game_points",
        (GAME_DEALS, 4),
        -1.0,
        "each finished deal's points per relative seat / 650: start + 4 * deal + seat",
    ),
)


def _layout() -> tuple[Field, ...]:
    fields = list(LAYOUT)
    start = OBS_SIZE
    for name, shape, low, meaning in _HISTORY:
        size = int(np.prod(shape))
        fields.append(Field(name, start, size, low, meaning))
        start += size
    return tuple(fields)


#: The information state's layout: the observation's fields, then the history's.
INFORMATION_LAYOUT: tuple[Field, ...] = _layout()
#: The length of the information state.
INFORMATION_SIZE: int = INFORMATION_LAYOUT[-1].stop
_BY_NAME = {field.name: field for field in INFORMATION_LAYOUT}
_SHAPES = {name: shape for name, shape, _, _ in _HISTORY}


def field_range(name: str) -> slice:
    """The slice of the information state that holds field ``name``."""
    return slice_of(INFORMATION_LAYOUT, name, "information")


def information_bounds() -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """The lower and upper bounds of every entry, for a ``Box`` space."""
    return bounds_of(INFORMATION_LAYOUT)


def information_layout_table() -> str:
    """The history's ranges as a Markdown table (docs/rl.md carries a copy)."""
    lines = ["| indices | field | shape | meaning |", "|---|---|---|---|"]
    for field in INFORMATION_LAYOUT[len(LAYOUT) :]:
        shape = " × ".join(str(n) for n in _SHAPES[field.name])
        where = f"{field.start}–{field.stop - 1}"
        lines.append(f"| {where} | `{field.name}` | {shape} | {field.meaning} |")
    return "\n".join(lines)


def encode_information_state(view: SeatView) -> NDArray[np.float32]:
    """The information state (float32, length :data:`INFORMATION_SIZE`) of one view."""
    out = np.zeros(INFORMATION_SIZE, np.float32)
    out[:OBS_SIZE] = encode_observation(view)
    _encode_tricks(out, view)
    _encode_deals(out, view)
    return out


def _encode_tricks(out: NDArray[np.float32], view: SeatView) -> None:
    me = view.seat
    cards = _BY_NAME["history_cards"].start
    leaders = _BY_NAME["history_leaders"].start
    plays = [(t.leader, list(t.cards)) for t in view.tricks]
    if view.current_trick:
        plays.append((view.current_trick[0][0], [card for _, card in view.current_trick]))
    for index, (leader, played) in enumerate(plays):
        out[leaders + 4 * index + ((leader - me) & 3)] = 1.0
        for position, card in enumerate(played):
            out[cards + 208 * index + 52 * position + card.id] = 1.0


def _encode_deals(out: NDArray[np.float32], view: SeatView) -> None:
    me = view.seat
    declarations = _BY_NAME["game_declarations"].start
    declarers = _BY_NAME["game_declarers"].start
    points = _BY_NAME["game_points"].start
    for index, result in enumerate(view.results):
        out[declarations + _DECLARATIONS * index + result.declaration.action_index] = 1.0
        out[declarers + 4 * index + ((result.declarer - me) & 3)] = 1.0
        for seat, value in enumerate(result.points):
            out[points + 4 * index + ((seat - me) & 3)] = value / _MAX_DEAL


def information_tensors(view: SeatView) -> dict[str, NDArray[np.float32]]:
    """The information state shaped for a network: ``observation`` (602,), then each
    history field in its shape (``history_cards`` (13, 4, 52), ``game_points`` (20, 4),
    …); views of one vector, so they cost nothing more."""
    state = encode_information_state(view)
    tensors = {"observation": state[:OBS_SIZE]}
    for name, shape in _SHAPES.items():
        tensors[name] = state[field_range(name)].reshape(shape)
    return tensors


ObservationKind = Literal["summary", "information"]
#: The values of the environments' ``observation`` option, the default first.
OBSERVATIONS: tuple[ObservationKind, ...] = ("summary", "information")


def observation_kind(
    kind: object,
) -> tuple[Callable[[SeatView], NDArray[np.float32]], NDArray[np.float32], NDArray[np.float32]]:
    """The encoder and the bounds of the ``observation`` option's ``kind``, or a
    ``ValueError`` that names the choices."""
    if kind == "summary":
        return (encode_observation, *observation_bounds())
    if kind == "information":
        return (encode_information_state, *information_bounds())
    choices = ", ".join(repr(k) for k in OBSERVATIONS)
    raise ValueError(f"observation is one of {choices}, not {kind!r}")
