"""The few array names the engines' rules are written with: numpy's where numpy imports,
plain Python sequences where it does not (the page's offline game, under Pyodide).

:mod:`king.bots.position`, :mod:`king.bots.rule.play` and their kin import ``array``,
``zeros``, ``int64``, ``float64`` and ``uint8`` from here, never from numpy, so the one
source runs on CPython with numpy and on plain Python. Their integers stay below 2**63
(52-bit card masks), where a Python ``int`` and an ``int64`` agree bit for bit, and
their floats are IEEE doubles either way; ``tests/bots/test_arrays.py`` plays the rule
policy both ways over 100,000 positions and finds the same choices.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["PLAIN", "array", "float64", "int64", "uint8", "zeros"]

if TYPE_CHECKING:
    from numpy import array, float64, int64, uint8, zeros

    PLAIN: bool
else:
    try:
        from numpy import array, float64, int64, uint8, zeros

        #: Whether the plain-sequence stand-ins are in use (numpy did not import).
        PLAIN = False
    except ImportError:
        from king.bots.plain_arrays import array, float64, int64, uint8, zeros

        PLAIN = True
