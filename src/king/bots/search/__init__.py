"""The search bot and what it is made of: worlds sampled consistent with what a seat has
seen, played out in the engine, with a lookahead and an exact solver near the end.

* :mod:`king.bots.search.bot` — the ``search`` bot (and ``search1``, its baseline);
* :mod:`king.bots.search.sampler` — what each seat may hold, and worlds drawn from it;
* :mod:`king.bots.search.worlds` — the reference sampler the engine ports;
* :mod:`king.bots.search.lookahead` — a card valued by rollouts over sampled worlds;
* :mod:`king.bots.search.solver` — the exact solver of a deal's last tricks.
"""
