"""The HTTP side of the server: the FastAPI application assembled (:mod:`.app`) from one
router per area, the typed parts every route receives (:mod:`.services`), who a request
comes from (:mod:`.identity`), the refusals (:mod:`.errors`), play over WebSockets
(:mod:`.table_socket`) and the pages and their files (:mod:`.pages`)."""
