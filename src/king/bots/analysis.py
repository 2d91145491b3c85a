"""Analysis of a recorded game: every decision (each declaration, each card) evaluated
again from the view of the player who made it, so that a player sees what each choice
was worth with what they could know then.

The engine is the search bot's evaluation (:meth:`king.bots.search.bot.SearchBot.evaluate`):
sampled worlds consistent with the view, the other players' earlier cards weighing the
worlds, the rule policy playing each choice out.  A choice's *loss* is the paired
difference to the best choice over the same worlds; it is marked a *mistake* only when it
exceeds twice its standard error, so the engine's own noise is never called a blunder.
The result is the record with an ``analysis`` section (docs/record.md), which readers
that do not know it ignore.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from king.bots import make_bot
from king.bots.protocol import BotSpecError
from king.bots.registry import parse_spec
from king.bots.search.bot import SearchBot
from king.cards import Seat
from king.events import Declared, Played, apply, events_of
from king.game import Game
from king.record import InvalidRecordError, parse, replay, to_record

__all__ = [
    "AnalysisOptions",
    "Decision",
    "DecisionPoint",
    "analyze",
    "annotate",
    "decision_points",
    "decisions_of",
    "engine",
    "evaluate",
    "Hint",
    "hint",
]

#: A decision is a mistake when its loss exceeds this many standard errors.
MISTAKE_ERRORS = 2.0

#: Called after each decision with (decisions done, decisions in all).
Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class AnalysisOptions:
    """The engine (a search bot spec) and its effort per decision, and its seed."""

    bot: str = "search"
    seconds: float = 0.2
    seed: int = 0

    def spec(self) -> str:
        """The bot spec with the time per decision added unless it names one."""
        name, _, options = self.bot.partition(":")
        if "time=" in options:
            return self.bot
        joined = f"{options}&time={self.seconds}" if options else f"time={self.seconds}"
        return f"{name}:{joined}"


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision: who made it, what it was, each choice's value and error, the best,
    and what the chosen one gave up (``forced``: there was no other choice)."""

    deal: int
    seat: Seat
    kind: str
    #: The card's place in the deal's plays (0-based); ``None`` for a declaration.
    play: int | None
    chosen: str
    best: str
    loss: float
    error: float
    forced: bool
    choices: tuple[tuple[str, float, float], ...]

    @property
    def mistake(self) -> bool:
        """Whether the loss is clearly more than the evaluation's noise."""
        return not self.forced and self.loss > MISTAKE_ERRORS * self.error and self.loss > 0

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "kind": self.kind,
            "play": self.play,
            "chosen": self.chosen,
            "best": self.best,
            "loss": self.loss,
            "error": self.error,
            "mistake": self.mistake,
            "forced": self.forced,
            "choices": [
                {"choice": choice, "value": round(value, 2), "error": round(error, 2)}
                for choice, value, error in self.choices
            ],
        }


def _engine(options: AnalysisOptions) -> SearchBot:
    if parse_spec(options.bot)[0] != "search":
        raise BotSpecError(f"the analysis engine is a search bot (search:…), not {options.bot!r}")
    bot = make_bot(options.spec(), seed=options.seed)
    if not isinstance(bot, SearchBot):
        bot.close()
        raise BotSpecError(f"the analysis engine is a search bot (search:…), not {options.bot!r}")
    return bot


@dataclass(frozen=True, slots=True)
class DecisionPoint:
    """A decision to evaluate: the chooser's view at that moment, what they chose, and
    where it is (the deal, and the card's place among the deal's plays)."""

    view: Any
    event: Declared | Played
    deal: int
    play: int | None


def decision_points(source: str | bytes | Path | Mapping[str, Any]) -> list[DecisionPoint]:
    """Every decision of a valid record, in order, each with its chooser's view (the
    views only: what each player could see then)."""
    report = replay(source)
    if report.fault is not None:
        raise InvalidRecordError(report.fault)
    played = report.game
    game = Game(played.rules, played.seed, auto_deal=False)
    points: list[DecisionPoint] = []
    plays = 0
    for event in events_of(played):
        if isinstance(event, Declared | Played):
            if isinstance(event, Declared):
                plays = 0
            play = plays if isinstance(event, Played) else None
            points.append(DecisionPoint(game.view(event.seat), event, game.deal_number, play))
            if isinstance(event, Played):
                plays += 1
        apply(game, event)
    return points


def engine(options: AnalysisOptions) -> SearchBot:
    """The search bot that evaluates, as ``options`` ask (a clear error for any other)."""
    return _engine(options)


def evaluate(bot: SearchBot, point: DecisionPoint) -> Decision:
    """One decision evaluated from its view."""
    return _decide(bot, point.view, point.event, point.deal, point.play)


def decisions_of(
    source: str | bytes | Path | Mapping[str, Any],
    options: AnalysisOptions | None = None,
    progress: Progress | None = None,
) -> list[Decision]:
    """Evaluate every decision of a valid record from its player's view, in order."""
    options = options or AnalysisOptions()
    points = decision_points(source)
    bot = _engine(options)
    out: list[Decision] = []
    try:
        for point in points:
            out.append(evaluate(bot, point))
            if progress is not None:
                progress(len(out), len(points))
    finally:
        bot.close()
    return out


def _decide(
    bot: SearchBot, view: Any, event: Declared | Played, deal: int, play: int | None
) -> Decision:
    chosen = event.declaration if isinstance(event, Declared) else event.card
    kind = "declare" if isinstance(event, Declared) else "play"
    legal: list[Any] = (
        list(view.legal_declarations) if isinstance(event, Declared) else list(view.legal_cards)
    )
    if len(legal) == 1:
        return Decision(deal, event.seat, kind, play, str(chosen), str(chosen), 0.0, 0.0, True, ())
    values = bot.evaluate(view)
    index = list(values.choices).index(chosen)
    loss, error = values.loss(index)
    best = values.choices[values.best()]
    choices = tuple(
        (str(choice), values.mean(i), values.error(i)) for i, choice in enumerate(values.choices)
    )
    # Rounded once, here: what is shown is what decides whether it is a mistake.
    loss, error = round(max(0.0, loss), 2), round(error, 2)
    return Decision(
        deal, event.seat, kind, play, str(chosen), str(best), loss, error, False, choices
    )


@dataclass(frozen=True, slots=True)
class Hint:
    """The engine's evaluation of each legal choice for the seat to act, from its view
    alone: ``(choice, value, error, loss, loss_error)`` best first (``loss`` paired
    against the best over the same worlds)."""

    kind: str
    best: str
    choices: tuple[tuple[str, float, float, float, float], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "best": self.best,
            "choices": [
                {
                    "choice": choice,
                    "value": round(value, 2),
                    "error": round(error, 2),
                    "loss": round(loss, 2),
                    "loss_error": round(loss_error, 2),
                }
                for choice, value, error, loss, loss_error in self.choices
            ],
        }


def hint(bot: SearchBot, view: Any) -> Hint:
    """What each legal choice of the seat whose ``view`` this is is worth, as the
    engine sees it from that view: the help a table with hints on gives the person to
    act.  It reads nothing but the view, so it can show no hidden card."""
    declaring = bool(view.legal_declarations)
    kind = "declare" if declaring else "play"
    legal: list[Any] = list(view.legal_declarations) if declaring else list(view.legal_cards)
    if not legal:
        raise ValueError("the seat of this view has nothing to choose now")
    if len(legal) == 1:
        only = str(legal[0])
        return Hint(kind, only, ((only, 0.0, 0.0, 0.0, 0.0),))
    values = bot.evaluate(view)
    rows = []
    for index, choice in enumerate(values.choices):
        loss, loss_error = values.loss(index)
        rows.append(
            (str(choice), values.mean(index), values.error(index), max(0.0, loss), loss_error)
        )
    rows.sort(key=lambda row: -row[1])
    return Hint(kind, str(values.choices[values.best()]), tuple(rows))


def analyze(
    source: str | bytes | Path | Mapping[str, Any],
    options: AnalysisOptions | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The record with its ``analysis`` section: every decision of every deal, the points
    each player lost to mistakes per deal and in all."""
    options = options or AnalysisOptions()
    data = parse(source)
    return annotate(data, decisions_of(data, options, progress), options)


def annotate(
    source: str | bytes | Path | Mapping[str, Any],
    decisions: list[Decision],
    options: AnalysisOptions,
) -> dict[str, Any]:
    """The record of ``source`` with the ``analysis`` section of ``decisions``."""
    data = parse(source)
    game = replay(data).game
    record = to_record(game, data.get("players"))
    for key, value in data.items():  # keep what the writer added (extra, …)
        if key not in record and key != "analysis":
            record[key] = value
    deals: list[dict[str, Any]] = [
        {"decisions": [], "lost": [0.0, 0.0, 0.0, 0.0]} for _ in game.deals
    ]
    lost = [0.0, 0.0, 0.0, 0.0]
    for decision in decisions:
        entry = deals[decision.deal]
        entry["decisions"].append(decision.to_json())
        if decision.mistake:
            entry["lost"][decision.seat] += decision.loss
            lost[decision.seat] += decision.loss
    for entry in deals:
        entry["lost"] = [round(x, 2) for x in entry["lost"]]
    record["analysis"] = {
        "engine": options.spec(),
        "seed": options.seed,
        "mistake_errors": MISTAKE_ERRORS,
        "deals": deals,
        "lost": [round(x, 2) for x in lost],
    }
    return record


__all__ += ["MISTAKE_ERRORS"]
