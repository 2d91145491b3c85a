"""The table both the server and the page's offline game seat people at, in the standard
library: the protocol a client speaks, defined once, and everything a table decides
alike, written once.

* :mod:`king.table.protocol` — each message a client sends, and the protocol's version;
* :mod:`king.table.answers` — each message a table sends, and its parts;
* :mod:`king.table.reading` — a message's envelope and fields, read and checked;
* :mod:`king.table.session` — one connection's side: who it is, what it may ask;
* :mod:`king.table.moves` — a move checked once, made, told as a public event;
* :mod:`king.table.rules` — why a move is refused, and how long a bot waits;
* :mod:`king.table.messages` — the builders of what a table tells the people at it.

The server (:mod:`king.server.tables`) wraps this core with its log, clock, relay and
audience; the offline game (:mod:`king.offline`) with the browser's storage.
"""
