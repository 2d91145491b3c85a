"""The page's language: which shipped language a browser is answered in, and the
messages it is sent (the ``game`` and ``web`` catalogs of :mod:`king.i18n`).

The page asks once, naming what it wants in order (the address's ``?lang``, the choice
it remembers, the browser's languages); the first shipped one wins, then the request's
``Accept-Language``, then the server's default (``king serve --lang``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from importlib import resources

from king.bots.levels import LEVELS, level_word
from king.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    UnknownLanguageError,
    language_from_header,
    parse_language,
)

__all__ = ["PAGE_DOMAINS", "choose_language", "language_names", "page_messages"]

#: The catalog files the page needs: the game's words and its own.
PAGE_DOMAINS = ("game", "web")


def choose_language(wanted: Iterable[str], accept_language: str | None, default: str) -> str:
    """The first shipped language of ``wanted`` (codes or locales such as ``tr-TR``), else
    the best of an ``Accept-Language`` header, else ``default``."""
    for value in wanted:
        try:
            return parse_language(value)
        except UnknownLanguageError:
            continue
    if accept_language:
        # The default, at the lowest quality, is what the header gets when it names none.
        return language_from_header(f"{accept_language[:1000]},{default};q=0.001")
    return default


@cache
def _catalog_file(code: str, domain: str) -> dict[str, str]:
    path = resources.files("king") / "locales" / code / f"{domain}.json"
    messages: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return messages


@cache
def _messages(code: str) -> tuple[tuple[str, str], ...]:
    # The page's own catalogs only, English first as the fallback (as king.i18n.catalog
    # merges them), so the page never waits on the terminal's catalog.
    merged: dict[str, str] = {}
    for domain in PAGE_DOMAINS:
        merged.update(_catalog_file(DEFAULT_LANGUAGE, domain))
    if code != DEFAULT_LANGUAGE:
        for domain in PAGE_DOMAINS:
            own = _catalog_file(code, domain)
            merged.update((key, own[key]) for key in merged.keys() & own.keys())
    merged.update(_bot_words(merged))
    return tuple(merged.items())


def _bot_words(messages: dict[str, str]) -> dict[str, str]:
    """``bot.<spec>``: the word a player reads for each bot a table may name by a spec
    that is a level's (``bot.rule`` is Medium's word), so that the page shows levels,
    never an engine's spec (:func:`king.bots.levels.level_word` decides)."""
    specs = ["random", *(name for level in LEVELS for name in (level.name, level.spec))]
    return {f"bot.{spec}": messages[f"level.{level_word(spec)}"] for spec in specs}


def page_messages(language: str) -> dict[str, str]:
    """Every message the page may show, in ``language`` (English where one is missing)."""
    return dict(_messages(parse_language(language)))


def language_names() -> dict[str, str]:
    """The shipped languages, each named in itself (for the page's language selector)."""
    return dict(LANGUAGES)
