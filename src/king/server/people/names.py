"""Account names: which are allowed, and when two are the same name.

Two names are the same when a reader could not tell them apart: letters of another case,
Turkish dotted and dotless i (``I ı İ i``), full-width forms, or characters that look
alike across scripts (Latin ``a`` and Cyrillic ``а``, ``rn`` and ``m``, ``I`` and ``l``).
The test is Unicode's (UTS #39 skeletons, from ICU's ``SpoofChecker``), applied to the
name as written, in small letters and in capitals, each folded to one case: every name
has a few :func:`name_keys`, and two names clash when any of their keys are equal.

A name is 3 to 20 letters and digits of one script (with Latin digits), with single
``_ - .`` between them; it is kept as written (after NFKC) for display.  Every name
shown (an account's, or a guest's at a table) must show: no invisible characters
(Unicode's default-ignorable code points, such as the Hangul fillers U+3164 that are
letters yet print nothing), at least one letter or digit, and at most :data:`MAX_MARKS`
combining marks on one letter (more stack into a smear over the names around it).
"""

from __future__ import annotations

import unicodedata
from functools import cache
from typing import Any

from king.errors import KingError

__all__ = [
    "MAX_MARKS",
    "MAX_NAME",
    "MIN_NAME",
    "NameError_",
    "RESERVED",
    "check_name",
    "check_shown_name",
    "name_keys",
]

MIN_NAME = 3
MAX_NAME = 20
#: Combining marks one letter may carry (after NFKC: Indic and Vietnamese letters need
#: two or three).
MAX_MARKS = 3
#: Names no person may take: the house bots play as players of their own, and these
#: would pass for the site's voice.
RESERVED = (
    "random",
    "rule",
    "search",
    "search1",
    "net",
    "policy",
    "bot",
    "guest",
    "admin",
    "administrator",
    "king",
    "moderator",
    "system",
    "server",
    "root",
    "anonymous",
    "you",
)
_SEPARATORS = "_-."


class NameError_(KingError, ValueError):
    """A name that cannot be an account's; ``code`` is a stable word, the message says
    what to change."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@cache
def _checker() -> Any:
    import icu

    checker = icu.SpoofChecker()
    checker.setRestrictionLevel(icu.URestrictionLevel.HIGHLY_RESTRICTIVE)
    checker.setChecks(
        icu.USpoofChecks.RESTRICTION_LEVEL
        | icu.USpoofChecks.INVISIBLE
        | icu.USpoofChecks.MIXED_NUMBERS
    )
    return checker


def _fold(text: str) -> str:
    """One case for every letter, Turkish i's included: İ and I and ı all become i (the
    dot of a capital İ, a combining mark once folded, goes too)."""
    text = text.replace("İ", "i").replace("ı", "i")
    folded = text.casefold().replace("\u0307", "")
    return unicodedata.normalize("NFKC", folded)


def _skeleton(text: str) -> str:
    skeleton: str = _checker().getSkeleton(0, text)
    return unicodedata.normalize("NFKC", skeleton)


def name_keys(name: str) -> frozenset[str]:
    """The keys under which a name is unique: the skeleton, folded to one case, of the
    name as written, in small letters and in capitals (a capital I reads as a small l, so
    ``alice`` and ``AIICE`` clash).  ``Alice``, ``ALICE``, ``аlice`` (Cyrillic а) and
    ``AIice`` (capital i for l) share a key.

    >>> bool(name_keys("alice") & name_keys("AIICE"))
    True
    >>> all(name_keys("Işıl") & name_keys(other) for other in ("IŞIL", "işil", "ışıl"))
    True
    >>> bool(name_keys("Işıl") & name_keys("Isil"))
    False
    """
    return frozenset(
        _fold(_skeleton(_fold(_skeleton(variant))))
        for variant in (name, _fold(name), _fold(name).upper())
    )


def _invisible(char: str) -> bool:
    import icu

    return bool(icu.Char.hasBinaryProperty(char, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT))


def _check_visible(name: str) -> None:
    """Refuse a name with an invisible character, with no letter or digit, or with a
    letter carrying more than :data:`MAX_MARKS` marks."""
    if any(_invisible(char) for char in name):
        raise NameError_(
            "name_invisible", "a name may not hold invisible characters (such as fillers)"
        )
    if not any(unicodedata.category(char)[0] == "L" or char.isdigit() for char in name):
        raise NameError_("name_invisible", "a name needs at least one letter or digit")
    run = 0
    for char in name:
        run = run + 1 if unicodedata.category(char)[0] == "M" else 0
        if run > MAX_MARKS:
            raise NameError_(
                "name_marks", f"a letter may carry at most {MAX_MARKS} marks above or below it"
            )


def check_shown_name(text: str) -> str:
    """A guest's name at a table as it will be shown: NFKC, invisible characters
    dropped; refused (:class:`NameError_`) when no letter or digit is left, a letter
    carries too many marks, or it reads like a name kept for the site.  Free otherwise
    (spaces, any script): a guest's name is a label, not an account's.

    >>> check_shown_name("Ada\u3164")
    'Ada'
    >>> check_shown_name("\u3164\u3164\u3164")
    Traceback (most recent call last):
    ...
    king.server.people.names.NameError_: a name needs at least one letter or digit
    """
    name = "".join(ch for ch in unicodedata.normalize("NFKC", text) if not _invisible(ch))
    name = " ".join(name.split())
    _check_visible(name)
    keys = name_keys(name)
    for reserved in RESERVED:
        if keys & name_keys(reserved):
            raise NameError_("name_reserved", f"{name!r} is kept for the site or a house bot")
    return name


def check_name(text: str) -> str:
    """The name as it will be kept (NFKC, as written), or :class:`NameError_` saying
    what is wrong with it.

    >>> check_name("Şükrü_61")
    'Şükrü_61'
    >>> check_name("a b")
    Traceback (most recent call last):
    ...
    king.server.people.names.NameError_: a name is letters and digits, with _ - . only between ...
    """
    name = unicodedata.normalize("NFKC", text)
    if not MIN_NAME <= len(name) <= MAX_NAME:
        raise NameError_(
            "name_length", f"a name is {MIN_NAME} to {MAX_NAME} characters, not {len(name)}"
        )
    previous = ""
    for index, char in enumerate(name):
        kind = unicodedata.category(char)
        if char in _SEPARATORS:
            if index in (0, len(name) - 1) or previous in _SEPARATORS:
                raise NameError_(
                    "name_chars", f"{char!r} may stand only between letters or digits, once"
                )
        elif kind[0] == "M":
            if index == 0 or previous in _SEPARATORS:
                raise NameError_("name_chars", "a name starts with a letter or a digit")
        elif kind[0] != "L" and kind != "Nd":
            raise NameError_(
                "name_chars",
                f"a name is letters and digits, with _ - . only between them: not {char!r}",
            )
        previous = char
    _check_visible(name)
    if _checker().check(name) != 0:
        raise NameError_(
            "name_script",
            "a name is written in one script (with Latin digits): mixed scripts read as "
            "another name",
        )
    keys = name_keys(name)
    for reserved in RESERVED:
        if keys & name_keys(reserved):
            raise NameError_("name_reserved", f"{name!r} is kept for the site or a house bot")
    return name
