"""Write ``engine/tables.h``: the rule facts and the rule policy's tables, taken from the
Python reference (:mod:`king.rules`, :mod:`king.bots.position`,
:mod:`king.bots.rule.play`, :mod:`king.bots.net.play`), so that the C engine states none
of them a second time.

Floats are written as C99 hexadecimal literals: the exact bits Python computed, so the
engine's arithmetic starts from the same numbers as the reference's.
``tests/bots/test_engine_build.py`` checks the committed file is what this writes.
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Iterable
from decimal import Decimal, getcontext
from fractions import Fraction
from pathlib import Path

from king.bots.engine.steps import SETUP_FIELDS
from king.bots.net import play as net_play
from king.bots.rule import play as rule_play
from king.cards import SUIT_MASKS
from king.rules import (
    FLAG_EARLY_END,
    FLAG_FORCED_PENALTY,
    FLAG_OVERRUFF,
    FLAG_TRUMP_LEAD_AFTER_BREAK,
    NO_BOYS,
    NO_HEARTS,
    NO_KING,
    NO_LAST_TWO,
    NO_QUEENS,
    NO_TRICKS,
    PENALTY_MASKS,
    POINTS_PER_UNIT,
    TRUMPS,
)

HERE = Path(__file__).resolve().parent
TABLES = HERE / "tables.h"


def _ints(values: Iterable[int]) -> str:
    return ", ".join(f"{int(v)}LL" if abs(int(v)) > 0x7FFFFFFF else str(int(v)) for v in values)


def _floats(values: Iterable[float]) -> str:
    return ", ".join(float(v).hex() for v in values)


def _nested(values: object, indent: str) -> str:
    """A C initializer for a (nested) sequence of floats: one innermost row a line."""
    items = list(values)  # type: ignore[call-overload]
    if not hasattr(items[0], "__len__"):
        return "{" + _floats(items) + "}"
    inner = indent + "    "
    rows = ",\n".join(inner + _nested(item, inner) for item in items)
    return "{\n" + rows + "\n" + indent + "}"


def _float_array(name: str, values: object) -> str:
    shape = []
    level = values
    while hasattr(level, "__len__"):
        shape.append(len(level))
        level = level[0]  # type: ignore[index]
    dims = "".join(f"[{n}]" for n in shape)
    return f"static const double {name}{dims} = {_nested(values, '')};"


def _net_inputs() -> str:
    """The ``I_`` offsets of :mod:`king.bots.net.play`'s input and ``INPUTS``, in order."""
    names = sorted(
        (name for name in dir(net_play) if name.startswith("I_")),
        key=lambda name: int(getattr(net_play, name)),
    )
    fields = [f"{name} = {int(getattr(net_play, name))}" for name in names]
    fields.append(f"INPUTS = {int(net_play.INPUTS)}")
    return "enum {\n    " + ",\n    ".join(fields) + ",\n};"


def _exp_table() -> str:
    """The table of the exponential of ARM's optimized routines (glibc's and musl's
    ``exp``): for k < 128, 2^(k/128) as H (the nearest double) times 1 + T, stored as
    the bits of T and the bits of H less k << 45; computed here to 80 digits, so each
    entry is its exact value rounded once."""
    getcontext().prec = 80
    ln2 = Decimal(2).ln()
    words = []
    for k in range(128):
        exact = Fraction((Decimal(k) / 128 * ln2).exp())
        high = float(exact)
        tail = float((exact - Fraction(high)) / Fraction(high))
        words += [_bits(tail), (_bits(high) - (k << 45)) % (1 << 64)]
    rows = ",\n".join(
        "    " + ", ".join(f"0x{word:016x}ULL" for word in words[i : i + 4])
        for i in range(0, len(words), 4)
    )
    return f"static const uint64_t EXP_TABLE[256] = {{\n{rows}\n}};"


def _bits(value: float) -> int:
    return int.from_bytes(struct.pack("<d", value), "little")


def _setup_enum() -> str:
    """The ``K_`` offset of each field of a search step's setup, and ``SETUP_WORDS``."""
    names = []
    at = 0
    for name, width in SETUP_FIELDS:
        names.append(f"K_{name.upper()} = {at}")
        at += width
    return "enum { " + ", ".join([*names, f"SETUP_WORDS = {at}"]) + " };"


def tables() -> str:
    """The text of ``tables.h``."""
    lines = [
        "/* Written by engine/generate.py from the Python reference: do not edit. */",
        "#ifndef KING_TABLES_H",
        "#define KING_TABLES_H",
        "#include <stdint.h>",
        "",
        "/* Contract codes (king.rules). */",
        f"enum {{ TRUMPS = {TRUMPS}, NO_TRICKS = {NO_TRICKS}, NO_HEARTS = {NO_HEARTS}, "
        f"NO_QUEENS = {NO_QUEENS}, NO_BOYS = {NO_BOYS}, NO_KING = {NO_KING}, "
        f"NO_LAST_TWO = {NO_LAST_TWO}, CONTRACTS = {len(PENALTY_MASKS)} }};",
        "/* Rule toggles (king.rules.Rules.flags). */",
        f"enum {{ F_FORCED = {FLAG_FORCED_PENALTY}, F_EARLY = {FLAG_EARLY_END}, "
        f"F_OVERRUFF = {FLAG_OVERRUFF}, F_TRUMP_LEAD = {FLAG_TRUMP_LEAD_AFTER_BREAK} }};",
        f"static const int64_t SUITS[4] = {{{_ints(SUIT_MASKS)}}};",
        f"static const int64_t PENALTY[{len(PENALTY_MASKS)}] = {{{_ints(PENALTY_MASKS)}}};",
        f"static const int64_t POINTS_PER_UNIT[{len(POINTS_PER_UNIT)}] = "
        f"{{{_ints(POINTS_PER_UNIT)}}};",
        "",
        "/* The rule policy's tables (king.bots.rule.play), bit for bit. */",
        _float_array("GUARD", rule_play.GUARD),
        _float_array("COVER", rule_play.COVER),
        _float_array("UNGUARD", rule_play.UNGUARD),
        f"static const double KEEP = {float(rule_play.KEEP).hex()};",
        _float_array("GUARDED", rule_play.GUARDED),
        _float_array("UNHELD", rule_play.UNHELD),
        _float_array("FORCED", rule_play.FORCED),
        "",
        "/* The learned policy's input layout (king.bots.net.play): block offsets. */",
        _net_inputs(),
        "",
        "/* 2^(k/128) for the exponential the learned policy's probabilities use. */",
        _exp_table(),
        "",
        "/* A search step's setup (king.bots.engine.steps.SETUP_FIELDS): each field's offset. */",
        _setup_enum(),
        "",
        "#endif",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    TABLES.write_text(tables(), encoding="utf-8")
    print(f"wrote {TABLES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
