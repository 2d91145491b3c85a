"""Lint, format and types are part of the test suite, so one command checks them all."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import ROOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.parametrize(
    "command",
    [
        ("ruff", "check", "src", "tests", "benchmarks", "examples", "scripts"),
        ("ruff", "format", "--check", "src", "tests", "benchmarks", "examples", "scripts"),
        ("mypy", "--strict", "src"),
    ],
    ids=["ruff-check", "ruff-format", "mypy-strict"],
)
def test_code_quality(command: tuple[str, ...]) -> None:
    result = _run(*command)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_layers_of_the_design_hold() -> None:
    """import-linter's contracts (pyproject.toml): the layers, the adapters' independence,
    the standard-library core, numba in one module only."""
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import importlinter.cli as c; raise SystemExit(c.lint_imports(no_cache=True))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" in result.stdout and "0 broken" in result.stdout


def test_the_pre_commit_hooks_are_the_suites_checks() -> None:
    """.pre-commit-config.yaml is valid and runs the checks above, from the project's
    own tools (local hooks: nothing fetched)."""
    result = _run("pre_commit", "validate-config", ".pre-commit-config.yaml")
    assert result.returncode == 0, result.stdout + result.stderr
    config = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    for entry in ("entry: ruff check", "entry: ruff format", "entry: mypy --strict src"):
        assert entry in config
    assert "repo: local" in config and "rev:" not in config


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_names_taken(source: str, module: str, is_module: Callable[[str], bool]) -> list[str]:
    """Where the source of ``module`` takes a private name from another ``king`` module:
    ``from king.x import _y`` (relative imports included) or ``x._y`` where ``x`` names
    an imported module of king; each as ``LINE: what``."""
    tree = ast.parse(source)
    package = module if is_module(module + ".__init__") else module.rpartition(".")[0]
    found: list[str] = []
    modules: dict[str, str] = {}  # a name bound in this module -> the king module it is
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "king":
                    name = alias.asname or alias.name.split(".")[0]
                    modules[name] = alias.name if alias.asname else "king"
        elif isinstance(node, ast.ImportFrom):
            source_module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source_module = ".".join([*base, *([node.module] if node.module else [])])
            if source_module.split(".")[0] != "king" or source_module == module:
                continue
            for alias in node.names:
                if _is_private(alias.name):
                    found.append(f"{node.lineno}: from {source_module} import {alias.name}")
                elif is_module(f"{source_module}.{alias.name}"):
                    modules[alias.asname or alias.name] = f"{source_module}.{alias.name}"
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        chain = [node.attr]
        value = node.value
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if not isinstance(value, ast.Name) or value.id not in modules:
            continue
        target = modules[value.id]
        attributes = list(reversed(chain))
        while attributes and is_module(f"{target}.{attributes[0]}"):
            target = f"{target}.{attributes.pop(0)}"
        # Only the attribute read from the module itself: node is that very attribute.
        if len(attributes) == 1 and target != module and _is_private(attributes[0]):
            found.append(f"{node.lineno}: {target}.{attributes[0]}")
    return found


def _king_modules() -> dict[str, Path]:
    """Every module of ``src/king`` by its dotted name (a package as NAME.__init__)."""
    source = ROOT / "src"
    return {
        ".".join(path.relative_to(source).with_suffix("").parts): path
        for path in sorted((source / "king").rglob("*.py"))
    }


def test_the_private_name_check_sees_every_form() -> None:
    known = {"king.a", "king.a.__init__", "king.a.b", "king.a.c", "king.d"}
    source = """
import king.a.b
import king.d as dee
from king.a import b, _hidden
from king.d import (
    shown,
    _tucked,
)
from . import _sibling
from .b import _near, __version__
from numpy import _private_to_numpy
b._reached
dee._aliased
king.a.b._dotted
b.shown._attribute_of_a_value
"""
    is_module = known.__contains__
    found = private_names_taken(source, "king.a.c", is_module)
    assert found == [
        "4: from king.a import _hidden",
        "5: from king.d import _tucked",
        "9: from king.a import _sibling",
        "10: from king.a.b import _near",
        "12: king.a.b._reached",
        "13: king.d._aliased",
        "14: king.a.b._dotted",
    ], found


def test_no_module_of_king_takes_a_private_name_from_another() -> None:
    """A name with a leading underscore is its module's own: another module of king that
    needs it needs it public (third-party privates are not this test's business)."""
    modules = _king_modules()
    is_module = modules.__contains__
    found = []
    for name, path in modules.items():
        module = name.removesuffix(".__init__")
        for where in private_names_taken(path.read_text(encoding="utf-8"), module, is_module):
            found.append(f"{path.relative_to(ROOT)}:{where}")
    assert found == [], "private names taken from another module:\n" + "\n".join(found)


#: The lines git writes around the two versions of a passage a merge left.
_CONFLICT = ("<" * 7 + " ", ">" * 7 + " ")


def test_no_tracked_file_keeps_a_merge_conflict() -> None:
    """A merge resolved in haste can leave git's markers in prose, where no parser
    fails: the docs are text every reader trusts."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    found = []
    for name in filter(None, listed):
        path = ROOT / name.decode()
        if path.suffix in {".wasm", ".zip", ".png", ".npz", ".ico", ".woff2"} or not path.is_file():
            continue
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            continue
        found += [
            f"{name.decode()}:{n}"
            for n, line in enumerate(lines, 1)
            if line.startswith(_CONFLICT) or (line == "=" * 7 and _near_marker(lines, n))
        ]
    assert found == [], f"merge conflict markers left in: {found}"


def _near_marker(lines: list[str], number: int) -> bool:
    """A bare ``=======`` counts only between the two other markers (in Markdown it may
    underline a heading)."""
    before = any(line.startswith("<" * 7 + " ") for line in lines[:number])
    after = any(line.startswith(">" * 7 + " ") for line in lines[number:])
    return before and after
