"""What a browser is given to keep: the offline game's files (the Python bundle its
worker runs, the service worker, the build they belong to: :mod:`.offline`), the pages'
languages (:mod:`.languages`), and the static site that serves the game with no server
at all (:mod:`.static`)."""
