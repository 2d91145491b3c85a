"""What a table tells the people at it: the table protocol's server messages
(docs/web-protocol.md) as JSON-ready objects, built in one place for the two tables that
speak it, the server's (:mod:`king.server.tables`) and the page's offline one
(:mod:`king.offline.table`), which runs in the browser with the standard library alone.
What a client sends is defined in :mod:`king.table.protocol`.

Each builder returns its message's one definition in :mod:`king.table.answers` (mypy
holds it to it; the server's pydantic models are derived from the same definitions, and
``tests/server/test_messages.py`` checks every message both tables send against them).
Everything is built from a seat's
:class:`~king.view.SeatView` (a spectator's has no hand) and the public record of play,
so another seat's hand cannot leak.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, cast

from king.cards import Seat, Suit
from king.game import Game
from king.phase import Phase
from king.rules import ALL_DECLARATIONS, MAX_PER_NEGATIVE, NEGATIVE_CONTRACTS, Contract
from king.table.answers import (
    BoardEntry,
    BoardLine,
    ClockInfo,
    DeclarationChoice,
    ErrorMessage,
    GameView,
    HintChoice,
    HintMessage,
    PaceMessage,
    PongMessage,
    PublicEvent,
    ReactionMessage,
    SeatInfo,
    StateMessage,
    SuitLetter,
    TableInfo,
    TableMessage,
    TakenInfo,
    TrickInfo,
    WelcomeMessage,
)
from king.table.protocol import PROTOCOL_VERSION, SpeedChoice
from king.view import SeatView

__all__ = [
    "contract_board",
    "declaration_choices",
    "dumps",
    "error",
    "event",
    "hint",
    "last_trick",
    "pace",
    "pong",
    "REACTIONS",
    "reaction",
    "seat_info",
    "state",
    "table",
    "table_info",
    "taken_info",
    "welcome",
]

Message = dict[str, Any]


def dumps(message: Mapping[str, Any]) -> str:
    """A message as the protocol's JSON text (compact, UTF-8 as it is)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def _letter(suit: Suit | None) -> SuitLetter | None:
    """A trump as a message writes it."""
    return None if suit is None else cast(SuitLetter, suit.letter)


# -- the pieces of a state message ------------------------------------------------------


def declaration_choices(game: Game) -> list[DeclarationChoice]:
    """The ten declarations for the declarer: each allowed or not, with the reason (the
    core's own refusal codes, :meth:`~king.game.Game.why_refused`)."""
    choices: list[DeclarationChoice] = []
    for declaration in ALL_DECLARATIONS:
        refused = game.why_refused(declaration)
        why = None if refused is None else cast(Any, refused[0])
        choices.append(
            {
                "contract": declaration.contract.value,
                "trump": _letter(declaration.trump),
                "title": declaration.title,
                "allowed": refused is None,
                "why": why,
                "reason": None if refused is None else game.refusal(declaration),
            }
        )
    return choices


def last_trick(game: Game) -> TrickInfo | None:
    """The most recently completed trick, of this deal or the one before (public)."""
    trick = game.last_trick()
    if trick is None:
        return None
    return {"leader": trick.leader, "cards": [str(c) for c in trick.cards], "winner": trick.winner}


def taken_info(game: Game) -> TakenInfo | None:
    """What each seat has taken in the latest declared deal (public: every trick is
    seen by all): its tricks and the penalty cards among them."""
    deals = game.deals
    if not deals:
        return None
    deal = deals[-1]
    penalty = deal.contract.penalty_mask
    cards: list[list[str]] = [[], [], [], []]
    for trick in deal.tricks:
        cards[trick.winner].extend(str(card) for card in trick.cards if card.mask & penalty)
    return {
        "deal": len(deals) - 1,
        "contract": deal.contract.value,
        "counts": "cards" if penalty else "tricks",
        "tricks": [deal.tricks_won(seat) for seat in range(4)],
        "cards": cards,
    }


def contract_board(view: SeatView) -> list[BoardLine]:
    """The contract board, from a view (every declaration is public): each negative
    contract, then Trumps, with the deals it was declared in (the one being played
    included) and, for a negative one, how often it may still be declared."""
    made = [(r.number, r.declarer, r.declaration) for r in view.results]
    if view.declaration is not None and view.phase is Phase.PLAYING:
        made.append((view.deal_number, view.declarer, view.declaration))
    declared: dict[Contract, list[BoardEntry]] = {}
    for number, declarer, declaration in made:
        entry: BoardEntry = {
            "deal": number,
            "declarer": declarer,
            "trump": _letter(declaration.trump),
        }
        declared.setdefault(declaration.contract, []).append(entry)
    lines: list[BoardLine] = [
        {
            "contract": contract.value,
            "declared": declared.get(contract, []),
            "left": max(0, MAX_PER_NEGATIVE - view.times_declared(contract)),
        }
        for contract in NEGATIVE_CONTRACTS
    ]
    lines.append(
        {
            "contract": Contract.TRUMPS.value,
            "declared": declared.get(Contract.TRUMPS, []),
            "left": None,
        }
    )
    return lines


def event(
    kind: Literal["start", "declare", "play", "resume"],
    seat: Seat | None = None,
    *,
    contract: str | None = None,
    trump: Suit | None = None,
    card: str | None = None,
    winner: Seat | None = None,
    deal_over: bool = False,
) -> PublicEvent:
    """What just happened, as everyone saw it (``start``, ``declare``, ``play`` or
    ``resume``; never a hidden card)."""
    return {
        "kind": kind,
        "seat": seat,
        "contract": contract,
        "trump": _letter(trump),
        "card": card,
        "winner": winner,
        "deal_over": deal_over,
    }


# -- the messages -----------------------------------------------------------------------


def state(
    game: Game,
    seat: Seat | None,
    seq: int,
    happened: PublicEvent | None,
    clock: ClockInfo | None = None,
) -> StateMessage:
    """The ``state`` message for one seat (``None``: a spectator) after ``happened``."""
    view = game.view(seat)
    return {
        "v": PROTOCOL_VERSION,
        "type": "state",
        "seq": seq,
        "event": happened,
        "view": cast(GameView, view.to_json()),
        "legal": [str(card) for card in view.legal_cards],
        "declarations": declaration_choices(game) if view.legal_declarations else [],
        "hand_sizes": list(view.hand_sizes),
        "last_trick": last_trick(game),
        "obligations": [list(game.obligations(s)) for s in range(4)],
        "taken": taken_info(game),
        "board": contract_board(view),
        "clock": clock,
    }


def seat_info(
    seat: Seat,
    kind: Literal["human", "bot"],
    name: str | None,
    *,
    bot: str | None = None,
    claimed: bool = True,
    connected: bool = False,
    stand_in: bool = False,
    stand_in_in: float | None = None,
    joining: bool = False,
    player: str | None = None,
    rating: int | None = None,
    provisional: bool = False,
    guest: bool = False,
) -> SeatInfo:
    """Who sits in a seat, as everyone at the table may know it."""
    return {
        "seat": seat,
        "kind": kind,
        "name": name,
        "bot": bot,
        "claimed": claimed,
        "connected": connected,
        "stand_in": stand_in,
        "stand_in_in": stand_in_in,
        "joining": joining,
        "player": player,
        "rating": rating,
        "provisional": provisional,
        "guest": guest,
    }


def table_info(
    table_id: str,
    *,
    status: Literal["waiting", "playing", "over", "closed"],
    rules: str | dict[str, Any],
    toggles: list[str],
    seats: list[SeatInfo],
    deal: int,
    created: float,
    spectators: int = 0,
    next_table: str | None = None,
    by: str | None = None,
    by_guest: bool = False,
    hints: bool = False,
    rated: bool = False,
    clock: ClockInfo | None = None,
) -> TableInfo:
    """A table as the lobby and the players see it."""
    return {
        "id": table_id,
        "status": status,
        "rules": rules,
        "toggles": toggles,
        "seats": seats,
        "spectators": spectators,
        "deal": deal,
        "created": created,
        "next": next_table,
        "by": by,
        "by_guest": by_guest,
        "hints": hints,
        "rated": rated,
        "clock": clock,
    }


def hint(deal: int, plays: int, found: Mapping[str, Any]) -> HintMessage:
    """The engine's evaluation for the seat to act (``found``: :meth:`king.bots.analysis.
    Hint.to_json`), at the position of ``deal`` and ``plays`` cards played in it."""
    choices: list[HintChoice] = list(found["choices"])
    return {
        "v": PROTOCOL_VERSION,
        "type": "hint",
        "deal": deal,
        "plays": plays,
        "kind": found["kind"],
        "best": found["best"],
        "choices": choices,
    }


def welcome(
    role: Literal["player", "spectator"],
    seat: Seat | None,
    info: TableInfo,
    bot_pause_ms: int,
    away_after: float,
    speed: SpeedChoice,
) -> WelcomeMessage:
    """The answer to ``hello`` or ``watch``: the role, the seat and the table."""
    return {
        "v": PROTOCOL_VERSION,
        "type": "welcome",
        "role": role,
        "seat": seat,
        "table": info,
        "bot_pause_ms": bot_pause_ms,
        "away_after": away_after,
        "speed": speed,
    }


def table(info: TableInfo) -> TableMessage:
    """The table changed: someone joined, connected, left, or a stand-in took over."""
    return {"v": PROTOCOL_VERSION, "type": "table", "table": info}


def pace(speed: SpeedChoice, bot_pause_ms: int) -> PaceMessage:
    """The bots' speed at the table and the pause it gives."""
    return {"v": PROTOCOL_VERSION, "type": "pace", "speed": speed, "bot_pause_ms": bot_pause_ms}


#: The quick reactions a person at a table of friends may send: a fixed set, each
#: shown in the reader's own language (``reaction.<id>``), so nothing needs moderating.
REACTIONS = ("hello", "good-luck", "nice", "oops", "thinking", "thanks", "good-game")


def reaction(seat: Seat, phrase: str) -> ReactionMessage:
    """A person's quick reaction, for everyone at the table."""
    return {"v": PROTOCOL_VERSION, "type": "reaction", "seat": seat, "phrase": phrase}


def error(
    code: str,
    message: str,
    about: str | None = None,
    reason: str | None = None,
    params: dict[str, str] | None = None,
) -> ErrorMessage:
    """A refused message: nothing changed (``reason`` and ``params`` name the rule that
    refused a card or declaration, for a page to word in its language)."""
    return {
        "v": PROTOCOL_VERSION,
        "type": "error",
        "code": code,
        "message": message,
        "about": about,
        "reason": reason,
        "params": params,
    }


def pong() -> PongMessage:
    """The answer to ``ping``."""
    return {"v": PROTOCOL_VERSION, "type": "pong"}
