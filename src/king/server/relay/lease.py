"""Table ownership across server processes: a lease per table in Redis, with a fencing
number that grows with every new owner.

A process owns a table while its lease lives (``SET NX PX``: one holder, gone by itself
when its holder stops renewing).  Each grant takes the next number of the table's
fencing counter (``INCR``), and the owner passes that number with every append to the
event log, which refuses a number other than the table's latest claim
(:meth:`king.server.store.event_log.EventStore.claim`): so an owner that froze past its lease and
woke up after another took over can write nothing, whatever its clock says.  Its own
view of the lease ends no later than Redis's (it counts from before it asked), so it
also stops by itself.

redis-py (``pip install "king[redis]"``) is imported only when a lease service is made.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from king.errors import KingError

__all__ = ["Lease", "LeaseError", "LeaseService", "inbox", "shown_address"]

# Grant: take the lease if it is free (or already ours, or its holder is gone: nobody
# listens on its channel any more) and number the grant above ``floor`` (the fencing
# number the log already holds: a Redis that restarted empty counts from 1 again).
_ACQUIRE = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then
    local owner, fence = string.match(holder, '^(.*):(%d+)$')
    local listening = 1
    if owner and ARGV[4] ~= '' then
        listening = redis.call('PUBSUB', 'NUMSUB', ARGV[4] .. owner)[2]
    end
    if listening ~= 0 then
        if fence then return {0, tonumber(fence)} end
        return {0, 0}
    end
end
local fence = redis.call('INCR', KEYS[2])
local floor = tonumber(ARGV[5]) or 0
if fence <= floor then
    fence = floor + 1
    redis.call('SET', KEYS[2], fence)
end
redis.call('SET', KEYS[1], ARGV[2] .. ':' .. fence, 'PX', ARGV[3])
return {1, fence}
"""
# Renew or release only the lease we hold (compare the whole value: owner and fence).
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


class LeaseError(KingError, RuntimeError):
    """Redis could not be reached or used; the message says what and where."""


@dataclass(frozen=True, slots=True)
class Lease:
    """One grant of a table to one owner: its fencing number and when, by this
    process's monotonic clock, it must be renewed by."""

    table_id: str
    owner: str
    fence: int
    expires: float

    @property
    def value(self) -> str:
        """What Redis holds for this grant."""
        return f"{self.owner}:{self.fence}"

    def valid(self, now: float | None = None) -> bool:
        """Whether this process may still act as the table's owner."""
        return (time.monotonic() if now is None else now) < self.expires


def inbox(prefix: str, owner: str) -> str:
    """The pub/sub channel a server process listens on while it runs
    (:mod:`king.server.relay.bus`): its presence, which a lease can be checked against."""
    return f"{prefix}:to:{owner}"


class LeaseService:
    """Leases on tables in one Redis database, for one owner (a server process).

    With ``presence`` a lease whose holder no longer listens on its :func:`inbox` (the
    process died: Redis closed its connections) is taken at once instead of waiting for
    it to pass.  That is safe as any takeover is: the new grant's fencing number shuts
    the old holder out of the log, were it still running somewhere.
    """

    def __init__(
        self, address: str, owner: str, *, prefix: str = "king", presence: bool = False
    ) -> None:
        try:
            import redis
        except ImportError:
            raise LeaseError('--redis needs redis-py: pip install "king[redis]"') from None
        if ":" in owner:
            raise ValueError(f"an owner's name has no ':', not {owner!r}")
        self.owner = owner
        self._prefix = prefix
        self._presence = inbox(prefix, "") if presence else ""
        try:
            self._redis: Any = redis.Redis.from_url(
                address, socket_timeout=2.0, socket_connect_timeout=2.0
            )
            self._redis.ping()
        except (redis.RedisError, ValueError) as error:
            raise LeaseError(f"cannot reach Redis at {shown_address(address)}: {error}") from None
        self._errors: tuple[type[Exception], ...] = (redis.RedisError,)
        self._acquire = self._redis.register_script(_ACQUIRE)
        self._renew = self._redis.register_script(_RENEW)
        self._release = self._redis.register_script(_RELEASE)

    def _keys(self, table_id: str) -> list[str]:
        return [f"{self._prefix}:lease:{table_id}", f"{self._prefix}:fence:{table_id}"]

    def acquire(self, table_id: str, seconds: float, floor: int = 0) -> Lease | None:
        """The table for ``seconds``, or None while another owner's lease lives.  The
        grant's fencing number is above ``floor``: the highest the table's log has seen,
        which Redis may have forgotten (it restarted empty)."""
        start = time.monotonic()
        try:
            granted, fence = self._acquire(
                keys=self._keys(table_id),
                args=[self._holding(table_id), self.owner, _ms(seconds), self._presence, floor],
            )
        except self._errors as error:
            raise LeaseError(f"cannot take table {table_id}'s lease: {error}") from None
        if not granted:
            return None
        return Lease(table_id, self.owner, int(fence), start + seconds)

    def _holding(self, table_id: str) -> str:
        """The value our own live lease on the table has, so that acquiring again
        renumbers it (a fresh grant) instead of being refused."""
        try:
            value = self._redis.get(self._keys(table_id)[0])
        except self._errors:
            return ""
        text = value.decode() if isinstance(value, bytes) else ""
        return text if text.startswith(self.owner + ":") else ""

    def renew(self, lease: Lease, seconds: float) -> Lease | None:
        """The same grant for ``seconds`` more, or None if it has passed (the table may
        be another's now: stop acting as its owner)."""
        start = time.monotonic()
        try:
            kept = self._renew(
                keys=self._keys(lease.table_id)[:1], args=[lease.value, _ms(seconds)]
            )
        except self._errors as error:
            raise LeaseError(f"cannot renew table {lease.table_id}'s lease: {error}") from None
        if not kept:
            return None
        return Lease(lease.table_id, lease.owner, lease.fence, start + seconds)

    def renew_all(self, leases: list[Lease], seconds: float) -> list[Lease | None]:
        """:meth:`renew` for many leases in one round trip to Redis."""
        start = time.monotonic()
        try:
            pipe = self._redis.pipeline(transaction=False)
            for lease in leases:
                self._renew(
                    keys=self._keys(lease.table_id)[:1],
                    args=[lease.value, _ms(seconds)],
                    client=pipe,
                )
            kept = pipe.execute()
        except self._errors as error:
            raise LeaseError(f"cannot renew {len(leases)} leases: {error}") from None
        return [
            Lease(lease.table_id, lease.owner, lease.fence, start + seconds) if ok else None
            for lease, ok in zip(leases, kept, strict=True)
        ]

    def holders(self, table_ids: list[str]) -> list[str | None]:
        """:meth:`holder` for many tables in one round trip."""
        if not table_ids:
            return []
        try:
            values = self._redis.mget([self._keys(t)[0] for t in table_ids])
        except self._errors as error:
            raise LeaseError(f"cannot read {len(table_ids)} leases: {error}") from None
        return [None if v is None else str(v.decode()).rsplit(":", 1)[0] for v in values]

    def release(self, lease: Lease) -> bool:
        """Give the table up now (a clean hand-over); False if it was no longer ours."""
        try:
            return bool(self._release(keys=self._keys(lease.table_id)[:1], args=[lease.value]))
        except self._errors as error:
            raise LeaseError(f"cannot release table {lease.table_id}: {error}") from None

    def holder(self, table_id: str) -> str | None:
        """The owner whose lease on the table lives, if any."""
        try:
            value = self._redis.get(self._keys(table_id)[0])
        except self._errors as error:
            raise LeaseError(f"cannot read table {table_id}'s lease: {error}") from None
        if value is None:
            return None
        return str(value.decode()).rsplit(":", 1)[0]

    def close(self) -> None:
        """Close the connection to Redis."""
        self._redis.close()


def _ms(seconds: float) -> int:
    if not 0 < seconds <= 3600:
        raise ValueError(f"a lease lasts 0-3600 seconds, not {seconds}")
    return max(1, round(seconds * 1000))


def shown_address(address: str) -> str:
    """A Redis address without its password."""
    scheme, sep, rest = address.partition("://")
    if "@" in rest:
        rest = rest.rsplit("@", 1)[1]
    return f"{scheme}{sep}{rest}"
