"""Two experiments on the search bot that no option should offer, run as ``king arena``
in this process (``--jobs 1``: the changes live in this interpreter):

- ``--oracle``: every ``search`` bot's worlds are the true hands (it cheats), a ceiling
  on what its inference could ever give;
- ``--rollouts VARIANT.c``: the ``search`` bots' rollouts are played by an edited copy
  of ``engine/rule_play.c`` (as ``scripts/policy_duel.py`` measures alone), built into
  an engine of its own with the pinned zig (``pip install .[engine]``), at every seat,
  or with ``--own`` only at the bot's own turns.  ``search1`` keeps the rule policy
  either way.

    python scripts/search_experiments.py --oracle -- \\
        --bots "search:time=0.1,rule,rule,rule" --deals 40 --seed 4 --out oracle.jsonl

Everything after ``--`` goes to ``king arena`` (``--jobs 1`` is added).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from king import arena
from king.bots import engine
from king.bots.engine.instance import Instance, split
from king.bots.search import bot as search
from king.cli import app

BUILD = Path(__file__).resolve().parent.parent / "engine" / "build.py"

#: Appended to the variant (which ``engine/build.py`` compiles with its entry points
#: renamed ``variant_*``): the rollouts of ``king_rule_rollouts`` to the end of the
#: deal, the variant playing every seat, or with ``own`` only ``me``, the engine's
#: rule policy the others.
ROLLOUTS = """
/* -- scripts/search_experiments.py: the rollouts with the variant ------------------- */
#undef rule_card
#undef rule_playout
#undef best_reply
#include "api.h"

int rule_card(const i64 *state, int contract, int trump, int flags);

EXPORT(king_variant_rollouts)
int king_variant_rollouts(int worlds_at, int n_worlds, int base_at, int candidates_at,
                          int n_candidates, int me, int contract, int trump, int flags,
                          int own, int values_at) {
    if (n_worlds < 0 || n_candidates < 1 || n_candidates > 13) return KING_E_COUNT;
    const i64 *worlds = area(worlds_at, 4 * (i64)n_worlds);
    const i64 *base = area(base_at, STATE_SIZE);
    const i64 *candidates = area(candidates_at, n_candidates);
    i64 *values = area(values_at, (i64)n_worlds * n_candidates);
    if (!worlds || !base || !candidates || !values) return KING_E_BOUNDS;
    if (!game_ok(contract, trump, flags) || !seat_ok(me) || !in_range(own, 0, 1)) {
        return KING_E_GAME;
    }
    i64 state[STATE_SIZE];
    i64 child[STATE_SIZE];
    for (int w = 0; w < n_worlds; w++) {
        int status = rollout_world(state, base, worlds + 4 * w, candidates, n_candidates, me,
                                   contract, trump, flags);
        if (status) return status;
        for (int i = 0; i < n_candidates; i++) {
            for (int k = 0; k < STATE_SIZE; k++) child[k] = state[k];
            play(child, (int)candidates[i], contract, trump, flags);
            while (!child[S_OVER]) {
                int card = own && child[S_TURN] != me
                               ? rule_card(child, contract, trump, flags)
                               : variant_rule_card(child, contract, trump, flags);
                play(child, card, contract, trump, flags);
            }
            values[(i64)w * n_candidates + i] = child[S_POINTS + me];
        }
    }
    return 0;
}
"""


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


def build_rollouts(path: Path) -> bytes:
    """The engine built with the edited copy of ``rule_play.c`` at ``path`` and the
    rollouts that play it (:data:`ROLLOUTS`)."""
    text = path.read_text(encoding="utf-8")
    if "int rule_card(" not in text:  # (the rollouts appended declare one)
        raise SystemExit(f"{path}: not a copy of engine/rule_play.c (no rule_card)")
    spec = importlib.util.spec_from_file_location("engine_build", BUILD)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{BUILD}: the engine's build script is missing")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "variant_rollouts.c"
        source.write_text(text + ROLLOUTS, encoding="utf-8")
        out = Path(folder) / "variant.wasm"
        try:
            build.build_variant(source, out)
        except subprocess.CalledProcessError:
            raise SystemExit(f"{path}: the variant does not compile (the errors above)") from None
        return out.read_bytes()


def variant_rollouts(wasm: bytes, own: bool) -> Any:
    """:func:`king.bots.engine.rule_rollouts` (its ``tail`` unused: the variant plays
    each rollout to the end) with the variant's engine, one instance per thread."""
    local = threading.local()

    def rollouts(worlds: NDArray[np.int64], base: NDArray[np.int64],
                 candidates: NDArray[np.int64], me: int, contract: int, trump: int,
                 flags: int, tail: int, values: NDArray[np.int64],
                 threads: int = 1) -> None:  # fmt: skip
        count = len(candidates)

        def run(start: int, stop: int) -> None:
            mine = getattr(local, "instance", None)
            if mine is None:
                mine = local.instance = Instance(wasm)
            at_worlds = mine.put(worlds[start:stop])
            at_base = mine.put(base)
            at_cards = mine.put(np.asarray(candidates, dtype=np.int64))
            at_values = mine.room((stop - start) * count)
            out = mine.words(at_values, (stop - start) * count)
            mine.call(
                "king_variant_rollouts", at_worlds, stop - start, at_base, at_cards, count,
                int(me), int(contract), int(trump), int(flags), int(own), at_values,
            )  # fmt: skip
            values[start:stop] = out.reshape(stop - start, count)

        split(len(worlds), threads, run)

    return rollouts


def swap_rollouts(path: Path, own: bool) -> None:
    """Let ``search`` (not ``search1``) play its rollouts with the variant at ``path``."""
    rollouts = variant_rollouts(build_rollouts(path), own)
    plain = engine.rule_rollouts
    method = search.SearchBot._rollouts

    def _rollouts(self: Any, *args: Any, **kwargs: Any) -> Any:
        # ``search1`` pins the old stand-in (top_stand_in False): it keeps the rule policy.
        engine.rule_rollouts = rollouts if self.top_stand_in else plain
        try:
            return method(self, *args, **kwargs)
        finally:
            engine.rule_rollouts = plain

    search.SearchBot._rollouts = _rollouts  # type: ignore[method-assign]


def main(argv: list[str]) -> None:
    cut = argv.index("--") if "--" in argv else len(argv)
    ours, theirs = argv[:cut], argv[cut + 1 :]
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--oracle", action="store_true")
    which.add_argument("--rollouts", type=Path, metavar="VARIANT.c")
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
