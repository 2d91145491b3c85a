"""The help page: the keys of the table, then the rules in a few plain sentences.

The keys are worded in ``tui.json``; the rules (``rules.body``, one paragraph per rule
toggle) are the same text the browser page shows, from ``game.json``.  The project's
RULES.md stays the reference.
"""

from __future__ import annotations

from king.i18n import Translator
from king.rules import Rules

__all__ = ["KEYS", "help_markdown", "keys"]

#: The keys of the table screen, by catalog name (``tui.keys.<name>.key`` is the key,
#: ``tui.keys.<name>.what`` what it does), for the help screen and the docs.
KEYS = ("move", "enter", "type", "click", "declare", "last", "help", "escape", "quit")


def keys(t: Translator) -> list[tuple[str, str]]:
    """The keys and what each does, in the language of ``t``."""
    return [(t(f"tui.keys.{name}.key"), t(f"tui.keys.{name}.what")) for name in KEYS]


def help_markdown(t: Translator, rules: Rules, save_path: str) -> str:
    """The whole help page for a game played under ``rules`` and saved to ``save_path``."""
    table = "\n".join(f"- **{key}**: {what}" for key, what in keys(t))
    toggles = [t(f"rules.toggle.{name}") for name in rules.toggles_on]
    if toggles:
        extra = "## " + t("rules.of_this_game", name=rules.name) + "\n\n" + "\n\n".join(toggles)
    else:
        extra = t("rules.no_toggles", name=rules.name)
    return "\n\n".join(
        [
            "## " + t("tui.help.keys"),
            table,
            t("tui.help.letters"),
            t("tui.help.saved", path=save_path),
            t("rules.body").strip(),
            t("rules.honest").strip(),
            extra,
            t("tui.help.back"),
        ]
    )
