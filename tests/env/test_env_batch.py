"""The batched environment: copies stepped by the engine give, decision after decision,
the observation, mask and reward that the core and the Python encoder give for the same
deal with the ``rule`` bot in the other seats; it refuses what it must, and plays
against a caller's policy in batches."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from king.bots import make_bot
from king.cards import DECK, Card
from king.env.batch import MOST_COPIES, BatchedKingEnv
from king.env.information import encode_information_state
from king.env.observation import action_mask, encode_observation
from king.env.table import IllegalActionError
from king.game import Game, Phase
from king.rules import ALL_DECLARATIONS, Rules

_COPY, _DECLARATION, _DECLARER, _LEARNER, _PLAYED_BY = 97, 24, 25, 26, 29


def dealt(env: BatchedKingEnv) -> list[tuple[list[int], int, int, int]]:
    """Each copy's deal as the engine holds it: the hands dealt (held and played),
    declarer, declaration, learner."""
    words = env._words(env._copies_at, env.num_envs * _COPY).reshape(env.num_envs, _COPY)
    return [
        (
            [int(row[s] | row[_PLAYED_BY + s]) for s in range(4)],
            int(row[_DECLARER]),
            int(row[_DECLARATION]),
            int(row[_LEARNER]),
        )
        for row in words
    ]


class Reference:
    """The same deal in the core, the ``rule`` bot playing the other seats."""

    def __init__(
        self, hands: list[int], declarer: int, declaration: int, learner: int, rules: Rules
    ) -> None:
        self.game = Game(rules, seed=0, auto_deal=False)
        self.game.deal_cards(hands, declarer=declarer)
        self.game.declare(ALL_DECLARATIONS[declaration])
        self.learner = learner
        self.bot = make_bot("rule")
        self.advance()

    def advance(self) -> None:
        game = self.game
        while game.phase is Phase.PLAYING and game.to_act != self.learner:
            game.act(self.bot.play(game.view(game.to_act)))

    def play(self, card: Card) -> int | None:
        """Play the learner's card and the bots'; the learner's points once it ends."""
        self.game.act(card)
        self.advance()
        if self.game.phase is Phase.PLAYING:
            return None
        return self.game.results[-1].points[self.learner]


@pytest.mark.parametrize(
    ("rules", "contract", "seat", "observation"),
    [
        ("classic", None, None, "summary"),
        ("pagat", "random", 2, "summary"),
        ("turkish", "no-king", None, "summary"),
        ("classic", "random", None, "information"),
    ],
)
def test_every_decision_matches_the_core_and_the_python_encoder(
    rules: str, contract: str | None, seat: int | None, observation: str
) -> None:
    preset = Rules.preset(rules)
    encode = encode_information_state if observation == "information" else encode_observation
    env = BatchedKingEnv(
        6, opponents="rule", seat=seat, contract=contract, rules=rules, observation=observation
    )
    observation, info = env.reset(seed=9)
    rng = random.Random(9)
    references = [Reference(*deal, preset) for deal in dealt(env)]
    finished = 0
    while finished < 40:
        actions = []
        for copy, reference in enumerate(references):
            view = reference.game.view(reference.learner)
            assert np.array_equal(observation[copy], encode(view)), copy
            assert np.array_equal(info["action_mask"][copy], action_mask(view).astype(bool))
            actions.append(rng.choice(np.flatnonzero(info["action_mask"][copy])))
        observation, reward, terminated, truncated, info = env.step(np.array(actions))
        assert not truncated.any()
        for copy, action in enumerate(actions):
            points = references[copy].play(DECK[action])
            assert terminated[copy] == (points is not None)
            if points is not None:
                assert reward[copy] == points
                finished += 1
                references[copy] = Reference(*dealt(env)[copy], preset)
            else:
                assert reward[copy] == 0


def test_random_opponents_and_rewards_above_par_add_up() -> None:
    env = BatchedKingEnv(16, opponents="random", seat=None, reward="above_par")
    _, info = env.reset(seed=2)
    rng = np.random.default_rng(2)
    total, deals = 0.0, 0
    for _ in range(13 * 4):
        actions = [rng.choice(np.flatnonzero(m)) for m in info["action_mask"]]
        _, reward, terminated, _, info = env.step(np.array(actions))
        assert info["action_mask"].any(axis=1).all()  # every copy live: SAME_STEP
        for copy in np.flatnonzero(terminated):
            points = info["points"][copy]
            declaration = ALL_DECLARATIONS[info["declaration"][copy]]
            assert points.sum() == declaration.contract.total
            assert reward[copy] == points[info["seat"][copy]] - declaration.contract.par
            total += reward[copy]
            deals += 1
    assert deals >= 32


def test_a_seeded_reset_replays_the_same_deals() -> None:
    one, two = BatchedKingEnv(8, opponents="random"), BatchedKingEnv(8, opponents="random")
    first, _ = one.reset(seed=5)
    again, _ = two.reset(seed=5)
    assert np.array_equal(first, again)
    other, _ = two.reset(seed=6)
    assert not np.array_equal(first, other)


def test_the_caller_plays_the_other_seats_in_batches() -> None:
    """A frozen snapshot: here the lowest legal card, asked for every waiting copy at
    once; the learner's seat never reaches it, and deals end and are dealt again."""
    asked: list[int] = []

    def lowest(observation: np.ndarray, masks: np.ndarray) -> np.ndarray:
        assert observation.shape == (len(masks), 602)
        asked.append(len(masks))
        return np.array([np.flatnonzero(m)[0] for m in masks])

    env = BatchedKingEnv(10, opponents=lowest, seat=None)
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(40):
        actions = [rng.choice(np.flatnonzero(m)) for m in info["action_mask"]]
        _, _, terminated, _, info = env.step(np.array(actions))
        ended += int(terminated.sum())
    assert ended >= 10 and max(asked) > 1  # batched: several copies in one call


def test_what_it_refuses_it_says_and_nothing_moves() -> None:
    env = BatchedKingEnv(3, opponents="rule")
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(np.zeros(3, int))
    observation, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(~info["action_mask"][1][:52])[0])
    legal = [int(np.flatnonzero(m)[0]) for m in info["action_mask"]]
    actions = np.array([legal[0], illegal, legal[2]])
    with pytest.raises(IllegalActionError, match=re.escape(f"copy 1: action {illegal} (")):
        env.step(actions)
    assert np.array_equal(env._observe(0)[0], observation)  # nothing was played
    with pytest.raises(IllegalActionError, match="one a copy"):
        env.step(np.zeros(2, int))
    with pytest.raises(IllegalActionError, match=re.escape("action 55 (no-boys) is not legal")):
        env.step(np.full(3, 55))
    with pytest.raises(IllegalActionError, match="an action is 0-61"):
        env.step(np.full(3, 70))
    with pytest.raises(ValueError, match="num_envs is 1 to"):
        BatchedKingEnv(MOST_COPIES["summary"] + 1)
    with pytest.raises(ValueError, match="num_envs is 1 to 96 with the information"):
        BatchedKingEnv(97, observation="information")
    with pytest.raises(ValueError, match="observation is one of"):
        BatchedKingEnv(2, observation="pixels")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="use KingVsBotsEnv to declare"):
        BatchedKingEnv(2, contract="declare")
    with pytest.raises(ValueError, match="opponents are 'rule', 'random'"):
        BatchedKingEnv(2, opponents="hard")


def test_one_seed_a_copy_and_bad_seeds() -> None:
    env = BatchedKingEnv(3, opponents="random")
    one, _ = env.reset(seed=[4, 5, 6])
    again, _ = env.reset(seed=[4, 9, 6])
    assert np.array_equal(one[0], again[0]) and np.array_equal(one[2], again[2])
    with pytest.raises(ValueError, match="seed is an int, 3 ints"):
        env.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="seed is an int"):
        env.reset(seed="x")  # type: ignore[arg-type]


def test_a_snapshot_that_answers_wrong_is_named() -> None:
    def first_card(observation: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.zeros(len(masks), int)  # the two of spades, legal or not

    env = BatchedKingEnv(8, opponents=first_card, seat=0)
    with pytest.raises(IllegalActionError, match="the opponents' policy: copy"):
        env.reset(seed=1)

    def floats(observation: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.zeros(len(masks))

    with pytest.raises(IllegalActionError, match="not one integer action each"):
        BatchedKingEnv(8, opponents=floats, seat=0).reset(seed=1)
