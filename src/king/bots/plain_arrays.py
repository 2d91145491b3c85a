"""Stand-ins for the numpy names of :mod:`king.bots.arrays`, on plain Python lists.

Only what the engines' rules use: a one-dimensional array is a ``list``; a table of
more dimensions is a :class:`Grid`, a list of rows that also takes numpy's
``table[i, j]`` index.  The dtype names convert a number as numpy's scalar types
would for the values the engines hold (card masks below 2**63, IEEE doubles).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["Grid", "array", "float64", "int64", "uint8", "zeros"]

int64 = int
uint8 = int
float64 = float


class Grid(list[Any]):
    """Rows of a table, indexed ``grid[i, j]`` (or ``grid[i][j]``) as numpy is."""

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, tuple):
            value: Any = self
            for index in key:
                value = list.__getitem__(value, index)
            return value
        return list.__getitem__(self, key)


def _convert(values: Any, kind: type) -> Any:
    if isinstance(values, Iterable):
        items = [_convert(value, kind) for value in values]
        if any(isinstance(item, list) for item in items):
            return Grid(items)
        return items
    return kind(values)


def array(values: Iterable[Any], dtype: type = int) -> Any:
    """A list (or :class:`Grid`) holding ``values`` converted to ``dtype``."""
    return _convert(values, dtype)


def zeros(size: int, dtype: type = float) -> list[Any]:
    """A list of ``size`` zeros of ``dtype``."""
    return [dtype(0)] * size
