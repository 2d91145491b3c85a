"""The game both environments drive: a whole game or one deal, dealt from a seed, with
every action checked by the core and refused with a sentence that says why.

Kept apart from the PettingZoo and Gymnasium classes so that both follow the same
rules for modes, contracts, seeding and illegal actions.
"""

from __future__ import annotations

import random
from typing import Any, Literal, cast

import numpy as np

from king.cards import Seat
from king.deal import IllegalMoveError
from king.env.evaluation import EvaluationDeal
from king.env.observation import ACTION_COUNT, CARD_ACTIONS, choice_of, describe_action
from king.errors import KingError
from king.game import DealResult, Game, GameStateError, IllegalDeclarationError, Phase
from king.record import to_record
from king.rules import (
    DECLARATION_CYCLE,
    Declaration,
    Rules,
    RulesError,
    cycled_declaration,
)
from king.texts import seat_name

__all__ = [
    "ContractOption",
    "IllegalActionError",
    "Mode",
    "Table",
    "check_action",
    "describe_table",
    "cycle_declaration",
    "parse_contract",
    "parse_rules",
]

Mode = Literal["game", "deal"]
#: A fixed declaration, ``"cycle"`` (the arena's order), ``"random"`` (the same mix) or
#: ``"declare"`` (the deal starts before the declaration: its declarer declares).
ContractOption = Declaration | Literal["cycle", "random", "declare"]
_CYCLE = DECLARATION_CYCLE


class IllegalActionError(KingError, ValueError):
    """An action that is not legal now: out of range, the wrong kind (a card while
    declaring) or refused by the rules; the message says which and why."""


def parse_rules(rules: Rules | str) -> Rules:
    """A :class:`Rules` object from itself or a preset name (``classic``, ``pagat``…)."""
    if isinstance(rules, Rules):
        return rules
    return Rules.preset(rules)


def parse_contract(contract: Declaration | str | None) -> ContractOption:
    """Read the ``contract`` option: ``None`` or ``"cycle"``, ``"random"``,
    ``"declare"``, a :class:`Declaration` or its text (``"no-queens"``, ``"trumps H"``)."""
    if contract is None or contract == "cycle":
        return "cycle"
    if contract in ("random", "declare"):
        return cast(ContractOption, contract)
    if isinstance(contract, Declaration):
        return contract
    if isinstance(contract, str):
        return Declaration.parse(contract)
    raise RulesError(
        f"contract must be a declaration, 'cycle', 'random' or 'declare', not {contract!r}"
    )


#: The contract of single deal ``index`` in the order of ``king arena --deals`` (defined
#: once, in :mod:`king.rules`).
cycle_declaration = cycled_declaration


def check_action(action: object) -> int:
    """The action as a plain int in 0–61, or a clear error.  NumPy integers and 0-d
    integer arrays are accepted, as samplers return them."""
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action.item()
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
        raise IllegalActionError(f"an action is an integer from 0 to 61, not {action!r}")
    value = int(action)
    if not 0 <= value < ACTION_COUNT:
        raise IllegalActionError(
            f"action {value} is out of range: 0-51 play a card, 52-61 declare a contract"
        )
    return value


class Table:
    """One episode's game: a whole game (``mode="game"``) or a single deal
    (``mode="deal"``), its contract already declared unless ``contract="declare"``."""

    def __init__(
        self,
        mode: Mode = "game",
        contract: Declaration | str | None = None,
        rules: Rules | str = "classic",
    ) -> None:
        if mode not in ("game", "deal"):
            raise ValueError(f"mode is 'game' or 'deal', not {mode!r}")
        self.mode: Mode = mode
        self.contract = parse_contract(contract)
        self.rules = parse_rules(rules)
        self.episode = 0
        self.game = Game(self.rules, seed=0)

    def new(
        self,
        rng: random.Random,
        *,
        restart_cycle: bool = False,
        deal: EvaluationDeal | None = None,
    ) -> None:
        """Start the next episode with a game seed drawn from ``rng``, or play the
        evaluation ``deal`` (its cards and declaration; ``rng`` and the cycle untouched)."""
        if deal is not None:
            if self.mode != "deal":
                raise ValueError("an evaluation deal is a single deal: it needs mode='deal'")
            self.game = self._single_deal(deal.seed, deal.declaration)
            return
        if restart_cycle:
            self.episode = 0
        seed = rng.getrandbits(63)
        if self.mode == "game":
            self.game = Game(self.rules, seed=seed)
        else:
            self.game = self._single_deal(seed, self._declaration(rng))
        self.episode += 1

    def _declaration(self, rng: random.Random) -> Declaration | None:
        """The next single deal's declaration (``None``: its declarer declares)."""
        if isinstance(self.contract, Declaration):
            return self.contract
        if self.contract == "cycle":
            return cycle_declaration(self.episode % _CYCLE)
        if self.contract == "declare":
            return None
        return cycle_declaration(rng.randrange(_CYCLE))

    def _single_deal(self, seed: int, declaration: Declaration | None) -> Game:
        game = Game(self.rules, seed=seed, auto_deal=False)
        game.deal_cards()
        if declaration is not None:
            game.declare(declaration)
        return game

    @property
    def over(self) -> bool:
        """True once the episode's game (or deal) is finished."""
        if self.mode == "game":
            return self.game.is_over
        return self.game.phase is Phase.DEALING or self.game.is_over

    @property
    def to_act(self) -> int | None:
        """The seat that must act, or ``None`` once the episode is over."""
        return None if self.over else self.game.to_act

    def act(self, seat: Seat, action: object) -> list[DealResult]:
        """Apply ``seat``'s action; return the deals it finished (zero or one).

        Raises :class:`IllegalActionError` (a ``ValueError``) and changes nothing when
        the action is not legal, or when ``seat`` is not the seat to act.
        """
        value = check_action(action)
        game = self.game
        to_act = self.to_act
        if to_act is None:
            raise IllegalActionError("the episode is over: no action is due until reset()")
        if seat != to_act:
            raise IllegalActionError(
                f"{seat_name(seat)} may not act now: {seat_name(to_act)} must act"
            )
        done = len(game.results)
        what = describe_action(value)
        declaring = game.phase is Phase.DECLARING
        if declaring and value < CARD_ACTIONS:
            raise IllegalActionError(
                f"{seat_name(seat)} must declare a contract (actions 52-61), "
                f"not play a card: action {value} is {what}"
            )
        if not declaring and value >= CARD_ACTIONS:
            raise IllegalActionError(
                f"{seat_name(seat)} must play a card (actions 0-51), "
                f"not declare: action {value} is {what}"
            )
        try:
            game.act(choice_of(value))
        except (IllegalMoveError, IllegalDeclarationError, GameStateError) as error:
            raise IllegalActionError(f"action {value} ({what}) is illegal: {error}") from None
        return game.results[done:]

    def record(self, players: list[str] | None = None) -> dict[str, Any]:
        """The game so far as a ``king-record/1`` object (replayable with
        :func:`king.record.replay`)."""
        return to_record(self.game, players)


def describe_table(game: Game) -> str:
    """A few lines about the game: deal, contract, the trick, each seat's hand, every
    hand shown (the whole table, as a spectator of the engine sees it, not a seat's
    view: the first line says so)."""
    deal = game.deal
    lines = [
        "the whole table, every hand shown (a seat's observation shows its own only)",
        f"deal {game.deal_number + 1}, {game.phase.value}, totals {game.totals}",
    ]
    if deal is not None:
        trick = " ".join(f"{seat}:{card}" for seat, card in deal.current_trick)
        lines.append(
            f"{deal.declaration.title} by seat {deal.declarer}; trick {deal.trick_count + 1}: "
            f"{trick or '-'}; points {deal.points()}"
        )
    for seat in range(4):
        marker = ">" if game.to_act == seat else " "
        lines.append(f"{marker} player_{seat}: {game.hand(seat)}")
    return "\n".join(lines)
