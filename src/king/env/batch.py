"""Many single deals stepped at once in compiled code: :class:`BatchedKingEnv`, a
Gymnasium vector environment whose copies live in the engine (``engine/batch.c``, the
WebAssembly that plays the bots, run by wasmtime), for learning from millions of
decisions on a laptop.

Each copy is one deal of ``KingVsBotsEnv(mode="deal")``: its contract declared (the
arena's cycle, drawn from it, or fixed), the learner in a seat (fixed or drawn each
deal), the other three the rule policy (the ``rule`` bot's play, the same bits), random
legal cards, or **your policy** (a frozen snapshot, asked once per round for every copy
that waits on it, as one batch).  A copy whose deal ends is scored and dealt again in
the same step (Gymnasium's ``AutoresetMode.SAME_STEP``), so every mask returned has a
legal card.  Observations are the 602 numbers of :func:`~king.env.encode_observation`
(a test holds every one equal to the Python environment's, deal after deal); the
declaration is not part of an episode (use ``KingVsBotsEnv`` for that).

>>> env = BatchedKingEnv(4, opponents="rule", seat=0)
>>> observation, info = env.reset(seed=1)
>>> observation.shape, info["action_mask"].shape, bool(info["action_mask"].any(axis=1).all())
((4, 602), (4, 62), True)
>>> actions = [int(np.flatnonzero(m)[0]) for m in info["action_mask"]]
>>> observation, reward, terminated, truncated, info = env.step(actions)
>>> reward.shape, terminated.dtype.name
((4,), 'bool')
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from numpy.typing import NDArray

from king.bots.engine import EngineError, Instance
from king.env.information import ObservationKind, observation_kind
from king.env.observation import (
    ACTION_COUNT,
    OBS_SIZE,
    describe_action,
    encode_observation,
    field_slice,
)
from king.env.outcome import RewardKind, check_reward
from king.env.table import IllegalActionError, cycle_declaration, parse_contract, parse_rules
from king.game import Game
from king.rules import ALL_DECLARATIONS, DECLARATION_CYCLE, Declaration, Rules

__all__ = ["MOST_COPIES", "BatchPolicy", "BatchedKingEnv", "observation_templates"]

#: A batched policy: observations ``(k, 602)`` and masks ``(k, 62)`` in, ``k`` actions out.
BatchPolicy = Callable[[NDArray[np.float32], NDArray[np.int8]], Sequence[int] | NDArray[Any]]

#: The most copies one environment holds (its engine instance's exchange area), by the
#: observation it gives.
MOST_COPIES = {"summary": 512, "information": 96}
# The words of engine/batch.c: a copy, the options, a copy's results.
_COPY_WORDS = 97
_OPTION_WORDS = 34
_RESULT_WORDS = 8
_TURN, _LEARNER = 7, 26  # S_TURN, B_LEARNER
_TEMPLATE_WORDS = len(ALL_DECLARATIONS) * 4 * OBS_SIZE // 2
_OPPONENTS = {"rule": 0, "random": 1}
_CALLER = 2
#: The fields an observation holds for the whole deal: written by the templates.
_FIXED = (
    *("phase", "contract", "trump", "declarer", "contract_counts", "obligations"),
    *("deal_number", "totals", "rules"),
)


def observation_templates(rules: Rules) -> NDArray[np.float32]:
    """``(10, 4, 602)``: for each declaration and the declarer's seat relative to the
    observer, the fields of the observation that stay the same through a single deal,
    as :func:`~king.env.encode_observation` writes them for a real game (the rest zero:
    the engine writes them as play goes)."""
    templates = np.zeros((len(ALL_DECLARATIONS), 4, OBS_SIZE), np.float32)
    fixed = np.zeros(OBS_SIZE, bool)
    for name in _FIXED:
        fixed[field_slice(name)] = True
    for index, declaration in enumerate(ALL_DECLARATIONS):
        for relative in range(4):
            game = Game(rules, seed=0, auto_deal=False)
            game.deal_cards(_hands_with_two_of_diamonds(relative), declarer=relative)
            game.declare(declaration)
            templates[index, relative] = np.where(fixed, encode_observation(game.view(0)), 0)
    return templates


def _hands_with_two_of_diamonds(seat: int) -> list[int]:
    """Four hands of 13 cards in which ``seat`` holds the two of diamonds (the declarer
    of a first deal under every rule set)."""
    cards = [26, *[c for c in range(52) if c != 26]]
    hands = [0, 0, 0, 0]
    for position, card in enumerate(cards):
        hands[(seat + position // 13) & 3] |= 1 << card
    return hands


class BatchedKingEnv(VectorEnv):  # type: ignore[misc, unused-ignore]
    """``num_envs`` single deals for one learner each, stepped together by the engine.

    Options: ``opponents`` (``"rule"``, ``"random"``, or a :data:`BatchPolicy` playing
    the other three seats), ``seat`` (the learner's, or ``None``: drawn each deal),
    ``contract`` (``None``/``"cycle"``, ``"random"`` or one declaration), ``rules``,
    ``reward``, ``reward_scale`` and ``observation`` (``"summary"`` or
    ``"information"``) as in ``KingVsBotsEnv``.  ``info`` holds
    ``action_mask`` (bool, one row a copy) and, for the copies whose deal ended in the
    step, ``deal_over`` 1 and the deal's ``points`` (by absolute seat), its
    ``declaration`` (an action index 0–9) and the learner's ``seat``.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 64,
        *,
        opponents: str | BatchPolicy = "rule",
        seat: int | None = 0,
        contract: Declaration | str | None = None,
        rules: Rules | str = "classic",
        reward: RewardKind = "points",
        reward_scale: float = 1.0,
        observation: ObservationKind = "summary",
    ) -> None:
        _, low, high = observation_kind(observation)  # the choices named if not one
        most = MOST_COPIES[observation]
        if isinstance(num_envs, bool) or not isinstance(num_envs, int):
            raise ValueError(f"num_envs is a whole number of copies, not {num_envs!r}")
        if not 1 <= num_envs <= most:
            raise ValueError(
                f"num_envs is 1 to {most} with the {observation} observation, not {num_envs}"
            )
        if seat is not None and (isinstance(seat, bool) or seat not in (0, 1, 2, 3)):
            raise ValueError(f"seat is 0-3 or None (drawn each deal), not {seat!r}")
        self.num_envs = num_envs
        self.rules = parse_rules(rules)
        self.reward = check_reward(reward)
        self.reward_scale = float(reward_scale)
        self.opponents = opponents
        self.size = low.size
        self.single_observation_space = spaces.Box(low, high, low.shape, np.float32)
        self.single_action_space = spaces.Discrete(ACTION_COUNT)
        self.observation_space = spaces.Box(
            np.tile(low, (num_envs, 1)), np.tile(high, (num_envs, 1)), dtype=np.float32
        )
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, ACTION_COUNT))
        self._engine = Instance()
        self._layout(num_envs)
        options = self._words(self._options_at, _OPTION_WORDS)
        options[:] = _options(self.rules, opponents, seat, contract, self._templates_at)
        self._engine.io[self._templates_at : self._templates_at + _TEMPLATE_WORDS] = (
            observation_templates(self.rules).reshape(-1).view(np.int64)
        )
        self._started = False

    def _layout(self, n: int) -> None:
        """Where each array lives in the engine's exchange area."""
        at = 0
        places = {}
        for name, words in (
            ("options", _OPTION_WORDS),
            ("templates", _TEMPLATE_WORDS),
            ("copies", n * _COPY_WORDS),
            ("results", n * _RESULT_WORDS),
            ("actions", n),
            ("seeds", n),
            ("bad", 1),
            ("obs", n * self.size // 2),
            ("masks", -(-n * ACTION_COUNT // 8)),
        ):
            places[name] = at
            at += words
        self._options_at, self._templates_at = places["options"], places["templates"]
        self._copies_at, self._results_at = places["copies"], places["results"]
        self._actions_at, self._seeds_at = places["actions"], places["seeds"]
        self._bad_at, self._obs_at, self._masks_at = places["bad"], places["obs"], places["masks"]

    def _words(self, at: int, count: int) -> NDArray[np.int64]:
        return self._engine.io[at : at + count]

    def _call(self, entry: str, *args: int) -> None:
        head = (self._copies_at, self.num_envs, self._options_at, self._results_at)
        self._engine.call(entry, *head, *args)

    # -- the vector interface -------------------------------------------------------

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        """Deal every copy afresh: ``seed`` (one for all, or one a copy) makes the deals
        and the bots' cards the same again."""
        self._words(self._seeds_at, self.num_envs)[:] = _seeds(seed, self.num_envs)
        self._words(self._results_at, self.num_envs * _RESULT_WORDS)[:] = 0
        self._call("king_batch_reset", self._seeds_at)
        self._caller_moves()
        self._started = True
        observation, masks = self._observe(0)
        return observation, {"action_mask": masks.astype(bool)}

    def step(
        self, actions: Sequence[int] | NDArray[Any]
    ) -> tuple[
        NDArray[np.float32],
        NDArray[np.float64],
        NDArray[np.bool_],
        NDArray[np.bool_],
        dict[str, Any],
    ]:
        """Play every copy's learner card, then the other seats until each learner must
        play again; copies whose deal ended are dealt again."""
        if not self._started:
            raise IllegalActionError("call reset() before step()")
        chosen = self._checked(actions)
        self._words(self._results_at, self.num_envs * _RESULT_WORDS)[:] = 0
        self._play(chosen)
        self._caller_moves()
        results = self._words(self._results_at, self.num_envs * _RESULT_WORDS)
        results = results.reshape(self.num_envs, _RESULT_WORDS).copy()
        observation, masks = self._observe(0)
        ended = results[:, 0] == 1
        rewards = self._rewards(results) * self.reward_scale
        info = {
            "action_mask": masks.astype(bool),
            "deal_over": ended.astype(np.int8),
            "points": results[:, 1:5].astype(np.float32),
            "declaration": results[:, 5],
            "seat": results[:, 7],
        }
        truncated = np.zeros(self.num_envs, bool)
        return observation, rewards, ended, truncated, info

    def _checked(self, actions: Sequence[int] | NDArray[Any]) -> NDArray[np.int64]:
        chosen = np.asarray(actions)
        if chosen.shape != (self.num_envs,) or chosen.dtype.kind not in "iu":
            raise IllegalActionError(
                f"step takes {self.num_envs} integer actions, one a copy, not an array of "
                f"{chosen.dtype} {chosen.shape}"
            )
        out = chosen.astype(np.int64)
        if out.min() < 0 or out.max() >= ACTION_COUNT:
            raise IllegalActionError(
                "an action is 0-61 (and here a card, 0-51: deals are declared)"
            )
        return out

    def _play(self, actions: NDArray[np.int64]) -> None:
        self._words(self._actions_at, self.num_envs)[:] = actions
        try:
            self._call("king_batch_play", self._actions_at, self._bad_at)
        except EngineError as error:
            if error.code != -4:
                raise
            copy = int(self._words(self._bad_at, 1)[0])
            self._refuse(copy, int(actions[copy]))

    def _refuse(self, copy: int, action: int) -> None:
        _, masks = self._observe(1)
        legal = ", ".join(describe_action(int(a)) for a in np.flatnonzero(masks[copy]))
        raise IllegalActionError(
            f"copy {copy}: action {action} ({describe_action(action)}) is not legal now "
            f"(nothing was played in any copy); legal: {legal}"
        )

    def _caller_moves(self) -> None:
        """While copies wait on the caller's policy, ask it for all of them at once."""
        if not callable(self.opponents):
            return
        copies = self._words(self._copies_at, self.num_envs * _COPY_WORDS)
        copies = copies.reshape(self.num_envs, _COPY_WORDS)
        for _ in range(4 * 13 * 2):  # every seat of a deal, twice: a deal may end
            waiting = np.flatnonzero(copies[:, _TURN] != copies[:, _LEARNER])
            if waiting.size == 0:
                return
            observation, masks = self._observe(1)
            answers = np.asarray(self.opponents(observation[waiting], masks[waiting]))
            if answers.shape != waiting.shape or answers.dtype.kind not in "iu":
                raise IllegalActionError(
                    f"the opponents' policy answered {answers.dtype} {answers.shape} for "
                    f"{waiting.size} waiting copies, not one integer action each"
                )
            actions = np.full(self.num_envs, -1, np.int64)
            actions[waiting] = answers
            try:
                self._play(actions)
            except IllegalActionError as error:
                raise IllegalActionError(f"the opponents' policy: {error}") from None
        raise RuntimeError("the opponents' policy never handed the turn back")

    def _observe(self, who: int) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
        self._call("king_batch_observe", who, self.size, self._obs_at, self._masks_at)
        n = self.num_envs
        observation = self._words(self._obs_at, n * self.size // 2).view(np.float32)
        masks = self._words(self._masks_at, -(-n * ACTION_COUNT // 8)).view(np.int8)
        return observation.reshape(n, self.size).copy(), masks[: n * ACTION_COUNT].reshape(
            n, ACTION_COUNT
        ).copy()

    def _rewards(self, results: NDArray[np.int64]) -> NDArray[np.float64]:
        """Each learner's reward for the deal that ended (0 where none did)."""
        ended = results[:, 0] == 1
        points = results[np.arange(self.num_envs), 1 + results[:, 7]].astype(np.float64)
        if self.reward == "points":
            return np.where(ended, points, 0.0)
        pars = np.array([d.contract.par for d in ALL_DECLARATIONS])
        gain = points - pars[results[:, 5]]
        if self.reward == "sign":
            gain = np.sign(gain)
        return np.where(ended, gain, 0.0)

    def close(self, **kwargs: Any) -> None:
        """Nothing to release: the engine's instance goes with the environment."""


def _seeds(seed: int | Sequence[int] | None, count: int) -> list[int]:
    """Each copy's generator seed, from one seed, one a copy, or the system's entropy."""
    if seed is None:
        base: object = random.SystemRandom().getrandbits(62)
    elif isinstance(seed, int) and not isinstance(seed, bool):
        base = seed
    elif (
        isinstance(seed, Sequence) and len(seed) == count and all(isinstance(s, int) for s in seed)
    ):
        return [random.Random(f"king.env.batch/{s}").getrandbits(62) for s in seed]
    else:
        raise ValueError(f"seed is an int, {count} ints (one a copy) or None, not {seed!r}")
    return [random.Random(f"king.env.batch/{base}/{i}").getrandbits(62) for i in range(count)]


def _options(
    rules: Rules,
    opponents: str | BatchPolicy,
    seat: int | None,
    contract: Declaration | str | None,
    templates_at: int,
) -> list[int]:
    """The option words of engine/batch.c."""
    if callable(opponents):
        kind = _CALLER
    elif opponents in _OPPONENTS:
        kind = _OPPONENTS[opponents]
    else:
        raise ValueError(f"opponents are 'rule', 'random' or a batched policy, not {opponents!r}")
    chosen = parse_contract(contract)
    if chosen == "declare":
        raise ValueError(
            "the batched environment plays declared deals: use KingVsBotsEnv to declare"
        )
    schedule = {"cycle": -1, "random": -2}.get(chosen) if isinstance(chosen, str) else None
    if schedule is None:
        assert isinstance(chosen, Declaration)
        schedule = chosen.action_index
    cycle = [cycle_declaration(i).action_index for i in range(DECLARATION_CYCLE)]
    learner = -1 if seat is None else seat
    return [
        rules.flags,
        int(rules.two_of_diamonds_starts),
        learner,
        kind,
        schedule,
        *cycle,
        templates_at,
    ]
