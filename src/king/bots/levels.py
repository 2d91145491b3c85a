"""The computer players as people choose them: five levels from Beginner to Expert.

Each level is a registered bot (``--bots medium``, a table's seat, a rated player of its
own) standing for one bot spec, chosen by measurement: every level against three
``rule`` bots in duplicate deals (``king arena``; docs/bots.md has the table and the
commands), the steps roughly even from well below ``rule`` to the strongest, each
level's interval clear of the next (Hard's and Expert's overlap by 0.6 points since the
engine: docs/bots.md).  The weaker levels play like weaker people (the rule
bot forgetting what was played, and now and then a careless but never absurd card), not
like dice.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_LEVEL", "LEVELS", "OFFLINE_BOTS", "Level", "level_of", "level_word"]


@dataclass(frozen=True, slots=True)
class Level:
    """A level: its name (a bot name, and the key of its words in every language), the
    bot spec that plays it, and whether it plays with the engine (:mod:`king.bots.engine`:
    the search bot)."""

    name: str
    spec: str
    engine: bool = False
    #: Measured: points per deal above par against three ``rule`` bots, ± the 95%
    #: interval (docs/bots.md: the command and the run).
    vs_rule: float | None = None
    interval: float | None = None


#: The levels, weakest first.
#: The figures: ``king arena --bots LEVEL,rule,rule,rule --deals 140 --seed 7``
#: (140 deals x 4 seats, 2026-12-05, 2 cores; Hard and Expert on the engine in
#: WebAssembly, 2026-12-06; docs/bots.md).
LEVELS: tuple[Level, ...] = (
    Level("beginner", "rule:forget=1&careless=0.3", vs_rule=-44.1, interval=9.0),
    Level("easy", "rule:forget=1", vs_rule=-15.6, interval=6.3),
    Level("medium", "rule", vs_rule=0.0, interval=0.0),
    Level("hard", "search:time=0.03&threads=1&worlds=200", True, 17.3, 5.5),
    Level("expert", "search:time=0.1", True, 27.6, 5.4),
)
#: The bots the offline game seats (in the browser's Python, with the page's own
#: engine): every level, then the rule and random bots.
OFFLINE_BOTS = (*(level.name for level in LEVELS), "rule", "random")

#: The level a person plays against until they choose another.
DEFAULT_LEVEL = "medium"


def level_of(name: str) -> Level | None:
    """The level called ``name`` (a bot name), or None."""
    return next((level for level in LEVELS if level.name == name), None)


def level_word(spec: str | None) -> str | None:
    """The word a player reads for a bot of ``spec``: a level's name (``medium`` for a
    level's own name or its spec, so ``rule`` is Medium), ``random``, or None for an
    engine at settings of its own, which a page calls a computer player.  The key of
    the words in every language (``level.<word>``): no engine's spec reaches a screen.

    >>> level_word("rule"), level_word("hard"), level_word("random"), level_word("search")
    ('medium', 'hard', 'random', None)
    """
    if spec is None:
        return None
    spec = spec.strip().lower()
    for level in LEVELS:
        if spec in (level.name, level.spec):
            return level.name
    return "random" if spec == "random" else None
