"""The person's messages to the offline table, read with the standard library: the
server's checks (:func:`king.server.protocol.parse_client_message`, on pydantic, which
the page's Python does not have) for the messages one person with bots sends, refused
with the same codes: ``too_large``, ``bad_json``, ``invalid`` and ``version``."""

from __future__ import annotations

from typing import Any

from king.jsontext import JSONTextError, is_int, loads
from king.messages import PROTOCOL_VERSION
from king.texts import quoted

__all__ = ["MAX_MESSAGE_BYTES", "KINDS", "RequestError", "read_request"]

#: The largest message the table reads, in bytes (the server's limit).
MAX_MESSAGE_BYTES = 4096
#: Each message type and its fields besides ``v`` and ``type``: required or not.
KINDS: dict[str, dict[str, bool]] = {
    "hello": {"token": True},
    "watch": {},
    "declare": {"contract": True, "trump": False},
    "play": {"card": True},
    "speed": {"speed": True},
    "hint": {},
    "ping": {},
}
_TEXT_LENGTHS = {"token": (1, 128), "contract": (1, 20), "card": (2, 3)}
_CHOICES = {"trump": ("S", "H", "D", "C"), "speed": ("fast", "normal", "slow")}


class RequestError(ValueError):
    """A message the table cannot read; ``code`` is the server's word for it."""

    def __init__(self, code: str, message: str, about: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.about = about


def read_request(text: str) -> dict[str, Any]:
    """One message, checked: a JSON object in this protocol's version, of a known type,
    with exactly its fields, each of the right kind."""
    size = len(text.encode())
    if size > MAX_MESSAGE_BYTES:
        raise RequestError(
            "too_large", f"the message has {size} bytes; the limit is {MAX_MESSAGE_BYTES}"
        )
    try:
        raw = loads(text)
    except JSONTextError as error:
        raise RequestError(
            "bad_json", f"the message is not JSON that is read here: {error}"
        ) from None
    if not isinstance(raw, dict):
        raise RequestError("invalid", f"a message is a JSON object, not {type(raw).__name__}")
    kind = raw.get("type")
    about = kind if isinstance(kind, str) and kind in KINDS else None
    version = raw.get("v")
    if not is_int(version) or version != PROTOCOL_VERSION:
        raise RequestError(
            "version",
            f'protocol version {quoted(version)} is not spoken here: send "v": {PROTOCOL_VERSION}',
            about,
        )
    if about is None:
        raise RequestError(
            "invalid", f"unknown message type {quoted(kind)}: use one of {', '.join(KINDS)}"
        )
    problems = _field_problems(raw, KINDS[about])
    if problems:
        raise RequestError("invalid", "; ".join(problems), about)
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
