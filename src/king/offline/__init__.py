"""The game without a server: a table for one person and computer players that runs in
the page itself (a Web Worker under Pyodide), in the standard library alone.

* :mod:`king.offline.table` — the table for one person and computer players, on the
  core the server's table stands on too (:mod:`king.table`);
* :mod:`king.offline.saved` — the game as the browser keeps it after every card.

docs/offline.md tells how the page installs, stores and updates it.
"""
