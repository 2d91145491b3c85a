"""The page's offline table on its own: a whole game against rule bots, saved after
every card and resumed from the save with nothing lost, bad messages and bad saves
refused with a sentence, and the record it downloads replaying valid."""

from __future__ import annotations

import json

import pytest

from king import __version__
from king.board import board_document
from king.bots import Bot, make_bot
from king.cards import Card
from king.game import Game
from king.offline.saved import SavedGameError
from king.offline.table import OfflineTable, board_of_record, resume
from king.record import replay
from king.rules import Declaration
from king.server.protocol import model_of
from king.table.answers import HintMessage
from tests.support.games import one_deal, play_record_again


def _hello(table: OfflineTable) -> list[dict[str, object]]:
    return [json.loads(t) for t in table.receive('{"v": 1, "type": "hello", "token": "t"}')]


def _message(table: OfflineTable, action: Declaration | Card) -> str:
    if isinstance(action, Declaration):
        trump = None if action.trump is None else action.trump.letter
        return json.dumps(
            {"v": 1, "type": "declare", "contract": action.contract.value, "trump": trump}
        )
    return json.dumps({"v": 1, "type": "play", "card": str(action)})


def _play_out(table: OfflineTable, me: Bot, *, reload: bool) -> OfflineTable:
    """Play the game out, the person's seat by ``me``; with ``reload``, the table is
    restored from its save after every card, as the page does after a reload."""
    while not table.game.is_over:
        while table.bot_delay() is not None:
            table.advance()
        if table.game.is_over:
            break
        answer = json.loads(table.receive(_message(table, me.act(table.game.view(0))))[0])
        assert answer["type"] == "state", answer
        if reload:
            again = OfflineTable.restore(table.saved())
            assert (again.seq, again.game.to_act, again.game.totals) == (
                table.seq,
                table.game.to_act,
                table.game.totals,
            )
            _hello(again)
            table = again
    return table


def test_a_whole_offline_game_resumes_after_every_card_and_replays_valid() -> None:
    table = OfflineTable.new("classic", 5, name="Ada", bot_pause=0.0)
    welcome, state, info = _hello(table)
    assert welcome["type"] == "welcome" and welcome["seat"] == 0
    assert state["type"] == "state" and len(state["view"]["hand"]) == 13  # type: ignore[index]
    seats = info["table"]["seats"]  # type: ignore[index]
    assert [s["bot"] for s in seats] == [None, "rule", "rule", "rule"]
    table = _play_out(table, make_bot("rule", seed=11), reload=True)
    assert replay(table.record_text()).complete


def test_the_offline_record_is_the_one_cpython_makes_for_the_same_seed_and_bots() -> None:
    table = OfflineTable.new("turkish", 9, bots=("rule", "random", "rule"), bot_pause=0.0)
    _hello(table)
    table = _play_out(table, make_bot("random", seed=3), reload=False)
    text = table.record_text()
    assert replay(text).complete
    assert play_record_again(text, ["rule", "random", "rule"]) == json.loads(text)


@pytest.mark.parametrize(
    ("saved", "words"),
    [
        ("{not json", "damaged"),
        ('{"format": "king-record/1"}', "not a King game"),
        ('{"format": "king-offline-game/1", "version": "0.0.1"}', "another version"),
        (
            json.dumps({"format": "king-offline-game/1", "version": __version__, "seat": 9}),
            "damaged",
        ),
    ],
)
def test_a_bad_save_is_refused_with_a_sentence(saved: str, words: str) -> None:
    with pytest.raises(SavedGameError, match=words):
        OfflineTable.restore(saved)


def test_a_save_with_a_broken_record_is_refused_and_names_the_fault() -> None:
    table = OfflineTable.new("classic", 2, bot_pause=0.0)
    saved = json.loads(table.saved())
    saved["record"]["deals"][0]["plays"] = "AS AS"
    with pytest.raises(SavedGameError, match="record is not valid"):
        OfflineTable.restore(json.dumps(saved))


def test_bad_messages_and_moves_are_refused_and_change_nothing() -> None:
    table = OfflineTable.new("classic", 4, bot_pause=0.0)
    assert json.loads(table.receive('{"v":1,"type":"play","card":"AS"}')[0])["code"] == "not_joined"
    # No spectators offline: watching is refused, and the page may still say hello.
    assert json.loads(table.receive('{"v":1,"type":"watch"}')[0])["code"] == "spectator"
    _hello(table)
    before = table.saved()
    answers = {
        "[1, 2": "bad_json",
        '{"v": 2, "type": "ping"}': "version",
        '{"v": 1, "type": "fly"}': "invalid",
        '{"v": 1, "type": "play", "card": 5}': "invalid",
        '{"v": 1, "type": "play", "card": "AS", "more": 1}': "invalid",
        '{"v": 1, "type": "watch"}': "already_joined",
        '{"v": 1, "type": "react", "phrase": "nice"}': "no_friends",
        '{"v": 1, "type": "hint"}': "hints_off",
        '{"v": 1, "type": "hello", "token": "t"}': "already_joined",
        "x" * 5000: "too_large",
    }
    for text, code in answers.items():
        (answer,) = table.receive(text)
        assert json.loads(answer)["code"] == code, text
    assert table.saved() == before


def test_every_level_sits_at_an_offline_table_and_no_other_engine_spec() -> None:
    """The levels (Hard and Expert play with the engine, in the page's WebAssembly) and
    the rule and random bots; not a search bot at settings of its own."""
    for level in ("beginner", "easy", "medium", "hard", "expert"):
        table = OfflineTable.new("classic", 1, bots=(level, level, level), bot_pause=0.0)
        assert [seat["bot"] for seat in table.info()["seats"][1:]] == [level] * 3
    with pytest.raises(ValueError, match="does not play offline"):
        OfflineTable.new("classic", 1, bots=("search", "rule", "rule"))
    assert Game  # the core is all the table needs besides its bots


def test_a_hint_offline_is_the_engines_from_the_persons_view_and_only_on_their_turn() -> None:
    """A table with hints answers ``hint`` as a server's does (the same message), at
    the person's turn only; a table without them refuses it, and so does a finished
    game's; the saved game keeps the choice."""
    seed = next(n for n in range(20) if OfflineTable.new("classic", n).game.to_act != 0)
    table = OfflineTable.new("classic", seed, bot_pause=0.0, hints=True)
    _hello(table)
    (refused,) = table.receive('{"v": 1, "type": "hint"}')  # a bot is to act
    assert json.loads(refused)["code"] == "not_your_turn"
    while table.game.to_act != table.seat:
        table.advance()
    (answer,) = table.receive('{"v": 1, "type": "hint"}')
    hint = json.loads(answer)
    model_of(HintMessage).model_validate(hint)
    view = table.game.view(table.seat)
    legal = [str(d) for d in view.legal_declarations] or [str(c) for c in view.legal_cards]
    assert hint["type"] == "hint" and hint["best"] in legal
    assert {row["choice"] for row in hint["choices"]} == set(legal)
    assert json.loads(table.saved())["hints"] is True
    assert OfflineTable.restore(table.saved()).info()["hints"] is True
    plain = OfflineTable.new("classic", 5, bot_pause=0.0)
    _hello(plain)
    (refused,) = plain.receive('{"v": 1, "type": "hint"}')
    assert json.loads(refused)["code"] == "hints_off" and plain.info()["hints"] is False


def test_resume_says_why_a_save_cannot_go_on_in_a_word_the_page_translates() -> None:
    table = OfflineTable.new("classic", 3, bot_pause=0.0)
    found, code, sentence = resume(table.saved())
    assert found is not None and found.seq == table.seq and code is None and sentence is None
    for text, word in (
        ("[", "damaged"),
        ("{}", "foreign"),
        ('{"format": "king-offline-game/1"}', "version"),
    ):
        found, code, sentence = resume(text)
        assert found is None and code == word and sentence


def test_a_record_opened_on_the_device_is_laid_out_as_the_server_lays_it_out() -> None:
    """A static site's board reads a record file on the device: the board the server's
    ``POST /api/board`` makes, the record to analyse without the file's own analysis,
    and the server's words for what is no record."""
    record = one_deal(11)
    record["analysis"] = {"engine": "anything"}
    board, text = board_of_record(json.dumps(record))
    assert board is not None
    assert json.loads(board) == {"board": board_document(replay(record)), "analysis": None}
    assert "analysis" not in json.loads(text)
    assert replay(text).game.deals[0].plays == replay(record).game.deals[0].plays
    assert board_of_record("[1]") == (
        None,
        "not a game record: a record is a JSON object, not list",
    )
    broken = one_deal(11)
    broken["deals"][0]["plays"] = "2C 2C"
    refused, why = board_of_record(json.dumps(broken))
    assert refused is None and why.startswith("the record is not valid: ")
    empty = {"format": "king-record/1", "rules": "classic", "deals": []}
    assert board_of_record(json.dumps(empty)) == (None, "the record has no declared deal to show")
