"""The tables of a server: one table's seats, game and log (:mod:`.table`), the tables
of this process (:mod:`.registry`), what each seat is told (:mod:`.messages`), one
connection's conversation (:mod:`.session`), tables shared between processes
(:mod:`.shared`) and the local game's table (:mod:`.local_game`)."""
