"""Game records (``king-record/1``): dump, load, validate and replay.

A record is one JSON object that holds a whole game or any prefix of one (RECORD.md).
Replaying it folds its events (deal, declare, play) into a :class:`~king.game.Game`,
checking each against the rules, and reports the first fault it meets with its place:
the deal, the play, the seat, the card and a sentence that says what was wrong.

>>> from king.game import Game
>>> game = Game(seed=1)
>>> text = dump(game, players=["Ada", "Bo", "Cy", "Di"])
>>> report = replay(text)
>>> report.valid, report.players
(True, ('Ada', 'Bo', 'Cy', 'Di'))
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from king.cards import Card, CardParseError, CardSet, Seat
from king.deal import Deal, DealSetupError, IllegalMoveError
from king.errors import KingError
from king.events import Dealt, Declared, Played, apply
from king.game import Game, GameStateError, IllegalDeclarationError, Phase
from king.jsontext import JSONTextError, is_int, loads
from king.rules import GAME_DEALS, Contract, Declaration, Rules, RulesError
from king.texts import quoted, seat_name

__all__ = [
    "FORMAT",
    "RecordError",
    "InvalidRecordError",
    "Fault",
    "ReplayReport",
    "LoadedRecord",
    "to_record",
    "distinct_names",
    "dump",
    "is_record_file",
    "parse",
    "replay",
    "load",
]

FORMAT = "king-record/1"


class RecordError(KingError, ValueError):
    """The input is not a ``king-record/1`` record at all (not JSON, not an object, no
    ``format``, ``deals`` not a list…)."""


@dataclass(frozen=True, slots=True)
class Fault:
    """The first thing wrong in a record, and where: ``deal`` and ``play`` count from 0
    (``play`` is absent for a fault in a deal's hands or declaration)."""

    reason: str
    deal: int | None = None
    play: int | None = None
    seat: Seat | None = None
    card: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``error`` object of ``king replay --json``."""
        out: dict[str, Any] = {}
        for key in ("deal", "play", "seat", "card"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        out["reason"] = self.reason
        return out

    @property
    def where(self) -> str:
        """The place, for people, who count deals, plays and seats from 1 (:meth:`to_json`
        keeps the record's own numbers, from 0): ``deal 2, play 2, seat 4 played 2S`` is
        the record's deal 1, play 1, seat 3, as the rules' own sentences name it too.
        Empty for a fault of the whole record."""
        where = []
        if self.deal is not None:
            where.append(f"deal {self.deal + 1}")
        if self.play is not None:
            where.append(f"play {self.play + 1}")
        if self.seat is not None:
            played = f" played {self.card}" if self.card else ""
            where.append(seat_name(self.seat) + played)
        return ", ".join(where)

    def __str__(self) -> str:
        where = self.where
        return (f"{where}: " if where else "") + self.reason


class InvalidRecordError(KingError, ValueError):
    """A record that breaks the rules; :attr:`fault` says where and why."""

    def __init__(self, fault: Fault):
        super().__init__(str(fault))
        self.fault = fault


@dataclass(frozen=True, slots=True)
class ReplayReport:
    """The result of replaying a record: whether it is valid, the first fault if not,
    and the game as far as it went."""

    game: Game
    fault: Fault | None
    players: tuple[str, ...] | None = None

    @property
    def valid(self) -> bool:
        """True when every deal, declaration and play was legal."""
        return self.fault is None

    @property
    def complete(self) -> bool:
        """True for a valid record of a whole game (20 finished deals)."""
        return self.valid and self.game.is_over

    def to_json(self) -> dict[str, Any]:
        """The object ``king replay --json`` prints (RECORD.md)."""
        game = self.game
        deals = game.deals
        if self.fault is not None:
            upto = self.fault.deal if self.fault.deal is not None else 0
            shown = [d for d in deals[:upto] if d.is_over]
            return {
                "valid": False,
                "error": self.fault.to_json(),
                "deals": [deal_summary(d) for d in shown],
            }
        summaries = [deal_summary(d) for d in deals]
        if game.phase is Phase.DECLARING:
            summaries.append(
                {
                    "declarer": game.declarer,
                    "points": [0, 0, 0, 0],
                    "tricks": [],
                    "complete": False,
                }
            )
        return {
            "valid": True,
            "deals": summaries,
            "totals": game.totals,
            "complete": game.is_over,
        }


@dataclass(frozen=True, slots=True)
class LoadedRecord:
    """A valid record turned back into a game, with the players' names if it had them."""

    game: Game
    players: tuple[str, ...] | None


def deal_summary(deal: Deal) -> dict[str, Any]:
    """One deal as ``king replay --json`` reports it."""
    out: dict[str, Any] = {"contract": deal.contract.value}
    if deal.trump is not None:
        out["trump"] = deal.trump.letter
    out["declarer"] = deal.declarer
    out["points"] = deal.points()
    out["tricks"] = [
        {"leader": t.leader, "cards": [str(c) for c in t.cards], "winner": t.winner}
        for t in deal.tricks
    ]
    out["complete"] = deal.is_over
    return out


# -- writing -------------------------------------------------------------------------


def to_record(game: Game, players: Sequence[str] | None = None) -> dict[str, Any]:
    """The record of ``game`` so far, as a JSON-ready object."""
    record: dict[str, Any] = {"format": FORMAT, "rules": game.rules.to_spec(), "seed": game.seed}
    if players is not None:
        names = [str(p) for p in players]
        if len(names) != 4:
            raise ValueError("a record names exactly four players")
        record["players"] = names
    deals: list[dict[str, Any]] = []
    for deal in game.deals:
        entry: dict[str, Any] = {
            "declarer": deal.declarer,
            "hands": [str(deal.dealt_hand(s)) for s in range(4)],
            "contract": deal.contract.value,
        }
        if deal.trump is not None:
            entry["trump"] = deal.trump.letter
        entry["plays"] = " ".join(str(c) for c in deal.plays)
        deals.append(entry)
    dealt = game.dealt_masks
    if game.phase is Phase.DECLARING and dealt is not None:
        deals.append({"declarer": game.declarer, "hands": [str(CardSet(m)) for m in dealt]})
    record["deals"] = deals
    return record


def distinct_names(names: Sequence[str]) -> list[str]:
    """The four players' names, each told apart: a name that several seats share gets
    its seat, counted from 1 as people count (``Ali (seat 2)``), so that a record says
    who did what.

    >>> distinct_names(["You", "rule", "rule", "search"])
    ['You', 'rule (seat 2)', 'rule (seat 3)', 'search']
    """
    return [
        f"{name} ({seat_name(seat)})" if names.count(name) > 1 else name
        for seat, name in enumerate(names)
    ]


def dump(game: Game, players: Sequence[str] | None = None, *, indent: int | None = 1) -> str:
    """The record of ``game`` as JSON text."""
    return json.dumps(to_record(game, players), indent=indent, ensure_ascii=False)


# -- reading -------------------------------------------------------------------------


def parse(source: str | bytes | Path | Mapping[str, Any]) -> Mapping[str, Any]:
    """Read a record's JSON: text, bytes, a path, or an already-parsed object.  Raises
    :class:`RecordError` when it is not JSON or not a ``king-record/1`` object."""
    if isinstance(source, Mapping):
        data: Any = source
    else:
        if isinstance(source, Path):
            try:
                text: str | bytes = source.read_bytes()
            except OSError as error:
                raise RecordError(f"cannot read {source}: {error.strerror}") from None
        else:
            text = source
        try:
            data = loads(text)
        except JSONTextError as error:
            raise RecordError(str(error)) from None
    if not isinstance(data, Mapping):
        raise RecordError(f"a record is a JSON object, not {type(data).__name__}")
    fmt = data.get("format")
    if fmt != FORMAT:
        raise RecordError(f"not a {FORMAT} record: its format is {quoted(fmt)}")
    if not isinstance(data.get("deals", None), list):
        raise RecordError("a record needs a list of deals under 'deals'")
    seed = data.get("seed")
    if seed is not None and not is_int(seed):
        raise RecordError(f"the seed must be an integer, not {quoted(seed)}")
    players = data.get("players")
    if players is not None and (
        not isinstance(players, list)
        or len(players) != 4
        or not all(isinstance(p, str) for p in players)
    ):
        raise RecordError("'players' must be a list of four names")
    return data


#: How much of a file :func:`is_record_file` reads to recognise it.
_SNIFF_BYTES = 1 << 20


def is_record_file(path: Path) -> bool:
    """Whether ``path`` holds a ``king-record/1`` record, JSON lines of them (as ``king
    arena --out`` writes), or nothing at all: a file that may be written over.  Only the
    first record is read (at most a megabyte)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    except OSError:
        return False
    if not head.strip():
        return True
    first = head.lstrip().split(b"\n", 1)[0] if head.lstrip().startswith(b"{") else head
    for candidate in (head, first):
        try:
            parse(candidate)
        except RecordError:
            continue
        return True
    return False


class _Stop(Exception):
    def __init__(self, fault: Fault):
        self.fault = fault


def replay(source: str | bytes | Path | Mapping[str, Any]) -> ReplayReport:
    """Replay a record, checking every deal, declaration and play.

    Raises :class:`RecordError` for input that is not a record at all; a record that
    breaks the rules gives a report with :attr:`ReplayReport.fault` set.
    """
    data = parse(source)
    players = data.get("players")
    names = tuple(players) if players is not None else None
    try:
        rules = Rules.from_spec(data.get("rules"))
    except RulesError as error:
        return ReplayReport(Game(seed=0, auto_deal=False), Fault(f"rules: {error}"), names)
    seed = data.get("seed")
    game = Game(rules, seed if seed is not None else 0, auto_deal=False)
    try:
        for number, deal in enumerate(data["deals"]):
            _replay_deal(game, number, deal)
    except _Stop as stop:
        return ReplayReport(game, stop.fault, names)
    return ReplayReport(game, None, names)


def _replay_deal(game: Game, number: int, deal: object) -> None:
    if not isinstance(deal, Mapping):
        raise _Stop(Fault(f"deal {number} is not an object", number))
    if number >= GAME_DEALS:
        raise _Stop(Fault(f"a game has only {GAME_DEALS} deals", number))
    if game.phase is not Phase.DEALING:
        raise _Stop(Fault(f"deal {number - 1} is unfinished, so no deal may follow it", number))
    declarer = _replay_hands(game, number, deal)
    words = _play_words(number, deal)
    contract_text = deal.get("contract")
    if contract_text is None:
        if deal.get("trump") is not None:
            raise _Stop(Fault("a trump suit is given but no contract", number))
        if words:
            raise _Stop(Fault("cards are played before a contract is declared", number, 0))
        return
    declaration = _declaration(number, contract_text, deal.get("trump"))
    try:
        apply(game, Declared(declarer, declaration))
    except IllegalDeclarationError as error:
        raise _Stop(Fault(error.reason, number, seat=declarer)) from None
    _replay_cards(game, number, words)


def _replay_hands(game: Game, number: int, deal: Mapping[str, Any]) -> int:
    """Deal ``deal``'s hands to ``game``; its declarer."""
    declarer = deal.get("declarer")
    if not is_int(declarer) or not 0 <= declarer < 4:
        raise _Stop(Fault(f"the declarer must be a seat 0-3, not {quoted(declarer)}", number))
    hands = deal.get("hands")
    if not isinstance(hands, list) or len(hands) != 4:
        raise _Stop(Fault("'hands' must be a list of four hands", number))
    parsed: list[CardSet] = []
    for seat, hand in enumerate(hands):
        if not isinstance(hand, str):
            raise _Stop(
                Fault(f"{seat_name(seat)}'s hand must be a string of cards", number, seat=seat)
            )
        try:
            parsed.append(CardSet.parse(hand))
        except CardParseError as error:
            raise _Stop(Fault(f"{seat_name(seat)}'s hand: {error}", number, seat=seat)) from None
    try:
        apply(game, Dealt(declarer, (parsed[0], parsed[1], parsed[2], parsed[3])))
    except DealSetupError as error:
        raise _Stop(Fault(str(error), number)) from None
    return declarer


def _play_words(number: int, deal: Mapping[str, Any]) -> list[str]:
    """The words of ``deal``'s ``plays`` (none when it has none)."""
    plays = deal.get("plays", "")
    if plays is None:
        plays = ""
    if not isinstance(plays, str):
        raise _Stop(Fault("'plays' must be a string of cards", number))
    return plays.split()


def _replay_cards(game: Game, number: int, words: list[str]) -> None:
    """Play the cards of a declared deal, each by the seat to play."""
    current = game.deal
    assert current is not None
    for index, word in enumerate(words):
        mover = current.to_play
        if mover is None:
            raise _Stop(
                Fault(
                    f"the deal is over after {current.trick_count} tricks; no card may follow",
                    number,
                    index,
                    card=word,
                )
            )
        try:
            card = Card.parse(word)
        except CardParseError as error:
            raise _Stop(Fault(str(error), number, index, mover, word)) from None
        try:
            apply(game, Played(mover, card))
        except (IllegalMoveError, GameStateError) as error:
            raise _Stop(Fault(str(error), number, index, mover, str(card))) from None


def _declaration(number: int, contract_text: object, trump: object) -> Declaration:
    if not isinstance(contract_text, str):
        raise _Stop(Fault(f"the contract must be a string, not {quoted(contract_text)}", number))
    try:
        contract = Contract.parse(contract_text)
    except RulesError as error:
        raise _Stop(Fault(str(error), number)) from None
    if contract is Contract.TRUMPS:
        if trump is None:
            raise _Stop(Fault("a trumps contract needs its trump suit under 'trump'", number))
        if not isinstance(trump, str):
            raise _Stop(Fault(f"the trump must be S, H, D or C, not {quoted(trump)}", number))
        try:
            return Declaration.parse(f"trumps {trump}")
        except RulesError as error:
            raise _Stop(Fault(str(error), number)) from None
    if trump is not None:
        raise _Stop(Fault(f"{contract.title} has no trump suit, but 'trump' is given", number))
    return Declaration(contract)


def load(source: str | bytes | Path | Mapping[str, Any], *, live: bool = False) -> LoadedRecord:
    """Turn a valid record back into a game.

    With ``live=True`` the game deals for itself from here on (from the record's seed),
    so it can be played on.  Raises :class:`RecordError` or :class:`InvalidRecordError`.
    """
    report = replay(source)
    if report.fault is not None:
        raise InvalidRecordError(report.fault)
    game = report.game
    if live:
        game.auto_deal = True
        if game.phase is Phase.DEALING:
            game.deal_cards()
    return LoadedRecord(game, report.players)
