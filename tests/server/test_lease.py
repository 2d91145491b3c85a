"""Table leases in a real Redis (`redis-server` started by the tests): one owner at a
time, a lease that passes by itself, fencing numbers that only grow, and with the event
log in a real PostgreSQL: a frozen owner woken after another took over writes
nothing."""

from __future__ import annotations

import time

import pytest

from benchmarks.backends import PostgresServer, RedisServer
from king.server.config import ServerSettings
from king.server.protocol import CreateTableRequest, SeatRequest
from king.server.relay.lease import LeaseError, LeaseService
from king.server.store.event_log import StoreFencedError
from king.server.store.postgres import PostgresEventStore
from king.server.tables.registry import Registry
from king.server.tables.table import Table


def test_one_owner_at_a_time_and_the_fence_grows(redis_server: RedisServer) -> None:
    first = LeaseService(redis_server.address, "p1", prefix="t1")
    second = LeaseService(redis_server.address, "p2", prefix="t1")
    lease = first.acquire("T1", 0.3)
    assert lease is not None and lease.fence == 1 and lease.valid()
    assert second.acquire("T1", 5) is None
    assert first.holder("T1") == "p1" == second.holder("T1")
    renewed = first.renew(lease, 0.3)
    assert renewed is not None and renewed.fence == 1
    time.sleep(0.45)  # not renewed: it passes by itself
    assert not renewed.valid()
    assert first.holder("T1") is None
    taken = second.acquire("T1", 5)
    assert taken is not None and taken.fence == 2
    assert first.renew(renewed, 5) is None  # the old grant cannot come back
    assert not first.release(renewed)
    assert second.holder("T1") == "p2"
    assert second.release(taken)  # a clean hand-over: free at once
    again = first.acquire("T1", 5)
    assert again is not None and again.fence == 3
    first.close()
    second.close()


def test_a_frozen_owner_writes_nothing_after_its_lease_passed(
    redis_server: RedisServer, postgres_server: PostgresServer
) -> None:
    address = postgres_server.create_database()
    old_leases = LeaseService(redis_server.address, "old", prefix="t2")
    new_leases = LeaseService(redis_server.address, "new", prefix="t2")
    old_store = PostgresEventStore(address, exclusive=False)
    new_store = PostgresEventStore(address, exclusive=False)
    try:
        old_store.create_table("T1", {})
        lease = old_leases.acquire("T1", 0.2)
        assert lease is not None and old_store.claim("T1", lease.fence)
        old_store.append("T1", 1, "start", {}, fence=lease.fence)
        time.sleep(0.3)  # the old owner freezes past its lease ...
        taken = new_leases.acquire("T1", 5)
        assert taken is not None and taken.fence > lease.fence
        assert new_store.claim("T1", taken.fence)
        new_store.append("T1", 2, "deal", {"hands": []}, fence=taken.fence)
        # ... and wakes: its append is refused by the database, whatever it believes.
        with pytest.raises(StoreFencedError):
            old_store.append("T1", 3, "close", {}, "closed", fence=lease.fence)
        assert not old_store.claim("T1", lease.fence)
        assert [e.kind for e in new_store.events("T1")] == ["table", "start", "deal"]
    finally:
        for closing in (old_leases, new_leases, old_store, new_store):
            closing.close()


def test_an_unreachable_redis_is_one_line() -> None:
    from benchmarks.server_process import free_port

    port = free_port()
    with pytest.raises(LeaseError, match=rf"cannot reach Redis at redis://127\.0\.0\.1:{port}"):
        LeaseService(f"redis://:secret@127.0.0.1:{port}/0", "p1")
    try:
        LeaseService(f"redis://:secret@127.0.0.1:{port}/0", "p1")
    except LeaseError as error:
        assert "secret" not in str(error)
    with pytest.raises(ValueError, match="no ':'"):
        LeaseService("redis://127.0.0.1:1/0", "a:b")


def test_a_table_whose_lease_passed_is_taken_again_and_counted(
    redis_server: RedisServer, postgres_server: PostgresServer
) -> None:
    """A process that finds its own table's lease passed (nobody renewed it) gives it up,
    counted as ``lease_passed``, and takes it again from the log when nobody else holds it."""
    address = postgres_server.create_database()
    store = PostgresEventStore(address, exclusive=False)
    leases = LeaseService(redis_server.address, "p1", prefix="t3")
    registry = Registry(store, ServerSettings(db=address, bot_pause=0, lease_seconds=0.2), leases)
    try:
        request = CreateTableRequest(seats=[SeatRequest(kind="human")] * 4, seat=None, seed=3)
        table, _, _ = registry.create(request)
        time.sleep(0.3)  # nobody renews it here: it passes
        assert not table.writable
        again = registry.locate(table.id)
        assert isinstance(again, Table) and again is not table and again.writable
        metrics = registry.metrics.registry
        given_up = metrics.get_sample_value(
            "king_tables_given_up_total", {"reason": "lease_passed"}
        )
        assert given_up == 1
        assert metrics.get_sample_value("king_takeovers_total") == 1
    finally:
        registry.close()
        leases.close()
        store.close()
