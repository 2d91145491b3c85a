"""The bots by name: those that come with king (each imported only when one is made),
those other packages declare as entry points, and those registered at run time; and
:func:`make_bot`, which builds one from its spec (``rule``, ``search:time=0.5``,
``cmd:COMMAND``).  The protocol they speak is :mod:`king.bots.protocol`.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from king.bots.levels import LEVELS
from king.bots.protocol import Bot, BotSpecError

__all__ = [
    "BotInfo",
    "available_bots",
    "make_bot",
    "register",
    "register_again",
    "registered_at_run_time",
]


@dataclass(frozen=True, slots=True)
class BotInfo:
    """A registered bot: its name, a line about it, its strength rank (higher is
    stronger), how to build one from a seed and options, and whether a server's table
    may seat it (``tables``: false for a bot that reads files or starts programs)."""

    name: str
    summary: str
    strength: int
    factory: Callable[[int, dict[str, str]], Bot]
    tables: bool = True


def _lazy(module: str, function: str) -> Callable[[int, dict[str, str]], Bot]:
    """A factory that imports its module on first use: naming a bot loads only that
    bot (the search bot's engine and numpy cost a quarter of a second to import)."""

    def factory(seed: int, options: dict[str, str]) -> Bot:
        build: Callable[[int, dict[str, str]], Bot] = getattr(
            importlib.import_module(module), function
        )
        return build(seed, options)

    return factory


def _level(spec: str) -> Callable[[int, dict[str, str]], Bot]:
    """A level's factory: the bot its spec names (:mod:`king.bots.levels`)."""

    def factory(seed: int, options: dict[str, str]) -> Bot:
        if options:
            raise BotSpecError(
                f"a level takes no options (it plays as {spec}), not {', '.join(options)}"
            )
        return make_bot(spec, seed)

    return factory


#: The levels' strength ranks: below the engines they stand for, so that the strongest
#: bot stays the engine itself.
_LEVEL_STRENGTH = {"beginner": 2, "easy": 5, "medium": 9, "hard": 50, "expert": 95}

#: The levels, as bots of their own (each its spec's bot).
_LEVEL_BOTS = tuple(
    BotInfo(
        level.name,
        f"level {level.name}: {level.spec}",
        _LEVEL_STRENGTH[level.name],
        _level(level.spec),
    )
    for level in LEVELS
)

#: The bots that come with king, declared here so that listing them imports none.
BUILTIN_BOTS: tuple[BotInfo, ...] = (
    *_LEVEL_BOTS,
    BotInfo("random", "a uniformly random legal choice", 0, _lazy("king.bots.random_bot", "build")),
    BotInfo(
        "rule",
        "heuristic player: counts cards, ducks, sheds, draws trumps",
        10,
        _lazy("king.bots.rule.bot", "build"),
    ),
    BotInfo(
        "search",
        "Monte Carlo search over sampled deals with rule-policy rollouts in the engine",
        100,
        _lazy("king.bots.search.bot", "build"),
    ),
    BotInfo(
        "search1",
        "the search bot as it was before search v2, kept as the baseline (time, threads)",
        90,
        _lazy("king.bots.search.bot", "build_search1"),
    ),
    BotInfo(
        "net",
        "the learned policy alone: a small network's most likely card, a fraction of a ms",
        20,
        _lazy("king.bots.net.bot", "build"),
    ),
)

#: The entry-point group where other packages (and king's own optional parts, such as
#: the RL extra's ``policy`` bot) declare bots: ``name = "module:BOT_INFO"``.
ENTRY_POINT_GROUP = "king.bots"

#: Bots registered at run time (:func:`register`, ``king.env.register_policy``).
_REGISTRY: dict[str, BotInfo] = {}


def register(
    name: str, summary: str, strength: int, *, tables: bool = True
) -> Callable[[Callable[[int, dict[str, str]], Bot]], Callable[[int, dict[str, str]], Bot]]:
    """Register a bot factory under ``name`` in this process (a decorator)."""

    def decorator(
        factory: Callable[[int, dict[str, str]], Bot],
    ) -> Callable[[int, dict[str, str]], Bot]:
        _REGISTRY[name] = BotInfo(name, summary, strength, factory, tables)
        return factory

    return decorator


def unregister(name: str) -> None:
    """Forget a bot registered at run time (a built-in or plugin bot stays)."""
    _REGISTRY.pop(name, None)


def registered_at_run_time(names: Iterable[str]) -> dict[str, BotInfo]:
    """The bots among ``names`` that were registered in this process (by
    :func:`register`): what a worker process must be given to play them."""
    return {name: _REGISTRY[name] for name in names if name in _REGISTRY}


def register_again(bots: dict[str, BotInfo]) -> None:
    """Register in this process the bots another process registered (a worker of the
    arena, given :func:`registered_at_run_time` of its parent)."""
    _REGISTRY.update(bots)


@contextmanager
def scoped_registry() -> Iterator[None]:
    """Bots registered inside the ``with`` block are forgotten after it (tests, tools
    that register a bot for one run)."""
    saved = dict(_REGISTRY)
    try:
        yield
    finally:
        _REGISTRY.clear()
        _REGISTRY.update(saved)


@functools.cache
def _plugins() -> dict[str, BotInfo]:
    """The bots declared as entry points of :data:`ENTRY_POINT_GROUP`, each loaded (its
    declaring module imported) only when every bot is listed or a name is not built in;
    one that fails to load is left out, so a broken plugin cannot break the others.
    Read once a process: the installed packages do not change under it, and a help text
    or a server's check of a seat would otherwise scan every package's metadata again."""
    found: dict[str, BotInfo] = {}
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            info = entry.load()
        except Exception:
            continue
        if isinstance(info, BotInfo):
            found[info.name] = info
    return found


def _known(name: str | None = None) -> dict[str, BotInfo]:
    """Every bot that can be named; for one ``name``, the plugins load only if it is
    neither built in nor registered at run time."""
    known = {info.name: info for info in BUILTIN_BOTS} | _REGISTRY
    if name is not None and name in known:
        return known
    return _plugins() | known


def available_bots() -> list[BotInfo]:
    """Every bot that can be named, strongest first (importing none of them)."""
    return sorted(_known().values(), key=lambda info: (-info.strength, info.name))


def bot_names() -> str:
    """The bots' names for a help text: ``search, rule, policy, random``."""
    return ", ".join(info.name for info in available_bots())


def strongest_bot() -> str:
    """The name of the strongest registered bot: the default opponent for a person."""
    return available_bots()[0].name


def parse_spec(spec: str) -> tuple[str, dict[str, str] | str]:
    """Split ``name``, ``name:key=value&key=value`` or ``cmd:COMMAND``."""
    if not isinstance(spec, str) or not spec.strip():
        raise BotSpecError("a bot is named by a non-empty string such as 'rule'")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name == "cmd":
        if not rest.strip():
            raise BotSpecError("'cmd:' needs the command that starts the bot")
        return name, rest.strip()
    options: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in rest.split("&"))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise BotSpecError(f"bot option {part!r} in {spec!r} is not key=value")
        options[key.strip()] = value.strip()
    return name, options


def make_bot(spec: str, seed: int = 0, *, timeout: float = 5.0) -> Bot:
    """Build a bot from its specification: ``random``, ``rule``, ``search:time=0.5``
    or ``cmd:python examples/my_bot.py`` (an external program, see
    ``docs/bot-protocol.md``, given ``timeout`` seconds per answer)."""
    name, options = parse_spec(spec)
    if isinstance(options, str):
        from king.bots.external.bot import ExternalBot  # a subprocess: not in the browser

        return ExternalBot(options, seed=seed, timeout=timeout)
    info = _known(name).get(name)
    if info is None:
        raise BotSpecError(f"no bot is called {name!r}: choose from {bot_names()}, cmd:COMMAND")
    return info.factory(seed, options)


__all__ += [
    "BUILTIN_BOTS",
    "ENTRY_POINT_GROUP",
    "bot_names",
    "parse_spec",
    "scoped_registry",
    "strongest_bot",
    "unregister",
]
