"""The one error a table raises when it refuses something: :class:`ActionError`, with a
stable code that the protocol and the routes pass on."""

from __future__ import annotations

from king.table_rules import RefusedError

__all__ = ["ActionError"]


class ActionError(RefusedError):
    """An action the server's table refuses (:class:`king.table_rules.RefusedError`, the
    offline table's too); the routes and the protocol pass its ``code`` on."""
