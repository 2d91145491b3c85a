"""What the page and process managers ask of the server itself: liveness and
readiness, whether the engines are still being prepared, the server's addresses, its
bots and the page's messages."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response

from king import __version__
from king.bots import BotInfo
from king.bots.levels import OFFLINE_BOTS, level_of
from king.server.engine.players import table_bots
from king.server.engine.preparing import PREPARING
from king.server.http.lan import qr_svg
from king.server.http.services import ServicesDep
from king.server.people.service import RATED_BOTS
from king.server.protocol import (
    PROTOCOL_VERSION,
    BotInfoModel,
    Health,
    PageStrings,
    Preparing,
    Ready,
    SiteInfo,
)
from king.server.site.languages import choose_language, language_names, page_messages

__all__ = ["bot_model", "router"]

router = APIRouter()


# Liveness: the process answers (``/api/health`` is its older name, kept for the callers
# that poll it).  Endpoints' docstrings are the API's descriptions: comments here.
@router.get("/api/live")
@router.get("/api/health")
async def live() -> Health:
    return Health(ok=True, version=__version__, protocol=PROTOCOL_VERSION)


# Readiness: the database and Redis answer (:mod:`king.server.http.readiness`), for
# process managers and load balancers.
@router.get("/api/ready", response_model=Ready)
async def ready(parts: ServicesDep) -> Response:
    checks = await parts.readiness.checks()
    failed = [check.part for check in checks if not check.ok]
    body = Ready(
        ready=not failed, failed=failed, checks={check.part: check.state for check in checks}
    )
    return JSONResponse(body.model_dump(), status_code=503 if failed else 200)


@router.get("/api/preparing")
async def preparing() -> Preparing:
    state = PREPARING.state()
    return Preparing(
        ready=state.ready,
        step=state.step,
        steps=state.steps,
        seconds=round(state.seconds, 1),
    )


@router.get("/api/site")
async def site(parts: ServicesDep) -> SiteInfo:
    settings = parts.settings
    public = None if settings.public_url is None else settings.public_url.rstrip("/")
    phone = settings.lan_url or (None if public is None else f"{public}/")
    return SiteInfo(
        public_url=public,
        lan_url=settings.lan_url,
        phone_url=phone,
        phone_qr=None if phone is None else qr_svg(phone),
    )


@router.get("/api/bots")
async def bots() -> list[BotInfoModel]:
    return [bot_model(b) for b in table_bots()]


@router.get("/api/i18n")
async def strings(
    request: Request, parts: ServicesDep, lang: Annotated[str, Query(max_length=500)] = ""
) -> PageStrings:
    """The page's messages in the first shipped language of ``lang`` (a comma-separated
    list of codes or locales), else of the request's ``Accept-Language``."""
    wanted = [part for part in lang.split(",") if part.strip()]
    language = choose_language(
        wanted, request.headers.get("accept-language"), parts.settings.language
    )
    return PageStrings(
        language=language, languages=language_names(), messages=page_messages(language)
    )


def bot_model(info: BotInfo) -> BotInfoModel:
    """A bot as ``GET /api/bots`` lists it: a level with its measured strength."""
    level = level_of(info.name)
    offline = info.name in OFFLINE_BOTS
    if level is None:
        return BotInfoModel(
            name=info.name,
            summary=info.summary,
            strength=info.strength,
            offline=offline,
            rated=info.name in RATED_BOTS,
        )
    return BotInfoModel(
        name=info.name,
        summary=info.summary,
        strength=info.strength,
        level=True,
        vs_rule=level.vs_rule,
        interval=level.interval,
        offline=offline,
        rated=info.name in RATED_BOTS,
    )
