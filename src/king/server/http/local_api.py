"""The local game's own routes (``king``, for the person at this machine only): which
level its computer players are, and a new game against another level.  Elsewhere
(``king serve``, a phone on the home network) they answer 404."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, HTTPException, Request
from pydantic import Field

from king.bots.levels import LEVELS, level_of
from king.rules import Rules
from king.server.config import ServerSettings
from king.server.http.people_api import current_account
from king.server.protocol import StrictModel
from king.server.tables.local_game import LocalGame, read_note

__all__ = ["LocalGameInfo", "LocalGameRequest", "NewLocalGame", "add_local_api"]


class LocalGameInfo(StrictModel):
    """``GET /api/local/game``: the level the person chose (null: not yet), the levels
    there are, weakest first, and whether to ask for one (not when ``king --bots``
    chose the computer players)."""

    level: str | None
    levels: list[str]
    ask: bool = True


class LocalGameRequest(StrictModel):
    """``POST /api/local/game``: a new game against three computer players of a level."""

    level: str = Field(min_length=1, max_length=20)


class NewLocalGame(StrictModel):
    """The new local game: its table and the person's token."""

    table: str
    token: str


def _local_game(request: Request) -> LocalGame:
    """The local game, for the person at this machine; 404 for anyone else."""
    settings: ServerSettings = request.app.state.settings
    account = current_account(request)
    if settings.local_player is None or not isinstance(settings.db, Path):
        raise HTTPException(404, "this server has no local game")
    if account is None or account.kind != "local":
        raise HTTPException(404, "the local game is its owner's only")
    saved = settings.db.with_name("local-table.json")
    note = read_note(saved) or {}
    table = request.app.state.registry.get(str(note.get("table", "")))
    rules = table.rules if table is not None else Rules.preset("classic")
    return LocalGame(request.app.state.registry, saved, rules)


def add_local_api(app: FastAPI) -> None:
    @app.get("/api/local/game")
    async def local_game(request: Request) -> LocalGameInfo:
        game = _local_game(request)
        chosen = bool((read_note(game.saved) or {}).get("bots_given"))
        level = game.level()
        levels = [level.name for level in LEVELS]
        return LocalGameInfo(level=level, levels=levels, ask=level is None and not chosen)

    @app.post("/api/local/game")
    async def new_local_game(request: Request, body: LocalGameRequest) -> NewLocalGame:
        game = _local_game(request)
        if level_of(body.level) is None:
            known = ", ".join(level.name for level in LEVELS)
            raise HTTPException(422, f"level: one of {known}, not {body.level!r}")
        table, token = game.play_against(body.level)
        return NewLocalGame(table=table, token=token)
