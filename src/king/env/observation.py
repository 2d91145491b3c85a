"""Observations and action masks for learning agents, built from one seat's view only.

The encoder reads a :class:`~king.view.SeatView`, never the game, so an observation can
hold nothing the seat may not see.  Seats are written *relative* to the observer: 0 is
the observer, 1 the next seat to play after it, 2 the seat across, 3 the seat before it,
so one policy can sit in any seat.

Actions are the integers 0–61: a card id (0–51, ``suit * 13 + rank - 2``) or a
declaration, ``52 + Declaration.action_index`` (the six negative contracts in order,
then Trumps in S, H, D, C).

>>> from king.game import Game
>>> game = Game(seed=7)
>>> view = game.view(game.declarer)
>>> observation = encode_observation(view)
>>> observation.shape, observation.dtype.name, int(observation[field_slice("hand")].sum())
((602,), 'float32', 13)
>>> mask = action_mask(view)
>>> [describe_action(int(a)) for a in mask.nonzero()[0][:3]]
['no-tricks', 'no-hearts', 'no-queens']
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from king.cards import DECK, SUIT_MASKS, Card, card_ids
from king.deal import winning_card
from king.game import Action, Phase
from king.rules import (
    ALL_DECLARATIONS,
    GAME_DEALS,
    MAX_PER_NEGATIVE,
    NEGATIVES_PER_PLAYER,
    PENALTY_MASKS,
    TOGGLES,
    TRUMPS_PER_PLAYER,
    Declaration,
)
from king.view import SeatView

__all__ = [
    "ACTION_COUNT",
    "CARD_ACTIONS",
    "DECLARATION_OFFSET",
    "LAYOUT",
    "OBS_SIZE",
    "OBSERVATION_VERSION",
    "Field",
    "action_mask",
    "action_of",
    "bounds_of",
    "card_action",
    "choice_of",
    "declaration_action",
    "describe_action",
    "encode_observation",
    "field_slice",
    "layout_table",
    "observation_bounds",
    "slice_of",
]

#: Card actions are 0–51; declaration ``d`` is ``DECLARATION_OFFSET + d.action_index``.
CARD_ACTIONS = 52
DECLARATION_OFFSET = 52
ACTION_COUNT = 62
#: Bumped whenever the layout below changes, so a saved policy can refuse a new layout.
OBSERVATION_VERSION = 1

#: Scales that map counts and points into [-1, 1].
_MAX_TOTAL = 5200.0  # the most a seat can score over a game: 8 Trumps deals x 650
_MAX_DEAL = 650.0  # the most (in absolute value) a seat can score in one deal


@dataclass(frozen=True, slots=True)
class Field:
    """One named range of the observation vector: where it starts, its size, its bounds
    and what each entry means (for the docs and for anyone reading a vector)."""

    name: str
    start: int
    size: int
    low: float
    meaning: str

    @property
    def stop(self) -> int:
        """One past the last index."""
        return self.start + self.size


def _layout() -> tuple[Field, ...]:
    spec: list[tuple[str, int, float, str]] = [
        ("hand", 52, 0.0, "1 for each card id the seat holds"),
        (
            "winning_cards",
            52,
            0.0,
            "1 for each held card that would be winning the current trick if played now "
            "(every held card when the seat leads; 0 outside play)",
        ),
        (
            "unseen_above",
            52,
            0.0,
            "for each held card: how many cards of its suit above it are unseen (neither "
            "held nor played) / 12; 0 for a held card that is the highest left, and for "
            "cards not held",
        ),
        (
            "played",
            4 * 52,
            0.0,
            "cards played this deal, one 52-plane per relative seat "
            "(index = start + 52 * seat + card id)",
        ),
        (
            "trick",
            3 * 52,
            0.0,
            "the current trick by position: plane 0 the card led, then the 2nd and 3rd "
            "card (index = start + 52 * position + card id)",
        ),
        ("led_suit", 4, 0.0, "one-hot suit led to the current trick (S H D C)"),
        (
            "voids",
            16,
            0.0,
            "suits each relative seat has shown it lacks (index = start + 4 * seat + suit)",
        ),
        ("phase", 2, 0.0, "one-hot: declaring, playing (both 0 between deals and at the end)"),
        (
            "contract",
            7,
            0.0,
            "one-hot contract: trumps, no-tricks, no-hearts, no-queens, no-boys, no-king, "
            "no-last-two (0 while declaring)",
        ),
        ("trump", 4, 0.0, "one-hot trump suit in Trumps (S H D C)"),
        ("declarer", 4, 0.0, "one-hot relative seat of this deal's declarer"),
        ("leader", 4, 0.0, "one-hot relative seat that leads the current trick"),
        ("to_act", 4, 0.0, "one-hot relative seat that must act now"),
        ("tricks_done", 1, 0.0, "completed tricks this deal / 13"),
        ("tricks_won", 4, 0.0, "tricks won this deal per relative seat / 13"),
        (
            "penalty_taken",
            4,
            0.0,
            "penalty cards taken this deal per relative seat / the contract's penalty cards "
            "(No Hearts, No Queens, No Boys, No King; 0 otherwise)",
        ),
        ("deal_points", 4, -1.0, "points this deal per relative seat / 650"),
        (
            "contract_counts",
            6,
            0.0,
            "times each negative contract has been declared this game / 2 "
            "(no-tricks … no-last-two)",
        ),
        (
            "obligations",
            8,
            0.0,
            "what each relative seat still owes: Trumps / 2, then negatives / 3 "
            "(index = start + 2 * seat + kind)",
        ),
        ("deal_number", 1, 0.0, "deals finished in this game / 20"),
        ("totals", 4, -1.0, "game totals per relative seat / 5200"),
        (
            "rules",
            len(TOGGLES),
            0.0,
            "the rule toggles: forced_penalty, early_end, overruff, trump_lead_after_break, "
            "two_of_diamonds_starts",
        ),
    ]
    fields: list[Field] = []
    start = 0
    for name, size, low, meaning in spec:
        fields.append(Field(name, start, size, low, meaning))
        start += size
    return tuple(fields)


#: The observation layout, in order.
LAYOUT: tuple[Field, ...] = _layout()
#: The length of the observation vector.
OBS_SIZE: int = LAYOUT[-1].stop


def slice_of(layout: tuple[Field, ...], name: str, what: str = "observation") -> slice:
    """The slice of a vector laid out by ``layout`` that holds field ``name``."""
    for found in layout:
        if found.name == name:
            return slice(found.start, found.stop)
    names = ", ".join(f.name for f in layout)
    raise KeyError(f"no {what} field {name!r}: choose from {names}")


def field_slice(name: str) -> slice:
    """The slice of the observation vector that holds field ``name``."""
    return slice_of(LAYOUT, name)


def bounds_of(layout: tuple[Field, ...]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """The lower and upper bounds of every entry of a vector laid out by ``layout``."""
    size = layout[-1].stop
    low = np.zeros(size, np.float32)
    for f in layout:
        low[f.start : f.stop] = f.low
    return low, np.ones(size, np.float32)


def observation_bounds() -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """The lower and upper bounds of every entry, for a ``Box`` space."""
    return bounds_of(LAYOUT)


def layout_table() -> str:
    """The layout as a Markdown table (docs/rl.md carries a copy; a test compares)."""
    lines = ["| indices | field | size | meaning |", "|---|---|---|---|"]
    for f in LAYOUT:
        lines.append(f"| {f.start}–{f.stop - 1} | `{f.name}` | {f.size} | {f.meaning} |")
    return "\n".join(lines)


_O = {f.name: f.start for f in LAYOUT}
_HAND = _O["hand"]
_WINNING = _O["winning_cards"]
_ABOVE = _O["unseen_above"]
_PLAYED = _O["played"]
_TRICK = _O["trick"]
_LED = _O["led_suit"]
_VOIDS = _O["voids"]
_PHASE = _O["phase"]
_CONTRACT = _O["contract"]
_TRUMP = _O["trump"]
_DECLARER = _O["declarer"]
_LEADER = _O["leader"]
_TO_ACT = _O["to_act"]
_TRICKS_DONE = _O["tricks_done"]
_TRICKS_WON = _O["tricks_won"]
_PENALTY = _O["penalty_taken"]
_DEAL_POINTS = _O["deal_points"]
_COUNTS = _O["contract_counts"]
_OBLIGATIONS = _O["obligations"]
_DEAL_NUMBER = _O["deal_number"]
_TOTALS = _O["totals"]
_RULES = _O["rules"]


#: The 52-wide planes come first (hand, winning cards, unseen above, played, trick), so
#: one big integer unpacked once fills the 0/1 ones; unseen_above is written after.
_PLANES_END = _TRICK + 3 * 52
_PLANES_BYTES = (_PLANES_END + 7) // 8
_FULL = (1 << 52) - 1
#: For each card id, the cards of its suit that rank above it.
_ABOVE_MASKS = tuple(SUIT_MASKS[c // 13] & ~((2 << c) - 1) for c in range(52))


def _winning_mask(view: SeatView) -> int:
    """The held cards that would be winning the current trick if played now."""
    hand = view.hand.mask
    trick = view.current_trick
    if not trick:
        return hand
    trump = -1 if view.trump is None else int(view.trump)
    mask = sum(card.mask for _, card in trick)
    best = winning_card(mask, trick[0][1].suit, trump)
    winners = hand & _ABOVE_MASKS[best]
    if trump >= 0 and best // 13 != trump:
        winners |= hand & SUIT_MASKS[trump]
    return winners


def encode_observation(view: SeatView) -> NDArray[np.float32]:
    """The observation vector (float32, length :data:`OBS_SIZE`) of one seat's view.

    Every entry lies in the bounds of :func:`observation_bounds`; the meaning of each
    range is in :data:`LAYOUT` (and the table of docs/rl.md).
    """
    out = np.zeros(OBS_SIZE, np.float32)
    _encode_deal(out, view)
    planes, taken = _card_planes(view)
    raw = np.frombuffer(planes.to_bytes(_PLANES_BYTES, "little"), dtype=np.uint8)
    out[:_PLANES_END] = np.unpackbits(raw, bitorder="little")[:_PLANES_END]
    _encode_unseen_above(out, view.hand.mask, planes)
    _encode_seats(out, view, taken)
    _encode_game(out, view)
    return out


def _encode_deal(out: NDArray[np.float32], view: SeatView) -> None:
    """The one-hot facts of the deal: phase, contract, trump, the declarer, the leader,
    the seat to act and the suit led."""
    me = view.seat
    if view.phase is Phase.DECLARING:
        out[_PHASE] = 1.0
    elif view.phase is Phase.PLAYING:
        out[_PHASE + 1] = 1.0
    declaration = view.declaration
    if declaration is not None:
        out[_CONTRACT + declaration.contract.code] = 1.0
        if declaration.trump is not None:
            out[_TRUMP + int(declaration.trump)] = 1.0
    if view.phase in (Phase.DECLARING, Phase.PLAYING):
        out[_DECLARER + ((view.declarer - me) & 3)] = 1.0
    if view.leader is not None:
        out[_LEADER + ((view.leader - me) & 3)] = 1.0
    if view.to_act is not None:
        out[_TO_ACT + ((view.to_act - me) & 3)] = 1.0
    if view.current_trick:
        out[_LED + view.current_trick[0][1].id // 13] = 1.0


def _card_planes(view: SeatView) -> tuple[int, list[int]]:
    """The 0/1 planes (hand, winning cards, played, trick) as one integer, and the cards
    each relative seat has taken this deal, as masks."""
    me = view.seat
    planes = view.hand.mask << _HAND
    if view.phase is Phase.PLAYING:
        planes |= _winning_mask(view) << _WINNING
    taken = [0, 0, 0, 0]
    for trick in view.tricks:
        leader = trick.leader
        mask = 0
        for position, card in enumerate(trick.cards):
            rel = (leader + position - me) & 3
            planes |= 1 << (_PLAYED + 52 * rel + card.id)
            mask |= 1 << card.id
        taken[(trick.winner - me) & 3] |= mask
    for position, (seat, card) in enumerate(view.current_trick):
        planes |= 1 << (_PLAYED + 52 * ((seat - me) & 3) + card.id)
        planes |= 1 << (_TRICK + 52 * position + card.id)
    return planes, taken


def _encode_unseen_above(out: NDArray[np.float32], hand: int, planes: int) -> None:
    """For each held card, the unseen cards of its suit above it (after the planes,
    whose range it shares)."""
    if not hand:
        return
    seen = hand
    for rel in range(4):
        seen |= planes >> (_PLAYED + 52 * rel)
    unseen = ~seen & _FULL
    for card_id in card_ids(hand):
        above = unseen & _ABOVE_MASKS[card_id]
        if above:
            out[_ABOVE + card_id] = above.bit_count() / 12.0


def _encode_seats(out: NDArray[np.float32], view: SeatView, taken: list[int]) -> None:
    """What each relative seat has shown, won, scored and still owes."""
    me = view.seat
    # The suits each seat has shown it lacks, as the view reads them.
    for seat, suits in enumerate(view.voids()):
        for suit in suits:
            out[_VOIDS + 4 * ((seat - me) & 3) + int(suit)] = 1.0
    out[_TRICKS_DONE] = len(view.tricks) / 13.0
    declaration = view.declaration
    code = declaration.contract.code if declaration is not None else 0
    penalty = PENALTY_MASKS[code]
    penalty_count = penalty.bit_count()
    for seat in range(4):
        rel = (seat - me) & 3
        out[_TRICKS_WON + rel] = view.tricks_won[seat] / 13.0
        out[_DEAL_POINTS + rel] = view.deal_points[seat] / _MAX_DEAL
        out[_TOTALS + rel] = view.totals[seat] / _MAX_TOTAL
        owed_trumps, owed_negatives = view.obligations(seat)
        out[_OBLIGATIONS + 2 * rel] = owed_trumps / TRUMPS_PER_PLAYER
        out[_OBLIGATIONS + 2 * rel + 1] = owed_negatives / NEGATIVES_PER_PLAYER
        if penalty_count:
            out[_PENALTY + rel] = (taken[rel] & penalty).bit_count() / penalty_count


def _encode_game(out: NDArray[np.float32], view: SeatView) -> None:
    """The game around the deal: the contracts declared, the deals done, the rules."""
    for index, (_, times) in enumerate(view.contract_counts):
        out[_COUNTS + index] = times / MAX_PER_NEGATIVE
    out[_DEAL_NUMBER] = len(view.results) / GAME_DEALS
    rules = view.rules
    for index, name in enumerate(TOGGLES):
        if getattr(rules, name):
            out[_RULES + index] = 1.0


def action_mask(view: SeatView) -> NDArray[np.int8]:
    """The legal actions of the view's seat as 0/1 (int8, length 62); all zero unless
    the seat must act now."""
    mask = np.zeros(ACTION_COUNT, np.int8)
    legal = view.legal_cards.mask
    if legal:
        raw = np.frombuffer(legal.to_bytes(7, "little"), dtype=np.uint8)
        mask[:52] = np.unpackbits(raw, bitorder="little")[:52]
    for declaration in view.legal_declarations:
        mask[DECLARATION_OFFSET + declaration.action_index] = 1
    return mask


def card_action(card: Card) -> int:
    """The action that plays ``card``: its id."""
    return card.id


def declaration_action(declaration: Declaration) -> int:
    """The action that makes ``declaration``: 52 + its action index."""
    return DECLARATION_OFFSET + declaration.action_index


def action_of(choice: Action) -> int:
    """The action id of a card or a declaration."""
    if isinstance(choice, Card):
        return choice.id
    return declaration_action(choice)


def choice_of(action: int) -> Action:
    """The card or the declaration that action id ``action`` stands for (the inverse of
    :func:`action_of`), as :meth:`king.game.Game.act` takes it."""
    if not 0 <= action < ACTION_COUNT:
        raise ValueError(f"action {action} is out of range: actions run from 0 to 61")
    if action < CARD_ACTIONS:
        return DECK[action]
    return ALL_DECLARATIONS[action - DECLARATION_OFFSET]


def describe_action(action: int) -> str:
    """A card's notation (``QS``) or a declaration's id (``no-king``, ``trumps H``).

    >>> describe_action(10), describe_action(57), describe_action(59)
    ('QS', 'no-last-two', 'trumps H')
    """
    return str(choice_of(action))
