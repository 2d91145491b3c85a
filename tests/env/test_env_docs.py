"""The Python examples of docs/rl.md run as written."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from king.bots import registry as bots_base
from tests.support import ROOT

DOCS = ROOT / "docs" / "rl.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)


@pytest.fixture(autouse=True)
def _registry_per_test() -> Iterator[None]:
    """Bots a test registers stay in that test (the registry is global)."""
    with bots_base.scoped_registry():
        yield


def test_the_docs_have_examples() -> None:
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_docs_example_runs(index: int, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(BLOCKS[index], f"docs/rl.md example {index + 1}", "exec"), {})
    assert capsys.readouterr().out.strip()
