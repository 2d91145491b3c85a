"""The person's messages to the offline table, read with the standard library: the
server's envelope (:func:`king.messages.read_envelope`), then each type's fields, which
the server checks with pydantic (the page's Python has none), refused with the same
codes: ``too_large``, ``bad_json``, ``invalid`` and ``version``."""

from __future__ import annotations

from typing import Any

from king.messages import MessageError, read_envelope

__all__ = ["KINDS", "read_request"]

#: Each message type and its fields besides ``v`` and ``type``: required or not.
KINDS: dict[str, dict[str, bool]] = {
    "hello": {"token": True},
    "watch": {},
    "declare": {"contract": True, "trump": False},
    "play": {"card": True},
    "speed": {"speed": True},
    "hint": {},
    "react": {"phrase": True},
    "ping": {},
}
_TEXT_LENGTHS = {"token": (1, 128), "contract": (1, 20), "card": (2, 3), "phrase": (1, 20)}
_CHOICES = {"trump": ("S", "H", "D", "C"), "speed": ("fast", "normal", "slow")}


def read_request(text: str) -> dict[str, Any]:
    """One message, checked: the envelope the server reads first
    (:func:`king.messages.read_envelope`), then exactly its type's fields, each of the
    right kind; :class:`~king.messages.MessageError` otherwise."""
    raw, about = read_envelope(text, KINDS)
    problems = _field_problems(raw, KINDS[about])
    if problems:
        raise MessageError("invalid", "; ".join(problems), about)
    return raw


def _field_problems(raw: dict[str, Any], fields: dict[str, bool]) -> list[str]:
    problems = [
        f"{name}: Field required" for name, needed in fields.items() if needed and name not in raw
    ]
    for name, value in raw.items():
        if name in ("v", "type"):
            continue
        if name not in fields:
            problems.append(f"{name}: Extra inputs are not permitted")
        elif value is None and not fields[name]:
            continue
        elif name in _CHOICES and value not in _CHOICES[name]:
            problems.append(f"{name}: Input should be {' or '.join(map(repr, _CHOICES[name]))}")
        elif name in _TEXT_LENGTHS:
            problems.extend(_text_problem(name, value))
    return problems


def _text_problem(name: str, value: object) -> list[str]:
    low, high = _TEXT_LENGTHS[name]
    if not isinstance(value, str):
        return [f"{name}: Input should be a valid string"]
    if len(value) < low:
        return [f"{name}: String should have at least {low} character{'s' * (low > 1)}"]
    if len(value) > high:
        return [f"{name}: String should have at most {high} characters"]
    return []
