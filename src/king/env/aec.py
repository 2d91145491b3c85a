"""``king_v0``: King as a PettingZoo AEC environment, four agents taking turns.

Agents ``player_0`` … ``player_3`` sit in seats 0–3.  An episode is a whole 20-deal game
(``mode="game"``, the default) or one deal with its contract already declared
(``mode="deal"``, the contract fixed or cycling as in ``king arena --deals``).  Each
agent observes ``{"observation": float32[602], "action_mask": int8[62]}`` built from its
own :class:`~king.view.SeatView` only; at the end of every deal each agent is rewarded
its result in that deal (``reward``: its points, the default, its points above par, or
their sign; times ``reward_scale``), and its ``info`` gets the deal (``"deals"``).

>>> from king.env import king_v0
>>> env = king_v0.env(mode="deal", contract="no-queens")
>>> env.reset(seed=1)
>>> observation, reward, terminated, truncated, info = env.last()
>>> int(observation["action_mask"].sum()) > 0, reward, terminated
(True, 0.0, False)
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv  # type: ignore[import-untyped, unused-ignore]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped, unused-ignore]

from king.env.evaluation import deal_option
from king.env.information import ObservationKind, observation_kind
from king.env.observation import ACTION_COUNT, action_mask
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
from king.env.table import Mode, Table, describe_table
from king.game import DealResult, Game
from king.rules import Declaration, Rules

__all__ = ["AGENTS", "env", "raw_env"]

#: The agent names, in seat order.
AGENTS: tuple[str, str, str, str] = ("player_0", "player_1", "player_2", "player_3")
_SEAT = {name: seat for seat, name in enumerate(AGENTS)}

Observation = dict[str, NDArray[Any]]


def observation_space(low: NDArray[np.float32], high: NDArray[np.float32]) -> spaces.Dict:
    """The space of one agent's observation, as PettingZoo's classic games have it."""
    return spaces.Dict(
        {
            "observation": spaces.Box(low, high, low.shape, np.float32),
            "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), np.int8),
        }
    )


class raw_env(AECEnv):  # type: ignore[misc]
    """The environment without PettingZoo's wrappers; :func:`env` adds them.

    Options: ``mode`` (``"game"`` or ``"deal"``), ``contract`` (in deal mode: ``None``
    or ``"cycle"`` for the arena's order, ``"random"``, or one declaration such as
    ``"no-queens"`` / ``"trumps H"``, or ``"declare"``: the declarer declares),
    ``rules`` (a preset name or :class:`Rules`), ``reward`` (``"points"``,
    ``"above_par"`` or ``"sign"``), ``reward_scale`` (rewards are multiplied by it,
    e.g. 0.01), ``render_mode`` (``"ansi"`` or ``"human"``), ``info``
    (``"dicts"``, or ``"arrays"``: the same numeric keys at every step, for replay
    buffers that stack them, as Tianshou's do) and ``observation`` (``"summary"``, the
    602 numbers, or ``"information"``: with the whole public history,
    :mod:`king.env.information`).  An illegal action raises
    :class:`~king.env.table.IllegalActionError` with the reason and changes nothing.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo reads it from the class
        "render_modes": ["human", "ansi"],
        "name": "king_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        mode: Mode = "game",
        contract: Declaration | str | None = None,
        rules: Rules | str = "classic",
        reward_scale: float = 1.0,
        render_mode: str | None = None,
        reward: RewardKind = "points",
        info: InfoKind = "dicts",
        observation: ObservationKind = "summary",
    ) -> None:
        super().__init__()
        self.info = check_info(info)
        self._encode, low, high = observation_kind(observation)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is 'human', 'ansi' or None, not {render_mode!r}")
        self.render_mode = render_mode
        self.reward = check_reward(reward)
        self.reward_scale = float(reward_scale)
        self._table = Table(mode, contract, rules)
        self._rng = random.Random()
        self.possible_agents: list[str] = list(AGENTS)
        self.agents: list[str] = []
        space = observation_space(low, high)
        self.observation_spaces = dict.fromkeys(AGENTS, space)
        self.action_spaces = {a: spaces.Discrete(ACTION_COUNT) for a in AGENTS}
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection: str = AGENTS[0]

    # -- spaces -------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Dict:
        """The (shared) observation space; the same object on every call."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """``Discrete(62)``: card ids 0–51, then declarations 52–61."""
        return self.action_spaces[agent]

    # -- the game -----------------------------------------------------------------------

    @property
    def game(self) -> Game:
        """The core game being played (for checks and records: agents must observe
        through :meth:`observe`, which shows one seat's view only)."""
        return self._table.game

    def record(self) -> dict[str, Any]:
        """The episode so far as a ``king-record/1`` object, players named by agent."""
        return self._table.record(list(AGENTS))

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode.  A seed makes it (and the episodes after it) reproducible,
        and restarts the contract cycle of deal mode; ``options={"deal": deal}`` plays
        an evaluation deal (:func:`~king.env.evaluation.evaluation_deals`)."""
        deal = deal_option(options, self._table.mode)
        if seed is not None:
            self._rng = random.Random(seed)
        self._table.new(self._rng, restart_cycle=seed is not None, deal=deal)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: self._blank_info() for a in AGENTS}
        to_act = self._table.to_act
        assert to_act is not None
        self.agent_selection = AGENTS[to_act]

    def observe(self, agent: str) -> Observation:
        """``agent``'s observation: its view's vector and its action mask (all zero
        unless it must act now)."""
        seat = _SEAT.get(agent)
        if seat is None:
            raise ValueError(f"no agent is called {agent!r}: agents are {', '.join(AGENTS)}")
        view = self._table.game.view(seat)
        return {"observation": self._encode(view), "action_mask": action_mask(view)}

    def step(self, action: int | np.integer[Any] | None) -> None:
        """Act for :attr:`agent_selection`: play a card (0–51) or declare (52–61).

        A finished agent must step ``None`` (PettingZoo's convention).  An illegal
        action raises :class:`~king.env.table.IllegalActionError` and changes nothing.
        Each agent's ``info`` keeps the deals finished since it last acted, as its
        reward does, and gets the totals once a whole game is over.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: None is only for finished agents")
        finished = self._table.act(_SEAT[agent], action)
        self._cumulative_rewards[agent] = 0.0
        self.infos[agent] = self._blank_info()
        for name in self.agents:
            self.rewards[name] = 0.0
        for result in finished:
            self._score(result)
        to_act = self._table.to_act
        if to_act is None:
            self.terminations = dict.fromkeys(self.agents, True)
            if self._table.mode == "game":
                for name in self.agents:
                    add_game(self.infos[name], self._table.game)
            self.agent_selection = AGENTS[(_SEAT[agent] + 1) & 3]
        else:
            self.agent_selection = AGENTS[to_act]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _score(self, result: DealResult) -> None:
        """Reward every agent for a finished deal, and add the deal to its info."""
        for seat, name in enumerate(AGENTS):
            self.rewards[name] += deal_reward(result, seat, self.reward) * self.reward_scale
            add_deal(self.infos[name], result, seat)

    def _blank_info(self) -> dict[str, Any]:
        """An agent's ``info`` before anything ends: empty, or the arrays' blanks."""
        return info_arrays() if self.info == "arrays" else {}

    # -- output -------------------------------------------------------------------------

    def render(self) -> str | None:
        """``ansi``: the table as text (returned); ``human``: the same, printed."""
        if self.render_mode is None:
            return None
        text = describe_table(self._table.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release; present because PettingZoo pairs it with render."""


def env(
    mode: Mode = "game",
    contract: Declaration | str | None = None,
    rules: Rules | str = "classic",
    reward_scale: float = 1.0,
    render_mode: str | None = None,
    reward: RewardKind = "points",
    info: InfoKind = "dicts",
    observation: ObservationKind = "summary",
) -> AECEnv:
    """:class:`raw_env` inside PettingZoo's order checks (reset before step, and so
    on), as PettingZoo's own games are built; the options are :class:`raw_env`'s."""
    return wrappers.OrderEnforcingWrapper(
        raw_env(
            mode,
            contract,
            rules,
            reward_scale=reward_scale,
            render_mode=render_mode,
            reward=reward,
            info=info,
            observation=observation,
        )
    )
