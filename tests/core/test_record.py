"""Game records: the examples of RECORD.md, faults located precisely, bad input."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from king.game import Game, Phase
from king.record import (
    InvalidRecordError,
    RecordError,
    dump,
    load,
    replay,
    to_record,
)
from king.rules import Rules
from tests.support.games import EXAMPLES, play_random_game

NAMES = ["game-classic", "partial-pagat", "illegal-play"]


def _read(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / name).read_text())
    return data


@pytest.mark.parametrize("name", NAMES)
def test_examples_replay_exactly_as_expected(name: str) -> None:
    report = replay(EXAMPLES / f"{name}.json").to_json()
    expected = _read(f"{name}.expected.json")
    if "error" in expected:
        assert report["error"].pop("reason")
        expected["error"].pop("reason")
    assert report == expected


def test_illegal_example_names_the_rule() -> None:
    report = replay(EXAMPLES / "illegal-play.json")
    assert report.fault is not None
    # The record's seat 3 (its "seat" field) is the fourth seat: "seat 4" to a person.
    assert report.fault.seat == 3
    assert report.fault.reason == "seat 4 must follow diamonds"
    assert report.fault.where == "deal 2, play 2, seat 4 played 2S"


def test_example_game_totals_sum_to_zero() -> None:
    report = replay(EXAMPLES / "game-classic.json")
    assert report.complete
    assert sum(report.game.totals) == 0


def _valid_record() -> dict[str, Any]:
    return _read("game-classic.json")


def _fault(data: dict[str, Any]) -> dict[str, Any]:
    out = replay(data).to_json()
    assert out["valid"] is False
    error: dict[str, Any] = out["error"]
    return error


def test_a_changed_play_is_located() -> None:
    data = _valid_record()
    plays = data["deals"][2]["plays"].split()
    # Deal 2 is No Tricks led by seat 1 with 6S; have seat 2 answer with a heart it holds.
    plays[1] = "AH" if plays[1] != "AH" else "KH"
    data["deals"][2]["plays"] = " ".join(plays)
    error = _fault(data)
    assert error["deal"] == 2
    assert error["play"] == 1
    assert error["seat"] == 2
    assert "must follow spades" in error["reason"] or "does not hold" in error["reason"]


@pytest.mark.parametrize(
    ("mutate", "where", "reason"),
    [
        (lambda d: d["deals"][0].update(declarer=2), {"deal": 0}, None),
        (
            lambda d: d["deals"][1].update(declarer=3),
            {"deal": 1},
            "the declarer must be seat 1, the seat after the last declarer, not seat 4",
        ),
        (lambda d: d["deals"][1].update(declarer="0"), {"deal": 1}, "seat 0-3"),
        (lambda d: d["deals"][0].update(contract="no-jokers"), {"deal": 0}, "not a contract"),
        (lambda d: d["deals"][0].pop("trump"), {"deal": 0}, "trump suit"),
        (lambda d: d["deals"][1].update(trump="S"), {"deal": 1}, "has no trump suit"),
        (lambda d: d["deals"][0].update(trump="X"), {"deal": 0}, "not a suit"),
        (
            lambda d: d["deals"][0].update(hands=d["deals"][0]["hands"][:3]),
            {"deal": 0},
            "four hands",
        ),
        (
            lambda d: d["deals"][0]["hands"].__setitem__(0, "AS AS"),
            {"deal": 0, "seat": 0},
            "twice",
        ),
        (
            lambda d: d["deals"][0]["hands"].__setitem__(1, d["deals"][0]["hands"][0]),
            {"deal": 0},
            "dealt to both",
        ),
        (
            lambda d: d["deals"][0].update(plays=d["deals"][0]["plays"] + " AS"),
            {"deal": 0, "play": 52},
            "deal is over",
        ),
        (
            lambda d: d["deals"][0].update(plays="ZZ"),
            {"deal": 0, "play": 0, "card": "ZZ"},
            "not a card",
        ),
        (lambda d: d["deals"][0].update(plays=7), {"deal": 0}, "string of cards"),
        (lambda d: d["deals"].append(copy.deepcopy(d["deals"][0])), {"deal": 20}, "only 20"),
        (lambda d: d["deals"].__setitem__(3, []), {"deal": 3}, "not an object"),
        (
            lambda d: d["deals"][4].update(plays=d["deals"][4]["plays"][:50]),
            {"deal": 5},
            "unfinished",
        ),
        (
            # Seat 0 declares Trumps in deals 1, 13 and 17: the third is refused.
            lambda d: d["deals"][1].update(contract="trumps", trump="S"),
            {"deal": 17, "seat": 0},
            "seat 1 has already declared Trumps 2 times",  # the record's seat 0
        ),
        (
            # No Last Two in deals 1, 2 and 6: the third is refused.
            lambda d: d["deals"][2].update(contract="no-last-two"),
            {"deal": 6, "seat": 1},
            "No Last Two has been played twice",
        ),
    ],
)
def test_faults_are_located_with_a_reason(
    mutate: Any, where: dict[str, Any], reason: str | None
) -> None:
    data = _valid_record()
    mutate(data)
    error = _fault(data)
    for key, value in where.items():
        assert error.get(key) == value, (key, error)
    assert error["reason"]
    if reason is not None:
        assert reason in error["reason"]


@pytest.mark.parametrize(
    "text",
    [b"", b"not json", b"[1, 2]", b'"x"', b"{}", b'{"format": "king-record/2", "deals": []}'],
)
def test_not_a_record_raises_record_error(text: bytes) -> None:
    with pytest.raises(RecordError):
        replay(text)


@pytest.mark.parametrize(
    "data",
    [
        {"format": "king-record/1"},
        {"format": "king-record/1", "deals": {}},
        {"format": "king-record/1", "deals": [], "seed": "x"},
        {"format": "king-record/1", "deals": [], "players": ["a", "b"]},
    ],
)
def test_malformed_top_level_fields_are_not_records(data: dict[str, Any]) -> None:
    with pytest.raises(RecordError):
        replay(data)


def test_bad_rules_are_a_located_fault() -> None:
    data = _valid_record()
    data["rules"] = {"preset": "classic", "overruf": True}
    out = replay(data).to_json()
    assert out["valid"] is False
    assert "overruf" in out["error"]["reason"]


def test_unknown_fields_and_extra_are_ignored() -> None:
    data = _valid_record()
    data["extra"] = {"client": "test"}
    data["deals"][0]["extra"] = {"note": "hello"}
    data["deals"][0]["comment"] = "ignored"
    assert replay(data).valid


def test_cards_in_records_accept_other_notations() -> None:
    data = _valid_record()
    deal = data["deals"][0]
    deal["plays"] = "  ".join(p.replace("T", "10").lower() for p in deal["plays"].split())
    deal["hands"] = [h.replace("S", "♠") for h in deal["hands"]]
    assert replay(data).valid


def test_toggle_object_rules_round_trip() -> None:
    rules = Rules(overruff=True)
    game = play_random_game(rules, 5)
    record = to_record(game)
    assert record["rules"] == {"preset": "classic", "overruff": True}
    assert replay(record).game.rules == rules


def test_two_of_diamonds_first_declarer_is_checked() -> None:
    game = Game(Rules.preset("turkish"), seed=3)
    record = to_record(game)
    holder = record["deals"][0]["declarer"]
    assert "2D" in record["deals"][0]["hands"][holder].split()
    record["deals"][0]["declarer"] = (holder + 1) % 4
    error = _fault(record)
    assert "two of diamonds" in error["reason"]


def test_load_resumes_a_live_game_with_the_same_deals() -> None:
    original = Game(seed=99)
    original.declare(original.allowed_declarations()[0])
    for _ in range(52):
        deal = original.deal
        assert deal is not None
        original.play(deal.legal_moves()[0])
    loaded = load(dump(original), live=True).game
    assert loaded.phase is Phase.DECLARING
    assert loaded.deal_number == 1
    assert loaded.dealt_masks == original.dealt_masks
    assert loaded.declarer == original.declarer


def test_load_refuses_an_invalid_record() -> None:
    with pytest.raises(InvalidRecordError) as info:
        load(EXAMPLES / "illegal-play.json")
    assert info.value.fault.deal == 1


def test_a_missing_file_is_a_record_error(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read"):
        replay(tmp_path / "missing.json")


def test_a_pending_declaration_is_reported() -> None:
    game = Game(seed=4)
    out = replay(dump(game)).to_json()
    assert out["valid"] is True
    assert out["deals"] == [
        {"declarer": game.declarer, "points": [0, 0, 0, 0], "tricks": [], "complete": False}
    ]
    assert out["complete"] is False
