"""Which version of king each running process that shares the tables is.

The processes talk among themselves (the bus's messages, the relayed protocol, the
lobby's entries, the schema of the log), and nothing promises that two versions talk
alike: so a process does not join processes of another version, and an upgrade stops
them all first (docs/deploy.md, "Upgrading").  Each process writes its version under
its name in one Redis hash while it runs (:class:`~king.server.relay.bus.Bus`); a name is
running while someone listens on its :func:`~king.server.relay.lease.inbox` (a killed
process's entry stays behind, and is swept by the next process that reads them)."""

from __future__ import annotations

from typing import Any

from king.server.relay.lease import LeaseError, inbox, shown_address

__all__ = ["other_versions", "versions_key"]


def versions_key(prefix: str) -> str:
    """The Redis hash of the running processes' versions, by process name."""
    return f"{prefix}:versions"


def other_versions(address: str, version: str, prefix: str = "king") -> dict[str, str]:
    """The running processes (name → version) whose version is not ``version``; the
    entries of processes no longer running are removed on the way."""
    try:
        import redis
    except ImportError:
        raise LeaseError('--redis needs redis-py: pip install "king[redis]"') from None
    client: Any = redis.Redis.from_url(address, socket_timeout=2.0, socket_connect_timeout=2.0)
    try:
        entries = {
            name.decode(): value.decode()
            for name, value in client.hgetall(versions_key(prefix)).items()
        }
        if not entries:
            return {}
        counts = dict(client.pubsub_numsub(*[inbox(prefix, name) for name in entries]))
        gone = [name for name in entries if not counts.get(inbox(prefix, name).encode())]
        if gone:
            client.hdel(versions_key(prefix), *gone)
    except redis.RedisError as error:
        raise LeaseError(
            f"cannot read the running processes' versions at {shown_address(address)}: {error}"
        ) from None
    finally:
        client.close()
    return {
        name: running
        for name, running in sorted(entries.items())
        if name not in gone and running != version
    }
