"""Words that go inside a message: someone's input, quoted, and a seat, named.

An error quotes what it refuses so that a person can find it, but the input may be a
megabyte of garbage: :func:`quoted` keeps the quote short.  Seats are numbered 0-3 in
every API and record, but people count them from 1: :func:`seat_name` names them so.
"""

from __future__ import annotations

__all__ = ["quoted", "seat_name"]

_DIGITS_PER_BIT = 0.30103  # log10(2)


def quoted(value: object, limit: int = 40) -> str:
    """``repr(value)``, cut to about ``limit`` characters with an ellipsis.

    >>> quoted("QS"), quoted(True)
    ("'QS'", 'True')
    >>> quoted("X" * 100, limit=5)
    "'XXXX…'"
    >>> quoted(10**5000)
    'an integer of about 5000 digits'
    """
    if isinstance(value, str):
        return repr(value if len(value) <= limit else value[: limit - 1] + "…")
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of about {round(value.bit_length() * _DIGITS_PER_BIT)} digits"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def seat_name(seat: object) -> str:
    """A seat as a sentence names it, counted from 1 as people count (the seat with
    index 0 is ``seat 1``); something that is not a seat index is quoted as it is.

    >>> seat_name(0), seat_name("3"), seat_name(None)
    ('seat 1', 'seat 4', 'seat None')
    """
    try:
        number = int(str(seat))
    except ValueError:
        return f"seat {quoted(seat)}"
    return f"seat {number + 1}"
