"""``king db``: the server's database; ``king db copy`` moves every table, with its
events, and every account from one database to another."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from king.cli.common import fail

if TYPE_CHECKING:
    from king.server.store.database import CopyReport

__all__ = ["DB_HELP", "copy_command"]

#: The help of ``king db``.
DB_HELP = "The server's database: copy its games from one database to another."


def copy_command(
    source: Annotated[
        str, typer.Argument(metavar="FROM", help="The database to copy from: a file or URL.")
    ],
    target: Annotated[
        str, typer.Argument(metavar="TO", help="The database to copy into: a file or URL.")
    ],
    skip_different: Annotated[
        bool,
        typer.Option(
            "--skip-different",
            help="Copy the rest when some tables hold different events in FROM and TO, "
            "leaving those as TO has them (without it nothing is copied).",
        ),
    ] = False,
) -> None:
    """Copy every table, finished or not, with all its events, from one database to
    another (a SQLite server's games into PostgreSQL, say).  Run it with every server of
    both stopped (it refuses a database in use), and again as often as you like: a table
    TO already has is left as it is, or brought up to date when TO's events are the
    start of FROM's."""
    from king.server.store.database import copy_people, copy_tables, open_for_copy
    from king.server.store.event_log import StoreError, describe, parse_database

    try:
        places = parse_database(source), parse_database(target)
    except ValueError as error:
        raise fail(str(error), 2) from None
    if isinstance(places[0], Path) and not places[0].is_file():
        raise fail(f"{places[0]}: no such database file", 1)
    if describe(places[0]) == describe(places[1]):
        raise fail("FROM and TO are the same database", 2)
    try:
        stores = [open_for_copy(places[0])]
        try:
            stores.append(open_for_copy(places[1]))
            report = copy_tables(stores[0], stores[1], skip_different=skip_different)
            accounts = copy_people(stores[0], stores[1])
        finally:
            for store in stores:
                store.close()
    except StoreError as error:
        raise fail(str(error), 1) from None
    for line in _copy_lines(report, accounts, describe(places[1])):
        typer.echo(f"king: {line}")


def _copy_lines(report: CopyReport, accounts: int, target: str) -> list[str]:
    """What ``king db copy`` did, in a line, and a line for each kind of table left."""
    lines = [
        f"copied {len(report.copied)} tables into {target} ({len(report.brought)} brought "
        f"up to date, {len(report.same)} were there already, with the same events) and "
        f"{accounts} accounts with their games' results and ratings"
    ]
    if report.ahead:
        lines.append(
            f"{len(report.ahead)} tables went on further in {target} and were left as they "
            f"are there: {_some(report.ahead)}"
        )
    if report.different:
        lines.append(
            f"{len(report.different)} tables hold different events in the two and were left "
            f"as they are in {target}: {_some(report.different)}"
        )
    return lines


def _some(names: tuple[str, ...], shown: int = 10) -> str:
    """Names for a line: the first ``shown`` of them, and how many more."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more
