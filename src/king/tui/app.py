"""``king play``: a whole game in the terminal, one person against three bots.

The app owns the order of events: it asks the bots for their choices off the event loop
(in a worker thread, after a short pause so a person can follow), hands every action to
the :class:`~king.tui.session.PlaySession` (which saves it), and redraws.  Windows over
the table (help, last trick, a deal's summary) hold the bots until they close.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, OptionList
from textual.worker import Worker

from king.deal import Deal, IllegalMoveError
from king.game import GameStateError, IllegalDeclarationError, Phase
from king.rules import Declaration, Rules
from king.tui.help import help_markdown
from king.tui.render import (
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
from king.tui.screens import HelpScreen, InfoScreen
from king.tui.session import Action, PlaySession
from king.tui.widgets import (
    DeclarePanel,
    HandView,
    InfoBar,
    MessageLine,
    ScoreBoard,
    TableView,
)

__all__ = ["DEFAULT_PAUSE", "KingApp", "PlayError", "run_play"]

#: Seconds a bot waits before it acts, so a person can follow the play.
DEFAULT_PAUSE = 0.6
#: The environment variable that changes :data:`DEFAULT_PAUSE`.
PAUSE_VARIABLE = "KING_PLAY_PAUSE"


class KingApp(App[None]):
    """The table: your hand at the bottom, the trick in the middle, scores at the side."""

    CSS_PATH = "king.tcss"
    TITLE = "King"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help"),
        Binding("f1", "help", "Help", show=False),
        Binding("l", "last_trick", "Last trick"),
        Binding("ctrl+q", "quit", "Quit (saved)", priority=True),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(
        self, session: PlaySession, *, pause: float = DEFAULT_PAUSE, summaries: bool = True
    ) -> None:
        super().__init__()
        self.session = session
        self.pause = max(0.0, pause)
        self.summaries = summaries
        self._results_seen = len(session.game.results)
        self._windows = 0
        self._clear = asyncio.Event()
        self._clear.set()
        self._thinking: int | None = None
        self._worker: Worker[None] | None = None
        self._over_shown = False

    # -- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield InfoBar(id="info")
        with Horizontal(id="main"):
            yield TableView(id="table")
            yield ScoreBoard(id="scores")
        yield DeclarePanel(id="declare")
        yield HandView(id="hand")
        yield MessageLine(id="message")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(ScoreBoard).border_title = "Scores"
        hand = self.query_one(HandView)
        hand.border_title = f"Your hand (seat {self.session.seat})"
        self.say(f"Saved after every move to {_short(self.session.path)}. Press ? for help.")
        self.redraw()
        self.advance()

    # -- naming --------------------------------------------------------------------------

    def seat_name(self, seat: int) -> str:
        """How a seat is called on screen: You, Left, Top or Right."""
        return self.session.position(seat)

    def detail(self, seat: int) -> str:
        """The line under a seat's name: its number and its bot."""
        spec = self.session.bot_spec(seat)
        return f"seat {seat}" + ("" if spec is None else f" · {spec}")

    # -- drawing ---------------------------------------------------------------------

    def say(self, message: str | Text, *, error: bool = False) -> None:
        """Show a line in the message area."""
        self.query_one(MessageLine).say(message, error=error)

    def redraw(self) -> None:
        """Show the game as it stands in every widget."""
        session = self.session
        game = session.game
        me = session.seat
        self.query_one(InfoBar).show(game, self.seat_name)
        self.query_one(TableView).scene = scene_of(
            game, me, self.seat_name, self.detail, self._thinking
        )
        scores = self.query_one(ScoreBoard)
        scores.update(scoreboard(game, self.seat_name, me, _short(session.path)))
        declaring = game.phase is Phase.DECLARING and session.is_human_turn()
        hand = self.query_one(HandView)
        legal = None
        if session.is_human_turn() and game.phase is Phase.PLAYING:
            legal = session.view(me).legal_cards
        hand.show(hand_order(game.hand(me)), legal)
        panel = self.query_one(DeclarePanel)
        main = self.query_one("#main")
        if main.display == declaring:  # switch between the table and the menu
            main.display = not declaring
            panel.display = declaring
        if declaring:
            panel.offer(game, me, self.seat_name)
            if not isinstance(self.focused, OptionList) and self._windows == 0:
                panel.query_one(OptionList).focus()
        elif self.focused is not hand and self._windows == 0:
            hand.focus()

    def _draw_table(self) -> None:
        session = self.session
        scene = scene_of(session.game, session.seat, self.seat_name, self.detail, self._thinking)
        self.query_one(TableView).scene = scene

    # -- the flow of the game ------------------------------------------------------------

    def advance(self) -> None:
        """Let the game go on: start the bots if it is their turn, or end the game."""
        game = self.session.game
        if game.is_over:
            if not self._over_shown and self._windows == 0:
                self._over_shown = True
                self.open_window(
                    InfoScreen(
                        "Game over",
                        game_summary(game, self.seat_name, self.session.seat)
                        + Text(f"\nSaved in {_short(self.session.path)}", style="dim"),
                        "Enter: quit · Esc: look at the table",
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
            self.say("The game is over. Ctrl+Q quits.")

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
            try:
                action: Action = await asyncio.to_thread(session.think, seat, view)
            except Exception as error:
                failure = f"{self.seat_name(seat)}'s bot failed ({error})"
            await self._clear.wait()
            self._thinking = None
            if game.to_act != seat:  # pragma: no cover - nothing else moves for a bot
                continue
            if failure is None and not self.act(seat, action):
                failure = f"{self.seat_name(seat)}'s bot chose {action}, which is not allowed"
            if failure is not None:
                replacement = session.fallback()
                self.act(seat, replacement)
                self.say(f"{failure}; it plays {replacement} instead.", error=True)
        self._thinking = None
        self.redraw()

    def act(self, seat: int, action: Action) -> bool:
        """Apply one action for ``seat``; a refused one is explained and changes
        nothing.  Returns whether it was applied."""
        game = self.session.game
        deal = game.deal
        tricks_before = deal.trick_count if deal is not None else 0
        try:
            self.session.apply(action)
        except (IllegalMoveError, IllegalDeclarationError, GameStateError) as error:
            self.say(f"Refused: {error}", error=True)
            return False
        except OSError as error:
            self.say(f"The game could not be saved: {error}", error=True)
        else:
            self.say(self._describe(seat, action, deal, tricks_before))
        if len(game.results) > self._results_seen:
            self._results_seen = len(game.results)
            if self.summaries:
                number = game.results[-1].number + 1
                self.open_window(
                    InfoScreen(
                        f"Deal {number} done", deal_summary(game, self.seat_name, self.session.seat)
                    ),
                )
        self.redraw()
        self.advance()
        return True

    def _describe(self, seat: int, action: Action, deal: Deal | None, tricks_before: int) -> Text:
        """A sentence for the message line: who did what, and who won the trick."""
        who = self.seat_name(seat)
        if isinstance(action, Declaration):
            out = Text(f"{who} declared {action.title}.")
        elif deal is None:  # pragma: no cover - a card is always played in a deal
            out = Text.assemble(f"{who} played ", card_text(action, "bold"), ".")
        elif deal.trick_count > tricks_before:
            out = Text.assemble(f"{who} played ", card_text(action, "bold"))
            winner = self.seat_name(deal.tricks[-1].winner)
            out.append(f"; {winner} won trick {deal.trick_count}.")
        else:
            verb = "played"
            if len(deal.current_trick) == 1:
                won = deal.trick_count
                verb = f"won trick {won} and led" if won else "led"
            out = Text.assemble(f"{who} {verb} ", card_text(action, "bold"), ".")
        if self.session.is_human_turn():
            declaring = self.session.game.phase is Phase.DECLARING
            out.append(" Your turn to declare." if declaring else " Your turn.", style="bold")
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
            self.redraw()
            self.advance()

        self.push_screen(screen, closed)

    # -- the person's input ----------------------------------------------------------

    def on_hand_view_chosen(self, message: HandView.Chosen) -> None:
        """The person chose a card: play it if it is their turn and it is legal."""
        session = self.session
        game = session.game
        if game.is_over:
            self.say("The game is over. Ctrl+Q quits.")
            return
        if message.card is None:
            self.say(
                f"{message.typed!r} is not a card: type rank then suit, like qs or 10h.",
                error=True,
            )
            return
        if not session.is_human_turn():
            seat = game.to_act
            who = "the bots" if seat is None else self.seat_name(seat)
            self.say(f"Wait: it is {who}'s turn, not yours.", error=True)
            return
        if game.phase is Phase.DECLARING:
            self.say("First choose the contract.", error=True)
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
        if isinstance(self.screen, HelpScreen):
            return
        path = _short(self.session.path)
        self.open_window(HelpScreen(help_markdown(self.session.game.rules, path)))

    def action_last_trick(self) -> None:
        """Show the last completed trick, laid out round the table."""
        game = self.session.game
        for number in range(len(game.deals) - 1, -1, -1):
            deal = game.deals[number]
            if deal.tricks:
                break
        else:
            self.say("No trick has been played yet.")
            return
        trick = deal.tricks[-1]
        scene = trick_scene(trick, self.session.seat, self.seat_name, self.detail)
        body = Text("\n").join(table_lines(scene, 50, 13))
        body.append("\n\n")
        body.append_text(trick_sentence(trick, self.seat_name))
        title = f"Deal {number + 1}, trick {deal.trick_count}: {deal.declaration.title}"
        self.open_window(InfoScreen(title, body, "Esc: back"))

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
        raise PlayError(f"{PAUSE_VARIABLE} must be a number of seconds, not {text!r}") from None
    if not 0 <= value <= 10:
        raise PlayError(f"{PAUSE_VARIABLE} must be between 0 and 10 seconds, not {text}")
    return value


def run_play(
    *,
    bots: Sequence[str],
    rules: Rules,
    seed: int | None,
    seat: int,
    resume: Path | None = None,
    save: Path | None = None,
) -> None:
    """Play a game in the terminal (``king play``).  Raises :class:`PlayError` for
    anything the user asked that cannot be done, before the screen opens."""
    pause = _pause_from_environment()
    session = PlaySession.start(
        bots=bots, rules=rules, seed=seed, seat=seat, resume=resume, save=save
    )
    try:
        KingApp(session, pause=pause).run()
    finally:
        session.close()
    path = session.path
    if session.game.is_over:
        print(f"The game is over. Its record is saved in {path}")
        print(f"See it again with: king replay {path}")
    else:
        print(f"Game saved in {path}")
        print(f"Continue it with: king play --resume {path}")
    sys.stdout.flush()
