"""``king play`` at the terminal's real size: a message instead of a garbled table below
80x24, and the trick in the middle of the felt however large the terminal is.

The app runs headless at each size with Textual's pilot; the tests read the regions
Textual laid out and the table's lines as drawn, and check the game itself (the bots wait
while the message shows, and go on once the window is large enough).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import Footer

from king.i18n import LANGUAGES, Translator
from king.tui.app import MIN_SIZE, KingApp
from king.tui.render import SIDE_ROOM
from king.tui.screens import HelpScreen, TooSmallScreen
from king.tui.widgets import HandView, InfoBar, MessageLine, ScoreBoard, TableView
from tests.support.terminal import SEED_BOT_DECLARES, my_turn_to_play, run, start, until


async def _drive(app: KingApp, size: tuple[int, int], test: object) -> None:
    async with app.run_test(size=size) as pilot:
        await test(app, pilot)  # type: ignore[operator]
    app.session.close()


def _played(app: KingApp) -> int:
    """Every card played and contract declared so far: what moves when the bots play."""
    game = app.session.game
    return sum(len(deal.plays) + 1 for deal in game.deals)


# -- too small -----------------------------------------------------------------------------


def test_below_80_by_24_a_centred_message_stands_in_for_the_table(tmp_path: Path) -> None:
    session = start(tmp_path / "g.json", seed=SEED_BOT_DECLARES)

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TooSmallScreen) and app.too_small
        assert screen.text == "Make the window larger (at least 80×24; now 70×20)."
        # Centred on the screen, and alone there: the table is not drawn under it.
        words = screen.query_one("#too-small").region
        assert abs(words.center[0] - 35) <= 1 and abs(words.center[1] - 10) <= 1
        assert not screen.query(TableView)
        # The bots wait: no card is played while the person cannot see the table.
        before = _played(app)
        for _ in range(20):
            await pilot.pause(0.01)
        assert _played(app) == before
        await pilot.press("question_mark")  # no help window over the message either
        assert isinstance(app.screen, TooSmallScreen)
        # One column or row short is still too small; the message follows the size.
        await pilot.resize_terminal(79, 24)
        assert isinstance(app.screen, TooSmallScreen)
        assert app.screen.text.endswith("now 79×24).")
        await pilot.resize_terminal(80, 23)
        assert app.screen.text.endswith("now 80×23).")  # type: ignore[attr-defined]
        # Large enough: the table comes back and the game goes on.
        await pilot.resize_terminal(100, 30)
        assert not app.too_small and not isinstance(app.screen, TooSmallScreen)
        table = app.query_one(TableView)
        assert table.region.height > 0 and "You · seat 1" in table.text
        await until(pilot, lambda: _played(app) > before, "the bots to play on")
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)

    run(_drive(KingApp(session, pause=0), (70, 20), test))


def test_a_window_made_too_small_mid_game_hides_the_table_until_it_grows(tmp_path: Path) -> None:
    session = start(tmp_path / "g.json", seed=SEED_BOT_DECLARES)

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        await my_turn_to_play(app, pilot)
        hand = app.query_one(HandView).cards
        await pilot.resize_terminal(60, 40)
        assert isinstance(app.screen, TooSmallScreen)
        assert app.screen.text.endswith("now 60×40).")
        await pilot.press("enter")  # keys do not reach the hand behind the message
        assert app.query_one(HandView).cards == hand
        await pilot.resize_terminal(*MIN_SIZE)
        assert not isinstance(app.screen, TooSmallScreen)
        assert app.query_one(HandView).cards == hand
        assert app.session.is_human_turn()

    run(_drive(KingApp(session, pause=0), (100, 30), test))


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_the_message_is_in_the_players_language(tmp_path: Path, language: str) -> None:
    session = start(tmp_path / "g.json", lang=language)
    t = Translator(language)

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        text = app.screen.text
        assert text == t("tui.small", width=64, height=18)
        assert "80×24" in text and "64×18" in text
        if language != "en":
            assert text != Translator("en")("tui.small", width=64, height=18)

    run(_drive(KingApp(session, pause=0), (64, 18), test))


# -- the trick in the middle of the felt -----------------------------------------------


def _rows(table: TableView) -> list[str]:
    return [line.plain for line in table.lines()]


def _row_of(rows: list[str], words: str) -> int:
    return next(index for index, row in enumerate(rows) if words in row)


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40), (160, 50)])
def test_the_trick_sits_in_the_middle_of_the_felt(tmp_path: Path, size: tuple[int, int]) -> None:
    session = start(tmp_path / "g.json", seed=SEED_BOT_DECLARES)

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        await my_turn_to_play(app, pilot)
        assert app.size == size and not app.too_small
        # The widgets tile the screen: each inside it, none over another.
        widgets = [
            app.query_one(InfoBar),
            app.query_one(TableView),
            app.query_one(ScoreBoard),
            app.query_one(HandView),
            app.query_one(MessageLine),
            app.query_one(Footer),
        ]
        screen = Region(0, 0, *size)
        for index, widget in enumerate(widgets):
            assert screen.contains_region(widget.region), widget
            for other in widgets[index + 1 :]:
                assert not widget.region.overlaps(other.region), (widget, other)
        # The trick lies between the top seat's name and yours, centred in the felt.
        table = app.query_one(TableView)
        felt = table.content_region
        rows = _rows(table)
        assert len(rows) == felt.height
        top, you = _row_of(rows, "Top · seat 3"), _row_of(rows, "You · seat 1")
        boxes = [index for index, row in enumerate(rows) if "┌───┐" in row]
        assert boxes and all(top < row < you for row in boxes)
        trick_middle = (top + you) / 2
        felt_middle = (felt.height - 1) / 2
        assert abs(trick_middle - felt_middle) <= 1.5, (size, trick_middle, felt_middle)
        # Nothing in the drawing is pushed aside by something else: every card box sits
        # at its seat's column round the middle, and the side seats' words end before
        # the left card and start after the right one.
        middle = felt.width // 2
        for row in rows:
            start_col = row.find("┌───┐")
            while start_col != -1:
                assert start_col in (middle - 9, middle - 2, middle + 5), (size, row)
                start_col = row.find("┌───┐", start_col + 1)
        left_row = rows[top + 4]
        assert left_row.lstrip().startswith("Left")
        assert len(left_row.split("Left")[0]) + len("Left") <= middle - 9
        assert left_row.index("Right") >= middle + 10
        # At large sizes the side seats stay near the trick rather than at the edges.
        assert left_row.index("Left") >= middle - 10 - SIDE_ROOM
        caption = _row_of(rows, "Trick 1 of 13")
        assert you < caption <= you + 3

    run(_drive(KingApp(session, pause=0), size, test))
