"""``king play``: a whole game in the terminal, one person against three bots.

The app owns the order of events: it asks the bots for their choices off the event loop
(in a worker thread, after a short pause so a person can follow), hands every action to
the :class:`~king.tui.session.PlaySession` (which saves it), and redraws.  Windows over
the table (help, last trick, a deal's summary) hold the bots until they close; so does a
terminal too small for the table, which shows a message asking for a larger one instead
of a garbled table.  Every word on the screen is in the session's language, through the
app's :attr:`KingApp.t`.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Footer, OptionList
from textual.worker import Worker

from king.cards import Seat
from king.deal import Deal, IllegalMoveError
from king.game import Action, GameStateError, IllegalDeclarationError, Phase
from king.i18n import Translator, detect_language, parse_language
from king.rules import Declaration, Rules
from king.tui.help import help_markdown
from king.tui.render import (
    card_label,
    card_text,
    deal_summary,
    game_summary,
    hand_order,
    scene_of,
    scoreboard,
    table_lines,
    trick_scene,
    trick_sentence,
)
from king.tui.save import PlayError
from king.tui.screens import HelpScreen, InfoScreen, TooSmallScreen
from king.tui.session import PlaySession, open_table
from king.tui.widgets import (
    DeclarePanel,
    HandView,
    InfoBar,
    MessageLine,
    ScoreBoard,
    TableView,
)
from king.tui.words import declaration_name, position, styled, translate_bindings, you_or

__all__ = ["DEFAULT_PAUSE", "MIN_SIZE", "KingApp", "PlayError", "farewell", "run_play"]

#: Seconds a bot waits before it acts, so a person can follow the play.
DEFAULT_PAUSE = 0.6
#: The environment variable that changes :data:`DEFAULT_PAUSE`.
PAUSE_VARIABLE = "KING_PLAY_PAUSE"
#: The smallest terminal (columns, rows) the table is laid out for; a smaller one shows
#: the message ``tui.small`` instead (whose words name this size).
MIN_SIZE = Size(80, 24)
#: Seconds the news that the last game goes on stays on screen (the message line
#: soon says the bots' moves instead).
NOTICE_SECONDS = 12.0


class KingApp(App[None]):
    """The table: your hand at the bottom, the trick in the middle, scores at the side."""

    CSS_PATH = "king.tcss"
    TITLE = "King"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "tui.binding.help"),
        Binding("f1", "help", "tui.binding.help", show=False),
        Binding("l", "last_trick", "tui.binding.last_trick"),
        Binding("ctrl+q", "quit", "tui.binding.quit_saved", priority=True),
        Binding("ctrl+c", "quit", "tui.binding.quit", show=False, priority=True),
    ]

    def __init__(
        self,
        session: PlaySession,
        *,
        pause: float = DEFAULT_PAUSE,
        summaries: bool = True,
        lang: str | None = None,
        resumed: bool = False,
        unused: Sequence[str] = (),
    ) -> None:
        """``resumed``: the last unfinished game goes on by itself, which the first
        message says, naming the new-game options it does not use (``unused``)."""
        super().__init__()
        if lang is not None:
            session.language = parse_language(lang)
        self.session = session
        #: The player's language: every word on the screen comes from it.
        self.t = Translator(session.language)
        translate_bindings(self, self.t)
        self.pause = max(0.0, pause)
        self.summaries = summaries
        self._results_seen = len(session.game.results)
        self._windows = 0
        self._clear = asyncio.Event()
        self._clear.set()
        self._thinking: int | None = None
        self._worker: Worker[None] | None = None
        self._over_shown = False
        self.resumed = resumed
        self.unused = tuple(unused)
        #: The message shown instead of the table while the terminal is too small.
        self._too_small: TooSmallScreen | None = None

    # -- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield InfoBar(id="info")
        with Horizontal(id="main"):
            yield TableView(id="table")
            yield ScoreBoard(id="scores")
        yield DeclarePanel(self.t, id="declare")
        yield HandView(self.t, id="hand")
        yield MessageLine(id="message")
        yield Footer()

    def on_mount(self) -> None:
        t = self.t
        self.query_one(ScoreBoard).border_title = t("tui.scores.title")
        hand = self.query_one(HandView)
        hand.border_title = t("tui.hand.title", seat=self.session.seat + 1)
        opening = self._opening()
        self.say(opening)
        if self.resumed:  # the bots' first moves soon replace the line: it stays a while
            self.notify(opening, timeout=NOTICE_SECONDS)
        self.redraw()
        self.advance()
        self.fit(self.size)

    def _opening(self) -> str:
        """The first message: how to get help, or that the last unfinished game goes on
        (and which of the options given for a new game it does not use)."""
        t = self.t
        if not self.resumed:
            return t("tui.message.welcome")
        if not self.unused:
            return t("tui.message.resumed")
        *rest, last = self.unused
        options = t("tui.list.and", first=", ".join(rest), last=last) if rest else last
        return t.plural("tui.message.unused", len(self.unused), options=options)

    # -- the size of the terminal ------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        """Follow the terminal's size: the table, or the message asking for more room."""
        self.fit(event.size)

    def fit(self, size: Size) -> None:
        """Show the table only when ``size`` holds it (:data:`MIN_SIZE`); below that, a
        message in its place says how large the window must be, and the bots wait."""
        small = size.width < MIN_SIZE.width or size.height < MIN_SIZE.height
        if small and self._too_small is None:
            self._too_small = TooSmallScreen(self.t, size)
            self.open_window(self._too_small)
        elif small and self._too_small is not None:
            self._too_small.show(size)
        elif self._too_small is not None:
            screen, self._too_small = self._too_small, None
            screen.dismiss(True)

    @property
    def too_small(self) -> bool:
        """Whether the table waits for a larger terminal."""
        return self._too_small is not None

    # -- naming --------------------------------------------------------------------------

    def seat_name(self, seat: Seat) -> str:
        """How a seat is called on screen: You, Left, Top or Right (in the language)."""
        return position(self.t, seat - self.session.seat)

    def short_name(self, seat: Seat) -> str:
        """The seat's name in a column of scores (six cells at most)."""
        return position(self.t, seat - self.session.seat, short=True)

    def detail(self, seat: Seat) -> str:
        """The line under a seat's name: its number, counted from 1 as people count
        (and as the page shows it), and its bot."""
        spec = self.session.bot_spec(seat)
        return self.t("tui.seat", n=seat + 1) + ("" if spec is None else f" · {spec}")

    # -- drawing ---------------------------------------------------------------------

    def say(self, message: str | Text, *, error: bool = False) -> None:
        """Show a line in the message area."""
        self.query_one(MessageLine).say(message, error=error)

    def redraw(self) -> None:
        """Show the game in every widget as the person's seat sees it (their view)."""
        session = self.session
        view = session.view(session.seat)
        t = self.t
        self.query_one(InfoBar).show(t, view, session.game.seed, self.seat_name)
        self.query_one(TableView).scene = scene_of(
            t, view, self.seat_name, self.detail, self._thinking
        )
        scores = self.query_one(ScoreBoard)
        scores.update(scoreboard(t, view, self.short_name, _short(session.path)))
        declaring = view.phase is Phase.DECLARING and session.is_human_turn()
        hand = self.query_one(HandView)
        legal = None
        if session.is_human_turn() and view.phase is Phase.PLAYING:
            legal = view.legal_cards
        hand.show(hand_order(view.hand), legal)
        panel = self.query_one(DeclarePanel)
        main = self.query_one("#main")
        if main.display == declaring:  # switch between the table and the menu
            main.display = not declaring
            panel.display = declaring
        if declaring:
            panel.offer(view, self.seat_name)
            if not isinstance(self.focused, OptionList) and self._windows == 0:
                panel.query_one(OptionList).focus()
        elif self.focused is not hand and self._windows == 0:
            hand.focus()

    def _draw_table(self) -> None:
        session = self.session
        scene = scene_of(
            self.t, session.view(session.seat), self.seat_name, self.detail, self._thinking
        )
        self.query_one(TableView).scene = scene

    # -- the flow of the game ------------------------------------------------------------

    def advance(self) -> None:
        """Let the game go on: start the bots if it is their turn, or end the game."""
        game = self.session.game
        t = self.t
        if game.is_over:
            if not self._over_shown and self._windows == 0:
                self._over_shown = True
                summary = game_summary(t, game, self.seat_name, self.session.seat, self.short_name)
                saved = t("tui.over.saved", path=_short(self.session.path))
                self.open_window(
                    InfoScreen(
                        t,
                        t("tui.info.over"),
                        summary + Text("\n" + saved, style="dim"),
                        t("tui.over.keys"),
                    ),
                    then=self._after_game_over,
                )
            return
        if self.session.is_bot_turn() and (self._worker is None or self._worker.is_finished):
            self._worker = self.run_worker(self._bots_play(), group="bots", exit_on_error=True)

    def _after_game_over(self, go_on: bool) -> None:
        if go_on:
            self.exit()
        else:
            self.say(self.t("tui.message.over"))

    async def _bots_play(self) -> None:
        """Play the bots' turns until it is the person's turn (or the game ends)."""
        session = self.session
        game = session.game
        while session.is_bot_turn():
            await self._clear.wait()
            seat = game.to_act
            if seat is None or not session.is_bot_turn():
                break
            deal = game.deal
            just_won = deal is not None and not deal.current_trick and deal.trick_count > 0
            self._thinking = seat
            self._draw_table()
            delay = self.pause * (2 if just_won else 1)
            if delay:
                await asyncio.sleep(delay)
            view = session.view(seat)
            failure: str | None = None
            t = self.t
            try:
                action: Action = await asyncio.to_thread(session.think, seat, view)
            except Exception as error:
                failure = t("tui.bot.failed", name=self.seat_name(seat), error=error)
            await self._clear.wait()
            self._thinking = None
            if game.to_act != seat:  # pragma: no cover - nothing else moves for a bot
                continue
            if failure is None and not self.act(seat, action):
                chosen = self._action_name(action)
                failure = t("tui.bot.refused", name=self.seat_name(seat), action=chosen)
            if failure is not None:
                replacement = session.fallback()
                self.act(seat, replacement)
                name = self._action_name(replacement)
                self.say(t("tui.bot.instead", failure=failure, action=name), error=True)
        self._thinking = None
        self.redraw()

    def act(self, seat: Seat, action: Action) -> bool:
        """Apply one action for ``seat``; a refused one is explained and changes
        nothing.  Returns whether it was applied."""
        game = self.session.game
        deal = game.deal
        tricks_before = deal.trick_count if deal is not None else 0
        t = self.t
        try:
            self.session.apply(action)
        except IllegalMoveError as error:
            self.say(
                t("tui.message.refused", reason=t.illegal(error.code, error.params)), error=True
            )
            return False
        except IllegalDeclarationError as error:
            reason = t.refused(error.code, error.params)
            self.say(t("tui.message.refused", reason=reason), error=True)
            return False
        except GameStateError:
            self.say(t("tui.message.refused", reason=t("tui.message.not_now")), error=True)
            return False
        except OSError as error:
            reason = error.strerror or str(error)
            self.say(t("tui.message.not_saved", reason=reason), error=True)
        else:
            self.say(self._describe(seat, action, deal, tricks_before))
        if len(game.results) > self._results_seen:
            self._results_seen = len(game.results)
            if self.summaries:
                number = game.results[-1].number + 1
                summary = deal_summary(t, game, self.seat_name, self.session.seat, self.short_name)
                self.open_window(InfoScreen(t, t("tui.summary.title", n=number), summary))
        self.redraw()
        self.advance()
        return True

    def _action_name(self, action: Action) -> str:
        """A declaration or a card as the screen names it (``Koz (♥)``, ``Q♠``)."""
        if isinstance(action, Declaration):
            return declaration_name(self.t, action)
        return card_label(action)

    def _describe(self, seat: Seat, action: Action, deal: Deal | None, tricks_before: int) -> Text:
        """A sentence for the message line: who did what, and who won the trick."""
        t = self.t
        me = self.session.seat
        who = self.seat_name(seat)
        mine = seat == me
        card = None if isinstance(action, Declaration) else card_text(action, "bold")
        if isinstance(action, Declaration):
            contract = declaration_name(t, action)
            out = styled(t, you_or("tui.move.declared", mine), who=who, contract=contract)
        elif deal is None:  # pragma: no cover - a card is always played in a deal
            out = styled(t, you_or("tui.move.played", mine), who=who, card=card)
        elif deal.trick_count > tricks_before:
            out = styled(t, you_or("tui.move.played", mine), who=who, card=card)
            winner = deal.tricks[-1].winner
            out.append(" ")
            key = you_or("tui.move.won", winner == me)
            out.append_text(styled(t, key, who=self.seat_name(winner), n=deal.trick_count))
        elif len(deal.current_trick) == 1 and deal.trick_count:
            key = you_or("tui.move.won_and_led", mine)
            out = styled(t, key, who=who, n=deal.trick_count, card=card)
        else:
            led = len(deal.current_trick) == 1
            key = you_or("tui.move.led" if led else "tui.move.played", mine)
            out = styled(t, key, who=who, card=card)
        if self.session.is_human_turn():
            declaring = self.session.game.phase is Phase.DECLARING
            turn = t("tui.move.your_turn_declare" if declaring else "tui.move.your_turn")
            out.append(" " + turn, style="bold")
        return out

    # -- windows -------------------------------------------------------------------------

    def open_window(self, screen: Screen[bool], then: Callable[[bool], None] | None = None) -> None:
        """Show a window over the table; the bots wait until it is closed.  ``then``
        gets the window's answer (True: go on)."""
        self._windows += 1
        self._clear.clear()

        def closed(go_on: bool | None) -> None:
            self._windows -= 1
            if self._windows == 0:
                self._clear.set()
            if then is not None:
                then(bool(go_on))
            if self._windows == 0:  # the table is on screen again (not another window)
                self.redraw()
            self.advance()

        self.push_screen(screen, closed)

    # -- the person's input ----------------------------------------------------------

    def on_hand_view_chosen(self, message: HandView.Chosen) -> None:
        """The person chose a card: play it if it is their turn and it is legal."""
        session = self.session
        game = session.game
        t = self.t
        if game.is_over:
            self.say(t("tui.message.over"))
            return
        if message.card is None:
            self.say(t("tui.message.not_a_card", typed=message.typed), error=True)
            return
        seat = game.to_act
        if not session.is_human_turn() and seat is not None:
            self.say(t("tui.message.wait", name=self.seat_name(seat)), error=True)
            return
        if game.phase is Phase.DECLARING:
            self.say(t("tui.message.declare_first"), error=True)
            return
        self.act(session.seat, message.card)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """The person chose a contract in the menu."""
        declaration = DeclarePanel.declaration_of(event.option.id)
        session = self.session
        if declaration is None or not session.is_human_turn():
            return
        if session.game.phase is Phase.DECLARING:
            self.act(session.seat, declaration)

    def action_help(self) -> None:
        """Show the keys and the rules."""
        if isinstance(self.screen, HelpScreen) or self.too_small:
            return
        path = _short(self.session.path)
        markdown = help_markdown(self.t, self.session.game.rules, path)
        self.open_window(HelpScreen(self.t, markdown))

    def action_last_trick(self) -> None:
        """Show the last completed trick, laid out round the table."""
        if self.too_small:
            return
        game = self.session.game
        t = self.t
        for number in range(len(game.deals) - 1, -1, -1):
            deal = game.deals[number]
            if deal.tricks:
                break
        else:
            self.say(t("tui.message.no_trick"))
            return
        trick = deal.tricks[-1]
        scene = trick_scene(t, trick, self.session.seat, self.seat_name, self.detail)
        body = Text("\n").join(table_lines(scene, 50, 13))
        body.append("\n\n")
        body.append_text(trick_sentence(t, trick, self.seat_name, self.session.seat))
        title = t(
            "tui.last.title",
            n=number + 1,
            trick=deal.trick_count,
            contract=declaration_name(t, deal.declaration),
        )
        self.open_window(InfoScreen(t, title, body, t("tui.last.keys")))

    async def action_quit(self) -> None:
        """Quit: the game is already saved after every action."""
        self.exit()


def _short(path: Path) -> str:
    """The path with the home folder written ``~``."""
    try:
        return "~/" + str(path.resolve().relative_to(Path.home().resolve()))
    except ValueError:
        return str(path)


def _pause_from_environment() -> float:
    text = os.environ.get(PAUSE_VARIABLE, "").strip()
    if not text:
        return DEFAULT_PAUSE
    try:
        value = float(text)
    except ValueError:
        where = {"name": PAUSE_VARIABLE, "value": repr(text)}
        raise PlayError("tui.error.pause_number", where) from None
    if not 0 <= value <= 10:
        raise PlayError("tui.error.pause_range", {"name": PAUSE_VARIABLE, "value": text})
    return value


def run_play(
    *,
    bots: Sequence[str],
    rules: Rules,
    seed: int | None,
    seat: Seat,
    resume: Path | None = None,
    save: Path | None = None,
    lang: str | None = None,
    new: bool = False,
    asked: Sequence[str] = (),
) -> None:
    """Play a game in the terminal (``king play``): the game in ``resume``, else the last
    unfinished one unless ``new`` (``asked``: the new-game options the person gave, told
    when that game goes on without them), else a new one.  Raises :class:`PlayError`
    for anything the user asked that cannot be done, before the screen opens.

    The language is ``lang`` if given, else the resumed game's, else the terminal
    locale's (English when the locale names none of the languages shipped)."""
    default = detect_language()
    try:
        pause = _pause_from_environment()
        opened = open_table(
            bots=bots,
            rules=rules,
            seed=seed,
            seat=seat,
            resume=resume,
            save=save,
            new=new,
            asked=asked,
            lang=lang,
            default_lang=default,
        )
    except PlayError as error:
        raise error.in_language(lang or default) from None
    session = opened.session
    try:
        KingApp(session, pause=pause, resumed=opened.resumed, unused=opened.unused).run()
    finally:
        session.close()
    print(farewell(Translator(session.language), session))
    sys.stdout.flush()


def farewell(t: Translator, session: PlaySession) -> str:
    """What ``king play`` prints on quitting: where the game is saved, the path on a
    line of its own (a terminal that wraps a sentence would break it mid-word), and how
    to go on with it (``king play`` resumes the last unfinished game by itself)."""
    path = str(session.path)
    if session.game.is_over:
        lines = [t("tui.bye.over"), f"  {path}", t("tui.bye.replay")]
        lines.append(f"  king replay {shlex.quote(path)}")
    else:
        lines = [t("tui.bye.saved"), f"  {path}", t("tui.bye.resume")]
    return "\n".join(lines)
