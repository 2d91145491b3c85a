"""Self-play positions labelled by the search bot (``king train``'s data).

Single deals are played under the ten declarations in turn (and, in a share of them,
the optional rules); at every decision with a real choice the search bot evaluates
each legal card from that seat's view (sampled worlds weighted by the others' plays,
rule-policy rollouts: :meth:`~king.bots.search.bot.SearchBot.evaluate`), and the position is
kept with each card's value and the standard error of its difference from the rule
card's.  The card played is the one the search bot plays (the best card where it beats
the rule card by two standard errors, else the rule card), now and then a random one,
so that the positions also cover lines good play would not reach.  Each decision is one
seat's view: nothing hidden enters the input.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from king.bots.net.bot import view_input
from king.bots.net.play import I_RULE
from king.cards import Card, Mask
from king.game import Game
from king.phase import Phase
from king.rules import PRESETS, Rules, cycled_declaration
from king.training.positions import Positions
from king.view import SeatView

if TYPE_CHECKING:
    from king.bots.search.bot import SearchBot

__all__ = ["CHUNK", "RULES_MIX", "ChunkMap", "generate", "rules_for"]

#: A share of the deals played under each preset (the rest classic).
RULES_MIX: tuple[tuple[Rules, float], ...] = (
    (PRESETS["pagat"], 0.1),
    (PRESETS["turkish"], 0.1),
)


def rules_for(rng: random.Random) -> Rules:
    """The rules of the next deal: a preset of :data:`RULES_MIX` by its share, else
    classic."""
    roll = rng.random()
    for rules, share in RULES_MIX:
        if roll < share:
            return rules
        roll -= share
    return PRESETS["classic"]


#: Positions are made in chunks of this many, chunk ``k`` of seed ``s`` with seed
#: ``s + k``, so that chunks made apart (on several machines, say) join into the data
#: one run would make.
CHUNK = 20_000

#: Runs a function on each tuple of arguments (anywhere) and yields the results in order.
ChunkMap = Callable[[Callable[..., "Positions"], list[tuple[Any, ...]]], Iterator["Positions"]]


def generate(
    count: int,
    *,
    seed: int = 0,
    budget: float = 0.04,
    margin: float = 2.0,
    confirm: float = 0.0,
    explore: float = 0.05,
    progress: Callable[[int], None] | None = None,
    chunk: int = CHUNK,
    map_chunks: ChunkMap | None = None,
) -> Positions:
    """``count`` positions from self-play, each labelled by the search bot's evaluation
    with ``budget`` seconds' worth of rollouts (as a count, so the data do not depend on
    the machine).  Where that evaluation would leave the rule card, the position is
    evaluated again, afresh, with ``confirm`` seconds' worth (``0``: not), and that
    second evaluation is kept, to drop departures found by chance (measured: about nine
    in ten departures at 0.04 s come back in a fresh evaluation at 0.25 s, so the default
    does not pay for it).  The card played is the search bot's (``margin``), a random one
    with probability ``explore``.

    The positions come in chunks of ``chunk``, chunk k played from seed ``seed + k``,
    so that ``map_chunks`` (``king train --ray``: one Ray task per chunk) may make them
    anywhere and in any order: the data are the same."""
    sizes = [min(chunk, count - start) for start in range(0, count, chunk)]
    if map_chunks is not None:
        arguments = [
            (size, seed + k, budget, margin, confirm, explore, None) for k, size in enumerate(sizes)
        ]
        parts = []
        for part in map_chunks(_generate_chunk, arguments):
            parts.append(part)
            if progress is not None:
                progress(sum(sizes[: len(parts)]))
        return Positions.join(parts)
    parts = []
    done = 0
    for k, size in enumerate(sizes):

        def counted(n: int, before: int = done) -> None:
            if progress is not None:
                progress(before + n)

        parts.append(_generate_chunk(size, seed + k, budget, margin, confirm, explore, counted))
        done += size
    return Positions.join(parts)


def _generate_chunk(
    count: int,
    seed: int,
    budget: float,
    margin: float,
    confirm: float,
    explore: float,
    progress: Callable[[int], None] | None,
) -> Positions:
    from king.bots.search.bot import SearchBot

    rng = random.Random(seed)
    evaluator = SearchBot(rng.getrandbits(32), budget=budget)
    confirmer = SearchBot(rng.getrandbits(32), budget=confirm) if confirm > 0 else None
    xs: list[NDArray[np.float32]] = []
    legal: list[int] = []
    values: list[NDArray[np.float32]] = []
    errors: list[NDArray[np.float32]] = []
    contracts: list[int] = []
    index = rng.randrange(28)
    while len(legal) < count:
        game = Game(rules_for(rng), seed=rng.getrandbits(32), auto_deal=False)
        game.deal_cards()
        game.declare(cycled_declaration(index))
        index += 1
        while game.phase is Phase.PLAYING and len(legal) < count:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            cards = list(view.legal_cards)
            if len(cards) == 1:
                game.play(cards[0])
                continue
            x, mask = view_input(view)
            position = _labelled(evaluator, view, x, mask)
            if confirmer is not None and position.decisions(margin)[0] != position.rule_cards[0]:
                position = _labelled(confirmer, view, x, mask)
            row, error_row = position.values[0], position.errors[0]
            xs.append(x)
            legal.append(mask)
            values.append(row)
            errors.append(error_row)
            contracts.append(view.contract.code if view.contract else 0)
            if progress is not None:
                progress(len(legal))
            if rng.random() < explore:
                game.play(rng.choice(cards))
            else:
                game.play_unchecked(int(position.decisions(margin)[0]))
    return Positions(
        np.array(xs, dtype=np.float32),
        np.array(legal, dtype=np.int64),
        np.array(values, dtype=np.float32),
        np.array(contracts, dtype=np.int8),
        np.array(errors, dtype=np.float32),
    )


def _labelled(
    evaluator: SearchBot, view: SeatView, x: NDArray[np.float32], mask: Mask
) -> Positions:
    """One position with the values of its legal cards by ``evaluator`` and the standard
    errors of their differences from the rule card."""
    table = evaluator.evaluate(view)
    rule = int(x[I_RULE : I_RULE + 52].argmax())
    choices = [card.id for card in table.choices if isinstance(card, Card)]
    base = np.array(table.column(choices.index(rule)))
    row = np.full(52, np.nan, dtype=np.float32)
    error_row = np.full(52, np.nan, dtype=np.float32)
    for i, card in enumerate(choices):
        column = np.array(table.column(i))
        gain = column - base
        row[card] = column.mean()
        error_row[card] = gain.std(ddof=1) / math.sqrt(len(gain))
    return Positions(
        x[None], np.array([mask]), row[None], np.zeros(1, dtype=np.int8), error_row[None]
    )
