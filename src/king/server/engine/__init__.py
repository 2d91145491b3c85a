"""The computer players a server runs for its tables: the bot threads and their limits
(:mod:`.players`), bots playing seats and absent people (:mod:`.autoplay`), analysis of
records (:mod:`.analysis`, :mod:`.board`), hints (:mod:`.hints`) and getting the bots
ready before the first game (:mod:`.preparing`)."""
