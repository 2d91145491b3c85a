"""The event log every table writes before it answers: the store's interface
(:mod:`.event_log`), its SQLite and PostgreSQL backends, the accounts' schema, and
opening a database by its address (:mod:`.database`)."""
