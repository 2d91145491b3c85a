"""King (Turkish King, Rıfkı): the rules engine, game records and tools.

The core lives in small modules that need only the standard library:

* :mod:`king.cards` — suits, ranks, cards and card sets (52-bit masks);
* :mod:`king.rules` — contracts, points, toggles and presets;
* :mod:`king.deal` — the play of one deal and the single legality function;
* :mod:`king.game` — the 20-deal game with its declaration rules;
* :mod:`king.view` — what one seat may see;
* :mod:`king.record` — ``king-record/1`` game records.
"""

from king.cards import Card, CardParseError, CardSet, Rank, Suit
from king.deal import Deal, IllegalMoveError, Trick
from king.game import Game, GameStateError, IllegalDeclarationError, Phase
from king.rules import Contract, Declaration, Rules, RulesError
from king.view import SeatView

__version__ = "0.1.0"

__all__ = [
    "Card",
    "CardParseError",
    "CardSet",
    "Contract",
    "Deal",
    "Declaration",
    "Game",
    "GameStateError",
    "IllegalDeclarationError",
    "IllegalMoveError",
    "Phase",
    "Rank",
    "Rules",
    "RulesError",
    "SeatView",
    "Suit",
    "Trick",
    "__version__",
]
