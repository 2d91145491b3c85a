"""``king site DIR``: the phone game as a static site, files that any web server can
serve with no King server behind them (docs/offline.md, "King on any web address")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from king.cli.common import fail
from king.cli.options import Json
from king.server.site.static import SiteError, check_base_path, write_site

__all__ = ["site_command"]


def site_command(
    folder: Annotated[
        Path,
        typer.Argument(
            help="The folder to write (absent, empty, or a site written before, replaced).",
            show_default=False,
        ),
    ],
    base_path: Annotated[
        str,
        typer.Option(
            "--base-path",
            help="The folder of the web address the site is served from (/king/ for "
            "https://HOST/king/).",
        ),
    ] = "/",
    as_json: Json = False,
) -> None:
    """Write the phone game as a static site: the home screen, the table against the
    computer at every level, Learn King, the analysis board, installable and kept for
    offline play at the first visit."""
    try:
        site = write_site(folder, base_path)
    except SiteError as error:
        raise fail(str(error), 2) from None
    except OSError as error:
        raise fail(f"cannot write the site to {folder}: {error.strerror or error}", 1) from None
    if as_json:
        figures: dict[str, object] = {"folder": str(site.folder), "build": site.build}
        figures |= {"files": site.files, "bytes": site.bytes, "base_path": base_path}
        typer.echo(json.dumps(figures))
        return
    where = site.folder
    trial = f"; to try it here: python3 -m http.server -d {where}" if base_path == "/" else ""
    typer.echo(
        f"wrote build {site.build} to {where}: {site.files} files, {site.bytes / 1e6:.1f} MB; "
        f"publish the folder at {check_base_path(base_path)} of an https address{trial}"
    )
