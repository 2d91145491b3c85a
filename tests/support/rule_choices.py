"""Print the rule policy's choice at every decision of seeded games of every preset:
``python -m tests.support.rule_choices plain|numpy POSITIONS`` (``plain`` hides numpy
first, as the browser has none), one line per position (its card or declaration).

The games mix seats played by the rule bot and by the random bot, so that the positions
are the kind both make; at every decision the rule policy is asked, whoever moves.
"""

from __future__ import annotations

import sys


def main(mode: str, positions: int) -> None:
    if mode == "plain":
        sys.modules["numpy"] = None  # type: ignore[assignment]  # `import numpy` fails
    from king.bots import make_bot
    from king.bots.arrays import PLAIN
    from king.bots.rule import choose_card
    from king.bots.rule_declare import choose_declaration
    from king.game import Game, Phase
    from king.rules import PRESETS

    hidden = mode == "plain"
    assert hidden is PLAIN, "numpy was not hidden" if hidden else "numpy did not import"
    lines: list[str] = []
    game_number = 0
    while len(lines) < positions:
        for preset, rules in PRESETS.items():
            game = Game(rules, seed=game_number)
            kinds = ("rule", "random") if game_number % 2 else ("random", "rule")
            bots = [make_bot(kinds[seat % 2], seed=game_number * 4 + seat) for seat in range(4)]
            while not game.is_over:
                seat = game.to_act
                assert seat is not None
                view = game.view(seat)
                if game.phase is Phase.DECLARING:
                    lines.append(f"{preset} {game_number} {choose_declaration(view)}")
                else:
                    lines.append(f"{preset} {game_number} {choose_card(view)}")
                game.act(bots[seat].act(view))
            game_number += 1
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
