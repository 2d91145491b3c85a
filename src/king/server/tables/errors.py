"""The one error a table raises when it refuses something: :class:`ActionError`, with a
stable code that the protocol and the routes pass on."""

from __future__ import annotations

from king.errors import KingError

__all__ = ["ActionError"]


class ActionError(KingError, ValueError):
    """An action the table refuses; ``code`` is a stable word, the message a sentence.
    A move the rules forbid also has the rule's ``reason`` code and its ``params``."""

    def __init__(
        self,
        code: str,
        message: str,
        reason: str | None = None,
        params: dict[str, str] | None = None,
    ):
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.params = params
