"""Reading what a client sends: first its envelope (size, JSON, ``v``, ``type``), then
its fields against the message's definition in :mod:`king.table.protocol`.

Both tables read the envelope here.  The fields are checked here too for the page's
offline table, which has the standard library alone; the server checks them with
pydantic against the same definitions (:func:`king.server.protocol.parse_client_message`),
and the two word what is wrong alike (pydantic's words, which ``tests/table`` compares).
Anything refused is a :class:`MessageError` with a stable ``code``: ``too_large``,
``bad_json``, ``invalid`` or ``version``.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Collection
from functools import cache
from typing import Any, Literal

from king.errors import KingError
from king.jsontext import JSONTextError, is_int, loads
from king.table.protocol import (
    CLIENT_MESSAGES,
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    ClientMessage,
    Text,
)
from king.texts import quoted

__all__ = ["MessageError", "fields_of", "read_envelope", "read_message", "spell_choices"]


class MessageError(KingError, ValueError):
    """A client message that cannot be accepted; ``code`` is a stable word for programs
    (``too_large``, ``bad_json``, ``invalid``, ``version``), ``about`` the message's type
    when it names a known one."""

    def __init__(self, code: str, message: str, about: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.about = about


def read_envelope(
    data: str | bytes, kinds: Collection[str] = CLIENT_MESSAGES
) -> tuple[dict[str, Any], str]:
    """A client message's object and its type, or :class:`MessageError` saying what is
    wrong: too large, not JSON, not an object, another protocol version, or a type not
    among ``kinds``.  Its fields are checked by :func:`read_message` (or the server's
    pydantic)."""
    size = len(data.encode() if isinstance(data, str) else data)
    if size > MAX_MESSAGE_BYTES:
        raise MessageError(
            "too_large", f"the message has {size} bytes; the limit is {MAX_MESSAGE_BYTES}"
        )
    try:
        raw = loads(data)
    except JSONTextError as error:
        raise MessageError(
            "bad_json", f"the message is not JSON that is read here: {error}"
        ) from None
    if not isinstance(raw, dict):
        raise MessageError("invalid", f"a message is a JSON object, not {type(raw).__name__}")
    kind = raw.get("type")
    about = kind if isinstance(kind, str) and kind in kinds else None
    version = raw.get("v")
    if not is_int(version) or version != PROTOCOL_VERSION:
        raise MessageError(
            "version",
            f'protocol version {quoted(version)} is not spoken here: send "v": {PROTOCOL_VERSION}',
            about,
        )
    if about is None:
        raise MessageError(
            "invalid", f"unknown message type {quoted(kind)}: use one of {', '.join(kinds)}"
        )
    return raw, about


def read_message(data: str | bytes) -> ClientMessage:
    """One client message, checked with the standard library: the envelope, then exactly
    its type's fields, each of the right kind; :class:`MessageError` otherwise."""
    raw, about = read_envelope(data)
    cls = CLIENT_MESSAGES[about]
    given = {k: v for k, v in raw.items() if k not in ("v", "type")}
    problems = [f"{name}: {what}" for name, what in _problems(about, given)]
    if problems:
        raise MessageError("invalid", "; ".join(problems), about)
    return cls(**given)


@dataclasses.dataclass(frozen=True)
class _Field:
    """A field of a message as a checker needs it."""

    name: str
    required: bool
    nullable: bool
    choices: tuple[str, ...] | None
    text: Text | None


@cache
def fields_of(kind: str) -> tuple[_Field, ...]:
    """The fields of a message type's definition: required or not, null allowed or not,
    a closed set of choices or a text's limits (the shapes :mod:`king.table.protocol`
    uses)."""
    cls = CLIENT_MESSAGES[kind]
    hints = typing.get_type_hints(cls, include_extras=True)
    found = []
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        union = typing.get_origin(hint) in (typing.Union, types.UnionType)
        args = typing.get_args(hint) if union else (hint,)
        nullable = type(None) in args
        (shape,) = [a for a in args if a is not type(None)]
        text = next((m for m in getattr(shape, "__metadata__", ()) if isinstance(m, Text)), None)
        choices = typing.get_args(shape) if typing.get_origin(shape) is Literal else None
        required = field.default is dataclasses.MISSING
        found.append(_Field(field.name, required, nullable, choices, text))
    return tuple(found)


def spell_choices(choices: tuple[str, ...]) -> str:
    """Choices as pydantic lists them: ``'a', 'b' or 'c'``."""
    spelled = [repr(c) for c in choices]
    return spelled[0] if len(spelled) == 1 else f"{', '.join(spelled[:-1])} or {spelled[-1]}"


def _problems(kind: str, given: dict[str, Any]) -> list[tuple[str, str]]:
    fields = {f.name: f for f in fields_of(kind)}
    problems = []
    for name, field in fields.items():
        if name not in given:
            if field.required:
                problems.append((name, "Field required"))
        elif not (given[name] is None and field.nullable):
            problems.extend((name, what) for what in _value_problem(field, given[name]))
    problems.extend(
        (name, "Extra inputs are not permitted") for name in given if name not in fields
    )
    return problems


def _value_problem(field: _Field, value: object) -> list[str]:
    if field.choices is not None:
        return [] if value in field.choices else [f"Input should be {spell_choices(field.choices)}"]
    if not isinstance(value, str):
        return ["Input should be a valid string"]
    limits = field.text
    if limits is None:
        return []
    if len(value) < limits.shortest:
        plural = "s" * (limits.shortest > 1)
        return [f"String should have at least {limits.shortest} character{plural}"]
    if len(value) > limits.longest:
        return [f"String should have at most {limits.longest} characters"]
    return []
