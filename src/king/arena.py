"""Bot-versus-bot matches on duplicate deals.

Every set of deals is played four times with the bots rotated one seat, so each bot
holds every hand and the luck of the cards cancels.  ``games`` mode plays whole 20-deal
games; ``deals`` mode plays single deals that cycle through the seven contracts (each
trump suit in turn), the fast way to compare card play.

Scores are reported per bot name (a name in several seats counts once): in games mode,
points per game; in deals mode, points per deal above par, par being the contract's
total divided by four (so a table of equal players averages 0 in both modes).  The 95%
interval comes from the per-set means, which are independent; the figures do not
depend on ``jobs``, nor on whether the sets run as tasks on a Ray cluster (``ray``).
"""

from __future__ import annotations

import json
import math
import multiprocessing
import pickle
import random
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from king.bots.external.engines import ENGINES
from king.bots.protocol import Bot, BotError
from king.bots.registry import BotInfo, make_bot, parse_spec, register_again, registered_at_run_time
from king.cards import Seat
from king.cluster import ClusterError, ray_map
from king.deal import IllegalMoveError
from king.errors import KingError
from king.game import Game, GameStateError, IllegalDeclarationError, Phase
from king.record import InvalidRecordError, RecordError, distinct_names, load, to_record
from king.rules import Contract, Declaration, Rules, cycled_declaration

__all__ = [
    "ArenaConfig",
    "ArenaSetupError",
    "ArenaReport",
    "BotStats",
    "ClusterError",
    "PlayResult",
    "ResumeError",
    "deal_declaration",
    "match_of",
    "play_set",
    "played_sets",
    "run_arena",
]

Mode = Literal["games", "deals"]


@dataclass(frozen=True, slots=True)
class ArenaConfig:
    """What to play: four bot specifications in seat order, the mode and count, the
    seed that makes the deals, the rules, and the time limit for external bots.

    Where the sets are played changes no figure: in this process (``jobs=1``), in
    ``jobs`` processes, or as tasks on the Ray cluster at ``ray`` (``"auto"``: the one
    this machine has joined, or ``RAY_ADDRESS``; else its address).
    """

    bots: tuple[str, str, str, str]
    mode: Mode = "deals"
    count: int = 100
    seed: int = 1
    rules: Rules = field(default_factory=Rules)
    jobs: int = 1
    bot_timeout: float = 5.0
    ray: str | None = None

    def __post_init__(self) -> None:
        if len(self.bots) != 4:
            raise ValueError("an arena needs exactly four bots, one per seat")
        if self.mode not in ("games", "deals"):
            raise ValueError(f"the mode is 'games' or 'deals', not {self.mode!r}")
        if self.count < 1:
            raise ValueError("the number of games or deals must be at least 1")
        if self.jobs < 1:
            raise ValueError("jobs must be at least 1")
        if self.ray is not None and not self.ray.strip():
            raise ValueError("the Ray address is 'auto' or a cluster's address, not empty")


@dataclass(slots=True)
class PlayResult:
    """One game (or deal) of a set: which bot sat where, its record, and its outcome."""

    index: int
    rotation: int
    seats: tuple[str, str, str, str]
    record: dict[str, Any]
    points: list[int]
    #: (contract, seat, points above par) for every finished deal
    deal_gains: list[tuple[str, int, float]]
    winners: list[int]
    abandoned: dict[str, str] | None
    #: per bot name: (seconds thinking, decisions)
    timing: dict[str, tuple[float, int]]


def _derive(*parts: object) -> int:
    """A 32-bit seed derived from the parts, the same on every run and platform."""
    return random.Random("/".join(str(p) for p in parts)).getrandbits(32)


#: The contract of single deal ``index`` (defined once, in :mod:`king.rules`).
deal_declaration = cycled_declaration


def _act(bot: Bot, game: Game, seat: Seat) -> None:
    view = game.view(seat)
    choice = bot.act(view)
    declaring = game.phase is Phase.DECLARING
    if declaring and not isinstance(choice, Declaration):
        raise BotError(bot.name, f"answered {choice} when asked to declare")
    if not declaring and isinstance(choice, Declaration):
        raise BotError(bot.name, f"declared {choice} when asked to play a card")
    try:
        game.act(choice)
    except (IllegalMoveError, IllegalDeclarationError, GameStateError) as error:
        raise BotError(bot.name, f"chose an illegal move {choice}: {error}") from None


def _play(config: ArenaConfig, index: int, rotation: int) -> PlayResult:
    seats = tuple(config.bots[(seat - rotation) % 4] for seat in range(4))
    seats4: tuple[str, str, str, str] = (seats[0], seats[1], seats[2], seats[3])
    deal_seed = _derive(config.seed, config.mode, index)
    timing: dict[str, list[float]] = {}
    abandoned: dict[str, str] | None = None
    bots: list[Bot] = []
    if config.mode == "games":
        game = Game(config.rules, seed=deal_seed)
    else:
        game = Game(config.rules, seed=deal_seed, auto_deal=False)
        game.deal_cards()
        game.declare(deal_declaration(index))
    try:
        for seat, spec in enumerate(seats4):
            bots.append(
                make_bot(
                    spec, _derive(config.seed, index, rotation, seat), timeout=config.bot_timeout
                )
            )
        finished = game.deal_number + 1 if config.mode == "deals" else 20
        while game.deal_number < finished and not game.is_over:
            actor = game.to_act
            assert actor is not None
            spec = seats4[actor]
            start = time.perf_counter()
            _act(bots[actor], game, actor)
            spent = timing.setdefault(spec, [0.0, 0])
            spent[0] += time.perf_counter() - start
            spent[1] += 1
    except BotError as error:
        abandoned = {"bot": error.bot, "what": error.what}
    finally:
        for bot in bots:
            bot.close()
    record = to_record(game, players=distinct_names(seats4))
    thought = {k: (v[0], int(v[1])) for k, v in timing.items()}
    record["extra"] = {
        "arena": {
            "mode": config.mode,
            "set": index,
            "rotation": rotation,
            "match": match_of(config),
            "seats": list(seats4),
            "timing": {k: list(v) for k, v in thought.items()},
        }
    }
    if abandoned is not None:
        record["extra"]["arena"]["abandoned"] = abandoned
    return _outcome(game, index, rotation, seats4, record, abandoned, thought)


def _outcome(
    game: Game,
    index: int,
    rotation: int,
    seats: tuple[str, str, str, str],
    record: dict[str, Any],
    abandoned: dict[str, str] | None,
    timing: dict[str, tuple[float, int]],
) -> PlayResult:
    """What a played (or re-read) game counts for."""
    gains: list[tuple[str, int, float]] = []
    for result in game.results:
        par = result.declaration.contract.par
        for seat in range(4):
            gains.append((result.declaration.contract.value, seat, result.points[seat] - par))
    winners = game.winners() if game.is_over else []
    return PlayResult(
        index, rotation, seats, record, game.totals, gains, winners, abandoned, timing
    )


def match_of(config: ArenaConfig) -> dict[str, Any]:
    """What makes two runs the same match (so one may go on from the other's games):
    the bots in seat order, the mode, the seed and the rules; not the count, so a match
    can also be lengthened."""
    return {
        "bots": list(config.bots),
        "mode": config.mode,
        "seed": config.seed,
        "rules": config.rules.to_spec(),
    }


class ArenaSetupError(KingError, ValueError):
    """A match that cannot be set up as asked (a bot that cannot reach the worker
    processes); the message says why and what to do."""


class ResumeError(KingError, ValueError):
    """An earlier run's games cannot be gone on from; the message says which line and
    why."""


def played_sets(lines: Iterable[str], config: ArenaConfig) -> dict[int, list[PlayResult]]:
    """The whole sets (all four rotations, none abandoned) that an earlier run of the
    same match wrote as JSON lines (``king arena --out``), each game replayed by the
    rules.  A set that is not whole is left to be played again.  Raises
    :class:`ResumeError` for a line that is not such a game, or one of another match."""
    match = match_of(config)
    found: dict[int, dict[int, PlayResult]] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ResumeError(f"{where}: not JSON ({error.msg})") from None
        extra = record.get("extra") if isinstance(record, dict) else None
        arena = extra.get("arena") if isinstance(extra, dict) else None
        if not isinstance(arena, dict) or "match" not in arena:
            raise ResumeError(f"{where}: not a game of a king arena match that can go on")
        if arena["match"] != match:
            theirs = arena["match"]
            raise ResumeError(
                f"{where}: a game of another match ({_describe(theirs)}), not of this one "
                f"({_describe(match)})"
            )
        index, rotation, seats = arena.get("set"), arena.get("rotation"), arena.get("seats")
        if not (isinstance(index, int) and isinstance(rotation, int) and 0 <= rotation < 4):
            raise ResumeError(f"{where}: its set and rotation are not numbers of a match")
        if index >= config.count:
            raise ResumeError(
                f"{where}: a game of set {index + 1}, beyond the {config.count} asked for "
                f"(ask for {index + 1} or more to go on with every game in the file)"
            )
        expected = tuple(config.bots[(seat - rotation) % 4] for seat in range(4))
        if not isinstance(seats, list) or tuple(seats) != expected:
            raise ResumeError(f"{where}: its seats are not those of rotation {rotation}")
        try:
            game = load(record).game
        except (RecordError, InvalidRecordError) as error:
            raise ResumeError(f"{where}: {error}") from None
        if game.seed != _derive(config.seed, config.mode, index):
            raise ResumeError(f"{where}: its deals are not those of set {index + 1}")
        if arena.get("abandoned") is not None:
            found.setdefault(index, {}).pop(rotation, None)
            continue  # played again (a bot may have been mended since)
        timing = {
            str(name): (float(pair[0]), int(pair[1]))
            for name, pair in dict(arena.get("timing") or {}).items()
        }
        seats4: tuple[str, str, str, str] = (expected[0], expected[1], expected[2], expected[3])
        found.setdefault(index, {})[rotation] = _outcome(
            game, index, rotation, seats4, record, None, timing
        )
    return {
        index: [by_rotation[r] for r in range(4)]
        for index, by_rotation in sorted(found.items())
        if len(by_rotation) == 4
    }


def _describe(match: object) -> str:
    if not isinstance(match, dict):
        return "unknown"
    bots = ",".join(str(b) for b in match.get("bots") or [])
    rules = match.get("rules")
    name = rules.get("name") if isinstance(rules, dict) else rules
    return f"bots {bots}, {match.get('mode')}, seed {match.get('seed')}, rules {name}"


def play_set(config: ArenaConfig, index: int) -> list[PlayResult]:
    """Play deal set ``index`` four times, the bots rotated one seat each time."""
    return [_play(config, index, rotation) for rotation in range(4)]


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean with its 95% interval half-width, over ``n`` samples."""

    n: int
    mean: float
    ci95: float

    @staticmethod
    def of(samples: list[float]) -> Estimate:
        n = len(samples)
        if n == 0:
            return Estimate(0, 0.0, math.inf)
        mean = math.fsum(samples) / n
        if n < 2:
            return Estimate(n, mean, math.inf)
        var = math.fsum((x - mean) ** 2 for x in samples) / (n - 1)
        return Estimate(n, mean, 1.96 * math.sqrt(var / n))

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "mean": round(self.mean, 2), "ci95": _finite(self.ci95)}


def _finite(value: float) -> float | None:
    return None if math.isinf(value) or math.isnan(value) else round(value, 2)


@dataclass(frozen=True, slots=True)
class BotStats:
    """One bot name's results over a match."""

    name: str
    #: games or deals played (seat occurrences)
    n: int
    score: Estimate
    wins: int
    by_contract: dict[str, Estimate]
    ms_per_move: float

    def to_json(self, mode: Mode) -> dict[str, Any]:
        out: dict[str, Any] = {
            "n": self.n,
            "mean": round(self.score.mean, 2),
            "ci95": _finite(self.score.ci95),
            "sets": self.score.n,
        }
        if mode == "games":
            out["wins"] = self.wins
        out["by_contract"] = {c: e.to_json() for c, e in self.by_contract.items()}
        out["ms_per_move"] = round(self.ms_per_move, 3)
        return out


@dataclass(frozen=True, slots=True)
class ArenaReport:
    """A match's results, per bot name, and the games that were abandoned."""

    config: ArenaConfig
    stats: dict[str, BotStats]
    abandoned: list[dict[str, Any]]
    sets_counted: int

    def to_json(self) -> dict[str, Any]:
        """The object ``king arena --json`` prints."""
        return {
            "mode": self.config.mode,
            "count": self.config.count,
            "seed": self.config.seed,
            "rules": self.config.rules.to_spec(),
            "sets_counted": self.sets_counted,
            "bots": {name: s.to_json(self.config.mode) for name, s in self.stats.items()},
            "abandoned": self.abandoned,
        }

    def table(self) -> str:
        """A readable report."""
        mode = self.config.mode
        unit = "points per game" if mode == "games" else "points per deal above par"
        lines = [
            f"{self.config.count} {'games' if mode == 'games' else 'deals'} x 4 rotations, "
            f"seed {self.config.seed}, rules {self.config.rules.name}: mean {unit} (95% CI)",
        ]
        contracts = [c.value for c in Contract]
        width = max(len("bot"), *(len(name) for name in self.stats)) + 2
        header = f"{'bot':<{width}}{'n':>6}{'mean':>10}{'±95%':>9}"
        if mode == "games":
            header += f"{'wins':>6}"
        header += f"{'ms/move':>9}  " + " ".join(f"{_abbrev(c):>7}" for c in contracts)
        lines.append(header)
        for name, s in self.stats.items():
            ci = _finite(s.score.ci95)
            row = f"{name:<{width}}{s.n:>6}{s.score.mean:>10.1f}"
            row += f"{ci:>9.1f}" if ci is not None else f"{'-':>9}"
            if mode == "games":
                row += f"{s.wins:>6}"
            row += f"{s.ms_per_move:>9.2f}  "
            row += " ".join(
                f"{s.by_contract[c].mean:>7.1f}" if c in s.by_contract else f"{'':>7}"
                for c in contracts
            )
            lines.append(row)
        lines.append("by contract: mean points per deal above par (the contract's total / 4)")
        for item in self.abandoned:
            lines.append(
                f"abandoned: set {item['set']} rotation {item['rotation']}: "
                f"bot {item['bot']!r} {item['what']}"
            )
        return "\n".join(lines)


def _abbrev(contract: str) -> str:
    return {
        "trumps": "trumps",
        "no-tricks": "tricks",
        "no-hearts": "hearts",
        "no-queens": "queens",
        "no-boys": "boys",
        "no-king": "king",
        "no-last-two": "last2",
    }[contract]


def _results(config: ArenaConfig, indices: list[int]) -> Generator[list[PlayResult], None, None]:
    if not indices:
        return
    if config.ray is not None:
        yield from _ray_results(config, indices)
        return
    if config.jobs == 1:
        try:
            for index in indices:
                yield play_set(config, index)
        finally:  # the match is over: the programs kept for the next game stop
            ENGINES.close()
        return
    # Spawned, not forked: the engine's threads may already run in this process (the
    # search bot's pool, once a bot has played here), and forking a process with
    # threads is unsafe.
    context = multiprocessing.get_context("spawn")
    registered = _portable_registrations(config)
    with ProcessPoolExecutor(
        max_workers=config.jobs,
        mp_context=context,
        initializer=register_again,
        initargs=(registered,),
    ) as pool:
        yield from pool.map(play_set, [config] * len(indices), indices, chunksize=1)


def _portable_registrations(config: ArenaConfig) -> dict[str, BotInfo]:
    """The bots of the match registered in this process (``king.env.register_policy``),
    which a spawned worker would not know, checked that they can be sent to it."""
    registered = registered_at_run_time(parse_spec(spec)[0] for spec in config.bots)
    for name, info in registered.items():
        try:
            pickle.dumps(info)
        except (pickle.PicklingError, AttributeError, TypeError) as error:
            raise ArenaSetupError(
                f"the bot {name!r} was registered in this process with something that "
                f"cannot be sent to the worker processes of jobs={config.jobs} ({error}): "
                "register a function or object defined at the top level of a module, or "
                "play with jobs=1"
            ) from None
    return registered


def _ray_results(config: ArenaConfig, indices: list[int]) -> Iterator[list[PlayResult]]:
    """The sets as Ray tasks, read back in order (so the report is the same as from one
    process)."""
    assert config.ray is not None
    yield from ray_map(play_set, [(config, index) for index in indices], config.ray)


def _in_order(
    config: ArenaConfig, done: dict[int, list[PlayResult]]
) -> Iterator[tuple[int, list[PlayResult], bool]]:
    """Every set in order, with whether it was played now (else read from ``done``)."""
    fresh = _results(config, [i for i in range(config.count) if i not in done])
    try:
        for index in range(config.count):
            if index in done:
                yield index, done[index], False
            else:
                yield index, next(fresh), True
    finally:
        fresh.close()


@dataclass(slots=True)
class _Tally:
    """What a match adds up, set by set: each bot name's thinking time over every set,
    and over the sets counted (whole, none abandoned) its per-set means, seats, wins and
    gains by contract."""

    mode: Mode
    per_set: dict[str, list[float]] = field(default_factory=dict)
    occurrences: dict[str, int] = field(default_factory=dict)
    wins: dict[str, int] = field(default_factory=dict)
    by_contract: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    thinking: dict[str, list[float]] = field(default_factory=dict)
    abandoned: list[dict[str, Any]] = field(default_factory=list)
    counted: int = 0

    def add(self, plays: list[PlayResult]) -> None:
        """One set's four games; counted whole or not at all, to keep the duplicate fair."""
        for play in plays:
            for name, (seconds, moves) in play.timing.items():
                spent = self.thinking.setdefault(name, [0.0, 0.0])
                spent[0] += seconds
                spent[1] += moves
        broken = [p for p in plays if p.abandoned is not None]
        for p in broken:
            assert p.abandoned is not None
            self.abandoned.append({"set": p.index, "rotation": p.rotation, **p.abandoned})
        if not broken:
            self._count(plays)

    def _count(self, plays: list[PlayResult]) -> None:
        self.counted += 1
        sums: dict[str, list[float]] = {}
        for play in plays:
            for seat, name in enumerate(play.seats):
                if self.mode == "games":
                    value = float(play.points[seat])
                else:
                    value = math.fsum(g for _, s, g in play.deal_gains if s == seat)
                sums.setdefault(name, []).append(value)
                self.occurrences[name] = self.occurrences.get(name, 0) + 1
                if seat in play.winners:
                    self.wins[name] = self.wins.get(name, 0) + 1
            for contract, seat, gain in play.deal_gains:
                name = play.seats[seat]
                self.by_contract.setdefault(name, {}).setdefault(contract, []).append(gain)
        for name, values in sums.items():
            self.per_set.setdefault(name, []).append(math.fsum(values) / len(values))

    def stats(self, name: str) -> BotStats:
        """Bot ``name``'s figures over the match."""
        contracts = self.by_contract.get(name, {})
        spent = self.thinking.get(name, [0.0, 0.0])
        return BotStats(
            name=name,
            n=self.occurrences.get(name, 0),
            score=Estimate.of(self.per_set.get(name, [])),
            wins=self.wins.get(name, 0),
            by_contract={
                c.value: Estimate.of(contracts[c.value]) for c in Contract if c.value in contracts
            },
            ms_per_move=1000 * spent[0] / spent[1] if spent[1] else 0.0,
        )


def run_arena(
    config: ArenaConfig,
    on_set: Callable[[int, list[PlayResult]], None] | None = None,
    done: dict[int, list[PlayResult]] | None = None,
) -> ArenaReport:
    """Play the match and summarise it.  ``on_set`` sees each set played now, in order
    (to write records and draw progress); ``done`` holds sets an earlier run of the same
    match played (:func:`played_sets`), counted as they were and not played again, so
    the figures are those of one uninterrupted run."""
    tally = _Tally(config.mode)
    for index, plays, fresh in _in_order(config, done or {}):
        if fresh and on_set is not None:
            on_set(index, plays)
        tally.add(plays)
    stats = {name: tally.stats(name) for name in dict.fromkeys(config.bots)}
    return ArenaReport(config, stats, tally.abandoned, tally.counted)
