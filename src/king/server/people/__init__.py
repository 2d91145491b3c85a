"""The people at a server's tables: accounts and logins (:mod:`.accounts`), shown names
(:mod:`.names`), the ledger of finished games (:mod:`.ledger`), ratings
(:mod:`.ratings`), game results (:mod:`.results`), and the service the tables and routes
ask about them (:mod:`.service`)."""
