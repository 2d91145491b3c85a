"""What a table tells the people at it: the table protocol's server messages
(docs/web-protocol.md) as JSON-ready objects, built in one place for the two tables that
speak it, the server's (:mod:`king.server.tables`) and the page's offline one
(:mod:`king.offline.table`), which runs in the browser with the standard library alone.
What a client sends is defined in :mod:`king.table.protocol`.

Each builder returns what the matching pydantic model of :mod:`king.server.protocol`
dumps, field for field and in its order; ``tests/server/test_messages.py`` checks every
builder against its model, so the two cannot drift.  Everything is built from a seat's
:class:`~king.view.SeatView` (a spectator's has no hand) and the public record of play,
so another seat's hand cannot leak.
"""

from __future__ import annotations

import json
from typing import Any

from king.cards import Seat
from king.game import Game
from king.phase import Phase
from king.rules import ALL_DECLARATIONS, MAX_PER_NEGATIVE, NEGATIVE_CONTRACTS, Contract
from king.table.protocol import PROTOCOL_VERSION
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


def dumps(message: Message) -> str:
    """A message as the protocol's JSON text (compact, UTF-8 as it is)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def _head(kind: str) -> Message:
    return {"v": PROTOCOL_VERSION, "type": kind}


# -- the pieces of a state message ------------------------------------------------------


def declaration_choices(game: Game) -> list[Message]:
    """The ten declarations for the declarer: each allowed or not, with the reason (the
    core's own refusal codes, :meth:`~king.game.Game.why_refused`)."""
    choices = []
    for declaration in ALL_DECLARATIONS:
        refused = game.why_refused(declaration)
        choices.append(
            {
                "contract": declaration.contract.value,
                "trump": None if declaration.trump is None else declaration.trump.letter,
                "title": declaration.title,
                "allowed": refused is None,
                "why": None if refused is None else refused[0],
                "reason": None if refused is None else game.refusal(declaration),
            }
        )
    return choices


def last_trick(game: Game) -> Message | None:
    """The most recently completed trick, of this deal or the one before (public)."""
    trick = game.last_trick()
    if trick is None:
        return None
    return {"leader": trick.leader, "cards": [str(c) for c in trick.cards], "winner": trick.winner}


def taken_info(game: Game) -> Message | None:
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


def contract_board(view: SeatView) -> list[Message]:
    """The contract board, from a view (every declaration is public): each negative
    contract, then Trumps, with the deals it was declared in (the one being played
    included) and, for a negative one, how often it may still be declared."""
    made = [(r.number, r.declarer, r.declaration) for r in view.results]
    if view.declaration is not None and view.phase is Phase.PLAYING:
        made.append((view.deal_number, view.declarer, view.declaration))
    declared: dict[Contract, list[Message]] = {}
    for number, declarer, declaration in made:
        trump = declaration.trump
        entry = {
            "deal": number,
            "declarer": declarer,
            "trump": None if trump is None else trump.letter,
        }
        declared.setdefault(declaration.contract, []).append(entry)
    lines: list[Message] = [
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
    kind: str,
    seat: Seat | None = None,
    *,
    contract: str | None = None,
    trump: str | None = None,
    card: str | None = None,
    winner: Seat | None = None,
    deal_over: bool = False,
) -> Message:
    """What just happened, as everyone saw it (``start``, ``declare``, ``play`` or
    ``resume``; never a hidden card)."""
    return {
        "kind": kind,
        "seat": seat,
        "contract": contract,
        "trump": trump,
        "card": card,
        "winner": winner,
        "deal_over": deal_over,
    }


# -- the messages -----------------------------------------------------------------------


def state(
    game: Game,
    seat: Seat | None,
    seq: int,
    happened: Message | None,
    clock: Message | None = None,
) -> Message:
    """The ``state`` message for one seat (``None``: a spectator) after ``happened``."""
    view = game.view(seat)
    return {
        **_head("state"),
        "seq": seq,
        "event": happened,
        "view": view.to_json(),
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
    kind: str,
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
) -> Message:
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
    status: str,
    rules: str | dict[str, Any],
    toggles: list[str],
    seats: list[Message],
    deal: int,
    created: float,
    spectators: int = 0,
    next_table: str | None = None,
    by: str | None = None,
    by_guest: bool = False,
    hints: bool = False,
    rated: bool = False,
    clock: Message | None = None,
) -> Message:
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


def hint(deal: int, plays: int, found: Message) -> Message:
    """The engine's evaluation for the seat to act (``found``: :meth:`king.bots.analysis.
    Hint.to_json`), at the position of ``deal`` and ``plays`` cards played in it."""
    return {"v": PROTOCOL_VERSION, "type": "hint", "deal": deal, "plays": plays, **found}


def welcome(
    role: str, seat: Seat | None, info: Message, bot_pause_ms: int, away_after: float, speed: str
) -> Message:
    """The answer to ``hello`` or ``watch``: the role, the seat and the table."""
    return {
        **_head("welcome"),
        "role": role,
        "seat": seat,
        "table": info,
        "bot_pause_ms": bot_pause_ms,
        "away_after": away_after,
        "speed": speed,
    }


def table(info: Message) -> Message:
    """The table changed: someone joined, connected, left, or a stand-in took over."""
    return {**_head("table"), "table": info}


def pace(speed: str, bot_pause_ms: int) -> Message:
    """The bots' speed at the table and the pause it gives."""
    return {**_head("pace"), "speed": speed, "bot_pause_ms": bot_pause_ms}


#: The quick reactions a person at a table of friends may send: a fixed set, each
#: shown in the reader's own language (``reaction.<id>``), so nothing needs moderating.
REACTIONS = ("hello", "good-luck", "nice", "oops", "thinking", "thanks", "good-game")


def reaction(seat: Seat, phrase: str) -> Message:
    """A person's quick reaction, for everyone at the table."""
    return {**_head("reaction"), "seat": seat, "phrase": phrase}


def error(
    code: str,
    message: str,
    about: str | None = None,
    reason: str | None = None,
    params: dict[str, str] | None = None,
) -> Message:
    """A refused message: nothing changed (``reason`` and ``params`` name the rule that
    refused a card or declaration, for a page to word in its language)."""
    return {
        **_head("error"),
        "code": code,
        "message": message,
        "about": about,
        "reason": reason,
        "params": params,
    }


def pong() -> Message:
    """The answer to ``ping``."""
    return _head("pong")
