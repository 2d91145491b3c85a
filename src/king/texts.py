"""Showing a piece of someone's input inside a message.

An error quotes what it refuses so that a person can find it, but the input may be a
megabyte of garbage: :func:`quoted` keeps the quote short.
"""

from __future__ import annotations

__all__ = ["quoted"]

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
