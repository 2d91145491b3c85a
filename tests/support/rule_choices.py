"""Print the rule policy's choice at every decision of seeded games of every preset, by
its Python source (the reference of the engine's port, and the declarations the
browser's offline game makes): ``python -m tests.support.rule_choices plain|numpy
POSITIONS`` (``plain`` hides numpy first, as the browser has none), one line per
position (its card or declaration).

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
    from king.bots.position import from_view
    from king.bots.rule.declare import choose_declaration
    from king.bots.rule.play import rule_card
    from king.cards import DECK, Card
    from king.game import Action, Game, Phase
    from king.rules import PRESETS

    hidden = mode == "plain"
    assert hidden is PLAIN, "numpy was not hidden" if hidden else "numpy did not import"
    lines: list[str] = []
    game_number = 0
    while len(lines) < positions:
        for preset, rules in PRESETS.items():
            game = Game(rules, seed=game_number)
            ruled = 0 if game_number % 2 else 1  # the seats of this parity play the policy
            chance = [make_bot("random", seed=game_number * 4 + seat) for seat in range(4)]
            while not game.is_over:
                seat = game.to_act
                assert seat is not None
                view = game.view(seat)
                if game.phase is Phase.DECLARING:
                    choice: Action = choose_declaration(view)
                else:
                    code = view.contract.code if view.contract is not None else -1
                    trump = -1 if view.trump is None else int(view.trump)
                    choice = DECK[int(rule_card(from_view(view), code, trump, view.rules.flags))]
                written = choice.id if isinstance(choice, Card) else choice
                lines.append(f"{preset} {game_number} {written}")
                game.act(choice if seat % 2 == ruled else chance[seat].act(view))
            game_number += 1
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
