"""The layers of docs/design.md, as the interpreter sees them: what importing a part of
``king`` brings in.  Each check runs in a fresh interpreter, so earlier imports in the
test process cannot hide a heavy or third-party import."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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


def test_naming_a_quick_bot_loads_no_compiler() -> None:
    # The random bot needs nothing outside the core; the rule bot only numpy.
    assert third_party_after("from king.bots import make_bot; make_bot('random')") == []
    assert third_party_after("from king.bots import make_bot; make_bot('rule')") == ["numpy"]


def test_only_the_compiled_engines_import_numba() -> None:
    loaded = third_party_after("import king.bots.position, king.bots.rule_play, king.bots.solver")
    assert "numba" not in loaded
    assert "numba" in third_party_after("import king.bots.compiled")
