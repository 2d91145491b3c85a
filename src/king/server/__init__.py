"""The game server: tables over HTTP, play over one WebSocket per connection, every
event in a SQLite log (see ``docs/web-protocol.md``).

* :mod:`king.server.protocol` — the messages, as pydantic models;
* :mod:`king.server.store` — the SQLite event log;
* :mod:`king.server.tables` — one table: seats, game, connections, its event log;
* :mod:`king.server.autoplay` — the bots that play a table's bot seats and absent people;
* :mod:`king.server.players` — which bots a table may have; their thread pool;
* :mod:`king.server.messages` — what each seat (or spectator) is told;
* :mod:`king.server.languages` — the page's language and the messages it is sent;
* :mod:`king.server.registry` — the tables of this process;
* :mod:`king.server.session` — one connection's side of the conversation;
* :mod:`king.server.app` — the FastAPI application;
* :mod:`king.server.run` — ``king serve`` and the local game;
* :mod:`king.server.process` — a server in a child process, for tests and benchmarks;
* :mod:`king.server.cardfaces` — the SVG card faces of the page.
"""

from king.server.config import ServerSettings

__all__ = ["ServerSettings"]
