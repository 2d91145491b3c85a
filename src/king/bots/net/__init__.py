"""The learned policy: a small network's card and declaration.

* :mod:`king.bots.net.bot` — the ``net`` bot and its model;
* :mod:`king.bots.net.play` — the position encoded, and the network's card;
* :mod:`king.bots.net.declare` — the network's declaration.
"""
