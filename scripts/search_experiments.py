"""Two experiments on the search bot that no option should offer, run as ``king arena``
in this process (``--jobs 1``: the changes live in this interpreter):

- ``--oracle``: every ``search`` bot's worlds are the true hands (it cheats), a ceiling
  on what its inference could ever give;
- ``--rollouts VARIANT.py``: the ``search`` bots' rollouts are played by an edited copy
  of ``king/bots/rule_play.py`` (as ``scripts/policy_duel.py`` measures alone), at every
  seat, or with ``--own`` only at the bot's own turns.  ``search1`` keeps the rule
  policy either way.

    python scripts/search_experiments.py --oracle -- \\
        --bots "search:time=0.1,rule,rule,rule" --deals 40 --seed 4 --out oracle.jsonl

Everything after ``--`` goes to ``king arena`` (``--jobs 1`` is added).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit, prange

from king import arena
from king.bots import compiled, search
from king.bots.position import S_OVER, S_POINTS, S_TURN, play
from king.bots.rule_play import rule_card
from king.cli import app


def cheat() -> None:
    """Give every search bot the true hands as its worlds."""
    current: dict[str, Any] = {}
    act = arena._act

    def _act(bot: Any, game: Any, seat: int) -> None:
        current["game"] = game
        act(bot, game, seat)

    def _worlds(self: Any, view: Any, known: Any, sequence: Any, rng: Any, count: int,
                *rest: Any) -> Any:  # fmt: skip
        deal = current["game"].deal
        return np.array([[deal.hand(s).mask for s in range(4)]] * count, dtype=np.int64)

    arena._act = _act
    search.SearchBot._worlds = _worlds  # type: ignore[method-assign, assignment]


def _policy_duel() -> Any:
    """``scripts/policy_duel.py``, whose loader of a variant this shares."""
    path = Path(__file__).with_name("policy_duel.py")
    spec = importlib.util.spec_from_file_location("policy_duel", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def swap_rollouts(path: Path, own: bool) -> None:
    """Let ``search`` (not ``search1``) play its rollouts with the variant at ``path``."""
    module = _policy_duel().load_variant(path)
    variant_card = module.rule_card

    @njit(parallel=True, nogil=True)
    def rollouts(worlds: Any, base: Any, candidates: Any, me: int, contract: int,
                 trump: int, flags: int, tail: int, values: Any) -> None:  # fmt: skip
        for w in prange(worlds.shape[0]):
            state = base.copy()
            for seat in range(4):
                state[seat] = worlds[w, seat]
            for i in range(candidates.shape[0]):
                child = state.copy()
                play(child, candidates[i], contract, trump, flags)
                while not child[S_OVER]:
                    if own and child[S_TURN] != me:
                        card = rule_card(child, contract, trump, flags)
                    else:
                        card = variant_card(child, contract, trump, flags)
                    play(child, card, contract, trump, flags)
                values[w, i] = child[S_POINTS + me]

    plain = compiled.rule_rollouts
    method = search.SearchBot._rollouts

    def _rollouts(self: Any, *args: Any, **kwargs: Any) -> Any:
        # ``search1`` pins the old stand-in (top_stand_in False): it keeps the rule policy.
        compiled.rule_rollouts = rollouts if self.top_stand_in else plain
        try:
            return method(self, *args, **kwargs)
        finally:
            compiled.rule_rollouts = plain

    search.SearchBot._rollouts = _rollouts  # type: ignore[method-assign]


def main(argv: list[str]) -> None:
    cut = argv.index("--") if "--" in argv else len(argv)
    ours, theirs = argv[:cut], argv[cut + 1 :]
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--oracle", action="store_true")
    which.add_argument("--rollouts", type=Path, metavar="VARIANT.py")
    parser.add_argument("--own", action="store_true", help="the variant at the bot's turns only")
    args = parser.parse_args(ours)
    if not theirs:
        parser.error("give king arena's arguments after --")
    if args.oracle:
        cheat()
    else:
        if not args.rollouts.is_file():
            parser.error(f"{args.rollouts}: no such file")
        swap_rollouts(args.rollouts, args.own)
    app(["arena", *theirs, "--jobs", "1"])


if __name__ == "__main__":
    main(sys.argv[1:])
