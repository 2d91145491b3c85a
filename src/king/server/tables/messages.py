"""What each connection is told about the game, in the server's types: the builders of
:mod:`king.table.messages` (shared with the page's offline table) fed with the server's
pydantic pieces and written as JSON text."""

from __future__ import annotations

from king.cards import Seat
from king.game import Game
from king.server.protocol import ClockInfo
from king.table import messages
from king.table.messages import Message

__all__ = ["state_message"]


def state_message(
    game: Game,
    seat: Seat | None,
    seq: int,
    event: Message | None,
    clock: ClockInfo | None = None,
) -> str:
    """The ``state`` message for one seat (``None``: a spectator), as JSON text."""
    return messages.dumps(
        messages.state(
            game,
            seat,
            seq,
            event,
            None if clock is None else clock.model_dump(),
        )
    )
