"""External bots over the king-bot/1 protocol: the example plays, and every failure
(illegal move, garbage, time-out, crash, bad handshake) is reported by name and ends
only that game."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from king.arena import ArenaConfig, run_arena
from king.bots import BotError, make_bot
from king.game import Game
from king.record import replay
from tests.support.games import EXAMPLES

EXAMPLE_BOT = f"cmd:{sys.executable} {EXAMPLES / 'my_bot.py'}"

# A bot whose behaviour on request number N is chosen by the test.
TEMPLATE = """
import json, sys, time
MODE = {mode!r}
count = 0
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "bye":
        break
    if kind == "hello":
        if MODE == "bad-hello":
            print(json.dumps({{"type": "hi"}}), flush=True)
            continue
        hello = {{"type": "hello", "protocol": "king-bot/1", "name": "tester"}}
        print(json.dumps(hello), flush=True)
        continue
    count += 1
    legal = message["legal"]
    if count >= 3 and MODE == "illegal" and kind == "play":
        hand = message["view"]["hand"]
        wrong = [c for c in hand if c not in legal] or ["2C" if "2C" not in hand else "3C"]
        print(json.dumps({{"id": message["id"], "card": wrong[0]}}), flush=True)
        continue
    if count >= 3 and MODE == "garbage":
        print("this is not json", flush=True)
        continue
    if count >= 3 and MODE == "slow":
        time.sleep(30)
    if count >= 3 and MODE == "crash":
        sys.stderr.write("boom: something broke\\n")
        sys.exit(3)
    if count >= 3 and MODE == "wrong-id":
        print(json.dumps({{"id": -5, "card": legal[0]}}), flush=True)
        continue
    key = "declare" if kind == "declare" else "card"
    print(json.dumps({{"id": message["id"], key: legal[0]}}), flush=True)
"""


def _bot(tmp_path: Path, mode: str) -> str:
    path = tmp_path / f"{mode}_bot.py"
    path.write_text(textwrap.dedent(TEMPLATE.format(mode=mode)))
    return f"cmd:{sys.executable} {path}"


def test_the_example_bot_plays_a_whole_arena_game() -> None:
    config = ArenaConfig((EXAMPLE_BOT, "random", "random", "random"), "games", 1, seed=5)
    records: list[dict] = []  # type: ignore[type-arg]
    report = run_arena(config, lambda _, plays: records.extend(p.record for p in plays))
    assert report.abandoned == []
    assert report.sets_counted == 1
    assert len(records) == 4
    for record in records:
        result = replay(record)
        assert result.valid, result.fault
        assert result.complete
        assert sum(result.game.totals) == 0
    assert report.stats[EXAMPLE_BOT].n == 4


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("illegal", "answered an illegal card"),
        ("garbage", "answered garbage"),
        pytest.param("slow", "gave no answer", marks=pytest.mark.slow),
        ("crash", "crashed (exit status 3)"),
        ("wrong-id", "answered id -5"),
        ("bad-hello", "handshake"),
    ],
)
def test_each_failure_abandons_only_that_game(tmp_path: Path, mode: str, expected: str) -> None:
    spec = _bot(tmp_path, mode)
    config = ArenaConfig((spec, "random", "random", "random"), "deals", 1, bot_timeout=1.0)
    report = run_arena(config)
    # Every game with the failing bot is abandoned and reported by name; the match ends
    # normally with nothing counted from the broken sets.
    assert len(report.abandoned) == 4
    for item in report.abandoned:
        assert "tester" in item["bot"] or mode == "bad-hello"
        assert spec in item["bot"]
        assert expected in item["what"]
    assert report.sets_counted == 0
    if mode == "crash":
        assert "boom: something broke" in report.abandoned[0]["what"]
    if mode == "illegal":
        assert (
            "must" in report.abandoned[0]["what"] or "does not hold" in report.abandoned[0]["what"]
        )


def test_a_failing_bot_leaves_other_sets_alone(tmp_path: Path) -> None:
    # The crashing bot fails on its third request; in deals mode a rotation where it
    # acts fewer than three times does not fail, so some plays finish.
    spec = _bot(tmp_path, "crash")
    bot = make_bot(spec, seed=1, timeout=2.0)
    game = Game(seed=3)
    seat = game.declarer
    with pytest.raises(BotError) as info:
        for _ in range(10):
            actor = game.to_act
            assert actor is not None
            if actor == seat:
                choice = bot.act(game.view(seat))
            else:
                choice = make_bot("random", 0).act(game.view(actor))
            if game.deal is None:
                game.declare(choice)  # type: ignore[arg-type]
            else:
                game.play(choice)  # type: ignore[arg-type]
    assert info.value.bot.startswith("tester (cmd:")
    bot.close()
    bot.close()  # closing twice is harmless


def test_a_missing_program_is_reported() -> None:
    bot = make_bot("cmd:/nonexistent/program --flag", seed=1)
    game = Game(seed=1)
    with pytest.raises(BotError, match="could not be started"):
        bot.act(game.view(game.declarer))
