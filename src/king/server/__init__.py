"""The game server: tables over HTTP, play over one WebSocket per connection, every
event in a durable log (see ``docs/web-protocol.md`` and ``docs/design.md``).

Its parts, from the process down to the log (``lint-imports`` keeps the order):

* :mod:`king.server.run` — ``king serve`` and the local game: the process itself;
* :mod:`king.server.http` — the FastAPI application, its routes and the page's files;
* :mod:`king.server.tables` — tables, their registry, connections, shared tables;
* :mod:`king.server.people` — accounts, names, the ledger of results, ratings;
* :mod:`king.server.engine` — the bots a table runs: threads, analysis, hints;
* :mod:`king.server.config` — the settings of a server;
* :mod:`king.server.relay` — leases and the bus that let processes share tables;
* :mod:`king.server.store` — the event log and its SQLite and PostgreSQL backends;
* :mod:`king.server.protocol`, :mod:`king.server.clock`, :mod:`king.server.metrics`,
  :mod:`king.server.logs`, :mod:`king.server.config_file` — the messages, the move
  clock, the counters, the log lines and the configuration file every part may use.
"""

from king.server.config import ServerSettings

__all__ = ["ServerSettings"]
