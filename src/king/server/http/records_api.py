"""Finished games as records: a table's record to download, a game laid out for the
board, and analyses of a table's game or of a record sent in (run in the background:
202 while running, 200 when done)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from king.record import RecordError, ReplayReport, parse, replay, to_record
from king.server.engine.analysis import AnalysisBusyError
from king.server.engine.board import board_document, checked_analysis
from king.server.http.errors import error_response, table_refusal
from king.server.http.services import Services, ServicesDep
from king.server.tables.table import Table
from king.table.rules import RefusedError

__all__ = ["router"]

router = APIRouter()


@router.post("/api/tables/{table_id}/analysis")
async def analyse_table(parts: ServicesDep, table_id: str) -> Response:
    table = _finished(parts, table_id, "only a finished game is analysed: it shows every hand")
    return table if isinstance(table, Response) else _analysis(parts, table.record())


@router.post("/api/analysis")
async def analyse_record(request: Request, parts: ServicesDep) -> Response:
    sent = await _sent_record(request)
    if isinstance(sent, Response):
        return sent
    _, report = sent
    return _analysis(parts, to_record(report.game, report.players))


@router.post("/api/board")
async def board_of_record(request: Request) -> Response:
    sent = await _sent_record(request)
    if isinstance(sent, Response):
        return sent
    source, report = sent
    return _board(report, source.get("analysis"))


@router.get("/api/tables/{table_id}/board")
async def board_of_table(parts: ServicesDep, table_id: str) -> Response:
    why = "the game is not over: the board would show hands in play"
    table = _finished(parts, table_id, why)
    return table if isinstance(table, Response) else _board(replay(table.record()), None)


@router.get("/api/analysis/{key}")
async def analysis(parts: ServicesDep, key: str) -> Response:
    job = parts.analyses.get(key)
    if job is None:
        return error_response(404, "not_found", f"there is no analysis {key!r} here")
    return JSONResponse(job.to_json(), status_code=200 if job.state != "running" else 202)


@router.get("/api/tables/{table_id}/record")
async def record(parts: ServicesDep, table_id: str) -> Response:
    table = _finished(parts, table_id, "the game is not over: its record would show hands in play")
    if isinstance(table, Response):
        return table
    headers = {"Content-Disposition": f'attachment; filename="king-{table.id}.json"'}
    return JSONResponse(table.record(), headers=headers)


def _finished(parts: Services, table_id: str, why: str) -> Table | Response:
    """A finished table of this process, or the refusal (409 ``not_over``, saying
    ``why``) while it is played: its record would show the hands in play."""
    table = parts.registry.get(table_id)
    if table is None:
        raise HTTPException(404, f"there is no table {table_id!r}")
    if table.is_open:
        return table_refusal(RefusedError("not_over", why))
    return table


def _analysis(parts: Services, record: dict[str, Any]) -> Response:
    """Start (or find) the analysis of a record: 202 while it runs, 200 when done."""
    try:
        job = parts.analyses.start(record)
    except AnalysisBusyError as error:
        return error_response(503, "busy", str(error))
    return JSONResponse(job.to_json(), status_code=200 if job.state == "done" else 202)


async def _sent_record(request: Request) -> tuple[Mapping[str, Any], ReplayReport] | Response:
    """The record in a request's body and its replay, or the 422 that says why it is not
    a valid one."""
    try:
        source = parse(await request.body())
        report = replay(source)
    except RecordError as error:
        return error_response(422, "invalid", f"not a game record: {error}")
    if report.fault is not None:
        return error_response(422, "invalid", f"the record is not valid: {report.fault}")
    return source, report


def _board(report: ReplayReport, section: object) -> Response:
    """A valid game laid out for the board, with its own analysis section when it brings
    a well-formed one (else why it was set aside)."""
    if not report.game.deals:
        return error_response(422, "invalid", "the record has no declared deal to show")
    analysis, why = checked_analysis(section, report)
    body: dict[str, Any] = {"board": board_document(report), "analysis": analysis}
    if why:
        body["analysis_refused"] = why
    return JSONResponse(body)
