"""How often each level makes a big mistake: the share of its cards that lose more than
100 points against the best choice, as the analysis engine values them, on a fixed set
of positions (card decisions with a real choice, taken from games of four ``rule``
bots), next to ``random``'s.  The figures go into docs/bots.md.

    python scripts/level_mistakes.py --positions 200
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from king.bots import make_bot
from king.bots.analysis import AnalysisOptions, engine
from king.bots.levels import LEVELS
from king.game import Game

#: A mistake this big is one a person notices: a queen, the K♥, a last trick given away.
BIG = 100.0


def positions(count: int, seed: int) -> list[Any]:
    """``count`` card decisions (views) with at least two legal cards, from games of
    four rule bots, one in every few plays."""
    rng = random.Random(seed)
    found: list[Any] = []
    game_seed = seed
    while len(found) < count:
        game = Game(seed=game_seed)
        bots = [make_bot("rule", seed=game_seed * 4 + s) for s in range(4)]
        for _ in range(4):  # the first deals of each game
            if game.is_over:
                break
            _play_deal(game, bots, rng, found, count)
        game_seed += 1
    return found


def _play_deal(
    game: Game, bots: list[Any], rng: random.Random, found: list[Any], count: int
) -> None:
    declarer = game.to_act
    assert declarer is not None
    game.declare(bots[declarer].act(game.view(declarer)))
    while game.deal is not None and not game.deal.is_over:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        if len(view.legal_cards) > 1 and rng.random() < 0.15 and len(found) < count:
            found.append(view)
        game.play(bots[seat].act(view))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", default="search:worlds=1000&threads=2")
    parser.add_argument("--seconds", type=float, default=0.5)
    args = parser.parse_args()
    views = positions(args.positions, args.seed)
    judge = engine(AnalysisOptions(bot=args.engine, seconds=args.seconds, seed=args.seed))
    started = time.monotonic()
    values = [judge.evaluate(view) for view in views]
    print(f"{len(views)} positions valued by {args.engine} in {time.monotonic() - started:.0f} s")
    print(f"{'bot':<10} {'big mistakes':>13} {'mean loss':>10}")
    for name in ["random", *(level.name for level in LEVELS)]:
        big, total = 0, 0.0
        for index, (view, value) in enumerate(zip(views, values, strict=True)):
            bot = make_bot(name, seed=args.seed * 1000 + index)
            card = bot.act(view)
            bot.close()
            loss, _ = value.loss(list(value.choices).index(card))
            big += loss > BIG
            total += max(0.0, loss)
        share = 100.0 * big / len(views)
        print(f"{name:<10} {share:>12.1f}% {total / len(views):>10.1f}")
    judge.close()


if __name__ == "__main__":
    main()
