"""Accounts and logins: guests, registered players and the person at the local ``king``.

A person who sits at a table without logging in gets a guest account and a session
cookie, so their games are theirs; registering turns that guest into a player with a
name and a password, games kept.  Passwords are hashed with argon2id (argon2-cffi's
defaults, RFC 9106); only the hash is stored, and neither the password nor the session
token is ever logged.  A session is the SHA-256 of a random token that lives in an
HttpOnly cookie; logging out everywhere deletes every session of the account.

Logins are limited per name and per address (failures in the last
:attr:`LoginLimits.window` seconds, kept in the database so that every server process
counts the same).  A wrong password and an unknown name are answered alike, after the
same work: an unknown name is checked against a hash of the same cost.

Every method that hashes (:meth:`Accounts.register`, :meth:`Accounts.login`) takes a
tenth of a second or more: the web layer runs them in a thread.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass
from typing import Literal

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from king.server.names import NameError_, check_name, name_keys
from king.server.store import EventStore, Sql, StoreError

__all__ = [
    "Account",
    "AccountError",
    "Accounts",
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
    """How many failed logins are allowed in ``window`` seconds, per name and per
    address, and how many accounts one address may register in that window."""

    per_name: int = 5
    per_address: int = 30
    registrations: int = 20
    window: float = 900.0


class AccountError(ValueError):
    """A refused account request: ``code`` is a stable word, the message a sentence, and
    ``retry_after`` says when a limited request may come again (seconds)."""

    def __init__(self, code: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


#: The one answer to a login whose name or password is wrong (which of them is not said).
BAD_LOGIN = "that name and password do not match an account"


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
        self._decoy_hash: str | None = None

    # -- accounts ---------------------------------------------------------------------

    def guest(self) -> Account:
        """A new guest account."""
        now = time.time()
        account = Account(secrets.token_urlsafe(12), None, "guest", now)
        self.store.run(
            lambda sql: sql.change(
                "INSERT INTO king_accounts (id, name, kind, password, created, seen) "
                "VALUES (?, NULL, 'guest', NULL, ?, ?)",
                (account.id, now, now),
            )
        )
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
        rows = self.store.run(
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
        rows = self.store.run(
            lambda sql: sql.rows(
                "SELECT DISTINCT a.id, a.name, a.kind, a.created FROM king_name_keys k "
                f"JOIN king_accounts a ON a.id = k.account WHERE k.key IN ({marks})",
                keys,
            )
        )
        return _row(rows[0]) if len(rows) == 1 else None

    def names(self, account_ids: list[str]) -> dict[str, Account]:
        """The accounts of these ids that exist, by id."""
        if not account_ids:
            return {}
        marks = ", ".join("?" for _ in account_ids)
        rows = self.store.run(
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
        (its games stay its own), or a new account.  Refused: a name that breaks the
        rules of :mod:`king.server.names` or reads like a taken one, a password that is
        too short or too long, an address that registered too often."""
        try:
            name = check_name(name)
        except NameError_ as error:
            raise AccountError(error.code, error.message) from None
        check_password(password, name)
        if address is not None:
            self._check_limit(
                f"register:{address}",
                self.limits.registrations,
                "this address has registered as many accounts as it may for now",
            )
        digest = self._hasher.hash(password)
        keys = sorted(name_keys(name))
        now = time.time()

        def work(sql: Sql) -> Account:
            marks = ", ".join("?" for _ in keys)
            if sql.rows(f"SELECT 1 FROM king_name_keys WHERE key IN ({marks})", keys):
                raise AccountError(
                    "name_taken", f"{name!r}, or a name that reads like it, is taken"
                )
            if guest is not None and guest.kind == "guest":
                changed = sql.change(
                    "UPDATE king_accounts SET name = ?, kind = 'player', password = ?, seen = ? "
                    "WHERE id = ? AND kind = 'guest'",
                    (name, digest, now, guest.id),
                )
                account_id = guest.id if changed == 1 else None
                created = guest.created
            else:
                account_id = None
            if account_id is None:
                account_id, created = secrets.token_urlsafe(12), now
                sql.change(
                    "INSERT INTO king_accounts (id, name, kind, password, created, seen) "
                    "VALUES (?, ?, 'player', ?, ?, ?)",
                    (account_id, name, digest, now, now),
                )
            for key in keys:
                sql.change(
                    "INSERT INTO king_name_keys (key, account) VALUES (?, ?)", (key, account_id)
                )
            if address is not None:
                sql.change(
                    "INSERT INTO king_login_failures (subject, at) VALUES (?, ?)",
                    (f"register:{address}", now),
                )
            return Account(account_id, name, "player", created)

        try:
            return self.store.run(work)
        except AccountError:
            raise
        except StoreError as error:
            # Two registrations of one name at once: the second meets the key's
            # uniqueness in the database.
            if self.find(name) is not None:
                raise AccountError(
                    "name_taken", f"{name!r}, or a name that reads like it, is taken"
                ) from None
            raise error

    # -- logging in -------------------------------------------------------------------

    def login(self, name: str, password: str, address: str | None) -> Account:
        """The account whose name and password these are, or :class:`AccountError`:
        ``bad_login`` (the same for an unknown name and a wrong password) or
        ``too_many_attempts`` once the name or the address has failed too often."""
        subjects = [f"name:{min(name_keys(name))}"] if name else []
        if address is not None:
            subjects.append(f"address:{address}")
        for subject in subjects:
            limit = self.limits.per_name if subject.startswith("name:") else self.limits.per_address
            self._check_limit(subject, limit, "too many failed logins")
        account = self.find(name) if 0 < len(name) <= 64 else None
        digest = None
        if account is not None and account.kind == "player":
            rows = self.store.run(
                lambda sql: sql.rows(
                    "SELECT password FROM king_accounts WHERE id = ?", (account.id,)
                )
            )
            digest = rows[0][0] if rows else None
        ok = False
        try:
            ok = self._hasher.verify(digest if isinstance(digest, str) else self._decoy(), password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            ok = False
        if not ok or digest is None or account is None:
            now = time.time()

            def fail(sql: Sql) -> None:
                for subject in subjects:
                    sql.change(
                        "INSERT INTO king_login_failures (subject, at) VALUES (?, ?)",
                        (subject, now),
                    )

            self.store.run(fail)
            raise AccountError("bad_login", BAD_LOGIN)
        if isinstance(digest, str) and self._hasher.check_needs_rehash(digest):
            fresh = self._hasher.hash(password)
            self.store.run(
                lambda sql: sql.change(
                    "UPDATE king_accounts SET password = ? WHERE id = ?", (fresh, account.id)
                )
            )
        self.store.run(
            lambda sql: sql.change(
                "DELETE FROM king_login_failures WHERE subject = ?", (subjects[0],)
            )
        )
        return account

    def _decoy(self) -> str:
        """A hash of the same cost, checked when the name is unknown so that both
        answers take the same work (made at the first login, not at start-up)."""
        if self._decoy_hash is None:
            self._decoy_hash = self._hasher.hash(secrets.token_urlsafe(16))
        return self._decoy_hash

    def _check_limit(self, subject: str, limit: int, what: str) -> None:
        now = time.time()
        since = now - self.limits.window
        rows = self.store.run(
            lambda sql: sql.rows(
                "SELECT COUNT(*), MIN(at) FROM king_login_failures WHERE subject = ? AND at > ?",
                (subject, since),
            )
        )
        count, oldest = rows[0]
        if int(count) >= limit:
            wait = max(1.0, float(oldest) + self.limits.window - now)
            raise AccountError(
                "too_many_attempts", f"{what}: try again in {wait / 60:.0f} min", retry_after=wait
            )

    # -- sessions ---------------------------------------------------------------------

    def open_session(self, account: Account) -> str:
        """A new session for ``account``; returns its token (for the cookie only)."""
        token = secrets.token_urlsafe(32)
        now = time.time()
        self.store.run(
            lambda sql: sql.change(
                "INSERT INTO king_sessions (id, account, created, seen, expires) "
                "VALUES (?, ?, ?, ?, ?)",
                (_session_id(token), account.id, now, now, now + _SESSION_SECONDS),
            )
        )
        return token

    def session(self, token: str) -> Account | None:
        """The account of a live session, or None (renewing it now and then)."""
        if not token or len(token) > 128:
            return None
        session_id = _session_id(token)
        now = time.time()

        def work(sql: Sql) -> Account | None:
            rows = sql.rows(
                "SELECT a.id, a.name, a.kind, a.created, s.seen FROM king_sessions s "
                "JOIN king_accounts a ON a.id = s.account WHERE s.id = ? AND s.expires > ?",
                (session_id, now),
            )
            if not rows:
                return None
            if now - float(rows[0][4]) > _SEEN_EVERY:
                sql.change(
                    "UPDATE king_sessions SET seen = ?, expires = ? WHERE id = ?",
                    (now, now + _SESSION_SECONDS, session_id),
                )
            return _row(rows[0][:4])

        return self.store.run(work)

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

    def sessions(self, account: Account) -> int:
        """How many live sessions the account has."""
        rows = self.store.run(
            lambda sql: sql.rows(
                "SELECT COUNT(*) FROM king_sessions WHERE account = ? AND expires > ?",
                (account.id, time.time()),
            )
        )
        return int(rows[0][0])


def check_password(password: str, name: str = "") -> None:
    """Refuse a password that is too short, too long or the name itself (no rules of
    letter kinds: length is what makes a password strong)."""
    if len(password) < MIN_PASSWORD:
        raise AccountError("password_short", f"a password has at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise AccountError("password_long", f"a password has at most {MAX_PASSWORD} characters")
    if name and password.casefold() == name.casefold():
        raise AccountError("password_name", "a password cannot be the name")
