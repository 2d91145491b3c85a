"""The game without a server: a table for one person and computer players that runs in
the page itself (a Web Worker under Pyodide), in the standard library alone.

* :mod:`king.offline.requests` — the person's messages, read and checked;
* :mod:`king.offline.table` — the table: the server's messages, built by
  :mod:`king.messages`, for one person and bots that need no engine;
* :mod:`king.offline.saved` — the game as the browser keeps it after every card.

docs/offline.md tells how the page installs, stores and updates it.
"""
