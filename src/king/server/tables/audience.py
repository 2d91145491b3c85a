"""Who is connected to a table (people at their seats and spectators) and what goes to
all of them: the bots' pace they ask for, their quick reactions, each seat's state."""

from __future__ import annotations

import time

from king.cards import Seat
from king.game import Game
from king.server.config import ServerSettings
from king.server.tables.messages import state_message
from king.table import messages
from king.table.answers import ClockInfo, PublicEvent
from king.table.protocol import SPEED_FACTORS, SpeedChoice
from king.table.rules import RefusedError
from king.table.session import Client

__all__ = ["REACTION_GAP", "Audience"]

#: The shortest time between two quick reactions from one seat, or one person, in
#: seconds (however many connections they open).
REACTION_GAP = 1.0


class Audience:
    """A table's connections, each at a seat or watching, with the bot speed each asked
    for; nothing here waits (each :meth:`Client.send` only queues)."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        #: Each connection and its seat (None: a spectator).
        self._clients: dict[Client, int | None] = {}
        #: The bot speed each connection asked for (those that said nothing: normal).
        self._speeds: dict[Client, SpeedChoice] = {}
        #: When each seat (an int) and each person (their account's id) last reacted
        #: (``time.monotonic``).
        self._reacted: dict[int | str, float] = {}

    # -- who is here ------------------------------------------------------------------

    def check_room(self, seat: Seat | None) -> None:
        """Refuse a spectator (``seat`` None) once the table has as many as it takes."""
        if seat is None and self.spectators >= self.settings.max_spectators:
            raise RefusedError("full", "this table has as many spectators as it can take")

    def add(self, client: Client, seat: Seat | None) -> None:
        """Count ``client`` in, at ``seat`` (None: watching)."""
        self._clients[client] = seat

    def remove(self, client: Client) -> int | None:
        """Forget ``client`` (attached) and what it asked for; returns its seat."""
        seat = self._clients.pop(client)
        self._speeds.pop(client, None)
        return seat

    def is_attached(self, client: Client) -> bool:
        """Whether this connection is still at the table (a seat taken back from
        another device detaches the old one's connections)."""
        return client in self._clients

    def connected(self, seat: Seat) -> bool:
        """Whether a person is connected to ``seat`` now."""
        return any(s == seat for s in self._clients.values())

    def connections(self) -> list[Client]:
        """Every connection to the table now (players and spectators)."""
        return list(self._clients)

    def at_seat(self, seat: Seat) -> list[Client]:
        """The connections to ``seat`` now."""
        return [client for client, at in list(self._clients.items()) if at == seat]

    @property
    def has_clients(self) -> bool:
        return bool(self._clients)

    @property
    def spectators(self) -> int:
        return sum(1 for s in self._clients.values() if s is None)

    # -- the bots' speed --------------------------------------------------------------

    @property
    def speed(self) -> SpeedChoice:
        """How fast the bots move: the slowest choice of the people seated and connected,
        or of the spectators while nobody sits (nobody is hurried past what they follow)."""
        seated = [c for c, seat in self._clients.items() if seat is not None]
        asking = seated or list(self._clients)
        if not asking:
            return "normal"
        return max(
            (self._speeds.get(client, "normal") for client in asking),
            key=lambda speed: SPEED_FACTORS[speed],
        )

    @property
    def bot_pause(self) -> float:
        """Seconds a bot waits before it moves, at the table's speed now."""
        return self.settings.bot_pause * SPEED_FACTORS[self.speed]

    def set_speed(self, client: Client, speed: SpeedChoice) -> None:
        """Note the speed a connection asks for; everyone hears the table's new pace
        when it changes, and the asker always hears it."""
        before = self.speed
        self._speeds[client] = speed
        if self.speed != before:
            self.announce_pace()
        else:
            client.send(self._pace_message())

    def _pace_message(self) -> str:
        return messages.dumps(messages.pace(self.speed, round(self.bot_pause * 1000)))

    def announce_pace(self) -> None:
        """Tell everyone connected the table's pace now."""
        self.tell_all(self._pace_message())

    # -- telling everyone -------------------------------------------------------------

    def react(self, seat: Seat, person: str | None, phrase: str, *, among_friends: bool) -> None:
        """Show everyone a person's quick reaction (one of the fixed
        :data:`~king.table.messages.REACTIONS`), at most one a second from a seat and from a
        ``person`` (their account, which may hold two seats), whatever the number of
        sockets they send it on, and only ``among_friends`` (two people or more)."""
        if phrase not in messages.REACTIONS:
            known = ", ".join(messages.REACTIONS)
            raise RefusedError("invalid", f"phrase: one of {known}, not {phrase[:20]!r}")
        if not among_friends:
            raise RefusedError("no_friends", "reactions are for a table of friends")
        now = time.monotonic()
        senders: list[int | str] = [seat] if person is None else [seat, person]
        if any(now - self._reacted.get(sender, -1e9) < REACTION_GAP for sender in senders):
            raise RefusedError("too_fast", "one reaction a second: wait a moment")
        for sender in senders:
            self._reacted[sender] = now
        self.tell_all(messages.dumps(messages.reaction(seat, phrase)))

    def tell_all(self, text: str) -> None:
        """Send ``text`` to every connection."""
        for client in list(self._clients):
            client.send(text)

    def tell_state(self, game: Game, seq: int, event: PublicEvent, clock: ClockInfo | None) -> None:
        """Send each connection the ``state`` of the game from its seat (a spectator's:
        no hand), after ``event``; one text is built per seat."""
        texts: dict[int | None, str] = {}
        for client, seat in list(self._clients.items()):
            text = texts.get(seat)
            if text is None:
                text = texts[seat] = state_message(game, seat, seq, event, clock)
            client.send(text)
