"""Work spread over a Ray cluster: one task per item, the results read back in the
order the items were given, so that what is computed never depends on where it ran
(the arena's sets, the training data's chunks).

Ray is an optional extra (``pip install "king[cluster]"``), imported only here and only
when a cluster is asked for.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from king.errors import KingError

__all__ = ["ClusterError", "check_address", "ray_map"]

R = TypeVar("R")


class ClusterError(KingError, RuntimeError):
    """The Ray cluster could not be reached or used; the message says what and how."""


def check_address(address: str, timeout: float = 5.0) -> None:
    """Fail at once when nothing listens at a cluster's ``HOST:PORT`` (Ray itself would
    retry for minutes); ``auto`` is left to Ray, which answers at once."""
    if address == "auto":
        return
    location = address.split("://", 1)[-1]
    host, colon, port = location.rpartition(":")
    if not colon or not port.isdigit() or not host:
        raise ClusterError(f"--ray takes auto or HOST:PORT, not {address!r}")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as error:
        raise ClusterError(
            f"nothing answers at {location} ({error.strerror or error}); start a cluster "
            "with `ray start --head` or give its address"
        ) from None


def ray_map(
    function: Callable[..., R], arguments: Sequence[tuple[Any, ...]], address: str
) -> Iterator[R]:
    """``function(*args)`` for each of ``arguments`` as Ray tasks on the cluster at
    ``address``, all submitted at once and yielded in order.  A task whose worker dies
    is retried twice; the tasks still running are cancelled if the caller stops early."""
    try:
        import ray
    except ImportError:
        raise ClusterError('--ray needs Ray: pip install "king[cluster]"') from None
    check_address(address)
    try:
        if not ray.is_initialized():
            ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as error:
        raise ClusterError(f"cannot join the Ray cluster at {address}: {error}") from None
    task = ray.remote(num_cpus=1, max_retries=2)(function)
    pending = [task.remote(*args) for args in arguments]
    read = 0
    try:
        for reference in pending:
            result: R = ray.get(reference)
            read += 1
            yield result
    finally:
        # Only tasks still running are cancelled: cancelling one that has just finished
        # races with its reply inside Ray and can abort the driver (ray-project/ray#54846).
        unread = pending[read:]
        if unread:
            _, running = ray.wait(unread, num_returns=len(unread), timeout=0)
            for reference in running:
                ray.cancel(reference, force=True)
