"""Game records read from a file or standard input, for the commands that take one."""

from __future__ import annotations

import sys
from pathlib import Path

from king.cli.common import fail
from king.record import RecordError, ReplayReport, replay

__all__ = ["read_records"]


def read_records(path: Path) -> list[ReplayReport]:
    """Replay the record in ``path`` ('-' for standard input); a file of JSON lines
    (as ``king arena --out`` writes) gives one report per line."""
    if str(path) == "-":
        data = sys.stdin.buffer.read()
    else:
        if not path.exists():
            raise fail(f"{path}: no such file", 2)
        if path.is_dir():
            raise fail(f"{path}: is a folder, not a record file", 2)
        try:
            data = path.read_bytes()
        except OSError as error:
            raise fail(f"{path}: cannot read it: {error.strerror}", 2) from None
    try:
        return [replay(data)]
    except RecordError as error:
        lines = [line for line in data.splitlines() if line.strip()]
        if len(lines) < 2 or "Extra data" not in str(error):
            raise fail(f"{path}: {error}", 2) from None
    reports = []
    for number, line in enumerate(lines, start=1):
        try:
            reports.append(replay(line))
        except RecordError as error:
            raise fail(f"{path}, line {number}: {error}", 2) from None
    return reports
