"""Lint, format and types are part of the test suite, so one command checks them all."""

from __future__ import annotations

import subprocess
import sys

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
