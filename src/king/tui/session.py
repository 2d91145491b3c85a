"""One table of ``king play``: the game, who sits where, the bots and the save file.

This holds no screen state, so the rules of the table (whose turn is a bot's, what gets
saved, what a resumed file restores) can be tested without a terminal.  The app asks
it for the bots' choices and hands it every action; it writes the record after each one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from king.bots import Bot, BotSpecError, make_bot
from king.cards import Seat
from king.game import Action, Game
from king.i18n import DEFAULT_LANGUAGE, parse_language
from king.rules import Rules
from king.tui.save import (
    PlayError,
    default_save_path,
    last_unfinished,
    read_saved,
    record_of,
    remember_last,
    write_atomic,
)
from king.view import SeatView

__all__ = ["HUMAN_NAME", "Opened", "PlaySession", "open_table"]

#: The person's name in the saved record.
HUMAN_NAME = "You"
#: The seats as the screen calls them, from the person's, in English for the record.
POSITION_NAMES = ("You", "Left", "Top", "Right")


class PlaySession:
    """A game at a table with one person and three bots, saved after every action.

    ``bots`` play the seats after ``seat`` in playing order; ``autoplay`` names a bot that
    plays the person's seat too (for demonstrations and tests); ``language`` is the
    language of the screen, saved with the game so that a resumed game keeps it.
    """

    def __init__(
        self,
        game: Game,
        seat: Seat,
        bots: Sequence[str],
        path: Path,
        *,
        autoplay: str | None = None,
        durable: bool = True,
        language: str = DEFAULT_LANGUAGE,
    ) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
            raise PlayError("tui.error.seat", {"seat": repr(seat)})
        specs = [str(b) for b in bots]
        if len(specs) != 3:
            raise PlayError("tui.error.bot_count", {"n": len(specs)})
        self.language = parse_language(language)
        self.game = game
        self.seat = seat
        self.bot_specs: tuple[str, str, str] = (specs[0], specs[1], specs[2])
        self.path = path
        self.autoplay = autoplay
        #: Flush each save to the disk (off only where speed matters more, as in tests).
        self.durable = durable
        self._bots: dict[int, Bot] = {}
        try:
            for offset, spec in enumerate(self.bot_specs, start=1):
                other = (seat + offset) % 4
                self._bots[other] = make_bot(spec, seed=self._bot_seed(other))
            if autoplay is not None:
                self._bots[seat] = make_bot(autoplay, seed=self._bot_seed(seat))
        except BotSpecError as error:
            self.close()
            raise PlayError("tui.error.bot", {"reason": error}) from None

    @classmethod
    def start(
        cls,
        *,
        bots: Sequence[str],
        rules: Rules,
        seed: int | None,
        seat: Seat,
        resume: Path | None = None,
        save: Path | None = None,
        autoplay: str | None = None,
        durable: bool = True,
        lang: str | None = None,
        default_lang: str = DEFAULT_LANGUAGE,
    ) -> PlaySession:
        """Set up a new game, or the game saved in ``resume`` (whose own seat and bots
        win over ``seat`` and ``bots``), and write the first save so that a path that
        cannot be written is reported before play starts.  The language is ``lang`` if
        given, else the resumed game's, else ``default_lang``."""
        language = lang
        if resume is not None:
            saved = read_saved(resume)
            game = saved.game
            seat = saved.seat if saved.seat is not None else seat
            if saved.bots is not None:
                _check_commands(resume, saved.bots, bots)
                bots = saved.bots
            path = save if save is not None else resume
            language = language or saved.language
        else:
            if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
                raise PlayError("tui.error.seed", {"seed": repr(seed)})
            game = Game(rules, seed=seed)
            path = save if save is not None else default_save_path()
        if save is not None:
            _check_save_path(save, resume)
        session = cls(
            game,
            seat,
            bots,
            path,
            autoplay=autoplay,
            durable=durable,
            language=language or default_lang,
        )
        try:
            session.save()
        except OSError as error:
            session.close()
            reason = error.strerror or str(error)
            raise PlayError("tui.error.cannot_save", {"path": path, "reason": reason}) from None
        return session

    def _bot_seed(self, seat: Seat) -> int:
        """Each bot's seed follows from the game's, so a seeded game is repeatable."""
        return (self.game.seed * 4 + seat) % (1 << 63)

    # -- who sits where -------------------------------------------------------------

    def bot_spec(self, seat: Seat) -> str | None:
        """The bot playing ``seat``, or ``None`` for the person's seat."""
        if seat == self.seat:
            return None
        return self.bot_specs[(seat - self.seat - 1) % 4]

    @property
    def players(self) -> list[str]:
        """The four names written to the record, seat order."""
        names = []
        for seat in range(4):
            spec = self.bot_spec(seat)
            where = POSITION_NAMES[(seat - self.seat) % 4]
            names.append(HUMAN_NAME if spec is None else f"{where} ({spec})")
        return names

    def is_bot_turn(self) -> bool:
        """Whether the next action is a bot's (the person's too, in autoplay)."""
        seat = self.game.to_act
        return seat is not None and seat in self._bots

    def is_human_turn(self) -> bool:
        """Whether the person must act now."""
        return self.game.to_act == self.seat and self.seat not in self._bots

    # -- acting -----------------------------------------------------------------------

    def view(self, seat: Seat) -> SeatView:
        """What ``seat`` may see: all a bot is ever given."""
        return self.game.view(seat)

    def think(self, seat: Seat, view: SeatView) -> Action:
        """The bot's choice for ``seat`` from its view; safe to call in a worker thread,
        as it reads only the (frozen) view."""
        return self._bots[seat].act(view)

    def fallback(self) -> Action:
        """A legal action for the seat to move, for when its bot fails."""
        legal = self.game.legal_actions()
        if not legal:
            raise PlayError("tui.error.game_over")
        return legal[0]

    def apply(self, action: Action) -> None:
        """Declare or play for the seat to move (:meth:`Game.act`), then save.  Raises
        the engine's ``IllegalMoveError`` / ``IllegalDeclarationError`` (nothing changes
        then)."""
        self.game.act(action)
        self.save()

    def save(self) -> None:
        """Write the record of the game so far (atomically)."""
        write_atomic(self.path, self.text(), durable=self.durable)

    def text(self) -> str:
        """The record as JSON text, with the table setup under ``extra``."""
        record = record_of(self.game, self.players, self.seat, self.bot_specs, self.language)
        return json.dumps(record, indent=1, ensure_ascii=False) + "\n"

    def close(self) -> None:
        """Release the bots (external programs)."""
        for bot in self._bots.values():
            bot.close()


@dataclass(frozen=True, slots=True)
class Opened:
    """The table ``king play`` opens, and whether it is the last unfinished game going
    on by itself (then ``unused`` names the new-game options it does not use)."""

    session: PlaySession
    resumed: bool = False
    unused: tuple[str, ...] = ()


def open_table(
    *,
    bots: Sequence[str],
    rules: Rules,
    seed: int | None,
    seat: Seat,
    resume: Path | None = None,
    save: Path | None = None,
    new: bool = False,
    asked: Sequence[str] = (),
    lang: str | None = None,
    default_lang: str = DEFAULT_LANGUAGE,
    environ: Mapping[str, str] | None = None,
) -> Opened:
    """The table of ``king play``: the game in ``resume``; else, unless ``new``, the last
    unfinished game (as ``king`` resumes its game in the browser, so a person need not
    find the file); else a new game.  ``asked`` names the new-game options the person
    gave (``--bots``, ``--rules``…): those a resumed game does not use are told, so the
    person learns that ``--new`` starts a game with them.  The game is noted as the last
    one played (in ``environ``'s data folder)."""
    last = None if new or resume is not None else last_unfinished(environ)
    if last is not None:
        resume, save = last, None
    elif resume is None and save is None:
        save = default_save_path(environ=environ)
    session = PlaySession.start(
        bots=bots,
        rules=rules,
        seed=seed,
        seat=seat,
        resume=resume,
        save=save,
        lang=lang,
        default_lang=default_lang,
    )
    remember_last(session.path, environ)
    if last is None:
        return Opened(session)
    # Bots that equal the saved ones are used: they let its external programs run again.
    same_bots = tuple(str(b) for b in bots) == session.bot_specs
    unused = tuple(flag for flag in asked if not (flag == "--bots" and same_bots))
    return Opened(session, resumed=True, unused=unused)


def _check_commands(path: Path, saved: Sequence[str], given: Sequence[str]) -> None:
    """A saved file must not start programs by itself: external bots (``cmd:``) named
    in it run again only when the person names the same bots with ``--bots``."""
    commands = [spec for spec in saved if spec.strip().lower().startswith("cmd:")]
    if commands and list(saved) != list(given):
        raise PlayError(
            "tui.error.commands",
            {"path": path, "commands": ", ".join(commands), "bots": repr(",".join(saved))},
        )


def _check_save_path(save: Path, resume: Path | None) -> None:
    if save.is_dir():
        raise PlayError("tui.error.save_folder", {"path": save})
    if save.exists() and (resume is None or not _same_file(save, resume)):
        raise PlayError("tui.error.save_exists", {"path": save})


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
