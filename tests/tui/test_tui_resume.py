"""``king play`` goes on with the last unfinished game by itself, as ``king`` does in the
browser: the table it opens (:func:`king.tui.session.open_table`) with real saved files in
a data folder of the test's own, what the first message says, and what is printed on
quitting."""

from __future__ import annotations

import json
import random
from pathlib import Path

from textual.widgets._toast import Toast

from king.game import Game
from king.i18n import Translator
from king.record import dump, replay
from king.rules import Rules
from king.tui.app import KingApp, farewell
from king.tui.save import LAST_NOTE, games_folder, last_unfinished
from king.tui.session import Opened, open_table
from tests.support.games import random_action, random_move
from tests.support.terminal import BOTS, SEED_BOT_DECLARES, message, run, until

OTHER_BOTS = ["rule", "rule", "rule"]


def _open(environ: dict[str, str], **options: object) -> Opened:
    settings: dict[str, object] = {
        "bots": BOTS,
        "rules": Rules(),
        "seed": SEED_BOT_DECLARES,
        "seat": 0,
    }
    settings.update(options)
    return open_table(environ=environ, **settings)  # type: ignore[arg-type]


def _play(opened: Opened, moves: int) -> None:
    """Make ``moves`` legal moves (declarations and cards) and close the table."""
    session = opened.session
    rng = random.Random(moves)
    for _ in range(moves):
        session.apply(random_action(session.game, rng))
    session.close()


def test_king_play_goes_on_with_the_last_unfinished_game(tmp_path: Path) -> None:
    environ = {"XDG_DATA_HOME": str(tmp_path)}
    first = _open(environ)
    assert not first.resumed and first.unused == ()
    path = first.session.path
    assert path.parent == games_folder(environ) and path.is_file()
    assert (games_folder(environ) / LAST_NOTE).read_text().strip() == str(path.resolve())
    _play(first, 7)
    plays = replay(path).game.deals[-1].plays
    # Plain `king play` again: the same game, where it was, with its own bots.
    again = _open(
        environ, bots=OTHER_BOTS, rules=Rules.preset("pagat"), asked=["--bots", "--rules"]
    )
    assert again.resumed and again.session.path == path
    assert again.session.game.deals[-1].plays == plays
    assert list(again.session.bot_specs) == BOTS
    assert again.unused == ("--bots", "--rules")
    _play(again, 3)
    # The same bots as the saved game's are no news; the other options are.
    same = _open(environ, bots=BOTS, asked=["--bots", "--seed"])
    assert same.resumed and same.unused == ("--seed",)
    same.session.close()
    # --new starts another game, which is then the one to go on with.
    new = _open(environ, new=True, bots=OTHER_BOTS, asked=["--bots"])
    assert not new.resumed and new.unused == ()
    assert new.session.path != path and list(new.session.bot_specs) == OTHER_BOTS
    new.session.close()
    assert last_unfinished(environ) == new.session.path.resolve()
    latest = _open(environ)
    assert latest.resumed and latest.session.path == new.session.path
    latest.session.close()
    # The first game is still there for --resume, untouched.
    assert replay(path).valid and len(replay(path).game.deals[-1].plays) == len(plays) + 3


def test_a_finished_or_missing_last_game_starts_a_new_one(tmp_path: Path) -> None:
    environ = {"XDG_DATA_HOME": str(tmp_path)}
    first = _open(environ)
    path = first.session.path
    first.session.close()
    over = Game(seed=2)
    rng = random.Random(2)
    while not over.is_over:
        random_move(over, rng)
    path.write_text(dump(over))
    assert last_unfinished(environ) is None
    second = _open(environ)
    assert not second.resumed and second.session.path != path
    second.session.close()
    second.session.path.unlink()
    third = _open(environ)
    assert not third.resumed
    third.session.close()
    # A damaged note is no game to go on with either.
    (games_folder(environ) / LAST_NOTE).write_bytes(b"\xff\xfe")
    assert last_unfinished(environ) is None


def test_the_first_message_says_the_game_goes_on_and_what_is_not_used(tmp_path: Path) -> None:
    environ = {"XDG_DATA_HOME": str(tmp_path)}
    _play(_open(environ), 2)

    def first_message(unused: tuple[str, ...], lang: str = "en") -> str:
        opened = _open(environ, asked=list(unused), lang=lang)
        # The bots wait long enough to read the first line before they play.
        app = KingApp(opened.session, pause=30, resumed=opened.resumed, unused=opened.unused)
        seen: list[str] = []

        async def test() -> None:
            async with app.run_test(size=(100, 30), notifications=True) as pilot:
                await pilot.pause()
                seen.append(message(app))
                # It also stays a while in a corner, after the bots' moves replace it.
                await until(pilot, lambda: bool(app.screen.query(Toast)), "the notice")
                toasts = [str(toast.render()) for toast in app.screen.query(Toast)]
                assert toasts == [seen[0]]
            opened.session.close()

        run(test())
        return seen[0]

    assert first_message(()) == (
        "Your unfinished game goes on; king play --new starts a new one. Press ? for help."
    )
    assert first_message(("--rules",)) == (
        "Your unfinished game goes on, so --rules is not used "
        "(add --new to start a new game with them)."
    )
    assert first_message(("--rules", "--seed", "--seat")) == (
        "Your unfinished game goes on, so --rules, --seed and --seat are not used "
        "(add --new to start a new game with them)."
    )
    tr = Translator("tr")
    both = tr("tui.list.and", first="--rules", last="--seed")
    turkish = first_message(("--rules", "--seed"), lang="tr")
    assert turkish == tr.plural("tui.message.unused", 2, options=both)
    assert "--rules" in turkish and "--new" in turkish and "kullanılmadı" in turkish


def test_on_quitting_the_path_stands_on_its_own_line(tmp_path: Path) -> None:
    environ = {"XDG_DATA_HOME": str(tmp_path / "a folder with spaces")}
    opened = _open(environ)
    session = opened.session
    path = str(session.path)
    assert len(path) > 60  # long enough that a sentence around it would wrap
    lines = farewell(Translator("en"), session).splitlines()
    assert lines == ["Game saved in:", f"  {path}", "Continue it with: king play"]
    rng = random.Random(3)
    while not session.game.is_over:
        random_move(session.game, rng)
    lines = farewell(Translator("en"), session).splitlines()
    assert lines[:3] == [
        "The game is over. Its record is saved in:",
        f"  {path}",
        "See it again with:",
    ]
    assert lines[3] == f"  king replay '{path}'"  # quoted for the shell: it has spaces
    for language in ("tr", "es", "fr", "th"):
        words = farewell(Translator(language), session).splitlines()
        assert words[1] == f"  {path}" and path not in words[0] + words[2]
    session.close()
    assert json.loads(Path(path).read_text())["format"] == "king-record/1"
