"""``king play``: the Textual app driven headless at 80x24 with Textual's pilot.

The tests press keys and click like a person, then check the real game state, the saved
record (replayed by :func:`king.record.replay`) and the text the widgets show.  Bots
pause 0 seconds; pytest-asyncio is not needed (each test runs its own event loop).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from typer.testing import CliRunner

from king.cards import CardSet
from king.cli import app as cli_app
from king.cli.bots import bot_specs
from king.deal import IllegalMoveError
from king.game import Game, Phase
from king.i18n import Translator
from king.record import dump, replay
from king.rules import Contract, Declaration, Rules
from king.tui.app import KingApp, PlayError, run_play
from king.tui.render import card_label
from king.tui.save import default_save_path, games_folder, record_of
from king.tui.screens import HelpScreen, InfoScreen
from king.tui.session import PlaySession
from king.tui.widgets import DeclarePanel, HandView, InfoBar, MessageLine, ScoreBoard, TableView
from tests.support.games import random_move
from tests.support.terminal import (
    BOTS,
    SEED_BOT_DECLARES,
    SIZE,
    _game_where_no_queens_is_used_up,
    drive,
    hand_of,
    message,
    my_turn,
    my_turn_to_play,
    played,
    run,
    start,
    type_card,
    until,
)

# -- declaring and playing ------------------------------------------------------------


def test_declare_with_arrows_then_lead_a_typed_card(tmp_path: Path) -> None:
    session = start(tmp_path / "g.json")

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        await pilot.pause()
        panel = app.query_one(DeclarePanel)
        assert panel.display and not app.query_one("#main").display
        menu = panel.text.splitlines()
        assert len(menu) == 10
        assert menu[0].startswith("▶ No Tricks")
        assert "Trumps (♣)" in menu[9]
        await pilot.press("down", "down")
        assert "▶ No Queens" in panel.text
        await pilot.press("enter")
        game = app.session.game
        assert game.phase is Phase.PLAYING
        assert game.deals[0].declaration == Declaration(Contract.NO_QUEENS)
        assert "You declared No Queens" in message(app)
        assert app.query_one(InfoBar).text.startswith("Deal 1/20 · No Queens · declarer You")
        # The declarer leads: every card is legal and marked.
        hand = hand_of(app)
        assert hand.legal == game.hand(0)
        card = hand.cards[-1]
        await type_card(pilot, card)
        assert played(app)[0] == card
        assert card not in game.hand(0)
        record = json.loads((tmp_path / "g.json").read_text())
        assert record["deals"][0]["contract"] == "no-queens"
        assert record["deals"][0]["plays"].split()[0] == str(card)

    run(drive(session, test))


def test_play_with_arrow_keys_and_with_a_mouse_click(tmp_path: Path) -> None:
    session = start(tmp_path / "g.json", seed=SEED_BOT_DECLARES)

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        await my_turn_to_play(app, pilot)
        hand = hand_of(app)
        legal = hand.legal
        assert legal is not None and legal
        assert hand.current in legal  # the cursor starts on a legal card
        before = len(played(app))
        await pilot.press("end")
        await pilot.press("home")
        steps = 0
        while hand.current not in legal or steps == 0:
            await pilot.press("right")
            steps += 1
            if steps > 13:  # only one legal card: play it
                break
        chosen = hand.current
        assert chosen is not None
        await pilot.press("enter")
        assert played(app)[before] == chosen
        # Next turn: click a legal card.
        await my_turn_to_play(app, pilot)
        legal = hand.legal
        assert legal is not None
        target = list(legal)[-1]
        before = len(played(app)) if app.session.game.deal else 0
        assert await pilot.click(HandView, offset=hand.card_offset(target))
        assert played(app)[before] == target

    run(drive(session, test))


def test_an_illegal_card_is_refused_with_the_engine_reason(tmp_path: Path) -> None:
    session = start(tmp_path / "g.json", seed=SEED_BOT_DECLARES)

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        game = app.session.game
        # Play legal cards until the person must follow a suit and holds another one.
        for _ in range(40):
            await my_turn_to_play(app, pilot)
            deal = game.deal
            assert deal is not None
            hand = game.hand(0)
            illegal = [c for c in hand if not deal.is_legal(c)]
            if illegal:
                break
            await pilot.press("enter")
        else:
            raise AssertionError("no position with an illegal card came up")
        card = illegal[0]
        with pytest.raises(IllegalMoveError) as refused:
            deal.copy().play(card)
        reason = Translator("en").illegal(refused.value.code, refused.value.params)
        before = list(deal.plays)
        await type_card(pilot, card)
        assert deal.plays == before  # nothing changed
        assert message(app) == f"Refused: {reason}"
        assert reason.startswith("You ")
        assert app.query_one(MessageLine).has_class("error")
        # A click on an illegal card is refused the same way.
        await pilot.press("escape")
        assert await pilot.click(HandView, offset=hand_of(app).card_offset(card))
        assert deal.plays == before
        assert reason in message(app)
        # A card not in the hand, and text that is no card at all.
        other = next(c for c in CardSet.full() if c not in hand)
        await type_card(pilot, other)
        assert "do not hold" in message(app)
        await pilot.press("1", "s", "enter")
        assert message(app) == "'1s' is not a card: type rank then suit, like qs or 10h."
        # Then a legal card is still accepted.
        legal = deal.legal_moves()[0]
        await type_card(pilot, legal)
        assert deal.plays[len(before)] == legal

    run(drive(session, test))


def test_a_deal_ends_with_a_summary_and_the_next_deal_starts(tmp_path: Path) -> None:
    session = start(tmp_path / "g.json", seed=SEED_BOT_DECLARES)

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        game = app.session.game
        while not isinstance(app.screen, InfoScreen):
            await until(
                pilot,
                lambda: my_turn(app) or isinstance(app.screen, InfoScreen),
                "the person's turn or the summary",
            )
            if my_turn(app):
                await pilot.press("enter")
        summary = app.screen
        assert isinstance(summary, InfoScreen)
        result = game.results[0]
        lines = summary.text.splitlines()
        assert lines[0] == f"Deal 1 of 20: {result.declaration.title}, declared by Top"
        for seat, label in enumerate(("You", "Left", "Top", "Right")):
            row = next(line for line in lines if line.startswith(label + " "))
            assert row.split()[1] == str(result.points[seat])
        assert sum(result.points) == result.declaration.contract.total
        assert "Last trick:" in summary.text
        # The bots wait while the summary is open.
        await pilot.pause(0.05)
        assert game.phase is Phase.DECLARING
        await pilot.press("enter")
        await until(pilot, lambda: len(game.deals) == 2, "the second deal to be declared")
        assert app.query_one(ScoreBoard).text.splitlines()[1].split()[2] == str(game.totals[0])
        report = replay(tmp_path / "g.json")
        assert report.valid and report.game.deal_number >= 1

    run(drive(session, test))


# -- saving and resuming --------------------------------------------------------------------


def test_save_and_resume_in_the_middle_of_a_deal(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    seen: dict[str, Any] = {}

    async def first(app: KingApp, pilot: Pilot[None]) -> None:
        await my_turn_to_play(app, pilot)
        await pilot.press("enter")
        await my_turn_to_play(app, pilot)
        deal = app.session.game.deal
        assert deal is not None and deal.trick_count >= 1 and deal.current_trick
        seen["hand"] = hand_of(app).cards
        seen["trick"] = deal.current_trick
        seen["table"] = app.query_one(TableView).text
        seen["plays"] = list(deal.plays)
        await pilot.press("ctrl+q")

    run(drive(start(path, seed=SEED_BOT_DECLARES), first))
    report = replay(path)
    assert report.valid and not report.complete
    record = json.loads(path.read_text())
    # Each seat as the screen calls it, so that the record tells the bots apart.
    assert record["players"] == ["You", "Left (random)", "Top (random)", "Right (random)"]
    assert record["extra"] == {"king_play": {"seat": 0, "bots": BOTS, "lang": "en"}}
    assert record["deals"][0]["plays"].split() == [str(c) for c in seen["plays"]]

    # Resume with other options on the command line: the file's seat and bots win.
    resumed = PlaySession.start(
        bots=["rule", "rule", "rule"], rules=Rules(), seed=99, seat=2, resume=path
    )
    assert resumed.seat == 0 and resumed.bot_specs == ("random", "random", "random")
    assert resumed.path == path

    async def second(app: KingApp, pilot: Pilot[None]) -> None:
        await my_turn_to_play(app, pilot)
        deal = app.session.game.deal
        assert deal is not None
        assert hand_of(app).cards == seen["hand"]
        assert deal.current_trick == seen["trick"]
        assert app.query_one(TableView).text == seen["table"]
        await pilot.press("enter")
        await until(pilot, lambda: len(deal.plays) > len(seen["plays"]) + 1, "play to go on")
        saved = json.loads(path.read_text())["deals"][0]["plays"].split()
        assert len(saved) > len(seen["plays"])
        assert saved[: len(seen["plays"])] == [str(c) for c in seen["plays"]]

    run(drive(resumed, second))
    assert replay(path).valid


@pytest.mark.slow
def test_a_whole_game_in_autoplay_ends_with_the_winner(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    session = start(path, seed=11, autoplay="random", durable=False)

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        game = app.session.game
        await until(pilot, lambda: isinstance(app.screen, InfoScreen), "the end of the game")
        assert game.is_over
        text = app.screen.text  # type: ignore[attr-defined]
        winners = game.winners()
        names = ("You", "Left", "Top", "Right")
        assert text.startswith(
            "Game over after 20 deals: " + " and ".join(names[s] for s in winners)
        )
        total_row = next(line for line in text.splitlines() if line.startswith("total"))
        assert [int(x) for x in total_row.split()[1:]] == game.totals
        trumps_row = next(line for line in text.splitlines() if line.startswith("Trumps"))
        assert sum(int(x) for x in trumps_row.split()[1:]) == 8 * 650
        await pilot.press("enter")  # Enter quits

    run(drive(session, test, summaries=False))
    report = replay(path)
    assert report.complete
    assert sum(report.game.totals) == 0
    assert len(report.game.results) == 20


def test_resume_refuses_bad_files_with_a_clear_reason(tmp_path: Path) -> None:
    def attempt(content: str, **options: Any) -> str:
        path = tmp_path / "bad.json"
        path.write_text(content)
        with pytest.raises(PlayError) as error:
            run_play(bots=BOTS, rules=Rules(), seed=None, seat=0, resume=path, **options)
        assert isinstance(error.value, ValueError)
        return str(error.value)

    assert "is not a game record: not JSON" in attempt("{ nope")
    assert "not a king-record/1 record" in attempt('{"format": "other"}')
    game = Game(seed=1)
    game.declare(game.allowed_declarations()[0])
    record = json.loads(dump(game))
    deal = game.deal
    assert deal is not None
    bad = next(c for c in CardSet.full() if not deal.is_legal(c))
    record["deals"][0]["plays"] = str(bad)
    refusal = attempt(json.dumps(record))
    assert "is not a valid game record: deal 1, play 1, seat 2 played AS: seat 2" in refusal
    record["deals"][0]["plays"] = ""
    record["extra"] = {"king_play": {"seat": 7, "bots": BOTS}}
    assert "extra.king_play.seat must be a seat 0-3" in attempt(json.dumps(record))
    # A file cannot make king play start a program on its own.
    record["extra"] = {"king_play": {"seat": 0, "bots": ["cmd:touch pwned", "rule", "rule"]}}
    refusal = attempt(json.dumps(record))
    assert "was played against external programs (cmd:touch pwned)" in refusal
    assert "--bots 'cmd:touch pwned,rule,rule'" in refusal
    rng = random.Random(1)
    over = Game(seed=2)
    while not over.is_over:
        random_move(over, rng)
    assert "is finished" in attempt(dump(over))
    # A save file that already holds something is not overwritten by a new game.
    existing = tmp_path / "exists.json"
    existing.write_text("keep me")
    with pytest.raises(PlayError, match="already exists"):
        run_play(bots=BOTS, rules=Rules(), seed=1, seat=0, save=existing)
    assert existing.read_text() == "keep me"


def test_king_play_reports_a_bad_resume_file_without_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    result = CliRunner().invoke(
        cli_app, ["play", "--resume", str(bad), "--bots", "random,random,random"]
    )
    assert result.exit_code == 2
    assert "is not a game record" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_king_play_takes_one_bot_for_all_three_as_king_does(tmp_path: Path) -> None:
    assert bot_specs("random", 3, one_for_all=True) == ["random"] * 3
    assert bot_specs("random, rule,random", 3, one_for_all=True) == ["random", "rule", "random"]
    runner = CliRunner()
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    one = runner.invoke(cli_app, ["play", "--resume", str(bad), "--bots", "random"])
    assert one.exit_code == 2 and "is not a game record" in one.output  # the bots passed
    two = runner.invoke(cli_app, ["play", "--bots", "random,rule"])
    assert two.exit_code == 2
    assert "--bots needs one bot, or 3 bots separated by commas, not 'random,rule'" in two.output
    four = runner.invoke(cli_app, ["arena", "--bots", "random", "--deals", "1"])
    assert four.exit_code == 2 and "--bots needs 4 bots separated by commas" in four.output


def test_saved_games_go_to_the_xdg_data_folder(tmp_path: Path) -> None:
    environ = {"XDG_DATA_HOME": str(tmp_path)}
    assert games_folder(environ) == tmp_path / "king" / "games"
    assert games_folder({}) == Path.home() / ".local" / "share" / "king" / "games"
    from datetime import datetime

    moment = datetime(2025, 1, 2, 3, 4, 5)
    first = default_save_path(moment, environ)
    assert first == tmp_path / "king" / "games" / "2025-01-02_03-04-05.json"
    first.parent.mkdir(parents=True)
    first.write_text("{}")
    assert default_save_path(moment, environ).name == "2025-01-02_03-04-05-2.json"


# -- declaring with refusals, help, last trick ----------------------------------------------


def test_refused_contracts_are_greyed_out_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    game = _game_where_no_queens_is_used_up(5)
    path.write_text(json.dumps(record_of(game, ["you", "random", "random", "random"], 0, BOTS)))
    session = PlaySession.start(bots=BOTS, rules=Rules(), seed=None, seat=0, resume=path)

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        await pilot.pause()
        panel = app.query_one(DeclarePanel)
        assert panel.display
        lines = panel.text.splitlines()
        queens = next(line for line in lines if "No Queens" in line)
        assert "✗ No Queens has already been played twice this game." in queens
        options = panel.query_one("#declare-options")
        disabled = [
            options.get_option_at_index(i).disabled  # type: ignore[attr-defined]
            for i in range(10)
        ]
        allowed = set(app.session.game.allowed_declarations())
        expected = [Declaration.from_action_index(i) not in allowed for i in range(10)]
        assert disabled == expected
        # Arrow keys skip what is not allowed.
        for _ in range(12):
            await pilot.press("down")
            assert "▶ No Queens" not in panel.text
        # A click on a refused contract does nothing; a click on an allowed one declares it.
        queens_row = Declaration(Contract.NO_QUEENS).action_index
        deals_before = len(app.session.game.deals)
        await pilot.click("#declare-options", offset=(5, queens_row))
        assert len(app.session.game.deals) == deals_before
        choice = max(allowed, key=lambda d: d.action_index)
        await pilot.click("#declare-options", offset=(5, choice.action_index))
        assert len(app.session.game.deals) == deals_before + 1
        assert app.session.game.deals[-1].declaration == choice
        assert replay(path).valid

    run(drive(session, test))


def test_help_screen_and_last_trick_review(tmp_path: Path) -> None:
    session = start(tmp_path / "g.json", seed=SEED_BOT_DECLARES)

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        help_text = app.screen.markdown
        for contract in Contract:
            assert contract.title in help_text
        assert "must play a trump" in help_text
        assert str(tmp_path / "g.json") in help_text
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await my_turn_to_play(app, pilot)
        game = app.session.game
        deal = game.deal
        assert deal is not None
        await pilot.press("l")
        if not deal.tricks:
            assert message(app) == "No trick has been played yet."
        while not deal.tricks:
            await my_turn_to_play(app, pilot)
            await pilot.press("enter")
        await my_turn_to_play(app, pilot)
        await pilot.press("l")
        window = app.screen
        assert isinstance(window, InfoScreen)
        trick = deal.tricks[-1]
        assert f"trick {deal.trick_count}" in window.title_text
        cards = ", ".join(
            f"{('You', 'Left', 'Top', 'Right')[trick.seat_of(i)]} {card_label(c)}"
            for i, c in enumerate(trick.cards)
        )
        assert cards in window.text
        assert window.text.endswith(f"won by {('You', 'Left', 'Top', 'Right')[trick.winner]}")
        await pilot.press("escape")
        assert my_turn(app)

    run(drive(session, test))


def test_the_screen_fits_80_by_24_from_any_seat(tmp_path: Path) -> None:
    session = start(tmp_path / "g.json", seed=SEED_BOT_DECLARES, seat=1)

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        await my_turn_to_play(app, pilot)
        assert app.size == SIZE
        for widget in (app.query_one(TableView), app.query_one(ScoreBoard), hand_of(app)):
            region = widget.region
            assert region.right <= 80 and region.bottom <= 24, widget
            assert region.height > 0
        table = app.query_one(TableView).text.splitlines()
        assert len(table) == app.query_one(TableView).content_size.height
        assert max(len(line) for line in table) <= app.query_one(TableView).content_size.width
        # Seats are counted from 1 on the screen: the person's index 1 is "seat 2".
        assert "You · seat 2" in "\n".join(table)
        assert "Top · seat 4" in table[0]
        assert "Left" in table[4] and "Right" in table[4]
        assert "seat 3" in table[5] and "seat 1" in table[5]  # seat 3 plays after you
        assert hand_of(app).border_title == "Your hand (seat 2)"
        players = json.loads((tmp_path / "g.json").read_text())["players"]
        assert players == ["Right (random)", "You", "Left (random)", "Top (random)"]
        assert "◀ your turn" in "\n".join(table)
        scores = app.query_one(ScoreBoard).text.splitlines()
        assert scores[0].split() == ["deal", "total", "owes"]
        assert [line.split()[0] for line in scores[1:5]] == ["You", "Left", "Top", "Right"]

    run(drive(session, test))


def test_a_bot_that_fails_is_reported_and_the_game_goes_on(tmp_path: Path) -> None:
    broken = f"cmd:{sys.executable} -c 'raise SystemExit(3)'"
    session = PlaySession.start(
        bots=[broken, "random", "random"],
        rules=Rules(),
        seed=SEED_BOT_DECLARES,
        seat=0,
        save=tmp_path / "g.json",
    )

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        game = app.session.game
        await my_turn_to_play(app, pilot)
        before = len(game.deals[-1].plays)
        await pilot.press("enter")
        # The next bot waits (the pause) before it plays, so the report stays on screen.
        await until(pilot, lambda: "Left's bot failed (" in message(app), "the failure report")
        assert message(app).startswith("Left's bot failed (")
        assert "it plays" in message(app) and "instead" in message(app)
        assert len(game.deals[-1].plays) >= before + 2  # yours, then Left's replacement
        await my_turn_to_play(app, pilot)
        assert replay(tmp_path / "g.json").valid

    run(drive(session, test, pause=0.3))
