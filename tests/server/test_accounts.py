"""Accounts on both backends: registration, logins and their limit, sessions, and what
the database keeps of a password (only its argon2id hash)."""

from __future__ import annotations

import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal, TypeVar

import pytest
from argon2 import PasswordHasher

from king.server.people.accounts import AccountError, Accounts, LoginLimits
from king.server.people.ledger import Ledger
from king.server.store.database import open_store
from king.server.store.event_log import Database, EventStore
from tests.support.services import query

PASSWORD = "Sekrit-horse-42"
T = TypeVar("T")


@pytest.fixture
def store(database: Database) -> Iterator[EventStore]:
    opened = open_store(database)
    yield opened
    opened.close()


def everything_in(database: Database) -> str:
    """Every row of every table of the database, as text."""
    if isinstance(database, Path):
        import sqlite3

        db = sqlite3.connect(database)
        try:
            names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            rows = [repr(r) for name in names for r in db.execute(f'SELECT * FROM "{name}"')]
        finally:
            db.close()
    else:
        import psycopg

        with psycopg.connect(database, autocommit=True) as pg:
            names = [
                r[0]
                for r in pg.execute(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
                )
            ]
            rows = [
                repr(r)
                for name in names
                for r in pg.execute(f'SELECT * FROM "{name}"')  # type: ignore[call-overload]
            ]
    assert "king_accounts" in names and "king_sessions" in names
    return "\n".join(rows)


def test_a_password_is_kept_only_as_an_argon2id_hash(store: EventStore, database: Database) -> None:
    accounts = Accounts(store)
    account = accounts.register("Ayşe", PASSWORD, "10.0.0.1")
    token = accounts.open_session(account)
    dump = everything_in(database)
    assert PASSWORD not in dump
    assert token not in dump  # the session's token neither: its SHA-256 is the key
    hashes = query(database, "SELECT password FROM king_accounts WHERE name = ?", ("Ayşe",))
    assert hashes[0][0].startswith("$argon2id$")


def test_names_that_read_alike_are_one_name(store: EventStore) -> None:
    accounts = Accounts(store)
    accounts.register("Işıl", PASSWORD, None)
    for other in ("IŞIL", "işil", "ışıl", "I\u015f\u0131l"):
        with pytest.raises(AccountError) as refused:
            accounts.register(other, PASSWORD, None)
        assert refused.value.code == "name_taken"
    accounts.register("Alice", PASSWORD, None)
    for other in ("alice", "ALICE", "AIice", "Ａｌｉｃｅ"):
        with pytest.raises(AccountError) as refused:
            accounts.register(other, PASSWORD, None)
        assert refused.value.code == "name_taken", other
    # A whole name in another script that reads the same (Cyrillic С а р а).
    accounts.register("Capa", PASSWORD, None)
    with pytest.raises(AccountError) as refused:
        accounts.register("\u0421\u0430\u0440\u0430", PASSWORD, None)
    assert refused.value.code == "name_taken"
    # Logging in by any way of writing the name finds the one account.
    assert accounts.login("ALICE", PASSWORD, None).name == "Alice"
    assert accounts.login("IŞIL", PASSWORD, None).name == "Işıl"


def test_bad_passwords_are_refused_saying_why(store: EventStore) -> None:
    accounts = Accounts(store)
    for password, code in (("short", "password_short"), ("x" * 201, "password_long")):
        with pytest.raises(AccountError) as refused:
            accounts.register("Bora", password, None)
        assert refused.value.code == code
    with pytest.raises(AccountError) as refused:
        accounts.register("Borabora", "BORABORA", None)
    assert refused.value.code == "password_name"


def test_a_wrong_password_answers_as_an_unknown_name_in_the_same_time(store: EventStore) -> None:
    accounts = Accounts(store, LoginLimits(per_name=1000, per_address=1000))
    accounts.register("Cemil", PASSWORD, None)
    answers: dict[str, list[tuple[str, str]]] = {"wrong": [], "unknown": []}
    times: dict[str, list[float]] = {"wrong": [], "unknown": []}
    for _ in range(5):
        for kind, name in (("wrong", "Cemil"), ("unknown", "Nobody")):
            start = time.perf_counter()
            with pytest.raises(AccountError) as refused:
                accounts.login(name, "not the password", "10.0.0.2")
            times[kind].append(time.perf_counter() - start)
            answers[kind].append((refused.value.code, refused.value.message))
    assert set(answers["wrong"]) == set(answers["unknown"]) == {answers["wrong"][0]}
    assert answers["wrong"][0][0] == "bad_login"
    # Both check an argon2id hash: the same order of time (an unknown name that skipped
    # the hash would answer hundreds of times faster).
    wrong, unknown = statistics.median(times["wrong"]), statistics.median(times["unknown"])
    assert 0.33 < wrong / unknown < 3.0, (wrong, unknown)


def test_the_login_limit_holds_per_name_and_per_address(store: EventStore) -> None:
    accounts = Accounts(store, LoginLimits(per_name=3, per_address=6, window=60))
    accounts.register("Deniz", PASSWORD, None)
    accounts.register("Ece_1", PASSWORD, None)
    for _ in range(3):
        with pytest.raises(AccountError) as refused:
            accounts.login("Deniz", "wrong password", "10.0.0.3")
        assert refused.value.code == "bad_login"
    # The name is locked, even with the right password and from another address.
    for address in ("10.0.0.3", "10.0.0.99"):
        with pytest.raises(AccountError) as refused:
            accounts.login("DENIZ", PASSWORD, address)
        assert refused.value.code == "too_many_attempts"
        assert refused.value.retry_after is not None and 0 < refused.value.retry_after <= 60
    # Another name from the first address still logs in until the address has failed
    # six times in all.
    assert accounts.login("Ece_1", PASSWORD, "10.0.0.3").name == "Ece_1"
    for name in ("x1x", "x2x", "x3x"):
        with pytest.raises(AccountError):
            accounts.login(name, "wrong password", "10.0.0.3")
    with pytest.raises(AccountError) as refused:
        accounts.login("Ece_1", PASSWORD, "10.0.0.3")
    assert refused.value.code == "too_many_attempts"
    assert accounts.login("Ece_1", PASSWORD, "10.0.0.4").name == "Ece_1"


def test_sessions_end_one_by_one_or_everywhere(store: EventStore) -> None:
    accounts = Accounts(store)
    account = accounts.register("Feride", PASSWORD, None)
    phone, laptop = accounts.open_session(account), accounts.open_session(account)
    assert accounts.session(phone) == account == accounts.session(laptop)
    assert accounts.sessions(account) == 2
    accounts.close_session(phone)
    assert accounts.session(phone) is None and accounts.session(laptop) == account
    other = accounts.open_session(account)
    assert accounts.close_sessions(account) == 2
    assert accounts.session(laptop) is None and accounts.session(other) is None
    assert accounts.session("") is None and accounts.session("x" * 500) is None


def test_a_guest_who_registers_keeps_their_games(store: EventStore) -> None:
    accounts, ledger = Accounts(store), Ledger(store)
    guest = accounts.guest()
    store.create_table("T1abcd", {"rules": "classic", "seed": 1, "seats": []})
    ledger.note_seat("T1abcd", 2, guest.id, time.time())
    registered = accounts.register("Gül_2", PASSWORD, None, guest)
    assert registered.id == guest.id and registered.kind == "player"
    games = ledger.history(registered.id, finished_only=False)
    assert [(g.table, g.seat) for g in games] == [("T1abcd", 2)]
    # A registered account is not a guest to upgrade again: a second registration
    # with it makes a new account.
    again = accounts.register("Gül_3", PASSWORD, None, registered)
    assert again.id != registered.id


class WatchedHasher(PasswordHasher):
    """argon2-cffi's own hasher, counting its hashes and how many ran at once."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._running = 0
        self.most = 0
        self.count = 0

    def _watched(self, work: Callable[[], T]) -> T:
        with self._lock:
            self._running += 1
            self.count += 1
            self.most = max(self.most, self._running)
        try:
            return work()
        finally:
            with self._lock:
                self._running -= 1

    def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
        return self._watched(lambda: super(WatchedHasher, self).hash(password, salt=salt))

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        return self._watched(lambda: super(WatchedHasher, self).verify(hash, password))


def at_once(count: int, work: Callable[[int], T]) -> list[T | AccountError]:
    """``work(i)`` for i in range(count), all released together from as many threads;
    each result, or the AccountError it raised."""
    start = threading.Barrier(count)

    def one(index: int) -> T | AccountError:
        start.wait()
        try:
            return work(index)
        except AccountError as error:
            return error

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(one, range(count)))


def codes(results: list[Any]) -> Counter[str]:
    return Counter(r.code if isinstance(r, AccountError) else "ok" for r in results)


def test_one_login_counter_per_account_whatever_the_spelling(store: EventStore) -> None:
    accounts = Accounts(store, LoginLimits(per_name=5, window=60))
    accounts.register("Lockme_9", PASSWORD, None)
    for spelling in ("Lockme_9", "LOCKME_9", "lockme_9", "IOCKME_9", "Iockme_9"):
        with pytest.raises(AccountError) as refused:
            accounts.login(spelling, "a wrong password", None)
        assert refused.value.code == "bad_login"
    # Five failures under five spellings are five against one account: every spelling
    # is locked now, the right password too.
    for spelling in ("Lockme_9", "IOCKME_9", "Iockme_9", "ⅼockme_9"):
        with pytest.raises(AccountError) as refused:
            accounts.login(spelling, PASSWORD, None)
        assert refused.value.code == "too_many_attempts", spelling


def test_wrong_passwords_sent_at_once_are_counted_before_they_are_checked(
    store: EventStore,
) -> None:
    hasher = WatchedHasher()
    accounts = Accounts(store, LoginLimits(per_name=5, window=60, hash_slots=24), hasher)
    accounts.register("Rushed_1", PASSWORD, None)
    before = hasher.count
    results = at_once(24, lambda _: accounts.login("Rushed_1", "a wrong password", None))
    assert codes(results) == {"bad_login": 5, "too_many_attempts": 19}
    assert hasher.count - before == 5  # the other 19 never reached a hash


def test_password_hashing_is_bounded_at_once_per_process_and_per_address(
    store: EventStore,
) -> None:
    hasher = WatchedHasher()
    accounts = Accounts(
        store, LoginLimits(hash_slots=2, hashes_per_address=3, per_address=100), hasher
    )
    accounts.register("Bounded", PASSWORD, None)
    # Eight correct logins from eight addresses at once: two hash, the others are told
    # the server is busy before any hash.
    results = at_once(8, lambda i: accounts.login("Bounded", PASSWORD, f"10.1.0.{i}"))
    assert hasher.most <= 2
    assert codes(results)["busy"] >= 1 and codes(results)["ok"] >= 1
    assert all(r.retry_after for r in results if isinstance(r, AccountError))
    # From one address, one at a time.
    results = at_once(4, lambda _: accounts.login("Bounded", PASSWORD, "10.2.0.1"))
    assert codes(results)["too_many_attempts"] >= 1
    # And a few hashes per address in the window, correct logins too.
    for _ in range(3):
        accounts.login("Bounded", PASSWORD, "10.3.0.1")
    with pytest.raises(AccountError) as refused:
        accounts.login("Bounded", PASSWORD, "10.3.0.1")
    assert refused.value.code == "too_many_attempts"
    # A taken name costs no hash at all.
    before = hasher.count
    for _ in range(5):
        with pytest.raises(AccountError) as taken:
            accounts.register("BOUNDED", PASSWORD, "10.4.0.1")
        assert taken.value.code == "name_taken"
    assert hasher.count == before


def test_sessions_are_new_at_each_login_and_capped_per_account(store: EventStore) -> None:
    accounts = Accounts(store, LoginLimits(sessions=3))
    account = accounts.register("Capped", PASSWORD, None)
    tokens = []
    for _ in range(5):
        tokens.append(accounts.open_session(account))
        time.sleep(0.01)
    assert accounts.sessions(account) == 3
    assert [accounts.session(t) is not None for t in tokens] == [False, False, True, True, True]
    # A new session ends the one the browser had.
    fresh = accounts.open_session(account, ending=tokens[-1])
    assert accounts.session(tokens[-1]) is None and accounts.session(fresh) == account


def test_guests_are_written_only_when_seated_and_bounded_per_address(
    store: EventStore, database: Database
) -> None:
    accounts = Accounts(store, LoginLimits(guests_per_address=3, window=60))
    unsaved = accounts.new_guest()
    assert accounts.get(unsaved.id) is None
    assert query(database, "SELECT COUNT(*) FROM king_accounts") == [(0,)]
    for _ in range(3):
        accounts.save_guest(accounts.new_guest(), "10.5.0.1")
    with pytest.raises(AccountError) as refused:
        accounts.save_guest(accounts.new_guest(), "10.5.0.1")
    assert refused.value.code == "too_many_attempts"
    accounts.save_guest(accounts.new_guest(), "10.5.0.2")
    assert query(database, "SELECT COUNT(*) FROM king_accounts") == [(4,)]


def test_old_counts_and_expired_sessions_are_swept(store: EventStore, database: Database) -> None:
    accounts = Accounts(store, LoginLimits(window=0.2))
    account = accounts.register("Swept", PASSWORD, "10.6.0.1")
    with pytest.raises(AccountError):
        accounts.login("Swept", "a wrong password", "10.6.0.1")
    accounts.open_session(account)
    query(database, "UPDATE king_sessions SET expires = 0")
    time.sleep(0.3)
    assert accounts.sweep() >= 3
    assert query(database, "SELECT COUNT(*) FROM king_login_failures") == [(0,)]
    assert query(database, "SELECT COUNT(*) FROM king_sessions") == [(0,)]
