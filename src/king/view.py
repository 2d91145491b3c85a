"""What one seat may see.

Bots, the server and the RL environment read a :class:`SeatView`, never the game itself,
so no adapter can leak a hidden card by accident: the view holds the seat's own hand,
the cards played (which everyone saw), the declarations, the scores, and the seat's
legal choices when it is to act.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from king.cards import SUIT_MASKS, Card, CardSet, Seat, Suit
from king.deal import Trick
from king.phase import DealResult, Phase
from king.rules import (
    NEGATIVE_CONTRACTS,
    NEGATIVES_PER_PLAYER,
    TRUMPS_PER_PLAYER,
    Contract,
    Declaration,
    Rules,
    declaration_refusal,
)

if TYPE_CHECKING:  # the game is only read here: it builds views, never the reverse
    from king.game import Action, Game

__all__ = ["SeatView", "view"]

Four = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's view of a game at one moment."""

    seat: Seat
    rules: Rules
    phase: Phase
    deal_number: int
    declarer: Seat
    #: The current deal's declaration; ``None`` while it is being chosen.
    declaration: Declaration | None
    hand: CardSet
    #: The seat that must act next, or ``None``.
    to_act: Seat | None
    #: What this seat may play now (empty unless it is to play).
    legal_cards: CardSet
    #: What this seat may declare now (empty unless it is to declare).
    legal_declarations: tuple[Declaration, ...]
    #: The leader of the current trick (during play).
    leader: Seat | None
    #: The unfinished trick as (seat, card) pairs, in the order played.
    current_trick: tuple[tuple[int, Card], ...]
    #: This deal's completed tricks.
    tricks: tuple[Trick, ...]
    #: Each seat's points in this deal so far.
    deal_points: Four
    #: Each seat's tricks won in this deal so far.
    tricks_won: Four
    #: Each seat's total over the finished deals.
    totals: Four
    trumps_declared: Four
    negatives_declared: Four
    #: How often each negative contract has been declared in this game.
    contract_counts: tuple[tuple[Contract, int], ...]
    #: The finished deals.
    results: tuple[DealResult, ...]
    #: A spectator's view: no hand, no legal move; ``seat`` is only the seat the
    #: picture is drawn from (0).
    watching: bool = False

    @property
    def contract(self) -> Contract | None:
        """The current contract, if declared."""
        return None if self.declaration is None else self.declaration.contract

    @property
    def trump(self) -> Suit | None:
        """The current trump suit, in Trumps."""
        return None if self.declaration is None else self.declaration.trump

    @property
    def is_my_turn(self) -> bool:
        """Whether this seat must act now."""
        return self.to_act == self.seat

    @property
    def played(self) -> CardSet:
        """Every card played in this deal so far (completed tricks and current one)."""
        mask = 0
        for trick in self.tricks:
            for card in trick.cards:
                mask |= card.mask
        for _, card in self.current_trick:
            mask |= card.mask
        return CardSet(mask)

    @property
    def unseen(self) -> CardSet:
        """The cards this seat has not seen: neither in its hand nor played."""
        if self.declaration is None and self.phase is not Phase.DECLARING:
            return CardSet()
        return CardSet.full() - self.hand - self.played

    def taken(self, seat: Seat) -> CardSet:
        """The cards in the tricks ``seat`` has won this deal."""
        mask = 0
        for trick in self.tricks:
            if trick.winner == seat:
                for card in trick.cards:
                    mask |= card.mask
        return CardSet(mask)

    def voids(self) -> tuple[frozenset[Suit], ...]:
        """For each seat, the suits it has shown it does not hold: it failed to follow
        them (and, in Trumps, failed to trump when it could not follow)."""
        known: list[set[Suit]] = [set(), set(), set(), set()]
        trump = self.trump
        sequences: list[list[tuple[int, Card]]] = [
            [(t.seat_of(i), c) for i, c in enumerate(t.cards)] for t in self.tricks
        ]
        if self.current_trick:
            sequences.append(list(self.current_trick))
        for sequence in sequences:
            led = sequence[0][1].suit
            for seat, card in sequence[1:]:
                if card.suit is not led:
                    known[seat].add(led)
                    if trump is not None and card.suit is not trump:
                        known[seat].add(trump)
        return tuple(frozenset(s) for s in known)

    def times_declared(self, contract: Contract) -> int:
        """How often a negative contract has been declared in this game."""
        return dict(self.contract_counts).get(contract, 0)

    def legal_actions(self) -> tuple[Action, ...]:
        """What this seat may do now, as :meth:`king.game.Game.legal_actions` gives it
        when this seat is to act (its declarations, else its cards, in the same order);
        empty when it is not its turn."""
        if self.legal_declarations:
            return self.legal_declarations
        return tuple(self.legal_cards)

    def why_refused(
        self, declaration: Declaration, seat: Seat | None = None
    ) -> tuple[str, dict[str, str]] | None:
        """Why ``seat`` (by default this view's seat) may not declare this: the game's
        own rule (:func:`king.rules.declaration_refusal`), read from the view's counts."""
        if seat is None:
            seat = self.seat
        times = (
            0
            if declaration.contract is Contract.TRUMPS
            else self.times_declared(declaration.contract)
        )
        return declaration_refusal(
            declaration, seat, self.trumps_declared[seat], self.negatives_declared[seat], times
        )

    def obligations(self, seat: Seat) -> tuple[int, int]:
        """What ``seat`` still owes: (trump contracts, negative contracts)."""
        return (
            TRUMPS_PER_PLAYER - self.trumps_declared[seat],
            NEGATIVES_PER_PLAYER - self.negatives_declared[seat],
        )

    @property
    def hand_sizes(self) -> Four:
        """How many cards each seat holds: public (thirteen, less the cards it has
        played in this deal), and all a spectator learns of a hand."""
        if self.phase is Phase.DECLARING:
            return (13, 13, 13, 13)
        if self.phase is not Phase.PLAYING:
            return (0, 0, 0, 0)
        in_trick = {seat for seat, _ in self.current_trick}
        played = len(self.tricks)
        return _four([13 - played - (seat in in_trick) for seat in range(4)])

    def suit_cards(self, suit: Suit) -> CardSet:
        """This seat's cards of one suit."""
        return CardSet(self.hand.mask & SUIT_MASKS[suit])

    def to_json(self) -> dict[str, Any]:
        """The view as a JSON-ready object: what external bots and clients receive.

        Cards are strings (``"QS"``), declarations their record ids, seats 0-3.
        """
        declaration = self.declaration
        return {
            "seat": None if self.watching else self.seat,
            "rules": self.rules.to_spec(),
            "phase": self.phase.value,
            "deal": self.deal_number,
            "declarer": self.declarer,
            "contract": None if declaration is None else declaration.contract.value,
            "trump": None if self.trump is None else self.trump.letter,
            "hand": [str(c) for c in self.hand],
            "to_act": self.to_act,
            "leader": self.leader,
            "trick": [{"seat": seat, "card": str(card)} for seat, card in self.current_trick],
            "tricks": [
                {"leader": t.leader, "cards": [str(c) for c in t.cards], "winner": t.winner}
                for t in self.tricks
            ],
            "points": list(self.deal_points),
            "tricks_won": list(self.tricks_won),
            "totals": list(self.totals),
            "trumps_declared": list(self.trumps_declared),
            "negatives_declared": list(self.negatives_declared),
            "contract_counts": {c.value: n for c, n in self.contract_counts},
            "results": [
                {
                    "declarer": r.declarer,
                    "contract": r.declaration.contract.value,
                    "trump": None if r.declaration.trump is None else r.declaration.trump.letter,
                    "points": list(r.points),
                }
                for r in self.results
            ],
        }

    def key(self) -> str:
        """This seat's information state as one string: equal for two moments exactly
        when the seat cannot tell them apart (its hand, every declaration, the deal's
        tricks in order, the points and counts), whatever the hidden cards; a key for
        the tables of search and counterfactual-regret methods (docs/rl.md)."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))


def _four(values: list[int]) -> Four:
    return values[0], values[1], values[2], values[3]


def view(game: Game, seat: Seat | None) -> SeatView:
    """The view of ``game`` from ``seat``, or a spectator's (``None``): every public
    fact and no card of any hand, built here so that no interface blanks one out."""
    watching = seat is None
    if seat is None:
        seat = 0
    elif not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
        raise ValueError(f"a seat is a number from 0 to 3, not {seat!r}")
    deal = game.deal
    to_act = game.to_act
    legal_cards = CardSet()
    legal_declarations: tuple[Declaration, ...] = ()
    if not watching and to_act == seat and deal is not None:
        legal_cards = CardSet(deal.legal_mask())
    if not watching and to_act == seat and game.phase is Phase.DECLARING:
        legal_declarations = tuple(game.allowed_declarations())

    if deal is not None:
        declaration: Declaration | None = deal.declaration
        leader: Seat | None = deal.leader
        current = tuple(deal.current_trick)
        tricks = tuple(deal.tricks)
        deal_points = _four(deal.points())
        tricks_won = _four([deal.tricks_won(s) for s in range(4)])
    else:
        declaration = None
        leader = game.declarer if game.phase is Phase.DECLARING else None
        current = ()
        tricks = ()
        deal_points = tricks_won = (0, 0, 0, 0)
    return SeatView(
        seat=seat,
        rules=game.rules,
        phase=game.phase,
        deal_number=game.deal_number,
        declarer=game.declarer,
        declaration=declaration,
        hand=CardSet() if watching else game.hand(seat),
        to_act=to_act,
        legal_cards=legal_cards,
        legal_declarations=legal_declarations,
        leader=leader,
        current_trick=current,
        tricks=tricks,
        deal_points=deal_points,
        tricks_won=tricks_won,
        totals=_four(game.totals),
        trumps_declared=_four([game.trumps_declared(s) for s in range(4)]),
        negatives_declared=_four([game.negatives_declared(s) for s in range(4)]),
        contract_counts=tuple((c, game.times_declared(c)) for c in NEGATIVE_CONTRACTS),
        results=tuple(game.results),
        watching=watching,
    )
