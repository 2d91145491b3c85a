"""The local game (``king``): the person's table kept from one start to the next (a note
beside the database names it and its seat's token), a new one that closes the last for
good, and the level of its computer players, chosen once and remembered."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from king.bots.levels import level_of
from king.jsontext import loads
from king.rules import Rules
from king.server.access import Access
from king.server.people.service import rated_refusal
from king.server.protocol import CreateTableRequest, SeatRequest
from king.server.store.event_log import StoreError
from king.server.tables.registry import Registry
from king.server.tables.table import Table

__all__ = [
    "LOCAL_NAME",
    "LocalGame",
    "local_address",
    "local_request",
    "local_table",
    "read_note",
    "saved_level",
    "write_note",
]

log = logging.getLogger("king.server")

#: The person's name at the local game.
LOCAL_NAME = "You"


def read_note(path: Path) -> dict[str, Any] | None:
    """A small JSON note kept beside the database, or ``None``."""
    try:
        data = loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_note(path: Path, data: dict[str, Any]) -> None:
    try:
        path.write_text(json.dumps(data), encoding="utf-8")
        path.chmod(0o600)
    except OSError:
        pass  # the game still works; a second `king` just cannot find it


def local_request(bots: Sequence[str], rules: Rules, hints: bool = False) -> CreateTableRequest:
    """The local table: the person at seat 0, the bots; rated whenever it can be (a
    preset, house bots at their defaults, no hints), so the person's rating follows
    their games against the bots."""
    seats = [SeatRequest(kind="human")] + [SeatRequest(kind="bot", bot=b) for b in bots]
    spec = rules.to_spec()
    rated = rated_refusal(spec, hints, [(s.kind, s.bot) for s in seats]) is None
    return CreateTableRequest(
        rules=spec if isinstance(spec, str) else dict(spec),
        seats=seats,
        seat=0,
        name=LOCAL_NAME,
        hints=hints,
        rated=rated,
    )


def local_address(url: str, table_id: str, token: str, language: str | None = None) -> str:
    """The address that opens the local table with its seat's token (after ``#``, which
    the browser never sends) and, when given, the page's language.

    >>> local_address("http://127.0.0.1:8000", "Zq3x9AbC", "tok", "tr")
    'http://127.0.0.1:8000/t/Zq3x9AbC?lang=tr#token=tok'
    """
    query = f"?lang={language}" if language else ""
    return f"{url}/t/{table_id}{query}#token={token}"


def local_table(
    registry: Registry,
    saved: Path,
    bots: Sequence[str],
    rules: Rules,
    new: bool,
    hints: bool = False,
) -> tuple[str, str, bool]:
    """The local game to open, its token, and whether it is the saved unfinished one
    (unless hints are asked for and it has none) rather than a new one.  A new game
    takes the saved one's place for good: that one is closed, as an idle table is (its
    record stays), so that it no longer counts, nor comes back, as an unfinished table."""
    previous = _saved_local(registry, saved)
    if previous is not None and not new and (previous[0].hints or not hints):
        return previous[0].id, previous[1], True
    people = registry.people
    account = people.accounts.local(LOCAL_NAME) if people is not None else None
    request = local_request(bots, rules, hints)
    owners = Access.owners(registry.settings)
    table, _, new_token = registry.create(request, account=account, access=owners)
    assert new_token is not None
    table.autoplay.prepare()  # Hard's kernels compile while the person looks at the table
    write_note(saved, {**(read_note(saved) or {}), "table": table.id, "token": new_token})
    if previous is not None:
        try:
            previous[0].close_idle()
        except StoreError as error:
            log.error("the previous local game %s was not closed: %s", previous[0].id, error)
    return table.id, new_token, False


def _saved_local(registry: Registry, saved: Path) -> tuple[Table, str] | None:
    """The unfinished local game the note beside the database names, with its seat's
    token, or ``None`` (no note, an unreadable one, or a game over or closed)."""
    data = read_note(saved)
    if data is None:
        return None
    try:
        table = registry.get(str(data["table"]))
        token = str(data["token"])
        if table is not None and table.is_open and table.authenticate(token) == 0:
            return table, token
    except (KeyError, StoreError):
        pass  # an unreadable note only means a new game
    return None


def saved_level(saved: Path) -> str | None:
    """The level the person chose for the local game's computer players, if any."""
    data = read_note(saved)
    level = data.get("level") if data is not None else None
    return level if isinstance(level, str) and level_of(level) is not None else None


class LocalGame:
    """The local game as its page may change it: a new game against another level of
    computer players (the old one closed for good), the level remembered for the next
    ``king``.  ``rules`` are the game's."""

    def __init__(self, registry: Registry, saved: Path, rules: Rules) -> None:
        self.registry = registry
        self.saved = saved
        self.rules = rules

    def level(self) -> str | None:
        return saved_level(self.saved)

    def play_against(self, level: str) -> tuple[str, str]:
        """A new local game against three computer players of ``level``: its table and
        the person's token."""
        if level_of(level) is None:
            raise ValueError(f"no level is called {level!r}")
        table, token, _ = local_table(self.registry, self.saved, [level] * 3, self.rules, True)
        note = read_note(self.saved) or {}
        write_note(self.saved, {**note, "level": level, "bots_given": False})
        return table, token
