"""The player's language: message catalogs, the locale, and the game's words in it.

Every string a person sees lives in one JSON catalog per language under
``king/locales/<lang>/``, split by where it is shown (``game.json``: contracts, suits,
cards, rules help, refusals; ``web.json``: the page; ``tui.json``: the terminal game).
JSON rather than gettext because the same catalog is read by Python (the terminal game,
the CLI) and served to the browser page as it is, with no compile step and no second
format for the page; placeholders are ``{name}`` in both.  English is the reference: a
test fails when another language lacks one of its keys or changes a placeholder.

>>> tr = Translator("tr")
>>> tr.contract("no-king")
'Rıfkı'
>>> Translator("en")("table.deal", n=3)
'Deal 3 of 20'
>>> Translator("fr").card("QS")
'dame de pique'
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from king.errors import KingError

__all__ = [
    "PLURAL_CATEGORIES",
    "plural_categories",
    "plural_category",
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "Translator",
    "UnknownLanguageError",
    "catalog",
    "detect_language",
    "language_from_header",
    "parse_language",
    "placeholders",
]

#: The languages shipped, by code, with each one's name in itself.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "tr": "Türkçe",
    "es": "Español",
    "fr": "Français",
    "th": "ไทย",
}
DEFAULT_LANGUAGE = "en"
#: The catalog files of each language, by what they cover.
DOMAINS = ("game", "web", "tui")

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


class UnknownLanguageError(KingError, ValueError):
    """A language code that is not one of :data:`LANGUAGES`."""


def parse_language(value: str) -> str:
    """The shipped language a code or locale names (``"tr"``, ``"tr_TR.UTF-8"``,
    ``"fr-CA"``); raises :class:`UnknownLanguageError` naming the choices otherwise."""
    code = _base(value)
    if code not in LANGUAGES:
        choices = ", ".join(f"{key} ({name})" for key, name in LANGUAGES.items())
        raise UnknownLanguageError(f"unknown language {value!r}: choose one of {choices}")
    return code


def _base(value: str) -> str:
    """``"tr_TR.UTF-8"`` -> ``"tr"``."""
    return value.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()


def detect_language(environ: Mapping[str, str] | None = None) -> str:
    """The language of the terminal's locale, the way gettext reads it (``LANGUAGE``,
    then ``LC_ALL``, ``LC_MESSAGES``, ``LANG``), or English when none is shipped."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if not value:
            continue
        for part in value.split(":"):  # LANGUAGE is a list of preferences
            code = _base(part)
            if code in LANGUAGES:
                return code
        if name != "LANGUAGE":
            break  # the first locale variable set decides, as in gettext
    return DEFAULT_LANGUAGE


def language_from_header(header: str) -> str:
    """The best shipped language for an HTTP ``Accept-Language`` header."""
    choices: list[tuple[float, int, str]] = []
    for index, item in enumerate(header.split(",")):
        tag, _, rest = item.strip().partition(";")
        quality = 1.0
        if rest.strip().startswith("q="):
            try:
                quality = float(rest.strip()[2:])
            except ValueError:
                quality = 0.0
        code = _base(tag)
        if code in LANGUAGES and quality > 0:
            choices.append((-quality, index, code))
    return min(choices)[2] if choices else DEFAULT_LANGUAGE


@cache
def catalog(language: str) -> dict[str, str]:
    """Every message of ``language`` by key (all domains merged); keys it lacks fall
    back to English, so a missing translation shows English rather than a key."""
    code = parse_language(language)
    merged: dict[str, str] = {} if code == DEFAULT_LANGUAGE else dict(catalog(DEFAULT_LANGUAGE))
    merged.update(_own_messages(code))
    return merged


@cache
def _own_messages(code: str) -> dict[str, str]:
    """The messages written for ``code`` itself, without the English fallback."""
    messages: dict[str, str] = {}
    folder = resources.files("king") / "locales" / code
    for domain in DOMAINS:
        text = (folder / f"{domain}.json").read_text(encoding="utf-8")
        messages.update(json.loads(text))
    return messages


def own_messages(language: str) -> dict[str, str]:
    """The messages translated into ``language`` (for the completeness tests)."""
    return dict(_own_messages(parse_language(language)))


def placeholders(text: str) -> set[str]:
    """The ``{name}`` placeholders of a message."""
    return set(_PLACEHOLDER.findall(text))


#: The CLDR plural categories a message key may end in (``tui.tricks.one``).
PLURAL_CATEGORIES = ("zero", "one", "two", "few", "many", "other")


@cache
def _plural_rule(language: str) -> Any:
    from babel import Locale

    return Locale.parse(parse_language(language)).plural_form


def plural_category(language: str, n: int) -> str:
    """The CLDR plural category of the number ``n`` in ``language``.

    >>> plural_category("en", 1), plural_category("fr", 0), plural_category("th", 1)
    ('one', 'one', 'other')
    """
    category: str = _plural_rule(language)(n)
    return category


def plural_categories(language: str) -> set[str]:
    """The categories ``language``'s numbers fall into (always with ``other``)."""
    tags: set[str] = set(_plural_rule(language).tags)
    return tags | {"other"}


class Translator:
    """Messages of one language: ``t("table.deal", n=3)``, with helpers for the words
    of the game (contracts, suits, cards, the reasons a card or contract is refused)."""

    def __init__(self, language: str = DEFAULT_LANGUAGE) -> None:
        self.language = parse_language(language)
        self.messages = catalog(self.language)

    def __call__(self, key: str, **params: object) -> str:
        """The message ``key`` with its placeholders filled (unknown ones left as they
        are, so a wrong name shows rather than crashing the game)."""
        text = self.messages.get(key, key)
        return _PLACEHOLDER.sub(
            lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), text
        )

    def plural(self, key: str, n: int, **params: object) -> str:
        """``n`` things in this language's plural form: the message ``key.CATEGORY``
        for the CLDR category of ``n`` (``one``, ``many``, ``other``…; Babel knows the
        rules: French says « 0 pli », Thai has one form), else ``key.other``."""
        category = plural_category(self.language, n)
        chosen = f"{key}.{category}"
        if chosen not in self.messages:
            chosen = f"{key}.other"
        return self(chosen, n=n, **params)

    def contract(self, value: str) -> str:
        """A contract's name as players say it (``"no-king"`` -> ``"Rıfkı"`` in Turkish)."""
        return self(f"contract.{value}")

    def suit(self, letter: str) -> str:
        """A suit's name from its letter (``"S"``)."""
        return self(f"suit.{letter}")

    def card(self, code: str) -> str:
        """A card's full name from its code (``"QS"`` -> ``"queen of spades"``)."""
        rank, suit = code[:-1], code[-1]
        rank = "T" if rank == "10" else rank
        return self("card.label", rank=self(f"rank.{rank}"), suit=self(f"suit.{suit}"))

    def cards(self, codes: str) -> str:
        """A list of card codes (space-separated) as names joined in this language."""
        names = [self.card(code) for code in codes.split()]
        if len(names) <= 1:
            return "".join(names)
        return self("list.or", first=", ".join(names[:-1]), last=names[-1])

    def illegal(self, code: str, params: Mapping[str, str]) -> str:
        """Why a card was refused (a :func:`king.deal.why_illegal` code), in words."""
        words = {
            "card": self.card(params["card"]) if "card" in params else "",
            "suit": self.suit(params["suit"]) if "suit" in params else "",
            "trump": self.suit(params["trump"]) if "trump" in params else "",
            "cards": self.cards(params.get("cards", "")),
        }
        return self(f"illegal.{code}", **words)

    def refused(self, code: str, params: Mapping[str, str]) -> str:
        """Why a declaration was refused (a :meth:`king.game.Game.why_refused` code)."""
        contract = params.get("contract", "")
        return self(
            f"refused.{code}",
            times=params.get("times", ""),
            contract=self.contract(contract) if contract else "",
        )
