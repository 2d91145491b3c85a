"""The tables of a server: one table's game, moves, deals and status (:mod:`.table`),
made of its seats (:mod:`.seats`), who is connected to it (:mod:`.audience`) and its
event log as it writes it (:mod:`.table_log`), each refusing with an
:class:`~.errors.ActionError`; the tables of this process (:mod:`.registry`), what each
seat is told (:mod:`.messages`), one connection's conversation (:mod:`.session`), tables
shared between processes (:mod:`.shared`) and the local game's table
(:mod:`.local_game`)."""
