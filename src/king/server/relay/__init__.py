"""What lets several server processes share tables through Redis: leases that say which
process owns a table (:mod:`.lease`), the bus that carries moves to the owner and news
back (:mod:`.bus`), and the versions of the processes present (:mod:`.members`)."""
