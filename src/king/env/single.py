"""``KingVsBotsEnv``: one learning seat against three registered bots, as a plain
Gymnasium environment, for single-agent algorithms.

The observation is the 602-float vector of :mod:`king.env.observation` (a ``Box``); the
legal actions come from :meth:`KingVsBotsEnv.action_masks` (a bool array of 62, the
convention of sb3-contrib's ``MaskablePPO``) and from ``info["action_mask"]``.  A step
plays the learner's action, then lets the bots act until the learner must act again or
the episode ends; the reward is the learner's result in the deals that ended meanwhile
(its points, or with ``reward=`` its points above par or their sign), and ``info`` then
holds those deals (``info["deals"]``).  The opponents are bots, or the learner's own
frozen snapshots (:class:`~king.env.opponents.SelfPlay`).

>>> from king.env import KingVsBotsEnv
>>> env = KingVsBotsEnv(opponents="random", mode="deal", contract="no-tricks")
>>> observation, info = env.reset(seed=3)
>>> observation.shape, bool(env.action_masks().any())
((602,), True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Literal

import gymnasium
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from king.bots.protocol import BotError
from king.cards import Card, Seat
from king.env.evaluation import deal_option
from king.env.information import ObservationKind, observation_kind
from king.env.observation import ACTION_COUNT, action_mask
from king.env.opponents import Opponent, Opponents
from king.env.outcome import (
    InfoKind,
    RewardKind,
    add_deal,
    add_game,
    check_info,
    check_reward,
    deal_reward,
    info_arrays,
)
from king.env.table import IllegalActionError, Mode, Table, check_action, describe_table
from king.game import DealResult, Game, Phase
from king.rules import Declaration, Rules

__all__ = ["KingVsBotsEnv"]

IllegalPolicy = Literal["raise", "penalize"]


class KingVsBotsEnv(gymnasium.Env[NDArray[np.float32], np.int64]):
    """King for one learner: the other three seats are bots named by spec, or frozen
    copies of the learner (:class:`~king.env.opponents.SelfPlay`).

    Options: ``opponents`` (one bot spec or ``SelfPlay`` for all three seats, or three
    in seat order after the learner; default ``"rule"``), ``seat`` (the learner's seat,
    or ``None`` for a random seat each episode), ``mode``, ``contract``, ``rules``,
    ``reward``, ``reward_scale``, ``info`` and ``observation`` as in ``king_v0``, and
    ``illegal_action``:
    ``"raise"`` (the default: an :class:`~king.env.table.IllegalActionError` with the
    reason) or ``"penalize"`` (nothing is played, the reward is ``illegal_reward`` and
    the learner acts again), for algorithms that cannot mask.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        opponents: Opponent | Sequence[Opponent] = "rule",
        seat: Seat | None = 0,
        mode: Mode = "game",
        contract: Declaration | str | None = None,
        rules: Rules | str = "classic",
        reward_scale: float = 1.0,
        illegal_action: IllegalPolicy = "raise",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        reward: RewardKind = "points",
        info: InfoKind = "dicts",
        observation: ObservationKind = "summary",
    ) -> None:
        self.info = check_info(info)
        self._encode, low, high = observation_kind(observation)
        self._opponents = Opponents(opponents)
        if seat is not None and (isinstance(seat, bool) or seat not in (0, 1, 2, 3)):
            raise ValueError(f"seat is 0-3 or None (random), not {seat!r}")
        if illegal_action not in ("raise", "penalize"):
            raise ValueError(f"illegal_action is 'raise' or 'penalize', not {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is 'ansi', 'human' or None, not {render_mode!r}")
        self.opponents = self._opponents.specs
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.reward = check_reward(reward)
        self.reward_scale = float(reward_scale)
        self.illegal_action: IllegalPolicy = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self._table = Table(mode, contract, rules)
        self.observation_space = spaces.Box(low, high, low.shape, np.float32)
        self.action_space = spaces.Discrete(ACTION_COUNT)
        self._started = False

    @property
    def game(self) -> Game:
        """The core game (for checks and records; the learner sees only its view)."""
        return self._table.game

    def record(self) -> dict[str, Any]:
        """The episode so far as a ``king-record/1`` object, seats named by player."""
        names = ["learner" if s == self.seat else self._bot_name(s) for s in range(4)]
        return self._table.record(names)

    def _bot_name(self, seat: Seat) -> str:
        return self._opponents.name((seat - self.seat - 1) & 3)

    def _observe(self) -> tuple[NDArray[np.float32], dict[str, Any]]:
        view = self._table.game.view(self.seat)
        mask = action_mask(view)
        info: dict[str, Any] = {"action_mask": mask.astype(bool)}
        if self.info == "arrays":
            info.update(info_arrays(), illegal_action=0)
        return self._encode(view), info

    def action_masks(self) -> NDArray[np.bool_]:
        """The learner's legal actions now, as 62 bools (all False once it is over)."""
        return action_mask(self._table.game.view(self.seat)).astype(bool)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        """Deal a new episode and let the bots act until the learner must act.

        ``options={"deal": deal}`` plays an evaluation deal (:func:`evaluation_deals`):
        its cards and declaration, with the bots' seeds (and the seat, if it is drawn)
        derived from it, so every policy meets the same deals and the same bots."""
        deal = deal_option(options, self._table.mode)
        super().reset(seed=seed)
        draw = deal.seed if deal is not None else int(self.np_random.integers(1 << 62))
        rng = random.Random(draw)
        if self.fixed_seat is None:
            self.seat = rng.randrange(4)
        self._table.new(rng, restart_cycle=seed is not None, deal=deal)
        self._opponents.seat(self.seat, rng)
        self._started = True
        self._advance()
        observation, info = self._observe()
        if self.render_mode == "human":
            self.render()
        return observation, info

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the bots' until the learner must act again.

        ``info`` holds ``"deals"`` when deals ended meanwhile, and ``"totals"`` and
        ``"winners"`` when a whole game did (docs/rl.md)."""
        if not self._started:
            raise IllegalActionError("call reset() before step()")
        if self._table.over:
            raise IllegalActionError("the episode is over: call reset() before step()")
        value = check_action(action)  # the wrong type or range always raises
        try:
            finished = self._table.act(self.seat, value)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            observation, info = self._observe()
            info["illegal_action"] = 1 if self.info == "arrays" else True
            self._opponents.count_step()
            return observation, self.illegal_reward, False, False, info
        self._opponents.count_step()
        finished += self._advance()
        reward = sum(deal_reward(result, self.seat, self.reward) for result in finished)
        observation, info = self._observe()
        self._add_results(info, finished)
        if self.render_mode == "human":
            self.render()
        return observation, reward * self.reward_scale, self._table.over, False, info

    def _add_results(self, info: dict[str, Any], finished: list[DealResult]) -> None:
        """Tell ``info`` of the deals (and the game) that ended in this step."""
        for result in finished:
            add_deal(info, result, self.seat)
        if self._table.mode == "game" and self._table.over:
            add_game(info, self._table.game)

    def _advance(self) -> list[DealResult]:
        """Let the bots act until the learner must act or the episode ends; return the
        deals that ended meanwhile."""
        table = self._table
        finished: list[DealResult] = []
        while True:
            seat = table.to_act
            if seat is None or seat == self.seat:
                return finished
            bot = self._opponents.bot(seat)
            view = table.game.view(seat)
            choice = bot.act(view)
            if table.game.phase is Phase.DECLARING and not isinstance(choice, Declaration):
                raise BotError(bot.name, f"answered {choice} when asked to declare")
            if table.game.phase is Phase.PLAYING and not isinstance(choice, Card):
                raise BotError(bot.name, f"declared {choice} when asked to play a card")
            action = choice.id if isinstance(choice, Card) else 52 + choice.action_index
            try:
                finished += table.act(seat, action)
            except IllegalActionError as error:
                raise BotError(bot.name, f"chose an illegal move: {error}") from None

    def render(self) -> str | None:
        """``ansi``: the table as text (returned); ``human``: printed."""
        if self.render_mode is None:
            return None
        text = f"learner: seat {self.seat}\n" + describe_table(self._table.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Stop the bots (an external ``cmd:`` bot is a process)."""
        self._opponents.close()


if "king/KingVsBots-v0" not in gymnasium.registry:
    gymnasium.register("king/KingVsBots-v0", entry_point="king.env.single:KingVsBotsEnv")
