"""A table's four seats: who sits where, who may take which seat, and the tokens that
prove a seat is one's own (the log keeps only their hashes)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

from king.bots import bot_player_name
from king.cards import Seat
from king.table.rules import RefusedError
from king.texts import seat_name

if TYPE_CHECKING:
    from king.server.people.accounts import Account

__all__ = [
    "NOWHERE",
    "Kind",
    "Origin",
    "Seats",
    "TableSeat",
    "clean_name",
    "hash_address",
    "hash_token",
    "new_token",
]

Kind = Literal["human", "bot"]


def hash_token(token: str) -> str:
    """What the log keeps of a seat's token: its SHA-256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


def hash_address(address: str) -> str:
    """What a table keeps of its creator's address: enough to count their open tables,
    not the address itself."""
    return hashlib.sha256(b"king-host:" + address.encode()).hexdigest()[:16]


def new_token() -> str:
    """A seat's secret token, as its person is given it."""
    return secrets.token_urlsafe(24)


def clean_name(name: str) -> str:
    """A display name without control characters or runs of spaces."""
    visible = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C")
    cleaned = " ".join(visible.split())
    if not cleaned:
        raise RefusedError("invalid", "a name needs at least one visible character")
    return cleaned[:32]


@dataclass(slots=True)
class TableSeat:
    """One of the four seats: a person's (claimed with a token) or a bot's."""

    number: int
    kind: Kind
    bot: str | None
    name: str | None = None
    token_hash: str | None = None
    #: The account of the person who took the seat (None for a bot, or a game older
    #: than accounts).
    account: str | None = None
    #: When the person was last connected (``time.monotonic``).
    away_since: float = 0.0
    #: Whether the person has come to the table since taking the seat (a friend who
    #: just joined is on their way, not away; seats read back from the log have).
    arrived: bool = True
    #: Where the person sat from, at a rated table (hashes; see :class:`Origin`).
    device: str | None = None
    address: str | None = None

    @property
    def claimed(self) -> bool:
        return self.kind == "bot" or self.token_hash is not None

    @property
    def player_name(self) -> str:
        """The name in the game record: the one the page shows for the seat, in English
        (``rule bot 2``), so that two bots of one kind stay apart."""
        if self.kind == "bot":
            return bot_player_name(str(self.bot), self.number)
        return self.name or f"seat {self.number}"


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a request to sit came from, as a rated table keeps it to seat one person
    once: :func:`hash_address` of the client's address and a hash of its browser's
    device cookie (None: not known)."""

    address: str | None = None
    device: str | None = None

    @classmethod
    def of(cls, address: str | None, device: str | None) -> Origin:
        """The origin of a client's address and device cookie, hashed."""
        return cls(
            None if address is None else hash_address(address),
            None
            if not device
            else hashlib.sha256(b"king-device:" + device.encode()).hexdigest()[:16],
        )

    def to_json(self) -> dict[str, str | None]:
        return {"address": self.address, "device": self.device}

    @classmethod
    def from_json(cls, data: object) -> Origin:
        """What :meth:`to_json` wrote (anything else: nowhere known)."""
        if not isinstance(data, dict):
            return cls()
        return cls(_text(data.get("address")), _text(data.get("device")))


NOWHERE = Origin()


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


class Seats(Sequence[TableSeat]):
    """A table's four seats, as its header set them and its ``join`` and ``token``
    events filled them; read as a sequence of :class:`TableSeat` by number."""

    def __init__(self, requests: object, now: float) -> None:
        """The seats the header asks for (``kind`` and ``bot`` of each), nobody in them
        yet; ``now`` (``time.monotonic``) counts as when each was last connected."""
        if not isinstance(requests, list) or len(requests) != 4:
            raise ValueError("a table has four seats")
        self._seats = [
            TableSeat(n, "bot" if s["kind"] == "bot" else "human", s.get("bot"), away_since=now)
            for n, s in enumerate(requests)
        ]

    @overload
    def __getitem__(self, index: int) -> TableSeat: ...
    @overload
    def __getitem__(self, index: slice) -> list[TableSeat]: ...
    def __getitem__(self, index: int | slice) -> TableSeat | list[TableSeat]:
        return self._seats[index]

    def __len__(self) -> int:
        return len(self._seats)

    def __iter__(self) -> Iterator[TableSeat]:
        return iter(self._seats)

    @property
    def all_claimed(self) -> bool:
        """Whether every seat has a bot or a person (the game can start)."""
        return all(seat.claimed for seat in self._seats)

    @property
    def people(self) -> int:
        """How many seats are people's (the others are bots')."""
        return sum(seat.kind == "human" for seat in self._seats)

    def requests(self) -> list[tuple[Kind, str | None]]:
        """The seats as a new table with the same players would ask for them."""
        return [(seat.kind, seat.bot) for seat in self._seats]

    # -- who may sit where --------------------------------------------------------------

    @staticmethod
    def name_for(name: str, account: Account | None) -> str:
        """The name a person sits under: a registered player's own, else ``name``
        cleaned (:func:`clean_name`, which refuses a name with nothing visible).  The
        local game's owner, who never logs in, sits under the name they give, as a guest
        does: their friends see it, not the word "You"."""
        name = clean_name(name)
        if account is not None and account.kind == "player" and account.name is not None:
            name = account.name
        return name

    def one_person_one_seat(
        self, account: Account | None, origin: Origin, per_address: int | None
    ) -> None:
        """Refuse a second seat at a rated table: to an account, to a browser
        (``origin.device``), or to an address that holds ``per_address`` (None: any
        number); and any seat to a person who is not registered."""
        if account is None or not account.registered:
            raise RefusedError(
                "account_needed", "a rated table seats registered players: log in first"
            )
        if any(s.account == account.id for s in self._seats):
            raise RefusedError("seated", "you already have a seat at this rated table")
        if origin.device is not None and any(s.device == origin.device for s in self._seats):
            raise RefusedError(
                "seated",
                "this browser already has a seat at this rated table: one person, one seat",
            )
        if per_address is not None and origin.address is not None:
            held = sum(1 for s in self._seats if s.address == origin.address)
            if held >= per_address:
                raise RefusedError(
                    "seated",
                    "your address already has a seat at this rated table: one person, one "
                    "seat (a server may allow more with --rated-seats-per-address)",
                )

    def free(self, seat: Seat | None) -> int:
        """The seat a person asking for ``seat`` gets (None: the first free one), or the
        :class:`RefusedError` that says why not."""
        if seat is None:
            free = [s.number for s in self._seats if not s.claimed]
            if not free:
                raise RefusedError("full", "every seat at this table is taken")
            seat = free[0]
        target = self._seats[seat]
        if target.kind == "bot":
            raise RefusedError("bot_seat", f"{seat_name(seat)} is played by a bot")
        if target.claimed:
            raise RefusedError("seat_taken", f"{seat_name(seat)} is already taken")
        return seat

    def taken_by(self, account: str) -> TableSeat:
        """The seat ``account`` took at this table (to take it back on another device)."""
        mine = [s for s in self._seats if s.account == account and s.token_hash is not None]
        if not mine:
            raise RefusedError("not_your_seat", "your account has no seat at this table")
        return mine[0]

    # -- the events that fill them ------------------------------------------------------

    @staticmethod
    def join_event(
        seat: Seat, name: str, token: str, account: Account | None, origin: Origin | None
    ) -> dict[str, Any]:
        """The ``join`` event that gives ``seat`` to ``name`` under ``token``; with
        ``origin`` (a rated table) where they sat from, as hashes, to seat one person
        once."""
        joined: dict[str, Any] = {"seat": seat, "name": name, "token": hash_token(token)}
        if account is not None:
            joined["account"] = account.id
        if origin is not None:
            joined.update(
                {key: value for key, value in origin.to_json().items() if value is not None}
            )
        return joined

    @staticmethod
    def token_event(seat: Seat, token: str) -> dict[str, Any]:
        """The ``token`` event that gives ``seat`` a new token (its account took it back)."""
        return {"seat": seat, "token": hash_token(token)}

    def fold(self, kind: str, data: dict[str, Any]) -> None:
        """A seat taken (``join``), or taken back by its account from another device
        (``token``: a new token); raises :class:`ValueError` for one that cannot be."""
        seat = self._seats[int(data["seat"])]
        if kind == "token":
            if seat.account is None or seat.token_hash is None:
                raise ValueError(f"{seat_name(seat.number)} has no account to take it back")
            seat.token_hash = str(data["token"])
            return
        if seat.kind != "human" or seat.token_hash is not None:
            raise ValueError(f"{seat_name(seat.number)} cannot be joined")
        seat.name = str(data["name"])
        seat.token_hash = str(data["token"])
        seat.account = _text(data.get("account"))
        seat.device = _text(data.get("device"))
        seat.address = _text(data.get("address"))

    def authenticate(self, token: str) -> int | None:
        """The seat this token was given for, or ``None``."""
        digest = hash_token(token)
        for seat in self._seats:
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                return seat.number
        return None
