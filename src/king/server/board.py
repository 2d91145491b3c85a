"""The analysis board's document: a replayed game laid out for stepping through it face
up (every dealt hand, every trick with its winner and the points after it, the totals
after each deal), so that the page shows the game without knowing a rule; and the
checked ``analysis`` section of a record that brings one (a dropped file may carry
anything)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from king.deal import Deal
from king.record import ReplayReport

__all__ = ["AnalysisSection", "board_document", "checked_analysis"]


class _Section(BaseModel):
    # Fields the page does not read are kept out of the check: writers may add their own.
    model_config = ConfigDict(extra="ignore", frozen=True)


class ChoiceModel(_Section):
    choice: str = Field(max_length=16)
    value: float
    error: float = Field(ge=0)


class DecisionModel(_Section):
    seat: int = Field(ge=0, le=3)
    kind: Literal["declare", "play"]
    play: int | None = Field(default=None, ge=0, le=51)
    chosen: str = Field(max_length=16)
    best: str = Field(max_length=16)
    loss: float = Field(ge=0)
    error: float = Field(ge=0)
    mistake: bool
    forced: bool = False
    choices: list[ChoiceModel] = Field(default_factory=list, max_length=13)


class DealAnalysisModel(_Section):
    lost: list[float] = Field(min_length=4, max_length=4)
    decisions: list[DecisionModel] = Field(max_length=53)


class AnalysisSection(_Section):
    """The record's optional ``analysis`` section (docs/record.md), as the page reads it."""

    engine: str = Field(max_length=200)
    seed: int | None = None
    mistake_errors: float = Field(gt=0)
    lost: list[float] = Field(min_length=4, max_length=4)
    deals: list[DealAnalysisModel] = Field(max_length=20)


def checked_analysis(section: object, report: ReplayReport) -> tuple[dict[str, Any] | None, str]:
    """The record's analysis section if it is well formed and fits the game (each
    decision at a play the deal has, by the seat that made it), else ``None`` and why."""
    if section is None:
        return None, ""
    try:
        model = AnalysisSection.model_validate(section)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return None, f"analysis.{where}: {first['msg']}"
    deals = report.game.deals
    if len(model.deals) > len(deals):
        return None, f"the analysis has {len(model.deals)} deals, the game {len(deals)}"
    for number, (analysed, deal) in enumerate(zip(model.deals, deals, strict=False)):
        seats = _seats_to_play(deal)
        for decision in analysed.decisions:
            if decision.kind == "declare":
                fits = decision.play is None and decision.seat == deal.declarer
            else:
                fits = decision.play is not None and decision.play < len(seats)
                fits = fits and seats[decision.play or 0] == decision.seat
            if not fits:
                return None, f"deal {number + 1}: a decision does not fit the game's plays"
    return model.model_dump(), ""


def _seats_to_play(deal: Deal) -> list[int]:
    """The seat that played each card of a deal, in play order."""
    seats: list[int] = []
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
