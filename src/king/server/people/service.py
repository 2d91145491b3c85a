"""The people at a server's tables: their accounts (:mod:`king.server.people.accounts`) and
their ledger (:mod:`king.server.people.ledger`), joined to the tables: who sits where, what each
seat shows beside its name, and what a finished game leaves behind."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from king.bots.levels import LEVELS
from king.rules import PRESETS
from king.server.people.accounts import Account, Accounts, LoginLimits
from king.server.people.ledger import BOT_PREFIX, Ledger, RatingChange, bot_player
from king.server.people.ratings import HOUSE_RATINGS, Rating, shown
from king.server.store.event_log import EventStore, StoreError
from king.texts import seat_name

if TYPE_CHECKING:
    from king.server.tables.table import Table

__all__ = ["HOUSE_BOTS", "RATED_BOTS", "People", "PlayerRef", "Profile", "rated_refusal"]

log = logging.getLogger("king.server")

#: The bots that play as players of their own, at their defaults (a page each).
HOUSE_BOTS = ("random", "rule", "search", *(level.name for level in LEVELS))
#: The bots a rated table may seat: those with a measured rating (the levels, ``rule``
#: and ``search``: :data:`king.server.people.ratings.HOUSE_RATINGS`), each a player of its own;
#: beating a weak one lifts a person only to just above it (``ratings.capped``).
RATED_BOTS = tuple(HOUSE_RATINGS)


@dataclass(frozen=True, slots=True)
class Profile:
    """What a seat shows beside its name: the player's page (``/players/{player}``: a
    registered name, or ``bot:<spec>``) and the rating."""

    player: str | None
    rating: int | None
    provisional: bool


@dataclass(frozen=True, slots=True)
class PlayerRef:
    """A player as pages name them: the name shown, the page (``/players/{ref}``: the
    name, or ``bot:<spec>``) and the kind (``player``, ``local`` or ``bot``)."""

    name: str
    ref: str
    kind: str


def rated_refusal(rules: object, hints: bool, seats: list[tuple[str, str | None]]) -> str | None:
    """Why a table with these settings cannot be rated, or None: a rated game is played
    by a rules preset, with no hints, bots with a measured rating at their defaults
    (:data:`RATED_BOTS`) and at least one person."""
    if not isinstance(rules, str) or rules.strip().lower() not in PRESETS:
        return f"a rated game is played by a rules preset ({', '.join(PRESETS)})"
    if hints:
        return "a rated game is played without hints"
    for number, (kind, bot) in enumerate(seats):
        if kind == "bot" and bot not in RATED_BOTS:
            return (
                f"{seat_name(number)}: a rated game seats only bots with a measured rating, "
                f"at their defaults ({', '.join(RATED_BOTS)})"
            )
    if all(kind == "bot" for kind, _ in seats):
        return "a rated game needs at least one person"
    return None


class People:
    """Accounts and the ledger of one server's database."""

    def __init__(self, store: EventStore, limits: LoginLimits | None = None) -> None:
        self.accounts = Accounts(store, limits)
        self.ledger = Ledger(store)

    def player_ids(self, table: Table) -> list[str | None]:
        """Each seat's player: its account, ``bot:<spec>``, or None (a person of a game
        older than accounts)."""
        return [
            bot_player(seat.bot or "?") if seat.kind == "bot" else seat.account
            for seat in table.seats
        ]

    def refs(self, players: Iterable[str | None]) -> dict[str, PlayerRef]:
        """The name and page of each of these players that has them: registered
        accounts and bots (a guest has no page)."""
        wanted = {p for p in players if p is not None}
        accounts = self.accounts.names([p for p in wanted if not p.startswith(BOT_PREFIX)])
        found: dict[str, PlayerRef] = {}
        for player in wanted:
            if player.startswith(BOT_PREFIX):
                found[player] = PlayerRef(player[len(BOT_PREFIX) :], player, "bot")
                continue
            account = accounts.get(player)
            if account is not None and account.registered and account.name is not None:
                found[player] = PlayerRef(account.name, account.name, account.kind)
        return found

    def profiles(self, table: Table) -> dict[int, Profile]:
        """What each seat shows beside its name now."""
        players = self.player_ids(table)
        refs = self.refs(players)
        ratings = self.ledger.ratings([p for p in players if p is not None])
        shown_profiles: dict[int, Profile] = {}
        for seat, player in enumerate(players):
            if player is None:
                continue
            rating = ratings.get(player) or _house_rating(player)
            ref = refs.get(player)
            shown_profiles[seat] = Profile(
                ref.ref if ref is not None else None,
                None if rating is None else shown(rating[0]),
                rating is not None and rating[0].provisional,
            )
        return shown_profiles

    def index_seats(self, table: Table) -> None:
        """Index the table's seats taken by accounts (the ``join`` events say so; a
        crash between an event and its index is mended when the table is loaded)."""
        for seat in table.seats:
            if seat.account is not None:
                self.ledger.note_seat(table.id, seat.number, seat.account, table.created)

    def finish(self, table: Table) -> list[RatingChange]:
        """Write a finished game's results (and rate it, if it is rated); nothing twice.
        A failure is logged and mended the next time the table is loaded."""
        spec = table.rules.to_spec()
        try:
            return self.ledger.record_game(
                table.id,
                table.game,
                players=self.player_ids(table),
                names=[seat.player_name for seat in table.seats],
                rules=spec if isinstance(spec, str) else "custom",
                rated=table.rated,
            )
        except StoreError as error:
            log.error("table %s: its results were not written: %s", table.id, error)
            return []

    def account(self, account_id: str | None) -> Account | None:
        return None if account_id is None else self.accounts.get(account_id)


def _house_rating(player: str) -> tuple[Rating, int] | None:
    """A house bot's fixed rating before its first rated game (its own page's too)."""
    name = player.removeprefix(BOT_PREFIX)
    if name == player or name not in HOUSE_RATINGS:
        return None
    return HOUSE_RATINGS[name], 0
