"""The tables of a server: one table's game, moves, deals and status (:mod:`.table`),
made of its seats (:mod:`.seats`), who is connected to it (:mod:`.audience`) and its
event log as it writes it (:mod:`.table_log`), each refusing with an
:class:`~king.table.rules.RefusedError`; the tables of this process (:mod:`.registry`),
what each seat is told (:mod:`.messages`), the tables as the routes reach them
(:mod:`.tables`: one interface, this process's tables or those shared between processes,
:mod:`.shared`, whose owners answer each other's requests, :mod:`.calls`) and the local
game's table (:mod:`.local_game`).  Each connection's
side of the protocol is the one table core's (:mod:`king.table.session`)."""
