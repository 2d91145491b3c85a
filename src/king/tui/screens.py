"""The windows shown over the table: help, the last trick, the summary after a deal
and the end of the game.  Each closes with Enter or Esc (or a click) and then lets the
game go on."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

__all__ = ["HelpScreen", "InfoScreen"]


class InfoScreen(ModalScreen[bool]):
    """A framed text over the table.  Enter, Space or a click closes it and answers
    True (go on); Esc answers False (stay)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close(False)", "Close"),
        Binding("enter", "close(True)", "Continue"),
        Binding("space", "close(True)", "Continue", show=False),
        Binding("l", "close(False)", "Close", show=False),
    ]

    def __init__(self, title: str, body: Text, footer: str = "Enter: continue") -> None:
        super().__init__()
        self.title_text = title
        self.body = body
        self.footer_text = footer

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
        Binding("escape", "close", "Back"),
        Binding("question_mark", "close", "Back", show=False),
        Binding("f1", "close", "Back", show=False),
        Binding("q", "close", "Back", show=False),
    ]

    def __init__(self, markdown: str) -> None:
        super().__init__()
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Help"
            box.border_subtitle = "↑↓ PgUp PgDn scroll · Esc back"
            yield Markdown(self.markdown, id="help-text")

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()

    def action_close(self) -> None:
        """Back to the table."""
        self.dismiss(False)
