"""Accounts and logins: guests, registered players and the person at the local ``king``.

A person who takes a seat without logging in gets a guest account and a session cookie,
so their games are theirs; registering turns that guest into a player with a name and a
password, games kept.  Passwords are hashed with argon2id (argon2-cffi's defaults, RFC
9106); only the hash is stored, and neither the password nor the session token is ever
logged.  A session is the SHA-256 of a random token that lives in an HttpOnly cookie;
registering and logging in end the session the browser had and start a new one, an
account keeps at most :attr:`LoginLimits.sessions` sessions (the oldest ends), and
logging out everywhere deletes every session of the account.

Every limit is counted in the database (so every server process counts the same) and
checked and counted in one transaction, before the work it guards: an attempt counts
as a failure until it has succeeded, so requests sent at once cannot slip past the
count.  Failed logins are limited per account (whatever spelling of its name was typed)
and per address; password hashes per address; registrations and guests per address.
A wrong password and an unknown name are answered alike, after the same work: an
unknown name is checked against a hash of the same cost.

Hashing takes a tenth of a second and 64 MiB: at most :attr:`LoginLimits.hash_slots`
run at once in a process and one per address (:class:`HashGate`), and a request that
finds no free slot is refused at once rather than queued.  The web layer runs the
methods that hash (:meth:`Accounts.register`, :meth:`Accounts.login`) in a thread.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from king.errors import KingError
from king.server.people.names import NameError_, check_name, name_keys
from king.server.store.event_log import EventStore, Sql, StoreError

__all__ = [
    "Account",
    "AccountError",
    "Accounts",
    "HashGate",
    "LoginLimits",
    "MAX_PASSWORD",
    "MIN_PASSWORD",
    "SESSION_DAYS",
]

Kind = Literal["guest", "player", "local"]

MIN_PASSWORD = 8
MAX_PASSWORD = 200
#: A session unused this long ends (each use renews it).
SESSION_DAYS = 60
_SESSION_SECONDS = SESSION_DAYS * 86400
#: How often a session's "last seen" is written (not on every request).
_SEEN_EVERY = 3600.0


@dataclass(frozen=True, slots=True)
class Account:
    """One account: ``name`` is None for a guest."""

    id: str
    name: str | None
    kind: Kind
    created: float

    @property
    def registered(self) -> bool:
        """A player with a name (or the local person): what rated tables and history
        links need."""
        return self.kind != "guest"


@dataclass(frozen=True, slots=True)
class LoginLimits:
    """The limits on logins, registrations, guests and sessions.  Each count is over the
    last ``window`` seconds: failed logins per account (``per_name``) and per address,
    registrations, password hashes and new guests per address."""

    per_name: int = 5
    per_address: int = 30
    registrations: int = 20
    hashes_per_address: int = 60
    guests_per_address: int = 30
    window: float = 900.0
    #: Sessions one account may have at once (a new one ends the oldest).
    sessions: int = 10
    #: Password hashes one process computes at once.
    hash_slots: int = 2


class AccountError(KingError, ValueError):
    """A refused account request: ``code`` is a stable word, the message a sentence, and
    ``retry_after`` says when a limited request may come again (seconds)."""

    def __init__(self, code: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


#: The one answer to a login whose name or password is wrong (which of them is not said).
BAD_LOGIN = "that name and password do not match an account"


class HashGate:
    """At most ``slots`` password hashes at once, and one per address: a request that
    finds the gate full is refused before it hashes (``busy``: the web layer answers
    503; ``too_many_attempts`` for a second one from an address: 429)."""

    def __init__(self, slots: int) -> None:
        self._free = threading.BoundedSemaphore(max(1, slots))
        self._addresses: set[str] = set()
        self._lock = threading.Lock()

    @contextmanager
    def slot(self, address: str | None) -> Iterator[None]:
        with self._lock:
            if address is not None and address in self._addresses:
                raise AccountError(
                    "too_many_attempts",
                    "a password from this address is being checked: wait for its answer",
                    retry_after=1.0,
                )
            if not self._free.acquire(blocking=False):
                raise AccountError(
                    "busy", "the server is busy checking passwords: try again", retry_after=1.0
                )
            if address is not None:
                self._addresses.add(address)
        try:
            yield
        finally:
            with self._lock:
                self._free.release()
                if address is not None:
                    self._addresses.discard(address)


@dataclass(frozen=True, slots=True)
class _Limit:
    """One count against a limit: its subject, its most, and what to say."""

    subject: str
    most: int
    what: str


def _session_id(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _row(row: tuple[object, ...]) -> Account:
    kind = str(row[2])
    assert kind in ("guest", "player", "local")
    return Account(
        str(row[0]),
        None if row[1] is None else str(row[1]),
        kind,  # type: ignore[arg-type]
        float(row[3]),  # type: ignore[arg-type]
    )


class Accounts:
    """The accounts of one server's database (the event log's, SQLite or PostgreSQL)."""

    def __init__(
        self,
        store: EventStore,
        limits: LoginLimits | None = None,
        hasher: PasswordHasher | None = None,
    ) -> None:
        self.store = store
        self.limits = limits or LoginLimits()
        self._hasher = hasher or PasswordHasher()
        self._gate = HashGate(self.limits.hash_slots)
        self._decoy_hash: str | None = None
        self._decoy_lock = threading.Lock()

    # -- accounts ---------------------------------------------------------------------

    def new_guest(self) -> Account:
        """A guest account not yet written: :meth:`save_guest` writes it once it has a
        seat (so that a request that seats nobody leaves nothing behind)."""
        return Account(secrets.token_urlsafe(12), None, "guest", time.time())

    def save_guest(self, account: Account, address: str | None) -> None:
        """Write a guest made by :meth:`new_guest` (again: nothing changes); refused
        when ``address`` has made as many guests as the limits allow."""
        limits = self.limits

        def work(sql: Sql) -> None:
            if sql.rows("SELECT 1 FROM king_accounts WHERE id = ?", (account.id,)):
                return
            if address is not None:
                _count(
                    sql,
                    [_Limit(f"guest:{address}", limits.guests_per_address, "too many new guests")],
                    limits.window,
                )
            sql.change(
                "INSERT INTO king_accounts (id, name, kind, password, created, seen) "
                "VALUES (?, NULL, 'guest', NULL, ?, ?)",
                (account.id, account.created, account.created),
            )

        self.store.run(work)

    def guest(self, address: str | None = None) -> Account:
        """A new guest account, written now."""
        account = self.new_guest()
        self.save_guest(account, address)
        return account

    def local(self, name: str) -> Account:
        """The person at the local ``king`` (made once, then the same one)."""

        def work(sql: Sql) -> Account:
            rows = sql.rows(
                "SELECT id, name, kind, created FROM king_accounts WHERE kind = 'local'"
            )
            if rows:
                return _row(rows[0])
            now = time.time()
            account = Account(secrets.token_urlsafe(12), name, "local", now)
            sql.change(
                "INSERT INTO king_accounts (id, name, kind, password, created, seen) "
                "VALUES (?, ?, 'local', NULL, ?, ?)",
                (account.id, name, now, now),
            )
            return account

        return self.store.run(work)

    def get(self, account_id: str) -> Account | None:
        rows = self.store.read(
            lambda sql: sql.rows(
                "SELECT id, name, kind, created FROM king_accounts WHERE id = ?", (account_id,)
            )
        )
        return _row(rows[0]) if rows else None

    def find(self, name: str) -> Account | None:
        """The registered account a reader would take ``name`` for (any case, any
        look-alike), or None."""
        keys = sorted(name_keys(name))
        marks = ", ".join("?" for _ in keys)
        rows = self.store.read(
            lambda sql: sql.rows(
                "SELECT DISTINCT a.id, a.name, a.kind, a.created FROM king_name_keys k "
                f"JOIN king_accounts a ON a.id = k.account WHERE k.key IN ({marks})",
                keys,
            )
        )
        return _row(rows[0]) if len(rows) == 1 else None

    def taken(self, name: str) -> bool:
        """Whether ``name``, or a name a reader could take for it, is an account's."""
        keys = sorted(name_keys(name))
        marks = ", ".join("?" for _ in keys)
        return bool(
            self.store.read(
                lambda sql: sql.rows(f"SELECT 1 FROM king_name_keys WHERE key IN ({marks})", keys)
            )
        )

    def names(self, account_ids: list[str]) -> dict[str, Account]:
        """The accounts of these ids that exist, by id."""
        if not account_ids:
            return {}
        marks = ", ".join("?" for _ in account_ids)
        rows = self.store.read(
            lambda sql: sql.rows(
                f"SELECT id, name, kind, created FROM king_accounts WHERE id IN ({marks})",
                account_ids,
            )
        )
        return {str(row[0]): _row(row) for row in rows}

    def register(
        self, name: str, password: str, address: str | None, guest: Account | None = None
    ) -> Account:
        """A registered player named ``name``: the ``guest`` account upgraded in place
        (its games stay its own), or a new account.  Refused before any hash: a name
        that breaks the rules of :mod:`king.server.people.names` or reads like a taken one, a
        password that is too short or too long, an address over its limits, a full
        :class:`HashGate`."""
        try:
            name = check_name(name)
        except NameError_ as error:
            raise AccountError(error.code, error.message) from None
        check_password(password, name)
        if self.taken(name):
            raise AccountError("name_taken", f"{name!r}, or a name that reads like it, is taken")
        limits = self.limits
        counted = []
        if address is not None:
            counted = [
                _Limit(
                    f"register:{address}",
                    limits.registrations,
                    "this address has registered as many accounts as it may for now",
                ),
                _Limit(f"hash:{address}", limits.hashes_per_address, "too many logins"),
            ]
        with self._gate.slot(address):
            self.store.run(lambda sql: _count(sql, counted, limits.window))
            digest = self._hasher.hash(password)
        try:
            return self.store.run(lambda sql: _registered(sql, name, digest, guest))
        except AccountError:
            raise
        except StoreError as error:
            # Two registrations of one name at once: the second meets the key's
            # uniqueness in the database.
            if self.taken(name):
                raise AccountError(
                    "name_taken", f"{name!r}, or a name that reads like it, is taken"
                ) from None
            raise error

    # -- logging in -------------------------------------------------------------------

    def login(self, name: str, password: str, address: str | None) -> Account:
        """The account whose name and password these are, or :class:`AccountError`:
        ``bad_login`` (the same for an unknown name and a wrong password),
        ``too_many_attempts`` once the account or the address has failed too often (or
        hashed too often), ``busy`` when the :class:`HashGate` is full."""
        account = self.find(name) if 0 < len(name) <= 64 else None
        limits = self.limits
        # One count per account, whatever spelling of its name was typed; an unknown
        # name counts under its own key, so that both are limited alike.
        subject = f"account:{account.id}" if account is not None else _name_subject(name)
        counted = [_Limit(subject, limits.per_name, "too many failed logins")]
        if address is not None:
            counted += [
                _Limit(f"address:{address}", limits.per_address, "too many failed logins"),
                _Limit(f"hash:{address}", limits.hashes_per_address, "too many logins"),
            ]
        with self._gate.slot(address):
            marks = self.store.run(lambda sql: _count(sql, counted, limits.window))
            digest = None
            if account is not None and account.kind == "player":
                rows = self.store.read(
                    lambda sql: sql.rows(
                        "SELECT password FROM king_accounts WHERE id = ?", (account.id,)
                    )
                )
                digest = rows[0][0] if rows and isinstance(rows[0][0], str) else None
            ok = self._verify(digest, password)
            fresh = None
            if ok and digest is not None and self._hasher.check_needs_rehash(digest):
                fresh = self._hasher.hash(password)
        if not ok or account is None:
            raise AccountError("bad_login", BAD_LOGIN)
        succeeded = {subject, f"address:{address}"}

        def passed(sql: Sql) -> None:
            # The attempts of this login were no failures; the account's earlier
            # failures are forgiven once its owner is in.
            sql.change("DELETE FROM king_login_failures WHERE subject = ?", (subject,))
            for limit, mark in zip(counted, marks, strict=True):
                if limit.subject in succeeded:
                    sql.change("DELETE FROM king_login_failures WHERE mark = ?", (mark,))
            if fresh is not None:
                sql.change(
                    "UPDATE king_accounts SET password = ? WHERE id = ?", (fresh, account.id)
                )

        self.store.run(passed)
        return account

    def _verify(self, digest: str | None, password: str) -> bool:
        try:
            return self._hasher.verify(digest if digest is not None else self._decoy(), password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def _decoy(self) -> str:
        """A hash of the same cost, checked when the name is unknown so that both
        answers take the same work (made at the first login, not at start-up)."""
        with self._decoy_lock:
            if self._decoy_hash is None:
                self._decoy_hash = self._hasher.hash(secrets.token_urlsafe(16))
            return self._decoy_hash

    # -- sessions ---------------------------------------------------------------------

    def open_session(self, account: Account, ending: str | None = None) -> str:
        """A new session for ``account``; returns its token (for the cookie only).  The
        session ``ending`` (the browser's token before) ends, and so does the oldest of
        the account's when it has as many as it may."""
        token = secrets.token_urlsafe(32)
        now = time.time()
        most = self.limits.sessions

        def work(sql: Sql) -> None:
            if ending:
                sql.change("DELETE FROM king_sessions WHERE id = ?", (_session_id(ending),))
            sql.lock(f"sessions:{account.id}")
            rows = sql.rows(
                "SELECT id FROM king_sessions WHERE account = ? ORDER BY seen DESC, created DESC",
                (account.id,),
            )
            for (old,) in rows[most - 1 :]:
                sql.change("DELETE FROM king_sessions WHERE id = ?", (old,))
            sql.change(
                "INSERT INTO king_sessions (id, account, created, seen, expires) "
                "VALUES (?, ?, ?, ?, ?)",
                (_session_id(token), account.id, now, now, now + _SESSION_SECONDS),
            )

        self.store.run(work)
        return token

    def session(self, token: str) -> Account | None:
        """The account of a live session, or None (renewing it now and then)."""
        if not token or len(token) > 128:
            return None
        session_id = _session_id(token)
        now = time.time()
        rows = self.store.read(
            lambda sql: sql.rows(
                "SELECT a.id, a.name, a.kind, a.created, s.seen FROM king_sessions s "
                "JOIN king_accounts a ON a.id = s.account WHERE s.id = ? AND s.expires > ?",
                (session_id, now),
            )
        )
        if not rows:
            return None
        if now - float(rows[0][4]) > _SEEN_EVERY:
            self.store.run(
                lambda sql: sql.change(
                    "UPDATE king_sessions SET seen = ?, expires = ? WHERE id = ?",
                    (now, now + _SESSION_SECONDS, session_id),
                )
            )
        return _row(rows[0][:4])

    def close_session(self, token: str) -> None:
        """Log this session out."""
        self.store.run(
            lambda sql: sql.change("DELETE FROM king_sessions WHERE id = ?", (_session_id(token),))
        )

    def close_sessions(self, account: Account) -> int:
        """Log the account out everywhere; returns how many sessions ended."""
        return self.store.run(
            lambda sql: sql.change("DELETE FROM king_sessions WHERE account = ?", (account.id,))
        )

    def sweep(self) -> int:
        """Delete the counts older than the limits' window and the expired sessions;
        returns how many rows went."""
        now = time.time()

        def work(sql: Sql) -> int:
            gone = sql.change(
                "DELETE FROM king_login_failures WHERE at <= ?", (now - self.limits.window,)
            )
            return gone + sql.change("DELETE FROM king_sessions WHERE expires <= ?", (now,))

        return self.store.run(work)

    def sessions(self, account: Account) -> int:
        """How many live sessions the account has."""
        rows = self.store.read(
            lambda sql: sql.rows(
                "SELECT COUNT(*) FROM king_sessions WHERE account = ? AND expires > ?",
                (account.id, time.time()),
            )
        )
        return int(rows[0][0])


def _name_subject(name: str) -> str:
    """The counter of a name that is nobody's (its smallest key)."""
    return f"name:{min(name_keys(name))}" if name else "name:"


def _count(sql: Sql, limits: list[_Limit], window: float) -> list[str]:
    """Check each limit and count one attempt against it, in the caller's transaction,
    under a lock per subject: returns the marks of the rows written (to take back the
    attempts that turn out not to count).  Raises ``too_many_attempts`` (and writes
    nothing) when any is at its most."""
    now = time.time()
    for limit in sorted(limits, key=lambda limit: limit.subject):
        sql.lock(f"limit:{limit.subject}")
    for limit in limits:
        count, oldest = sql.rows(
            "SELECT COUNT(*), MIN(at) FROM king_login_failures WHERE subject = ? AND at > ?",
            (limit.subject, now - window),
        )[0]
        if int(count) >= limit.most:
            wait = max(1.0, float(oldest) + window - now)
            raise AccountError(
                "too_many_attempts",
                f"{limit.what}: try again in {max(1, round(wait / 60))} min",
                retry_after=wait,
            )
    marks = []
    for limit in limits:
        mark = secrets.token_hex(8)
        sql.change(
            "INSERT INTO king_login_failures (subject, at, mark) VALUES (?, ?, ?)",
            (limit.subject, now, mark),
        )
        marks.append(mark)
    return marks


def _registered(sql: Sql, name: str, digest: str, guest: Account | None) -> Account:
    """Write a new player (or upgrade the guest) in the caller's transaction."""
    keys = sorted(name_keys(name))
    marks = ", ".join("?" for _ in keys)
    if sql.rows(f"SELECT 1 FROM king_name_keys WHERE key IN ({marks})", keys):
        raise AccountError("name_taken", f"{name!r}, or a name that reads like it, is taken")
    now = time.time()
    account_id: str | None = None
    created = now
    if guest is not None and guest.kind == "guest":
        changed = sql.change(
            "UPDATE king_accounts SET name = ?, kind = 'player', password = ?, seen = ? "
            "WHERE id = ? AND kind = 'guest'",
            (name, digest, now, guest.id),
        )
        if changed == 1:
            account_id, created = guest.id, guest.created
    if account_id is None:
        account_id = secrets.token_urlsafe(12)
        sql.change(
            "INSERT INTO king_accounts (id, name, kind, password, created, seen) "
            "VALUES (?, ?, 'player', ?, ?, ?)",
            (account_id, name, digest, now, now),
        )
    for key in keys:
        sql.change("INSERT INTO king_name_keys (key, account) VALUES (?, ?)", (key, account_id))
    return Account(account_id, name, "player", created)


def check_password(password: str, name: str = "") -> None:
    """Refuse a password that is too short, too long or the name itself (no rules of
    letter kinds: length is what makes a password strong)."""
    if len(password) < MIN_PASSWORD:
        raise AccountError("password_short", f"a password has at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise AccountError("password_long", f"a password has at most {MAX_PASSWORD} characters")
    if name and password.casefold() == name.casefold():
        raise AccountError("password_name", "a password cannot be the name")
