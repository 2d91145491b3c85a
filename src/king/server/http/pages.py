"""The pages (each at its own address, with its content security policy and its
language set for the first paint), the service worker and the offline game's files,
and the scripts, styles, fonts and images under ``/static``."""

from __future__ import annotations

import mimetypes
from importlib import resources
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.types import Scope

from king.server.http.services import ServicesDep
from king.server.site import offline
from king.server.site.languages import choose_language, language_names

__all__ = ["WEB_DIR", "add_pages", "router"]

# The web app manifest ("Add to home screen") by its registered type.
mimetypes.add_type("application/manifest+json", ".webmanifest")

#: The page's static files, shipped in the package.
WEB_DIR = Path(str(resources.files("king") / "web"))
#: The pages' policy (:data:`offline.CONTENT_POLICY`), and no page inside another's frame
#: (a header only: a static site's pages cannot say it).
_CSP = f"{offline.CONTENT_POLICY}; frame-ancestors 'none'"

router = APIRouter()


class _Assets(StaticFiles):
    """The pages' scripts, styles, fonts and images under ``/static``.  The pages
    themselves are served once, at their own addresses with their content security
    policy (:func:`_page`): never a second time here without it."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        if path.lower().endswith((".html", ".htm")):
            raise HTTPException(404, "the pages are served at their own addresses")
        response = await super().get_response(path, scope)
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response


def _page(request: Request, parts: ServicesDep, name: str) -> HTMLResponse:
    """A page, its ``<html lang>`` set for the first paint to the address's ``?lang`` or
    the browser's ``Accept-Language`` (the page's script then applies a stored choice)."""
    wanted = request.query_params.getlist("lang")[:4]
    language = choose_language(
        wanted, request.headers.get("accept-language"), parts.settings.language
    )
    text = offline.page_text(name, language)
    headers = {
        "Content-Security-Policy": _CSP,
        "Cache-Control": "no-cache",
        "Vary": "Accept-Language",
    }
    return HTMLResponse(text, headers=headers)


@router.get("/", include_in_schema=False)
async def index(request: Request, parts: ServicesDep) -> HTMLResponse:
    return _page(request, parts, "index.html")


@router.get("/t/{table_id}", include_in_schema=False)
async def table_page(request: Request, parts: ServicesDep, table_id: str) -> HTMLResponse:
    return _page(request, parts, "table.html")


@router.get("/board", include_in_schema=False)
async def board_page(request: Request, parts: ServicesDep) -> HTMLResponse:
    return _page(request, parts, "board.html")


@router.get("/players/{ref}", include_in_schema=False)
async def player_page(request: Request, parts: ServicesDep, ref: str) -> HTMLResponse:
    return _page(request, parts, "player.html")


@router.get("/leaderboard", include_in_schema=False)
async def leaderboard_page(request: Request, parts: ServicesDep) -> HTMLResponse:
    return _page(request, parts, "leaderboard.html")


@router.get("/offline", include_in_schema=False)
async def offline_page(request: Request, parts: ServicesDep) -> HTMLResponse:
    return _page(request, parts, "table.html")


# The service worker (at the root, so that it may keep every page) and the files of the
# game that plays with no server (:mod:`king.server.site.offline`).
_FRESH = {"Cache-Control": "no-cache"}


@router.get("/sw.js", include_in_schema=False)
async def service_worker() -> Response:
    text = offline.service_worker(list(language_names()))
    return Response(text, media_type="text/javascript", headers=_FRESH)


@router.get("/offline/manifest.json", include_in_schema=False)
async def offline_manifest() -> JSONResponse:
    return JSONResponse(offline.manifest(list(language_names())), headers=_FRESH)


@router.get("/offline/king-{build}.zip", include_in_schema=False)
async def offline_bundle(build: str) -> Response:
    if build != offline.build():
        raise HTTPException(404, f"this server serves build {offline.build()}, not {build!r}")
    headers = {"Cache-Control": "public, max-age=31536000, immutable"}
    return Response(offline.bundle(), media_type="application/zip", headers=headers)


def add_pages(app: FastAPI) -> None:
    """The pages' routes, then the static files (a mount: last, it takes ``/static``)."""
    app.include_router(router)
    app.mount("/static", _Assets(directory=WEB_DIR), name="static")
