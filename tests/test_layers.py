"""The layers of docs/design.md, as the interpreter sees them: what importing a part of
``king`` brings in.  Each check runs in a fresh interpreter, so earlier imports in the
test process cannot hide a heavy or third-party import.  And as the import graph shows
them: no cycle anywhere, numba in one module."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

import pytest

from tests.support import ROOT

PROBE = """
import json, sys
before = set(sys.modules)
{code}
third = sorted({{
    name.split(".")[0] for name in set(sys.modules) - before
    if name.split(".")[0] not in sys.stdlib_module_names and name.split(".")[0] != "king"
    and not name.startswith("_")
}})
print(json.dumps(third))
"""


def third_party_after(code: str) -> list[str]:
    """The third-party top-level packages a fresh interpreter imports to run ``code``."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(code=code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded: list[str] = json.loads(result.stdout.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    "module",
    ["king", "king.cards", "king.rules", "king.deal", "king.game", "king.view", "king.record"],
)
def test_the_core_imports_only_the_standard_library(module: str) -> None:
    assert third_party_after(f"import {module}") == []


def test_naming_a_quick_bot_loads_little() -> None:
    # The random bot needs nothing outside the core; the rule bot numpy and the engine.
    assert third_party_after("from king.bots import make_bot; make_bot('random')") == []
    rule = third_party_after("from king.bots import make_bot; make_bot('rule')")
    assert rule == ["numpy", "wasmtime"]


def test_only_the_engine_loads_wasmtime_and_nothing_loads_numba() -> None:
    loaded = third_party_after(
        "import king.bots.position, king.bots.rule.play, king.bots.search.solver"
    )
    assert "wasmtime" not in loaded
    search = third_party_after("import king.bots.search.bot")
    assert "wasmtime" in search and "numba" not in search and "llvmlite" not in search


def test_no_module_of_king_imports_itself_back() -> None:
    """No import cycle among king's modules, across the whole package: for every import
    ``a -> b``, no chain of imports leads from ``b`` back to ``a``.  Imports under ``if
    TYPE_CHECKING:`` are left out (they never run); an import inside a function counts,
    as it runs as soon as the function does."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("king", exclude_type_checking_imports=True, cache_dir=None)
    cycles: dict[frozenset[str], str] = {}
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is not None:
                cycles.setdefault(frozenset(back), " -> ".join((module, *back)))
    assert not cycles, sorted(cycles.values())


def test_the_engine_contract_names_every_module_of_the_bots() -> None:
    """The import-linter contract that keeps wasmtime in ``king.bots.engine`` lists every
    other module of ``king.bots``, so a new module is under it from the start."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (contract,) = [c for c in contracts if c["name"] == "Only king.bots.engine runs wasmtime"]
    folder = ROOT / "src" / "king"
    modules = {
        ".".join(path.relative_to(folder).with_suffix("").parts).removesuffix(".__init__")
        for path in (folder / "bots").rglob("*.py")
        if "engine" not in path.relative_to(folder / "bots").parts
    }
    assert set(contract["source_modules"]) == {f"king.{name}" for name in modules}


def test_no_folder_of_king_holds_more_than_a_person_holds_in_their_head() -> None:
    """Each folder of the package holds at most 16 modules (its ``__init__`` aside): a
    folder that grows past that is split along a line the design already has."""
    crowded = {
        str(folder.relative_to(ROOT)): count
        for folder in (ROOT / "src" / "king").rglob("*")
        if folder.is_dir()
        and (count := len([p for p in folder.glob("*.py") if p.name != "__init__.py"])) > 16
    }
    assert not crowded, crowded
