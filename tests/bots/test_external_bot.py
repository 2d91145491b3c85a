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


# A king-bot/2 program: it serves game after game and logs what it is told to a file.
MANY = """
import json, os, sys
LOG, CRASH_AT = {log!r}, {crash_at!r}
def note(text):
    with open(LOG, "a") as log:
        log.write(f"{{os.getpid()}} {{text}}\\n")
note("start")
FIRST = sum(" start" in x for x in open(LOG)) == 1  # only the first program crashes
count = 0
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "bye":
        note("bye")
        break
    if kind == "hello":
        note("hello " + ",".join(message["versions"]))
        print(json.dumps({{"type": "hello", "protocol": "king-bot/2", "name": "many"}}), flush=True)
    elif kind == "game":
        note(f"game seat={{message['seat']}}")
    elif kind == "over":
        note("over")
    else:
        count += 1
        if FIRST and count == CRASH_AT:
            sys.stderr.write("boom: out of memory\\n")
            sys.exit(4)
        key = "declare" if kind == "declare" else "card"
        print(json.dumps({{"id": message["id"], key: message["legal"][-1]}}), flush=True)
"""


def _many(tmp_path: Path, crash_at: int | None = None) -> tuple[str, Path]:
    log = tmp_path / "engine.log"
    path = tmp_path / "many_bot.py"
    path.write_text(textwrap.dedent(MANY.format(log=str(log), crash_at=crash_at)))
    return f"cmd:{sys.executable} {path}", log


def _lines(log: Path) -> list[tuple[int, str]]:
    split = (line.split(" ", 1) for line in log.read_text().splitlines())
    return [(int(pid), what) for pid, what in split]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_king_bot_2_program_serves_the_whole_match_in_one_process_per_worker(
    tmp_path: Path, jobs: int
) -> None:
    spec, log = _many(tmp_path)
    config = ArenaConfig((spec, "rule", "random", "rule"), "deals", 6, seed=3, jobs=jobs)
    report = run_arena(config)
    assert report.abandoned == [] and report.sets_counted == 6
    lines = _lines(log)
    pids = {pid for pid, _ in lines}
    # One program per worker process for the 24 games, each told its games and their
    # ends, and stopped (bye) once the match is over.
    assert 1 <= len(pids) <= jobs, lines
    assert sum(1 for _, what in lines if what.startswith("game")) == 24
    assert sum(1 for _, what in lines if what == "over") == 24
    for pid in pids:
        own = [what for p, what in lines if p == pid]
        assert own[0] == "start" and own[1] == "hello king-bot/1,king-bot/2", own[:2]
        assert own[-1] == "bye", own[-3:]
        assert set(own[2:-1]) <= {"over"} | {f"game seat={s}" for s in range(4)}
    assert report.stats[spec].n == 24


def test_a_program_that_dies_mid_match_is_started_again_and_its_game_abandoned(
    tmp_path: Path,
) -> None:
    spec, log = _many(tmp_path, crash_at=30)
    config = ArenaConfig((spec, "rule", "rule", "rule"), "deals", 4, seed=3, bot_timeout=2.0)
    report = run_arena(config)
    # The game in which it died is abandoned and reported as a single program's would
    # be; its set is not counted; a new program plays the games after it.
    assert len(report.abandoned) == 1, report.abandoned
    item = report.abandoned[0]
    assert "many (cmd:" in item["bot"] and "crashed (exit status 4)" in item["what"]
    assert "boom: out of memory" in item["what"]
    assert report.sets_counted == 3
    starts = [pid for pid, what in _lines(log) if what == "start"]
    assert len(starts) == 2 and starts[0] != starts[1]


def test_a_king_bot_1_program_still_serves_one_game_each(tmp_path: Path) -> None:
    spec = _bot(tmp_path, "fine")
    config = ArenaConfig((spec, "random", "random", "random"), "deals", 2, seed=3)
    report = run_arena(config)
    assert report.abandoned == [] and report.stats[spec].n == 8
