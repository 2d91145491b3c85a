"""The analysis board's document: a replayed game laid out for stepping through it face
up (every dealt hand, every trick with its winner and the points after it, the totals
after each deal), so that the page shows the game without knowing a rule.  Built by the
server (``/api/board``) and by the page's offline game alike."""

from __future__ import annotations

from typing import Any

from king.cards import Seat
from king.deal import Deal
from king.record import ReplayReport

__all__ = ["board_document", "seats_to_play"]


def seats_to_play(deal: Deal) -> list[Seat]:
    """The seat that played each card of a deal, in play order."""
    seats: list[Seat] = []
    for trick in deal.tricks:
        seats.extend(trick.seat_of(i) for i in range(len(trick.cards)))
    seats.extend(seat for seat, _ in deal.current_trick)
    return seats


def board_document(report: ReplayReport) -> dict[str, Any]:
    """The whole valid game of ``report`` as the board steps through it."""
    game = report.game
    totals = [0, 0, 0, 0]
    deals: list[dict[str, Any]] = []
    for number, deal in enumerate(game.deals):
        again = Deal(deal.dealt_masks, deal.declarer, deal.declaration, game.rules)
        tricks: list[dict[str, Any]] = []
        for trick in deal.tricks:
            for card in trick.cards:
                again.play(card)
            tricks.append(
                {
                    "leader": trick.leader,
                    "seats": [trick.seat_of(i) for i in range(len(trick.cards))],
                    "cards": [str(card) for card in trick.cards],
                    "winner": trick.winner,
                    "points": again.points(),
                }
            )
        if deal.current_trick:  # the record stops inside a trick
            for _, card in deal.current_trick:
                again.play(card)
            tricks.append(
                {
                    "leader": deal.leader,
                    "seats": [seat for seat, _ in deal.current_trick],
                    "cards": [str(card) for _, card in deal.current_trick],
                    "winner": None,
                    "points": again.points(),
                }
            )
        before = list(totals)
        if deal.is_over:
            totals = [t + p for t, p in zip(totals, deal.points(), strict=True)]
        entry: dict[str, Any] = {
            "number": number,
            "declarer": deal.declarer,
            "contract": deal.contract.value,
            "hands": [[str(card) for card in deal.dealt_hand(seat)] for seat in range(4)],
            "tricks": tricks,
            "points": deal.points(),
            "before": before,
            "totals": list(totals),
            "complete": deal.is_over,
        }
        if deal.trump is not None:
            entry["trump"] = deal.trump.letter
        deals.append(entry)
    players = list(report.players) if report.players else None
    return {
        "players": players,
        "rules": game.rules.to_spec(),
        "deals": deals,
        "totals": totals,
        "complete": game.is_over,
    }
