"""What the engine refuses, in words: each negative code of ``engine/api.h``, raised as
:class:`EngineError` (standard library only: the browser's engine raises it too)."""

from __future__ import annotations

from king.errors import KingError

__all__ = ["REFUSALS", "EngineError"]

#: What each refusal code of ``engine/api.h`` means.
REFUSALS = {
    -1: "an array does not fit the engine's exchange area",
    -2: "a contract, trump, rule flag, seat or setting is out of range",
    -3: "a position or deal the rules cannot reach",
    -4: "a card that is not legal where it is played",
    -5: "too many or too few of something",
}


class EngineError(KingError, ValueError):
    """The engine refused its input (or its file is not the one this King ships)."""

    def __init__(self, entry: str, code: int) -> None:
        self.entry = entry
        self.code = code
        super().__init__(f"{entry}: {REFUSALS.get(code, f'refused ({code})')}")
