"""What each connection is told about the game: built from one seat's
:class:`~king.view.SeatView` (a spectator's: ``game.view(None)``, built by the core with
no hand) and the public record of play, so another seat's hand cannot leak."""

from __future__ import annotations

from typing import Literal

from king.game import Game
from king.phase import Phase
from king.rules import (
    ALL_DECLARATIONS,
    MAX_PER_NEGATIVE,
    NEGATIVE_CONTRACTS,
    Contract,
)
from king.server.protocol import (
    BoardEntry,
    BoardLine,
    ClockInfo,
    DeclarationChoice,
    GameView,
    PublicEvent,
    StateMessage,
    TakenInfo,
    TrickInfo,
)
from king.view import SeatView

__all__ = [
    "state_message",
    "declaration_choices",
    "last_trick",
    "taken_info",
    "contract_board",
]

Why = Literal["trumps_done", "negatives_done", "played_twice"]
#: The core's refusal codes as the protocol's words (the same words).
_WHY: dict[str, Why] = {
    "trumps_done": "trumps_done",
    "negatives_done": "negatives_done",
    "played_twice": "played_twice",
}


def declaration_choices(game: Game) -> list[DeclarationChoice]:
    """The ten declarations for the declarer: each allowed or not, with the reason (the
    core's own refusal codes, :meth:`~king.game.Game.why_refused`)."""
    choices = []
    for declaration in ALL_DECLARATIONS:
        refused = game.why_refused(declaration)
        why: Why | None = None
        if refused is not None:
            why = _WHY[refused[0]]
        choices.append(
            DeclarationChoice(
                contract=declaration.contract.value,
                trump=None if declaration.trump is None else declaration.trump.letter,
                title=declaration.title,
                allowed=refused is None,
                why=why,
                reason=None if refused is None else game.refusal(declaration),
            )
        )
    return choices


def last_trick(game: Game) -> TrickInfo | None:
    """The most recently completed trick, of this deal or the one before (public)."""
    trick = game.last_trick()
    if trick is None:
        return None
    return TrickInfo(leader=trick.leader, cards=[str(c) for c in trick.cards], winner=trick.winner)


def taken_info(game: Game) -> TakenInfo | None:
    """What each seat has taken in the latest declared deal (public: every trick is
    seen by all): its tricks and the penalty cards among them."""
    deals = game.deals
    if not deals:
        return None
    deal = deals[-1]
    penalty = deal.contract.penalty_mask
    cards: list[list[str]] = [[], [], [], []]
    for trick in deal.tricks:
        cards[trick.winner].extend(str(card) for card in trick.cards if card.mask & penalty)
    return TakenInfo(
        deal=len(deals) - 1,
        contract=deal.contract.value,
        counts="cards" if penalty else "tricks",
        tricks=[deal.tricks_won(seat) for seat in range(4)],
        cards=cards,
    )


def contract_board(view: SeatView) -> list[BoardLine]:
    """The contract board, from a view (every declaration is public): each negative
    contract, then Trumps, with the deals it was declared in (the one being played
    included) and, for a negative one, how often it may still be declared."""
    made = [(r.number, r.declarer, r.declaration) for r in view.results]
    if view.declaration is not None and view.phase is Phase.PLAYING:
        made.append((view.deal_number, view.declarer, view.declaration))
    declared: dict[Contract, list[BoardEntry]] = {}
    for number, declarer, declaration in made:
        trump = declaration.trump
        entry = BoardEntry(
            deal=number, declarer=declarer, trump=None if trump is None else trump.letter
        )
        declared.setdefault(declaration.contract, []).append(entry)
    lines = [
        BoardLine(
            contract=contract.value,
            declared=declared.get(contract, []),
            left=max(0, MAX_PER_NEGATIVE - view.times_declared(contract)),
        )
        for contract in NEGATIVE_CONTRACTS
    ]
    lines.append(
        BoardLine(
            contract=Contract.TRUMPS.value, declared=declared.get(Contract.TRUMPS, []), left=None
        )
    )
    return lines


def state_message(
    game: Game,
    seat: int | None,
    seq: int,
    event: PublicEvent | None,
    clock: ClockInfo | None = None,
) -> str:
    """The ``state`` message for one seat (``None``: a spectator), as JSON text."""
    view = game.view(seat)
    data = view.to_json()
    legal = [str(card) for card in view.legal_cards]
    choices = declaration_choices(game) if view.legal_declarations else []
    message = StateMessage(
        seq=seq,
        event=event,
        view=GameView.model_validate(data),
        legal=legal,
        declarations=choices,
        hand_sizes=list(view.hand_sizes),
        last_trick=last_trick(game),
        obligations=[list(game.obligations(s)) for s in range(4)],
        taken=taken_info(game),
        board=contract_board(view),
        clock=clock,
    )
    return message.model_dump_json()
