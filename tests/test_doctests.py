"""The examples in the docstrings of the public modules run and print what they say."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "king.cards",
    "king.rules",
    "king.deal",
    "king.game",
    "king.record",
    "king.texts",
    "king.bots",
    "king.env.batch",
    "king.env.evaluation",
    "king.env.information",
    "king.env.opponents",
    "king.env.outcome",
    "king.server.clock",
    "king.server.people.names",
    "king.server.people.ratings",
    "king.server.people.results",
    "king.server.store.event_log",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.attempted > 0
    assert result.failed == 0
