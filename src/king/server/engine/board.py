"""The analysis board's server side: the checked ``analysis`` section of a record that
brings one (a dropped file may carry anything).  The board's document itself is
:func:`king.board.board_document`, which the page's offline game builds too."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from king.board import board_document, seats_to_play
from king.cards import Seat
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
    seat: Seat = Field(ge=0, le=3)
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
        seats = seats_to_play(deal)
        for decision in analysed.decisions:
            if decision.kind == "declare":
                fits = decision.play is None and decision.seat == deal.declarer
            else:
                fits = decision.play is not None and decision.play < len(seats)
                fits = fits and seats[decision.play or 0] == decision.seat
            if not fits:
                return None, f"deal {number + 1}: a decision does not fit the game's plays"
    return model.model_dump(), ""
