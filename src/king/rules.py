"""The contracts, their points, and the rule toggles with their named presets.

This module is pure data: what RULES.md says, in a form the engine can use.  Rule
variants are flags on one frozen :class:`Rules` object, never subclasses.

>>> Rules.preset("pagat").forced_penalty
True
>>> Rules.from_spec({"preset": "classic", "overruff": True}).to_spec()
{'preset': 'classic', 'overruff': True}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import Enum
from typing import Any

from king.cards import SUIT_MASKS, Card, CardParseError, Seat, Suit
from king.errors import KingError
from king.texts import quoted

__all__ = [
    "Contract",
    "Declaration",
    "Rules",
    "RulesError",
    "PRESETS",
    "TOGGLES",
    "NEGATIVE_CONTRACTS",
    "DECLARATION_CYCLE",
    "cycled_declaration",
    "declaration_refusal",
    "TRUMPS",
    "NO_TRICKS",
    "NO_HEARTS",
    "NO_QUEENS",
    "NO_BOYS",
    "NO_KING",
    "NO_LAST_TWO",
    "ALL_DECLARATIONS",
    "GAME_DEALS",
    "TRUMPS_PER_PLAYER",
    "NEGATIVES_PER_PLAYER",
    "MAX_PER_NEGATIVE",
    "PENALTY_MASKS",
    "POINTS_PER_UNIT",
    "CONTRACT_TOTALS",
]

#: Deals in a game, and each player's obligations over it.
GAME_DEALS = 20
TRUMPS_PER_PLAYER = 2
NEGATIVES_PER_PLAYER = 3
#: How often each negative contract may be declared in one game.
MAX_PER_NEGATIVE = 2


class RulesError(KingError, ValueError):
    """A rules specification (preset name or toggle object) is not valid."""


class Contract(Enum):
    """The seven contracts.  The value is the id used in records and protocols."""

    TRUMPS = "trumps"
    NO_TRICKS = "no-tricks"
    NO_HEARTS = "no-hearts"
    NO_QUEENS = "no-queens"
    NO_BOYS = "no-boys"
    NO_KING = "no-king"
    NO_LAST_TWO = "no-last-two"

    @property
    def code(self) -> int:
        """A small integer (0–6) for the fast engine, in the order listed above."""
        return _CONTRACT_CODES[self]

    @property
    def is_negative(self) -> bool:
        """Every contract but Trumps scores negative points."""
        return self is not Contract.TRUMPS

    @property
    def title(self) -> str:
        """The English name as players say it ("No Queens")."""
        return _TITLES[self]

    @property
    def penalty_mask(self) -> int:
        """The penalty cards of a card-based contract as a mask; 0 for the others."""
        return PENALTY_MASKS[self.code]

    @property
    def per_unit(self) -> int:
        """Points for each scoring unit: a trick, a heart, a queen, a boy, the king…"""
        return POINTS_PER_UNIT[self.code]

    @property
    def total(self) -> int:
        """The points every deal of this contract adds up to (+650, -650, -390, …)."""
        return CONTRACT_TOTALS[self.code]

    @property
    def par(self) -> float:
        """A seat's even share of the deal, the contract's total / 4: results "above
        par" (the arena's, the RL rewards') are points minus this, so four seats sum to 0."""
        return CONTRACT_TOTALS[self.code] / 4

    @classmethod
    def parse(cls, text: str) -> Contract:
        """Read a contract id (``no-queens``); case and ``_`` for ``-`` are forgiven."""
        if isinstance(text, Contract):
            return text
        if not isinstance(text, str):
            raise RulesError(f"a contract must be a string, not {type(text).__name__}")
        key = text.strip().lower().replace("_", "-").replace(" ", "-")
        for contract in cls:
            if contract.value == key:
                return contract
        names = ", ".join(c.value for c in cls)
        raise RulesError(f"{quoted(text)} is not a contract: use one of {names}")

    def __str__(self) -> str:
        return self.value


_CONTRACT_CODES = {c: i for i, c in enumerate(Contract)}
#: The contracts' codes (:attr:`Contract.code`) as plain integers, for the engines that
#: work on numbers: the only place they are written.
TRUMPS, NO_TRICKS, NO_HEARTS, NO_QUEENS, NO_BOYS, NO_KING, NO_LAST_TWO = (
    _CONTRACT_CODES[c] for c in Contract
)
_TITLES = {
    Contract.TRUMPS: "Trumps",
    Contract.NO_TRICKS: "No Tricks",
    Contract.NO_HEARTS: "No Hearts",
    Contract.NO_QUEENS: "No Queens",
    Contract.NO_BOYS: "No Boys",
    Contract.NO_KING: "No King",
    Contract.NO_LAST_TWO: "No Last Two",
}
NEGATIVE_CONTRACTS: tuple[Contract, ...] = tuple(c for c in Contract if c.is_negative)


def _mask(cards: str) -> int:
    mask = 0
    for word in cards.split():
        mask |= Card.parse(word).mask
    return mask


#: Penalty cards by contract code (0 where points come from tricks, not cards).
PENALTY_MASKS: tuple[int, ...] = (
    0,
    0,
    SUIT_MASKS[Suit.HEARTS],
    _mask("QS QH QD QC"),
    _mask("KS KH KD KC JS JH JD JC"),
    _mask("KH"),
    0,
)
#: Points per trick (Trumps, No Tricks), per penalty card, or per last-two trick.
POINTS_PER_UNIT: tuple[int, ...] = (50, -50, -30, -100, -60, -320, -180)
#: Each contract's total over a deal.
CONTRACT_TOTALS: tuple[int, ...] = (650, -650, -390, -400, -480, -320, -360)


@dataclass(frozen=True, slots=True)
class Declaration:
    """What a declarer chooses: a contract and, for Trumps only, the trump suit."""

    contract: Contract
    trump: Suit | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.contract, Contract):
            raise TypeError("Declaration takes a Contract; use Declaration.parse('no-queens')")
        if (self.contract is Contract.TRUMPS) != (self.trump is not None):
            if self.trump is None:
                raise RulesError("a Trumps declaration must name its trump suit")
            raise RulesError(f"{self.contract.title} has no trump suit")
        if self.trump is not None and not isinstance(self.trump, Suit):
            raise TypeError("the trump must be a Suit")

    @property
    def action_index(self) -> int:
        """0–9: the six negative contracts in order, then Trumps in S, H, D, C."""
        if self.trump is not None:
            return 6 + self.trump
        return self.contract.code - 1

    @staticmethod
    def from_action_index(index: int) -> Declaration:
        """The inverse of :attr:`action_index`."""
        if not isinstance(index, int) or not 0 <= index < 10:
            raise ValueError(f"declaration index {quoted(index)} is out of range 0-9")
        return ALL_DECLARATIONS[index]

    @staticmethod
    def parse(text: str) -> Declaration:
        """Read ``no-queens``, ``trumps S``, ``trumps:H`` or ``trumps-♠``."""
        if isinstance(text, Declaration):
            return text
        if not isinstance(text, str):
            raise RulesError(f"a declaration must be a string, not {type(text).__name__}")
        cleaned = text.strip()
        head = cleaned.lower()
        if head.startswith("trumps"):
            rest = cleaned[6:].strip(" :-_")
            if not rest:
                raise RulesError(f"{quoted(text)}: a Trumps declaration must name its suit")
            try:
                suit = Suit.parse(rest)
            except CardParseError as error:
                raise RulesError(f"{quoted(text)}: {error}") from None
            return Declaration(Contract.TRUMPS, suit)
        return Declaration(Contract.parse(cleaned))

    def __str__(self) -> str:
        if self.trump is not None:
            return f"trumps {self.trump.letter}"
        return self.contract.value

    @property
    def title(self) -> str:
        """The English name, e.g. "Trumps (♥)" or "No King"."""
        if self.trump is not None:
            return f"Trumps ({self.trump.symbol})"
        return self.contract.title


#: The ten possible declarations in action-index order.
ALL_DECLARATIONS: tuple[Declaration, ...] = tuple(
    [Declaration(c) for c in NEGATIVE_CONTRACTS] + [Declaration(Contract.TRUMPS, s) for s in Suit]
)


def declaration_refusal(
    declaration: Declaration,
    seat: Seat,
    trumps_declared: int,
    negatives_declared: int,
    times_declared: int,
) -> tuple[str, dict[str, str]] | None:
    """Why ``seat`` may not make this declaration, given how often it has declared Trumps
    and negative contracts and how often this contract has been declared in the game: a
    reason code and its details (``trumps_done`` and ``negatives_done`` with ``seat`` and
    ``times``, ``played_twice`` with ``contract``), or ``None`` if it may.  The one
    statement of these rules, for the game and for a seat's view."""
    if declaration.contract is Contract.TRUMPS:
        if trumps_declared >= TRUMPS_PER_PLAYER:
            return "trumps_done", {"seat": str(seat), "times": str(TRUMPS_PER_PLAYER)}
        return None
    if negatives_declared >= NEGATIVES_PER_PLAYER:
        return "negatives_done", {"seat": str(seat), "times": str(NEGATIVES_PER_PLAYER)}
    if times_declared >= MAX_PER_NEGATIVE:
        return "played_twice", {"contract": declaration.contract.value}
    return None


def cycled_declaration(index: int) -> Declaration:
    """The contract of single deal ``index`` when deals are played one by one (the
    arena's ``--deals``, the RL environment's ``contract="cycle"``): the seven contracts
    in turn, Trumps taking the next trump suit each time round, so 28 deals hold each of
    the ten declarations in proportion."""
    slot = index % 7
    if slot == 0:
        return Declaration(Contract.TRUMPS, Suit((index // 7) % 4))
    return Declaration(NEGATIVE_CONTRACTS[slot - 1])


#: How many single deals :func:`cycled_declaration` takes to come round again.
DECLARATION_CYCLE = 28

#: Toggle names, in the order of RULES.md.
TOGGLES: tuple[str, ...] = (
    "forced_penalty",
    "early_end",
    "overruff",
    "trump_lead_after_break",
    "two_of_diamonds_starts",
)


@dataclass(frozen=True, slots=True)
class Rules:
    """A rule set: each optional rule of RULES.md as a flag, all off in ``classic``."""

    forced_penalty: bool = False
    early_end: bool = False
    overruff: bool = False
    trump_lead_after_break: bool = False
    two_of_diamonds_starts: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            if not isinstance(getattr(self, f.name), bool):
                raise RulesError(f"the toggle {f.name} must be true or false")

    @staticmethod
    def preset(name: str) -> Rules:
        """The named preset: ``classic``, ``pagat`` or ``turkish``."""
        if not isinstance(name, str):
            raise RulesError(f"a preset name must be a string, not {type(name).__name__}")
        rules = PRESETS.get(name.strip().lower())
        if rules is None:
            raise RulesError(
                f"{quoted(name)} is not a rules preset: use one of {', '.join(PRESETS)}"
            )
        return rules

    @staticmethod
    def from_spec(spec: object) -> Rules:
        """Read the ``rules`` field of a record: absent (``None``), a preset name, or an
        object ``{"preset": NAME, toggle: bool, …}`` of toggles that differ from it."""
        if spec is None:
            return PRESETS["classic"]
        if isinstance(spec, str):
            return Rules.preset(spec)
        if not isinstance(spec, Mapping):
            raise RulesError("rules must be a preset name or an object of toggles")
        base_name = spec.get("preset", "classic")
        base = Rules.preset(base_name)
        changes: dict[str, Any] = {}
        for key, value in spec.items():
            if key in ("preset", "extra"):
                continue
            if key not in TOGGLES:
                raise RulesError(f"{quoted(key)} is not a rules toggle: use {', '.join(TOGGLES)}")
            if not isinstance(value, bool):
                raise RulesError(f"the toggle {key} must be true or false, not {quoted(value)}")
            changes[key] = value
        return replace(base, **changes)

    def to_spec(self) -> str | dict[str, Any]:
        """The shortest record form: a preset name, or the closest preset plus the
        toggles that differ from it."""
        best_name, best_diff = "classic", self.differences(PRESETS["classic"])
        for name, preset in PRESETS.items():
            diff = self.differences(preset)
            if len(diff) < len(best_diff):
                best_name, best_diff = name, diff
        if not best_diff:
            return best_name
        return {"preset": best_name} | best_diff

    @property
    def toggles_on(self) -> list[str]:
        """The optional rules in force, in the order of RULES.md."""
        return [name for name in TOGGLES if getattr(self, name)]

    def differences(self, other: Rules) -> dict[str, bool]:
        """The toggles whose value here differs from ``other``, with their value here."""
        return {
            name: getattr(self, name)
            for name in TOGGLES
            if getattr(self, name) != getattr(other, name)
        }

    @property
    def name(self) -> str:
        """A short human label: the preset name, or ``classic+overruff`` and the like."""
        spec = self.to_spec()
        if isinstance(spec, str):
            return spec
        parts = [str(spec["preset"])]
        for key, value in spec.items():
            if key != "preset":
                parts.append(("+" if value else "-") + key)
        return "".join(parts)

    @property
    def flags(self) -> int:
        """The toggles as bits (see the ``FLAG_`` constants of :mod:`king.deal`)."""
        return (
            (FLAG_FORCED_PENALTY if self.forced_penalty else 0)
            | (FLAG_EARLY_END if self.early_end else 0)
            | (FLAG_OVERRUFF if self.overruff else 0)
            | (FLAG_TRUMP_LEAD_AFTER_BREAK if self.trump_lead_after_break else 0)
        )


FLAG_FORCED_PENALTY = 1
FLAG_EARLY_END = 2
FLAG_OVERRUFF = 4
FLAG_TRUMP_LEAD_AFTER_BREAK = 8

#: The named presets of RULES.md.
PRESETS: dict[str, Rules] = {
    "classic": Rules(),
    "pagat": Rules(forced_penalty=True, early_end=True),
    "turkish": Rules(
        forced_penalty=True,
        early_end=True,
        overruff=True,
        trump_lead_after_break=True,
        two_of_diamonds_starts=True,
    ),
}
