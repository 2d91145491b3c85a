"""The HTTP side of the server: the FastAPI application (:mod:`.app`), the routes for
people (:mod:`.people_api`) and the local game (:mod:`.local_api`), the offline bundle
(:mod:`.offline`), readiness probes (:mod:`.readiness`), the page's language
(:mod:`.languages`) and the address phones reach (:mod:`.lan`)."""
