"""What the declarations cost today: in whole games of four bots, each declaration's
regret against the best one the declarer was allowed, for that deal: every allowed
declaration is played out on the deal's true hands by the same four bots, and the
regret is the declarer's points with the best of them minus with the one chosen.  By
deal of the game (the choice narrows as the obligations run out), over thousands of
decisions.  The deal alone is counted, not what a choice leaves for later: that is the
scheduling a whole-game plan would add (docs/bots.md).

    python scripts/declaration_regret.py --games 100 --bots rule
"""

from __future__ import annotations

import argparse
import math
import statistics
from typing import Any

from king.bots import make_bot
from king.bots.analysis import AnalysisOptions, engine
from king.events import apply, events_of
from king.game import Game
from king.rules import Declaration


def deal_points(game: Game, declaration: Declaration, bots: list[Any]) -> list[int]:
    """Each seat's points in the deal dealt now in ``game`` if ``declaration`` is made
    (a copy is played out; ``game`` is left as it is)."""
    trial = Game(game.rules, game.seed, auto_deal=False)
    for event in events_of(game):
        apply(trial, event)
    trial.declare(declaration)
    while trial.deal is not None and not trial.deal.is_over:
        seat = trial.to_act
        assert seat is not None
        trial.play(bots[seat].act(trial.view(seat)))
    return list(trial.results[-1].points)


def play_game(
    seed: int, spec: str, declarer_spec: str | None = None, judge: Any = None
) -> list[tuple[int, float]]:
    """One game: (deal number, regret) for each declaration; the declarations made by
    ``declarer_spec`` (default: the same bots) while the cards are played by ``spec``.
    With a ``judge`` (the analysis engine) the regret is expected, not hindsight: what
    the engine, from the declarer's view alone, says the choice gives up against the
    best allowed one, the rest of the game included."""
    bots = [make_bot(spec, seed=seed * 4 + seat) for seat in range(4)]
    choosers = (
        bots
        if declarer_spec is None
        else [make_bot(declarer_spec, seed=seed * 4 + seat) for seat in range(4)]
    )
    game = Game(seed=seed)
    found: list[tuple[int, float]] = []
    while not game.is_over:
        declarer = game.to_act
        assert declarer is not None
        view = game.view(declarer)
        chosen = choosers[declarer].act(view)
        assert isinstance(chosen, Declaration)
        allowed = list(view.legal_declarations)
        if len(allowed) > 1 and judge is not None:
            valued = judge.evaluate(view)
            loss, _ = valued.loss(list(valued.choices).index(chosen))
            found.append((game.deal_number + 1, max(0.0, loss)))
        elif len(allowed) > 1:
            values = {d: deal_points(game, d, bots)[declarer] for d in allowed}
            found.append((game.deal_number + 1, max(values.values()) - values[chosen]))
        game.declare(chosen)
        while game.deal is not None and not game.deal.is_over:
            seat = game.to_act
            assert seat is not None
            game.play(bots[seat].act(game.view(seat)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--bots", default="rule")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--declarer", default=None, help="who declares (default: --bots)")
    parser.add_argument(
        "--judge", default=None, help="an analysis engine (search:…): expected regret instead"
    )
    args = parser.parse_args()
    judge = None
    if args.judge:
        judge = engine(AnalysisOptions(bot=args.judge, seconds=0.5, seed=args.seed))
    by_deal: dict[int, list[float]] = {}
    for seed in range(args.seed, args.seed + args.games):
        for deal, regret in play_game(seed, args.bots, args.declarer, judge):
            by_deal.setdefault(deal, []).append(regret)
    every = [r for regrets in by_deal.values() for r in regrets]
    who = f", declared by {args.declarer}" if args.declarer else ""
    who += f", judged by {args.judge}" if args.judge else ", in hindsight"
    print(f"{len(every)} declarations with a choice, {args.games} games of four {args.bots}{who}")
    print(f"{'deals':<8} {'n':>5} {'mean regret':>12} {'±95%':>7} {'share > 100':>12}")
    for first in range(1, 21, 4):
        regrets = [r for deal in range(first, first + 4) for r in by_deal.get(deal, [])]
        _row(f"{first}-{first + 3}", regrets)
    _row("all", every)


def _row(label: str, regrets: list[float]) -> None:
    if not regrets:
        return
    mean = statistics.fmean(regrets)
    half = 1.96 * statistics.stdev(regrets) / math.sqrt(len(regrets)) if len(regrets) > 1 else 0
    big = 100.0 * sum(r > 100 for r in regrets) / len(regrets)
    print(f"{label:<8} {len(regrets):>5} {mean:>12.1f} {half:>7.1f} {big:>11.1f}%")


if __name__ == "__main__":
    main()
