"""A game as its list of events, and the one function that folds them.

Three things happen in a game of King: a deal is dealt (its declarer and four hands), the
declarer declares, a seat plays a card.  The record (``king-record/1``) is these events
grouped by deal; the server's log stores them one per row (beside its own table events:
joins, the start, a close), as the objects :func:`to_json` gives; a replay, a resumed
game and a restarted server all rebuild a game by :func:`apply` over them, so there is
one fold, and it checks every event as the game itself does (it is :meth:`Game.act`'s
caller, as every interface is).  A live move becomes its event with :func:`event_of`.

>>> from king.game import Game
>>> game = Game(seed=7)
>>> again = Game(seed=7, auto_deal=False)
>>> for event in events_of(game):
...     apply(again, event)
>>> [e.kind for e in events_of(again)]
['deal']
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from king.cards import Card, CardParseError, CardSet, Seat
from king.errors import KingError
from king.game import Action, Game
from king.jsontext import is_int
from king.phase import Phase
from king.rules import Declaration, RulesError
from king.texts import quoted, seat_name

__all__ = [
    "Declared",
    "Dealt",
    "EventError",
    "GameEvent",
    "Played",
    "apply",
    "event_of",
    "events_of",
    "from_json",
    "to_json",
]


class EventError(KingError, ValueError):
    """An event that cannot be read, or that does not fit the game it is applied to;
    the message says which and why.  Nothing was changed."""


@dataclass(frozen=True, slots=True)
class Dealt:
    """A deal is dealt: who declares it, and the four hands."""

    declarer: Seat
    hands: tuple[CardSet, CardSet, CardSet, CardSet]
    kind: Literal["deal"] = "deal"


@dataclass(frozen=True, slots=True)
class Declared:
    """The declarer (``seat``) chooses the contract and, for Trumps, the trump suit."""

    seat: Seat
    declaration: Declaration
    kind: Literal["declare"] = "declare"

    @property
    def action(self) -> Declaration:
        """What the game is handed (:meth:`Game.act`)."""
        return self.declaration


@dataclass(frozen=True, slots=True)
class Played:
    """``seat`` plays ``card``."""

    seat: Seat
    card: Card
    kind: Literal["play"] = "play"

    @property
    def action(self) -> Card:
        """What the game is handed (:meth:`Game.act`)."""
        return self.card


GameEvent = Dealt | Declared | Played


def event_of(seat: Seat, action: Action) -> Declared | Played:
    """The event of ``seat`` taking ``action`` (a declaration or a card), as a table
    logs a live move before the fold applies it."""
    if isinstance(action, Declaration):
        return Declared(seat, action)
    return Played(seat, action)


def apply(game: Game, event: GameEvent) -> None:
    """Fold one event into ``game``: the one place where a list of events becomes a
    game.  The game's own checks apply (:class:`~king.deal.IllegalMoveError`,
    :class:`~king.game.IllegalDeclarationError`, :class:`~king.deal.DealSetupError`,
    :class:`~king.game.GameStateError`); an event by a seat that is not to act raises
    :class:`EventError`.  A refused event changes nothing."""
    if isinstance(event, Dealt):
        game.deal_cards(list(event.hands), event.declarer)
        return
    if event.seat != game.to_act:
        who = "no seat" if game.to_act is None else seat_name(game.to_act)
        raise EventError(f"{seat_name(event.seat)} {event.kind}s, but {who} is to act")
    game.act(event.action)


def events_of(game: Game) -> Iterator[GameEvent]:
    """The events that made ``game``, in order (the next deal's hands included once
    they are dealt)."""
    for deal in game.deals:
        hands = tuple(deal.dealt_hand(seat) for seat in range(4))
        yield Dealt(deal.declarer, (hands[0], hands[1], hands[2], hands[3]))
        yield Declared(deal.declarer, deal.declaration)
        seats = [trick.seat_of(i) for trick in deal.tricks for i in range(4)]
        seats += [seat for seat, _ in deal.current_trick]
        for seat, card in zip(seats, deal.plays, strict=True):
            yield Played(seat, card)
    dealt = game.dealt_masks
    if game.phase is Phase.DECLARING and dealt is not None:
        four = tuple(CardSet(mask) for mask in dealt)
        yield Dealt(game.declarer, (four[0], four[1], four[2], four[3]))


def to_json(event: GameEvent) -> dict[str, Any]:
    """The event as the server's log stores it (without its kind, which is a column):
    ``{"declarer", "hands"}``, ``{"seat", "contract", "trump"}`` or ``{"seat", "card"}``."""
    if isinstance(event, Dealt):
        return {"declarer": event.declarer, "hands": [str(hand) for hand in event.hands]}
    if isinstance(event, Declared):
        trump = event.declaration.trump
        return {
            "seat": event.seat,
            "contract": event.declaration.contract.value,
            "trump": None if trump is None else trump.letter,
        }
    return {"seat": event.seat, "card": str(event.card)}


def from_json(kind: str, data: Mapping[str, Any]) -> GameEvent:
    """Read an event of ``kind`` (``deal``, ``declare``, ``play``) from :func:`to_json`'s
    object; raises :class:`EventError` saying what is wrong."""
    if not isinstance(data, Mapping):
        raise EventError(f"a {kind} event is an object, not {type(data).__name__}")
    if kind == "deal":
        return _dealt(data)
    seat = _seat(data, "seat")
    if kind == "declare":
        return _declared(seat, data)
    if kind == "play":
        return _played(seat, data)
    raise EventError(f"{quoted(kind)} is not a game event: deal, declare or play")


def _dealt(data: Mapping[str, Any]) -> Dealt:
    declarer = _seat(data, "declarer")
    hands = data.get("hands")
    if not isinstance(hands, list) or len(hands) != 4:
        raise EventError("a deal event's 'hands' is a list of four hands")
    parsed: list[CardSet] = []
    for seat, hand in enumerate(hands):
        if not isinstance(hand, str):
            raise EventError(f"{seat_name(seat)}'s hand must be a string of cards")
        try:
            parsed.append(CardSet.parse(hand))
        except CardParseError as error:
            raise EventError(f"{seat_name(seat)}'s hand: {error}") from None
    return Dealt(declarer, (parsed[0], parsed[1], parsed[2], parsed[3]))


def _declared(seat: Seat, data: Mapping[str, Any]) -> Declared:
    contract, trump = data.get("contract"), data.get("trump")
    if not isinstance(contract, str) or not (trump is None or isinstance(trump, str)):
        raise EventError("a declare event names its contract (and trump) as strings")
    if trump is not None and contract != "trumps":
        raise EventError(f"only Trumps has a trump suit, not {quoted(contract)}")
    text = contract if trump is None else f"{contract} {trump}"
    try:
        return Declared(seat, Declaration.parse(text))
    except RulesError as error:
        raise EventError(str(error)) from None


def _played(seat: Seat, data: Mapping[str, Any]) -> Played:
    card = data.get("card")
    if not isinstance(card, str):
        raise EventError(f"a play event's card is a string, not {quoted(card)}")
    try:
        return Played(seat, Card.parse(card))
    except CardParseError as error:
        raise EventError(str(error)) from None


def _seat(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if not is_int(value) or not 0 <= value < 4:
        raise EventError(f"'{key}' must be a seat 0-3, not {quoted(value)}")
    return value
