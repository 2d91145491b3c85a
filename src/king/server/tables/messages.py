"""What each connection is told about the game, in the server's types: the builders of
:mod:`king.messages` (shared with the page's offline table) fed with the server's
pydantic pieces and written as JSON text."""

from __future__ import annotations

from king import messages
from king.cards import Seat
from king.game import Game
from king.server.protocol import ClockInfo, PublicEvent

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
            None if event is None else event.model_dump(),
            None if clock is None else clock.model_dump(),
        )
    )
