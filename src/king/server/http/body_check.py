"""Every request body is read and checked before the application sees it: one too large
is refused (413 ``too_large``), one that is not strict JSON too (400 ``bad_json``), so
no parser behind it ever meets such a body."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from king.jsontext import JSONTextError, loads
from king.server.http.errors import error_response

__all__ = ["MAX_ANNOTATED_BYTES", "MAX_BODY_BYTES", "MAX_RECORD_BYTES", "BodyCheck"]

#: The largest HTTP request body accepted.
MAX_BODY_BYTES = 16 * 1024
#: A whole game record sent to be analysed (a game of 20 deals is about 35 KB).
MAX_RECORD_BYTES = 512 * 1024
#: A record shown on the board may carry its analysis (a whole game's, indented as
#: ``king analyze`` writes it, is about 600 KB).
MAX_ANNOTATED_BYTES = 2 * 1024 * 1024
#: Paths whose bodies may be larger than :data:`MAX_BODY_BYTES`.
BODY_LIMITS = {"/api/analysis": MAX_RECORD_BYTES, "/api/board": MAX_ANNOTATED_BYTES}


class BodyCheck:
    """Read every request body before the application does: refuse one over
    :data:`MAX_BODY_BYTES` (413 ``too_large``) or one that is not strict JSON (400
    ``bad_json``: too deep, NaN, a repeated key, not UTF-8, …; see :mod:`king.jsontext`),
    so that no parser behind this ever meets such a body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = BODY_LIMITS.get(scope.get("path", ""), MAX_BODY_BYTES)
        for key, value in scope.get("headers", []):
            if key == b"content-length" and value.isdigit() and int(value) > limit:
                await _too_large(scope, receive, send, limit)
                return
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break  # the client went away; the app sees that when it reads
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > limit:
                await _too_large(scope, receive, send, limit)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body.strip():
            try:
                loads(body)
            except JSONTextError as error:
                response = error_response(
                    400, "bad_json", f"the body is not JSON that is read here: {error}"
                )
                await response(scope, receive, send)
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


async def _too_large(scope: Scope, receive: Receive, send: Send, limit: int) -> None:
    response = error_response(413, "too_large", f"the body is over {limit} bytes")
    await response(scope, receive, send)
