"""The one base of the errors king raises on purpose.

Every error the project itself refuses with (a card string that is not a card, an
illegal move, a record that does not replay, a database another server holds, a bot
spec with no such bot) is a :class:`KingError`, and also the built-in kind it always
was (``ValueError`` for bad input, ``RuntimeError`` for a service that failed): so
``except KingError`` catches what king refuses and lets a bug through, and older
``except ValueError`` code keeps working.

>>> from king.cards import Card, CardParseError
>>> try:
...     Card.parse("1Z")
... except KingError as error:
...     isinstance(error, CardParseError) and isinstance(error, ValueError)
True
"""

from __future__ import annotations

__all__ = ["KingError"]


class KingError(Exception):
    """An error king raises on purpose; its message says what was wrong."""
