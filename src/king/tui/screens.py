"""The windows shown over the table: help, the last trick, the summary after a deal
and the end of the game.  Each closes with Enter or Esc (or a click) and then lets the
game go on.  One more stands in for the table while the terminal is too small for it."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Size
from textual.screen import ModalScreen, Screen
from textual.widgets import Markdown, Static

from king.i18n import Translator
from king.tui.words import translate_bindings

__all__ = ["HelpScreen", "InfoScreen", "TooSmallScreen"]


class InfoScreen(ModalScreen[bool]):
    """A framed text over the table.  Enter, Space or a click closes it and answers
    True (go on); Esc answers False (stay)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close(False)", "tui.binding.close"),
        Binding("enter", "close(True)", "tui.binding.continue"),
        Binding("space", "close(True)", "tui.binding.continue", show=False),
        Binding("l", "close(False)", "tui.binding.close", show=False),
    ]

    def __init__(self, t: Translator, title: str, body: Text, footer: str | None = None) -> None:
        super().__init__()
        translate_bindings(self, t)
        self.title_text = title
        self.body = body
        self.footer_text = t("tui.window.continue") if footer is None else footer

    def compose(self) -> ComposeResult:
        with Vertical(id="info-box") as box:
            box.border_title = self.title_text
            box.border_subtitle = self.footer_text
            yield Static(self.body, id="info-body")

    @property
    def text(self) -> str:
        """The window's text, plain."""
        return self.body.plain

    def action_close(self, go_on: bool) -> None:
        """Close the window."""
        self.dismiss(go_on)

    def on_click(self, event: events.Click) -> None:
        self.dismiss(True)


class HelpScreen(ModalScreen[bool]):
    """The keys and the rules of each contract, scrollable."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "tui.binding.back"),
        Binding("question_mark", "close", "tui.binding.back", show=False),
        Binding("f1", "close", "tui.binding.back", show=False),
        Binding("q", "close", "tui.binding.back", show=False),
    ]

    def __init__(self, t: Translator, markdown: str) -> None:
        super().__init__()
        translate_bindings(self, t)
        self.t = t
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = self.t("tui.help.title")
            box.border_subtitle = self.t("tui.help.scroll")
            yield Markdown(self.markdown, id="help-text")

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()

    def action_close(self) -> None:
        """Back to the table."""
        self.dismiss(False)


class TooSmallScreen(Screen[bool]):
    """In place of the table (and of any window over it) while the terminal is smaller
    than the table needs: a garbled table helps no one, a centred sentence saying how
    large the window must be (and how large it is now) does.  The app closes it once
    the terminal is large enough; Ctrl+Q still quits (the game is saved)."""

    def __init__(self, t: Translator, size: Size) -> None:
        super().__init__()
        self.t = t
        self.now = size

    def compose(self) -> ComposeResult:
        yield Static(self._words(), id="too-small")

    def _words(self) -> str:
        return self.t("tui.small", width=self.now.width, height=self.now.height)

    def show(self, size: Size) -> None:
        """Say the terminal's new size."""
        self.now = size
        if self.is_mounted:
            self.query_one("#too-small", Static).update(self._words())

    @property
    def text(self) -> str:
        """The message, plain."""
        return self._words()
