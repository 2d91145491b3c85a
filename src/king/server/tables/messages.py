"""What each connection is told about the game: the ``state`` of
:mod:`king.table.messages` (shared with the page's offline table) as JSON text."""

from __future__ import annotations

from king.cards import Seat
from king.game import Game
from king.table import messages
from king.table.answers import ClockInfo, PublicEvent

__all__ = ["state_message"]


def state_message(
    game: Game,
    seat: Seat | None,
    seq: int,
    event: PublicEvent | None,
    clock: ClockInfo | None = None,
) -> str:
    """The ``state`` message for one seat (``None``: a spectator), as JSON text."""
    return messages.dumps(
        messages.state(
            game,
            seat,
            seq,
            event,
            clock,
        )
    )
