"""``king play`` in the five languages: the Textual app driven headless at 80x24.

A Turkish game plays a whole deal with Turkish words everywhere (contract names, the
refusal of an illegal card, the deal's summary); a Thai game shows Thai text and keeps
its layout (combining marks are measured in terminal cells); every language's screens
fit 80x24; the language is saved with the game; the command line chooses it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from textual.pilot import Pilot
from textual.widgets import OptionList
from typer.testing import CliRunner

from king.cards import CardSet
from king.cli import app as cli_app
from king.deal import IllegalMoveError
from king.i18n import LANGUAGES, Translator
from king.rules import ALL_DECLARATIONS, Contract, Rules
from king.tui.app import KingApp, PlayError, run_play
from king.tui.help import help_markdown
from king.tui.save import record_of
from king.tui.screens import HelpScreen, InfoScreen
from king.tui.session import PlaySession
from king.tui.widgets import DeclarePanel, InfoBar, MessageLine, ScoreBoard, TableView
from king.tui.words import declaration_name, position
from tests.support.terminal import (
    BOTS,
    SEED_BOT_DECLARES,
    SEED_YOU_DECLARE,
    _game_where_no_queens_is_used_up,
    drive,
    hand_of,
    message,
    my_turn,
    my_turn_to_play,
    run,
    start,
    type_card,
    until,
)

TURKISH_CONTRACTS = {
    "Koz",
    "El Almaz",
    "Kupa Almaz",
    "Kız Almaz",
    "Erkek Almaz",
    "Rıfkı",
    "Son İki",
}


def footer_words(app: KingApp) -> set[str]:
    """The descriptions of the key bindings the footer shows now."""
    return {b.binding.description for b in app.screen.active_bindings.values() if b.binding.show}


def test_a_whole_deal_in_turkish(tmp_path: Path) -> None:
    session = start(tmp_path / "g.json", seed=SEED_BOT_DECLARES, lang="tr")
    tr = Translator("tr")

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        game = app.session.game
        await my_turn_to_play(app, pilot)
        deal = game.deal
        assert deal is not None
        # The contract, declared by the bot across the table, in Turkish on the screen.
        contract = tr.contract(deal.contract.value)
        assert contract in TURKISH_CONTRACTS
        info = app.query_one(InfoBar).text
        assert info.startswith(f"Dağıtım 1/20 · {declaration_name(tr, deal.declaration)}")
        assert "seçen: Karşı" in info
        assert "Karşı · yer 3" in app.query_one(TableView).text  # seats counted from 1
        assert "◀ sıra sizde" in app.query_one(TableView).text
        assert app.query_one(ScoreBoard).text.split()[:3] == ["puan", "toplam", "borç"]
        assert hand_of(app).border_title == "Eliniz (yer 1)"
        assert {"Oyna", "Yardım", "Son el", "Çık (kayıtlı)"} <= footer_words(app)
        # An illegal card is refused with the Turkish reason.
        refused = False
        while not isinstance(app.screen, InfoScreen):
            await until(
                pilot,
                lambda: my_turn(app) or isinstance(app.screen, InfoScreen),
                "the person's turn or the summary",
            )
            if isinstance(app.screen, InfoScreen):
                break
            illegal = [c for c in game.hand(0) if not deal.is_legal(c)]
            if illegal and not refused:
                with pytest.raises(IllegalMoveError) as error:
                    deal.copy().play(illegal[0])
                before = list(deal.plays)
                await type_card(pilot, illegal[0])
                assert deal.plays == before
                reason = tr.illegal(error.value.code, error.value.params)
                assert reason != Translator("en").illegal(error.value.code, error.value.params)
                assert message(app) == f"Olmaz: {reason}"
                assert app.query_one(MessageLine).has_class("error")
                refused = True
                await type_card(pilot, deal.legal_moves()[0])  # the cursor is on the bad card
                continue
            await pilot.press("enter")
        assert refused, "no illegal card came up in the deal"
        # The summary of the deal, in Turkish.
        summary = app.screen
        assert isinstance(summary, InfoScreen)
        result = game.results[0]
        assert summary.title_text == "Dağıtım 1 bitti"
        lines = summary.text.splitlines()
        assert lines[0] == f"Dağıtım 1/20: {contract}, seçen: Karşı"
        assert lines[2].split() == ["puan", "el", "toplam"] or "alınan ceza kartları" in lines[2]
        for seat, label in enumerate(("Siz", "Sol", "Karşı", "Sağ")):
            row = next(line for line in lines if line.startswith(label + " "))
            assert row.split()[1] == str(result.points[seat])
        assert "Son el:" in summary.text
        assert summary.footer_text == "Enter: devam"
        await pilot.press("enter")
        await until(pilot, lambda: len(game.deals) == 2, "the second deal")
        assert json.loads((tmp_path / "g.json").read_text())["extra"]["king_play"]["lang"] == "tr"

    run(drive(session, test))


def test_turkish_declaring_menu_and_help(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    game = _game_where_no_queens_is_used_up(5)
    path.write_text(json.dumps(record_of(game, ["you", *BOTS], 0, BOTS, "tr")))
    session = PlaySession.start(bots=BOTS, rules=Rules(), seed=None, seat=0, resume=path)
    assert session.language == "tr"  # the saved language, with no --lang
    tr = Translator("tr")

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        await pilot.pause()
        panel = app.query_one(DeclarePanel)
        assert panel.border_title == f"Dağıtım {app.session.game.deal_number + 1}/20: seçim sizde"
        lines = panel.text.splitlines()
        assert len(lines) == len(ALL_DECLARATIONS)
        for line, declaration in zip(lines, ALL_DECLARATIONS, strict=True):
            assert line[2:].startswith(declaration_name(tr, declaration) + " ")
        queens = next(line for line in lines if line[2:].startswith("Kız Almaz "))
        assert "✗ " + tr.refused("played_twice", {"contract": "no-queens"}) in queens
        assert "Kız Almaz" in tr.refused("played_twice", {"contract": "no-queens"})
        assert "Koz (♠)" in panel.text and "El başına +50, koz maça" in panel.text
        # One line per contract: nothing wraps at 80 columns.
        assert panel.query_one(OptionList).virtual_size.height == 10
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.markdown
        assert text.startswith("## Tuşlar")
        assert "uluslararası harflerle" in text and "**S** (♠ maça)" in text
        assert tr("rules.body").strip() in text
        assert str(path) in text
        assert text == help_markdown(tr, app.session.game.rules, str(path))
        await pilot.press("escape")

    run(drive(session, test))


def test_a_thai_game_shows_thai_and_keeps_its_layout(tmp_path: Path) -> None:
    session = start(tmp_path / "g.json", seed=SEED_YOU_DECLARE, lang="th")
    th = Translator("th")

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        await pilot.pause()
        panel = app.query_one(DeclarePanel)
        assert th.contract("no-tricks") in panel.text
        assert panel.query_one(OptionList).virtual_size.height == 10
        await pilot.press("enter")  # the first contract
        await my_turn_to_play(app, pilot)
        assert app.query_one(InfoBar).text.startswith("รอบ 1/20 · ")
        assert "คุณประกาศ" in message(app)
        table = app.query_one(TableView)
        assert "◀ ตาคุณ" in table.text
        assert "ซ้าย" in table.text and "ขวา" in table.text and "ตรงข้าม" in table.text
        assert hand_of(app).border_title == "ไพ่ในมือคุณ (ที่นั่ง 1)"
        assert "ลงไพ่" in footer_words(app)
        # Thai vowels and tone marks take no column: lines are measured in cells.
        width = table.content_size.width
        assert all(line.cell_len <= width for line in table.lines())
        scores = app.query_one(ScoreBoard)
        assert all(cell_len(line) <= scores.content_size.width for line in scores.text.split("\n"))
        assert [line.split()[0] for line in scores.text.splitlines()[1:5]] == [
            "คุณ",
            "ซ้าย",
            "ตรงข้าม",
            "ขวา",
        ]

    run(drive(session, test))


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_language_fits_80_by_24(tmp_path: Path, language: str) -> None:
    session = start(tmp_path / "g.json", seed=SEED_BOT_DECLARES, lang=language)
    t = Translator(language)

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        await my_turn_to_play(app, pilot)
        for _ in range(3):  # a few cards, so the table and the scores fill in
            await pilot.press("enter")
            await my_turn_to_play(app, pilot)
        deal = app.session.game.deal
        assert deal is not None
        assert t.contract(deal.contract.value) in app.query_one(InfoBar).text
        for widget in (app.query_one(TableView), app.query_one(ScoreBoard), hand_of(app)):
            region = widget.region
            assert region.right <= 80 and region.bottom <= 24, widget
        table = app.query_one(TableView)
        assert len(table.lines()) == table.content_size.height
        assert all(line.cell_len <= table.content_size.width for line in table.lines())
        scores = app.query_one(ScoreBoard)
        lines = scores.text.split("\n")
        assert all(cell_len(line) <= scores.content_size.width for line in lines), lines
        assert len(lines) <= scores.content_size.height
        names = [position(t, offset, short=True) for offset in range(4)]
        assert [line.split()[0] for line in lines[1:5]] == [n.split()[0] for n in names]
        assert t("tui.binding.play") in footer_words(app)

    run(drive(session, test))


def test_the_language_is_saved_and_resumed(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    first = start(path, lang="fr")
    first.close()
    assert json.loads(path.read_text())["extra"]["king_play"]["lang"] == "fr"
    kept = PlaySession.start(bots=BOTS, rules=Rules(), seed=None, seat=0, resume=path)
    kept.close()
    assert kept.language == "fr"
    # --lang wins over the saved language, and the file then says so.
    changed = PlaySession.start(
        bots=BOTS, rules=Rules(), seed=None, seat=0, resume=path, lang="es", default_lang="th"
    )
    changed.close()
    assert changed.language == "es"
    assert json.loads(path.read_text())["extra"]["king_play"]["lang"] == "es"
    # A file without a language (or with one this version lacks) takes the default.
    record = json.loads(path.read_text())
    record["extra"]["king_play"]["lang"] = "xx"
    path.write_text(json.dumps(record))
    fallback = PlaySession.start(
        bots=BOTS, rules=Rules(), seed=None, seat=0, resume=path, default_lang="th"
    )
    fallback.close()
    assert fallback.language == "th"
    # The app may also be told the language, which is then saved with the game.
    session = start(tmp_path / "h.json")
    assert session.language == "en"
    assert KingApp(session, lang="tr").t.language == "tr"
    assert session.language == "tr"
    session.close()


def test_errors_before_the_screen_are_in_the_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{ nope")

    def refusal(**options: Any) -> str:
        with pytest.raises(PlayError) as error:
            run_play(bots=BOTS, rules=Rules(), seed=None, seat=0, resume=bad, **options)
        return str(error.value)

    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "tr_TR.UTF-8")
    assert "bir oyun kaydı değil" in refusal()  # the locale decides
    assert "no es un registro de partida" in refusal(lang="es")  # unless --lang says
    monkeypatch.setenv("LANG", "C")
    assert "is not a game record" in refusal()


def test_king_play_lang_on_the_command_line(tmp_path: Path) -> None:
    runner = CliRunner()
    refused = runner.invoke(cli_app, ["play", "--lang", "de"])
    assert refused.exit_code == 2
    lines = refused.output.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("king: --lang: unknown language 'de'")
    assert "tr (Türkçe)" in lines[0] and "th (ไทย)" in lines[0]
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    args = ["play", "--resume", str(bad), "--bots", "random,random,random"]
    turkish = runner.invoke(cli_app, [*args, "--lang", "tr"], env={"LANG": "C"})
    assert turkish.exit_code == 2
    assert "bir oyun kaydı değil" in turkish.output
    no_locale: dict[str, str | None] = {"LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None}
    english = runner.invoke(cli_app, args, env={**no_locale, "LANG": "C"})
    assert english.exit_code == 2
    assert "is not a game record" in english.output
    thai = runner.invoke(cli_app, args, env={**no_locale, "LANG": "th_TH.UTF-8"})
    assert thai.exit_code == 2
    assert "ไม่ใช่บันทึกเกม" in thai.output
    assert "--lang" in runner.invoke(cli_app, ["play", "--help"]).output


def test_no_contract_is_left_unnamed_in_any_language() -> None:
    for language in LANGUAGES:
        t = Translator(language)
        for contract in Contract:
            assert t.contract(contract.value) != f"contract.{contract.value}"
            assert t(f"tui.taken.{contract.value}") != f"tui.taken.{contract.value}"
        assert all(t.card(str(card)) for card in CardSet.full())


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_declaring_menu_keeps_one_line_per_contract(tmp_path: Path, language: str) -> None:
    path = tmp_path / "g.json"
    game = _game_where_no_queens_is_used_up(5)
    path.write_text(json.dumps(record_of(game, ["you", *BOTS], 0, BOTS, language)))
    session = PlaySession.start(bots=BOTS, rules=Rules(), seed=None, seat=0, resume=path)
    t = Translator(language)

    async def test(app: KingApp, pilot: Pilot[None]) -> None:
        await pilot.pause()
        panel = app.query_one(DeclarePanel)
        options = panel.query_one(OptionList)
        # A long reason ends with … rather than wrapping: the ten rows stay in view.
        assert options.virtual_size.height == 10
        assert options.region.bottom <= panel.region.bottom
        reason = t.refused("played_twice", {"contract": "no-queens"})
        assert "✗ " + reason in panel.text
        totals = panel.query_one("#declare-scores")
        assert totals.region.bottom <= 24 - 7  # above the hand, the message and the footer

    run(drive(session, test))
