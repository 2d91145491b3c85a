"""The widgets of the table screen: the info bar, the table, the scores, the person's
hand, the declaration menu and the message line.

Widgets only show what they are given and report what the person chose (as messages);
the app decides what a choice means, so the game logic stays in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from king.cards import Card, CardParseError, CardSet
from king.i18n import Translator
from king.phase import Phase
from king.rules import ALL_DECLARATIONS, GAME_DEALS, Declaration
from king.tui.render import (
    Namer,
    TableScene,
    card_label,
    card_style,
    contract_rule,
    table_lines,
)
from king.tui.words import declaration_name, fit, translate_bindings, you_or
from king.view import SeatView

__all__ = [
    "DeclarePanel",
    "HandView",
    "InfoBar",
    "MessageLine",
    "ScoreBoard",
    "TableView",
]

#: The characters a card can be typed with: ranks, ``10``, suit letters and symbols.
CARD_KEYS = frozenset("akqjt1234567890shdc♠♥♦♣")


def _plain(widget: Static) -> str:
    content = widget.content
    return content.plain if isinstance(content, Text) else str(content)


class InfoBar(Static):
    """The top line: which deal, the contract and trump, the declarer, the trick."""

    def show(self, t: Translator, view: SeatView, seed: int, name: Namer) -> None:
        """Describe the game as the person in ``view``'s seat sees it."""
        me = view.seat
        declaration = view.declaration
        parts: list[str] = []
        if view.phase is Phase.OVER:
            parts.append(t("tui.info.over"))
        else:
            parts.append(t("tui.info.deal", n=view.deal_number + 1, deals=GAME_DEALS))
            if declaration is None or view.phase is not Phase.PLAYING:
                key = you_or("tui.info.declaring", view.declarer == me)
                parts.append(t(key, name=name(view.declarer)))
            else:
                parts.append(declaration_name(t, declaration))
                parts.append(t("tui.info.declarer", name=name(view.declarer)))
                parts.append(t("tui.info.trick", n=min(len(view.tricks) + 1, 13)))
        parts.append(t("tui.info.rules", rules=view.rules.name, seed=seed))
        self.update(Text(" · ".join(parts)), layout=False)

    @property
    def text(self) -> str:
        """The line as plain text."""
        return _plain(self)


class TableView(Widget):
    """The current trick laid out round the table, you at the bottom."""

    scene: reactive[TableScene | None] = reactive(None)

    def render(self) -> Text:
        """Draw the scene at the widget's current size."""
        return Text("\n").join(self.lines())

    def lines(self) -> list[Text]:
        """The lines of the table as drawn now (also what tests read)."""
        scene = self.scene
        if scene is None:
            return []
        size = self.content_size
        return table_lines(scene, max(size.width, 40), max(size.height, 14))

    @property
    def text(self) -> str:
        """The table as plain text."""
        return "\n".join(line.plain.rstrip() for line in self.lines())


class ScoreBoard(Static):
    """The side panel: points, totals, obligations, what each seat took this deal."""

    @property
    def text(self) -> str:
        """The panel as plain text."""
        return _plain(self)


class MessageLine(Static):
    """One line under the hand: what just happened, or why a choice was refused."""

    def say(self, message: str | Text, *, error: bool = False) -> None:
        """Show ``message``; errors are shown in the error colour.  A long one (a
        refusal in some languages) takes a second line, so the layout is redone."""
        self.set_class(error, "error")
        self.update(message)

    @property
    def text(self) -> str:
        """The message as plain text."""
        return _plain(self)


class HandView(Widget, can_focus=True):
    """The person's hand, by suit, legal cards underlined, one card under the cursor.

    Choose a card with the arrow keys and Enter, by typing it (``qs``, ``10h``) and
    Enter, or with a click.  The widget only reports the choice (:class:`Chosen`).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "tui.binding.previous_card", show=False),
        Binding("right", "move(1)", "tui.binding.next_card", show=False),
        Binding("up", "suit(-1)", "tui.binding.previous_suit", show=False),
        Binding("down", "suit(1)", "tui.binding.next_suit", show=False),
        Binding("home", "jump(0)", "tui.binding.first_card", show=False),
        Binding("end", "jump(-1)", "tui.binding.last_card", show=False),
        Binding("enter", "choose", "tui.binding.play", show=True),
    ]

    class Chosen(Message):
        """The person chose a card (or typed something that is not one of theirs)."""

        def __init__(self, card: Card | None, typed: str = "") -> None:
            super().__init__()
            self.card = card
            self.typed = typed

    cards: reactive[tuple[Card, ...]] = reactive((), always_update=True)
    legal: reactive[CardSet | None] = reactive(None)
    cursor: reactive[int] = reactive(0)
    typed: reactive[str] = reactive("")
    hover: reactive[int | None] = reactive(None)

    def __init__(self, t: Translator, *, id: str | None = None) -> None:
        self.t = t
        super().__init__(id=id)
        translate_bindings(self, t)

    def show(self, cards: Sequence[Card], legal: CardSet | None) -> None:
        """Show ``cards`` (in display order); ``legal`` is the set the person may play
        now, or ``None`` when it is not their turn to play."""
        old = self.current
        self.cards = tuple(cards)
        self.legal = legal
        if old in self.cards and (legal is None or old in legal):
            self.cursor = self.cards.index(old)
        elif legal is not None and legal:
            self.cursor = next(i for i, c in enumerate(self.cards) if c in legal)
        else:
            self.cursor = min(self.cursor, max(0, len(self.cards) - 1))

    @property
    def current(self) -> Card | None:
        """The card under the cursor."""
        if 0 <= self.cursor < len(self.cards):
            return self.cards[self.cursor]
        return None

    # -- layout --------------------------------------------------------------------

    def _columns(self) -> list[int]:
        """The column where each card starts: one space between cards, three more
        between suits."""
        columns: list[int] = []
        col = 0
        for index, card in enumerate(self.cards):
            if index and card.suit is not self.cards[index - 1].suit:
                col += 2
            columns.append(col)
            col += 4
        return columns

    def card_offset(self, card: Card) -> tuple[int, int]:
        """Where ``card`` is drawn, relative to the widget (for a click)."""
        index = self.cards.index(card)
        region = self.content_region
        return (
            region.x - self.region.x + self._columns()[index] + 1,
            region.y - self.region.y,
        )

    def card_at(self, x: int) -> Card | None:
        """The card drawn at content column ``x``, if any."""
        for index, col in enumerate(self._columns()):
            if col <= x < col + 3:
                return self.cards[index]
        return None

    def render(self) -> Text:
        """Cards on the first line; under them a dash for each legal card and ▲ for
        the cursor, so the marks read even without colour."""
        faces = Text()
        marks = Text()
        show_cursor = self.legal is not None
        for index, (card, col) in enumerate(zip(self.cards, self._columns(), strict=True)):
            faces.append(" " * (col - faces.cell_len))
            marks.append(" " * (col - marks.cell_len))
            label = card_label(card)
            style = card_style(card)
            legal = self.legal is not None and card in self.legal
            if self.legal is not None and not legal:
                style += " dim"
            elif legal:
                style += " bold"
            if show_cursor and index == self.cursor:
                style += " reverse"
            if index == self.hover:
                style += " underline"
            faces.append(f"{label:>3}", style=style.strip())
            cursor = show_cursor and index == self.cursor
            if legal:
                marks.append("─▲─" if cursor else "───", style="green")
            else:
                marks.append(" ▲ " if cursor else "   ", style="yellow")
        if not self.cards:
            faces.append(self.t("tui.hand.empty"), style="dim")
        return Text("\n").join([faces, marks])

    # -- input ---------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        """Move the cursor one card."""
        if self.cards:
            self.cursor = (self.cursor + step) % len(self.cards)
            self.typed = ""

    def action_suit(self, step: int) -> None:
        """Move the cursor to the first card of the next (or previous) suit."""
        if not self.cards:
            return
        suits = list(dict.fromkeys(c.suit for c in self.cards))
        current = self.cards[self.cursor].suit
        target = suits[(suits.index(current) + step) % len(suits)]
        self.cursor = next(i for i, c in enumerate(self.cards) if c.suit is target)
        self.typed = ""

    def action_jump(self, index: int) -> None:
        """Move the cursor to the first or last card."""
        if self.cards:
            self.cursor = index % len(self.cards)
            self.typed = ""

    def action_choose(self) -> None:
        """Choose the typed card if something was typed, otherwise the cursor's card."""
        typed = self.typed
        self.typed = ""
        if typed:
            try:
                card: Card | None = Card.parse(typed)
            except CardParseError:
                card = None
            self.post_message(self.Chosen(card, typed))
        elif self.current is not None:
            self.post_message(self.Chosen(self.current))

    def on_key(self, event: events.Key) -> None:
        """Typing a card moves the cursor to it; Backspace and Escape edit the text."""
        char = (event.character or "").lower()
        if event.key == "backspace" and self.typed:
            self.typed = self.typed[:-1]
        elif event.key == "escape" and self.typed:
            self.typed = ""
        elif char and char in CARD_KEYS and event.is_printable:
            self.typed, card = _typed_card(self.typed, char)
            if card is not None and card in self.cards:
                self.cursor = self.cards.index(card)
        else:
            return
        event.stop()

    def watch_typed(self, typed: str) -> None:
        t = self.t
        self.border_subtitle = t("tui.hand.typed", typed=typed) if typed else t("tui.hand.how")

    def on_click(self, event: events.Click) -> None:
        """A click on a card chooses it."""
        offset = event.get_content_offset(self)
        if offset is None or offset.y != 0:
            return
        card = self.card_at(offset.x)
        if card is not None:
            self.cursor = self.cards.index(card)
            self.typed = ""
            self.post_message(self.Chosen(card))

    def on_mouse_move(self, event: events.MouseMove) -> None:
        offset = event.get_content_offset(self)
        card = None if offset is None or offset.y != 0 else self.card_at(offset.x)
        self.hover = None if card is None else self.cards.index(card)

    def on_leave(self, event: events.Leave) -> None:
        self.hover = None


def _typed_card(typed: str, char: str) -> tuple[str, Card | None]:
    """Add ``char`` to the typed text; the text is kept to the longest ending that reads
    as a card (so ``qs`` then ``10h`` reads as ``10h``), or its last three characters."""
    text = typed + char
    for size in (3, 2):
        tail = text[-size:]
        if len(tail) == size:
            try:
                return tail, Card.parse(tail)
            except CardParseError:
                pass
    return text[-3:], None


class DeclarePanel(Vertical):
    """The person's choice of contract: the ten declarations, those not allowed
    greyed out with the rule that forbids them."""

    def __init__(self, t: Translator, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.t = t
        self._prompts: list[Text] = []

    def compose(self) -> ComposeResult:
        yield Static(id="declare-intro")
        yield OptionList(id="declare-options")
        yield Static(id="declare-scores")

    def offer(self, view: SeatView, name: Namer) -> None:
        """Fill the menu for the declarer whose ``view`` this is."""
        t = self.t
        trumps, negatives = view.obligations(view.seat)
        self.border_title = t("tui.declare.title", n=view.deal_number + 1, deals=GAME_DEALS)
        intro = self.query_one("#declare-intro", Static)
        intro.update(
            Text.assemble(
                (t("tui.declare.choose"), "bold"),
                " ",
                t("tui.declare.how"),
                " ",
                t("tui.declare.owes", trumps=trumps, negatives=negatives),
            )
        )
        names = [declaration_name(t, declaration) for declaration in ALL_DECLARATIONS]
        column = max(13, *(cell_len(n) + 1 for n in names))
        options = self.query_one("#declare-options", OptionList)
        highlighted = options.highlighted
        options.clear_options()
        self._prompts = []
        first: int | None = None
        for index, declaration in enumerate(ALL_DECLARATIONS):
            why = view.why_refused(declaration)
            prompt = Text(fit(names[index], column))
            if why is None:
                prompt.append(contract_rule(t, declaration))
                if first is None:
                    first = index
            else:
                reason = t.refused(*why)
                prompt.append(t("tui.declare.not_allowed", reason=reason), style="italic")
            self._prompts.append(prompt)
            option_id = f"declare-{declaration.action_index}"
            options.add_option(Option(prompt, id=option_id, disabled=why is not None))
        if highlighted is None or options.get_option_at_index(highlighted).disabled:
            highlighted = first
        options.highlighted = highlighted
        self._mark(highlighted)
        scores = " · ".join(f"{name(s)} {view.totals[s]}" for s in range(4))
        totals = t("tui.declare.totals", scores=scores)
        self.query_one("#declare-scores", Static).update(Text(totals, style="dim"))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._mark(event.option_index)

    def _mark(self, highlighted: int | None) -> None:
        """Put ▶ before the highlighted contract, so the choice reads without colour."""
        options = self.query_one("#declare-options", OptionList)
        for index, prompt in enumerate(self._prompts):
            mark = "▶ " if index == highlighted else "  "
            options.replace_option_prompt_at_index(index, Text.assemble(mark, prompt))

    @staticmethod
    def declaration_of(option_id: str | None) -> Declaration | None:
        """The declaration an option stands for."""
        if option_id is None or not option_id.startswith("declare-"):
            return None
        return Declaration.from_action_index(int(option_id.removeprefix("declare-")))

    @property
    def text(self) -> str:
        """The menu as plain text (for tests and screen readers)."""
        options = self.query_one("#declare-options", OptionList)
        lines = []
        for index in range(options.option_count):
            option = options.get_option_at_index(index)
            prompt = option.prompt
            lines.append(prompt.plain if isinstance(prompt, Text) else str(prompt))
        return "\n".join(lines)
