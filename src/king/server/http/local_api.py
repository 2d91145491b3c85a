"""The local game's own routes (``king``, for the person at this machine only): which
level its computer players are, and a new game against another level.  Elsewhere
(``king serve``, a phone on the home network) they answer 404."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, HTTPException
from pydantic import Field

from king.bots.levels import LEVELS, level_of, level_word
from king.rules import Rules
from king.server.http.identity import CurrentAccount, SameOrigin
from king.server.http.services import Services, ServicesDep
from king.server.people.accounts import Account
from king.server.protocol import ProtocolModel
from king.server.tables.local_game import LocalGame, read_note

__all__ = ["LocalGameInfo", "LocalGameRequest", "NewLocalGame", "router"]

router = APIRouter()


class LocalGameInfo(ProtocolModel):
    """``GET /api/local/game``: the level the person chose (null: not yet), the levels
    there are, weakest first, whether to ask for one (not when ``king --bots`` chose the
    computer players), the local game's table (the level is asked there only) and the
    level its computer players play now (null: not a level)."""

    level: str | None
    levels: list[str]
    ask: bool = True
    table: str | None = None
    playing: str | None = None


class LocalGameRequest(ProtocolModel):
    """``POST /api/local/game``: a new game against three computer players of a level."""

    level: str = Field(min_length=1, max_length=20)


class NewLocalGame(ProtocolModel):
    """The new local game: its table and the person's token."""

    table: str
    token: str


def _local_game(parts: Services, account: Account | None) -> LocalGame:
    """The local game, for the person at this machine; 404 for anyone else."""
    settings = parts.settings
    if settings.local_player is None or not isinstance(settings.db, Path):
        raise HTTPException(404, "this server has no local game")
    if account is None or account.kind != "local":
        raise HTTPException(404, "the local game is its owner's only")
    saved = settings.db.with_name("local-table.json")
    note = read_note(saved) or {}
    table = parts.registry.get(str(note.get("table", "")))
    rules = table.rules if table is not None else Rules.preset("classic")
    return LocalGame(parts.registry, saved, rules)


@router.get("/api/local/game")
async def local_game(parts: ServicesDep, account: CurrentAccount) -> LocalGameInfo:
    game = _local_game(parts, account)
    note = read_note(game.saved) or {}
    level = game.level()
    table = parts.registry.get(str(note.get("table", "")))
    bots = [] if table is None else [seat.bot for seat in table.seats if seat.kind == "bot"]
    return LocalGameInfo(
        level=level,
        levels=[level.name for level in LEVELS],
        ask=level is None and not note.get("bots_given"),
        table=None if table is None else table.id,
        playing=level_word(bots[0]) if bots and len(set(bots)) == 1 else None,
    )


@router.post("/api/local/game", dependencies=[SameOrigin])
async def new_local_game(
    body: LocalGameRequest, parts: ServicesDep, account: CurrentAccount
) -> NewLocalGame:
    game = _local_game(parts, account)
    if level_of(body.level) is None:
        known = ", ".join(level.name for level in LEVELS)
        raise HTTPException(422, f"level: one of {known}, not {body.level!r}")
    table, token = game.play_against(body.level)
    return NewLocalGame(table=table, token=token)
