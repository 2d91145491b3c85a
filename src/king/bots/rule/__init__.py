"""The rule policy: a heuristic player that counts cards, ducks, sheds and draws trumps.

* :mod:`king.bots.rule.bot` — the ``rule`` bot (its cards played in the engine);
* :mod:`king.bots.rule.declare` — how it chooses a declaration;
* :mod:`king.bots.rule.play` — its card, as the readable reference the engine ports.
"""
