"""The terminal game's words in the player's language: messages with coloured pieces,
seat names, counts, columns measured in terminal cells, and translated key bindings.

Every sentence comes from the catalogs (:mod:`king.i18n`, ``tui.json`` and ``game.json``);
this module only puts the pieces together.  Widths are counted in terminal cells, not
characters, so Thai combining marks and wide characters line up in the tables.
"""

from __future__ import annotations

import re
from dataclasses import replace

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.dom import DOMNode

from king.i18n import Translator
from king.rules import Declaration

__all__ = [
    "POSITION_KEYS",
    "count",
    "declaration_name",
    "fit",
    "position",
    "styled",
    "translate_bindings",
    "you_or",
]

#: The catalog words for where each seat sits, by position from the person's seat.
POSITION_KEYS = ("you", "left", "top", "right")

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def styled(t: Translator, key: str, style: str = "", **params: object) -> Text:
    """The message ``key`` as rich text: parameters that are :class:`~rich.text.Text`
    keep their own colours (a red ``Q♥`` in a sentence), the rest takes ``style``."""
    template = t.messages.get(key, key)
    out = Text(style=style)
    last = 0
    for match in _PLACEHOLDER.finditer(template):
        out.append(template[last : match.start()])
        name = match.group(1)
        value = params.get(name, match.group(0))
        if isinstance(value, Text):
            out.append_text(value)
        else:
            out.append(str(value))
        last = match.end()
    out.append(template[last:])
    return out


def you_or(key: str, is_you: bool) -> str:
    """The key of a sentence whose verb agrees with its subject: ``key + ".you"`` when
    the subject is the person (« Sen oynadın » / « Sol oynadı »)."""
    return f"{key}.you" if is_you else key


def position(t: Translator, offset: int, *, short: bool = False) -> str:
    """The name of the seat ``offset`` places after the person's (0: the person)."""
    word = POSITION_KEYS[offset % 4]
    return t(f"tui.position.{word}" + (".short" if short else ""))


def count(t: Translator, key: str, n: int) -> str:
    """``n`` things in the language's plural form (:meth:`Translator.plural`)."""
    return t.plural(key, n)


def declaration_name(t: Translator, declaration: Declaration) -> str:
    """A declaration as the screen names it: ``Koz (♥)``, ``Rıfkı``."""
    name = t.contract(declaration.contract.value)
    if declaration.trump is not None:
        return f"{name} ({declaration.trump.symbol})"
    return name


def fit(text: str, width: int, align: str = "<") -> str:
    """``text`` padded or cut to exactly ``width`` terminal cells (``"<"`` left,
    ``">"`` right aligned)."""
    if cell_len(text) >= width:
        return set_cell_size(text, width)
    padding = " " * (width - cell_len(text))
    return padding + text if align == ">" else text + padding


def translate_bindings(node: DOMNode, t: Translator) -> None:
    """Word the key bindings of ``node`` (whose descriptions are catalog keys) in the
    language of ``t``; the footer shows them as they are."""
    bindings = node._bindings.key_to_bindings
    for key, group in list(bindings.items()):
        bindings[key] = [
            replace(binding, description=t(binding.description))
            if binding.description.startswith("tui.")
            else binding
            for binding in group
        ]
