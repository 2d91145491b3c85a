"""``king play``: the game in a terminal, one person against three bots (Textual).

:mod:`king.tui.app` runs the screen; :mod:`king.tui.session` keeps the table (game,
seats, bots, saving); :mod:`king.tui.render` and :mod:`king.tui.widgets` draw it.
"""
