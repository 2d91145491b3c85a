"""``king bench``: the benchmarks of ``benchmarks/`` (shipped in the wheel as
``king._benchmarks``), each a ratio against a baseline run alongside it."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import typer

from king.cli.common import fail
from king.cli.options import Json

__all__ = ["BENCHMARKS", "bench_command"]

BENCHMARKS = ("engine", "search", "solver", "load", "cluster", "env", "offline", "site")


def _benchmark_module(name: str) -> ModuleType:
    """Import ``benchmarks/NAME.py`` from the package (wheel) or the source checkout; the
    folder is a package, so a benchmark imports its neighbours (``from .engine import``)."""
    king_folder = Path(__file__).resolve().parent.parent
    if (king_folder / "_benchmarks" / f"{name}.py").is_file():
        return importlib.import_module(f"king._benchmarks.{name}")
    folder = king_folder.parent.parent / "benchmarks"
    if not (folder / f"{name}.py").is_file():
        raise fail(f"the benchmark {name!r} is not installed with this copy of king", 2)
    if "king_benchmarks" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "king_benchmarks", folder / "__init__.py", submodule_search_locations=[str(folder)]
        )
        if spec is None or spec.loader is None:
            raise fail(f"cannot load the benchmarks from {folder}", 2)
        package = importlib.util.module_from_spec(spec)
        sys.modules["king_benchmarks"] = package  # dataclasses and pickling look it up
        spec.loader.exec_module(package)
    return importlib.import_module(f"king_benchmarks.{name}")


def bench_command(
    as_json: Json = False,
    seconds: Annotated[
        float, typer.Option("--seconds", min=0.05, max=600, help="Time for each measurement.")
    ] = 2.0,
    only: Annotated[
        list[str] | None,
        typer.Option("--only", help=f"Run only these benchmarks: {', '.join(BENCHMARKS)}."),
    ] = None,
) -> None:
    """Measure speed: the engine, the search bot and its kernels, the server under load
    and the RL environment, each as a ratio against a baseline run alongside it."""
    names = only or list(BENCHMARKS)
    for name in names:
        if name not in BENCHMARKS:
            raise fail(f"unknown benchmark {name!r}: choose from {', '.join(BENCHMARKS)}", 2)
    results: dict[str, Any] = {}
    for name in names:
        if not as_json:
            typer.echo(f"running {name} …", err=True)
        results.update(_benchmark_module(name).run(seconds))
    if as_json:
        typer.echo(json.dumps(results))
        return
    if not results:
        raise fail("no figures: the benchmarks chosen could not run here", 1)
    width = max(len(k) for k in results)
    for key, value in results.items():
        typer.echo(f"{key:<{width}}  {value:>12,}")
