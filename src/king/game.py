"""The 20-deal game: dealing, the declarer's turn, which declarations are allowed,
the play of each deal and the running totals.

A game is the fold of its events: a deal is dealt, its declarer declares, cards are
played.  A live game deals for itself from a seeded :class:`random.Random`; a game rebuilt
from a record is given each deal's hands instead (``auto_deal=False``), and still draws
from its generator in the same way, so a resumed game goes on with the same deals the
original would have had.

>>> game = Game(seed=7)
>>> game.phase, game.deal_number, len(game.hand(game.declarer))
(<Phase.DECLARING: 'declaring'>, 0, 13)
>>> game.declare(game.allowed_declarations()[0])
>>> game.phase
<Phase.PLAYING: 'playing'>

Every interface moves a game on the same way: the seat to act chooses one of
:meth:`Game.legal_actions` (a declaration or a card, an :data:`Action`) and the game
applies it with :meth:`Game.act`.

>>> game.act(game.legal_actions()[0])
>>> len(game.deal.plays)
1
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence

from king.cards import Card, CardId, CardSet, Seat, shuffled_hands
from king.deal import Deal, DealSetupError, IllegalMoveError, Trick, hand_masks
from king.errors import KingError
from king.phase import DealResult, Phase
from king.rules import (
    ALL_DECLARATIONS,
    GAME_DEALS,
    NEGATIVE_CONTRACTS,
    NEGATIVES_PER_PLAYER,
    TRUMPS_PER_PLAYER,
    Contract,
    Declaration,
    Rules,
    declaration_refusal,
)
from king.texts import quoted, seat_name
from king.view import SeatView
from king.view import view as seat_view

__all__ = [
    "Action",
    "Game",
    "Phase",
    "DealResult",
    "IllegalDeclarationError",
    "GameStateError",
    "TWO_OF_DIAMONDS",
]

TWO_OF_DIAMONDS = Card.parse("2D")

#: What the seat to act does: declare the deal's contract (the declarer) or play a card.
#: Defined here once, beside :meth:`Game.legal_actions` and :meth:`Game.act`, for every
#: interface that hands a game its players' choices.
Action = Declaration | Card


class IllegalDeclarationError(KingError, ValueError):
    """A declaration that is not allowed now; the message says which rule forbids it."""

    def __init__(
        self,
        reason: str,
        seat: Seat | None = None,
        code: str = "",
        params: dict[str, str] | None = None,
    ):
        super().__init__(reason)
        self.reason = reason
        self.seat = seat
        #: ``trumps_done``, ``negatives_done`` or ``played_twice`` (see
        #: :meth:`Game.why_refused`), for interfaces that word it in another language.
        self.code = code
        self.params = params or {}


class GameStateError(KingError, ValueError):
    """An action that does not fit the game's phase (playing while declaring, …)."""


class Game:
    """A whole game of King: 20 deals, each player declaring five times."""

    def __init__(
        self,
        rules: Rules | None = None,
        seed: int | None = None,
        *,
        auto_deal: bool = True,
    ) -> None:
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise TypeError(f"the seed must be an int, not {type(seed).__name__}")
        self.rules = rules if rules is not None else Rules()
        self.seed = seed if seed is not None else secrets.randbits(63)
        self.auto_deal = auto_deal
        self._rng = random.Random(self.seed)
        self._deals: list[Deal] = []
        self._results: list[DealResult] = []
        self._hands: tuple[int, int, int, int] | None = None
        self._declarer = -1
        self._totals = [0, 0, 0, 0]
        self._trumps_declared = [0, 0, 0, 0]
        self._negatives_declared = [0, 0, 0, 0]
        self._contract_counts: dict[Contract, int] = dict.fromkeys(NEGATIVE_CONTRACTS, 0)
        self._phase = Phase.DEALING
        if auto_deal:
            self.deal_cards()

    # -- dealing ----------------------------------------------------------------------

    def deal_cards(
        self,
        hands: Sequence[CardSet | int | str] | None = None,
        declarer: Seat | None = None,
    ) -> None:
        """Start the next deal.

        The generator is always drawn from, so the stream of deals does not depend on
        whether ``hands`` were given.  ``hands`` (four hands) replace the shuffled ones,
        as when a record is replayed; ``declarer`` must then be the seat the rules make
        the declarer (any seat for a random first declarer).
        """
        if self._phase is not Phase.DEALING:
            raise GameStateError(f"cannot deal now: the game is {self._phase.value}")
        if len(self._results) >= GAME_DEALS:
            raise GameStateError(f"the game is over: it has {GAME_DEALS} deals")
        if declarer is not None and (
            not isinstance(declarer, int) or isinstance(declarer, bool) or not 0 <= declarer < 4
        ):
            raise DealSetupError(f"the declarer must be a seat 0-3, not {quoted(declarer)}")
        drawn = shuffled_hands(self._rng)
        masks = drawn if hands is None else hand_masks(hands)
        if not self._results:
            drawn_seat = self._rng.randrange(4)  # drawn under every rule set, for one stream
            if self.rules.two_of_diamonds_starts:
                holder = next(s for s in range(4) if masks[s] & TWO_OF_DIAMONDS.mask)
                if declarer is not None and declarer != holder:
                    raise DealSetupError(
                        f"the first declarer must be {seat_name(holder)}, who holds the two "
                        f"of diamonds, not {seat_name(declarer)}"
                    )
                required = holder
            else:
                required = drawn_seat if declarer is None else declarer
        else:
            required = (self._declarer + 1) & 3
            if declarer is not None and declarer != required:
                raise DealSetupError(
                    f"the declarer must be {seat_name(required)}, the seat after the last "
                    f"declarer, not {seat_name(declarer)}"
                )
        self._hands = masks
        self._declarer = required
        self._phase = Phase.DECLARING

    # -- reading the game -------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """Dealing, declaring, playing, or over."""
        return self._phase

    @property
    def deal_number(self) -> int:
        """The current deal, from 0 (during play or declaration), or the number of deals
        finished (between deals and at the end)."""
        return len(self._results)

    @property
    def declarer(self) -> int:
        """The declarer of the current deal (or of the last one, between deals)."""
        return self._declarer

    @property
    def dealer(self) -> int:
        """The seat before the declarer; it has no other role."""
        return (self._declarer - 1) & 3

    @property
    def deal(self) -> Deal | None:
        """The deal being played, or ``None`` outside the playing phase."""
        return self._deals[-1] if self._phase is Phase.PLAYING else None

    @property
    def deals(self) -> list[Deal]:
        """Every deal that has been declared, finished or not, in order."""
        return list(self._deals)

    @property
    def results(self) -> list[DealResult]:
        """The finished deals' results, in order."""
        return list(self._results)

    @property
    def totals(self) -> list[int]:
        """Each seat's points over the finished deals."""
        return list(self._totals)

    @property
    def to_act(self) -> int | None:
        """The seat that must act next (declare or play), or ``None``."""
        if self._phase is Phase.DECLARING:
            return self._declarer
        if self._phase is Phase.PLAYING:
            return self._deals[-1].to_play
        return None

    @property
    def is_over(self) -> bool:
        """True once all 20 deals are finished."""
        return self._phase is Phase.OVER

    def hand(self, seat: Seat) -> CardSet:
        """The cards ``seat`` holds now (its dealt hand while declaring)."""
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
            raise ValueError(f"a seat is a number from 0 to 3, not {quoted(seat)}")
        if self._phase is Phase.PLAYING:
            return self._deals[-1].hand(seat)
        if self._phase is Phase.DECLARING and self._hands is not None:
            return CardSet(self._hands[seat])
        return CardSet()

    @property
    def dealt_masks(self) -> tuple[int, int, int, int] | None:
        """The current deal's hands as dealt (masks), once dealt."""
        return self._hands

    def trumps_declared(self, seat: Seat) -> int:
        """How many trump contracts ``seat`` has declared."""
        return self._trumps_declared[seat]

    def negatives_declared(self, seat: Seat) -> int:
        """How many negative contracts ``seat`` has declared."""
        return self._negatives_declared[seat]

    def times_declared(self, contract: Contract) -> int:
        """How many times a negative contract has been declared in this game."""
        return self._contract_counts.get(contract, 0)

    def refusal(self, declaration: Declaration, seat: Seat | None = None) -> str | None:
        """Why ``seat`` (the current declarer by default) may not declare this now, in
        an English sentence that counts seats from 1, or ``None`` if it may."""
        why = self.why_refused(declaration, seat)
        if why is None:
            return None
        code, params = why
        who = seat_name(params.get("seat"))  # counted from 1, as people count seats
        if code == "trumps_done":
            return f"{who} has already declared Trumps {params['times']} times"
        if code == "negatives_done":
            return f"{who} has already declared {params['times']} negative contracts"
        return f"{declaration.contract.title} has been played twice"

    def why_refused(
        self, declaration: Declaration, seat: Seat | None = None
    ) -> tuple[str, dict[str, str]] | None:
        """Why ``seat`` may not declare this now, as a reason code and its details
        (``trumps_done`` and ``negatives_done`` with ``seat`` and ``times``,
        ``played_twice`` with ``contract``), or ``None`` if it may."""
        if seat is None:
            seat = self._declarer
        times = (
            0
            if declaration.contract is Contract.TRUMPS
            else self.times_declared(declaration.contract)
        )
        return declaration_refusal(
            declaration,
            seat,
            self._trumps_declared[seat],
            self._negatives_declared[seat],
            times,
        )

    def allowed_declarations(self) -> list[Declaration]:
        """The declarations the current declarer may make (empty outside declaring)."""
        if self._phase is not Phase.DECLARING:
            return []
        return [d for d in ALL_DECLARATIONS if self.refusal(d) is None]

    def legal_actions(self) -> tuple[Action, ...]:
        """What the seat to act may do now: the declarations it may make while declaring
        (:meth:`allowed_declarations`, in their order), the cards it may play while
        playing (:meth:`Deal.legal_moves`, in theirs); empty between deals and at the
        end.  Decided where :meth:`act` decides it, so every choice here is accepted."""
        if self._phase is Phase.DECLARING:
            return tuple(self.allowed_declarations())
        if self._phase is Phase.PLAYING:
            return tuple(self._deals[-1].legal_moves())
        return ()

    # -- acting -----------------------------------------------------------------------

    def act(self, action: Action) -> None:
        """The seat to act declares (``action`` is a :class:`Declaration`) or plays (a
        :class:`Card`): the one way an interface applies a choice, so that none tells the
        two apart by the phase.  The checks and errors are those of :meth:`declare` and
        :meth:`play` (a card while declaring is a :class:`GameStateError`); a refused
        action changes nothing."""
        if isinstance(action, Declaration):
            self.declare(action)
        else:
            self.play(action)

    def declare(self, declaration: Declaration | str) -> None:
        """The declarer chooses the contract (and trump suit).  Raises
        :class:`IllegalDeclarationError` with the rule that forbids it."""
        if not isinstance(declaration, Declaration):
            declaration = Declaration.parse(declaration)
        if self._phase is not Phase.DECLARING or self._hands is None:
            raise GameStateError(f"no declaration is due: the game is {self._phase.value}")
        why = self.why_refused(declaration)
        if why is not None:
            reason = self.refusal(declaration)
            assert reason is not None
            raise IllegalDeclarationError(reason, self._declarer, why[0], why[1])
        seat = self._declarer
        deal = Deal(self._hands, seat, declaration, self.rules)
        if declaration.contract is Contract.TRUMPS:
            self._trumps_declared[seat] += 1
        else:
            self._negatives_declared[seat] += 1
            self._contract_counts[declaration.contract] += 1
        self._deals.append(deal)
        self._phase = Phase.PLAYING

    def play(self, card: Card | str) -> None:
        """Play a card for the seat to move; raises :class:`IllegalMoveError` with the
        reason.  When the deal ends its points are added and, in a live game, the next
        deal is dealt."""
        if self._phase is not Phase.PLAYING:
            raise GameStateError(f"no card can be played: the game is {self._phase.value}")
        deal = self._deals[-1]
        deal.play(card)
        if deal.is_over:
            self._finish_deal()

    def play_unchecked(self, card_id: CardId) -> None:
        """The fast path of :meth:`Deal.play_unchecked`, with the game's bookkeeping."""
        deal = self._deals[-1]
        deal.play_unchecked(card_id)
        if deal.is_over:
            self._finish_deal()

    def _finish_deal(self) -> None:
        deal = self._deals[-1]
        a, b, c, d = deal.points()
        self._results.append(
            DealResult(len(self._results), deal.declarer, deal.declaration, (a, b, c, d))
        )
        for seat, points in enumerate((a, b, c, d)):
            self._totals[seat] += points
        self._hands = None
        if len(self._results) >= GAME_DEALS:
            self._phase = Phase.OVER
            return
        self._phase = Phase.DEALING
        if self.auto_deal:
            self.deal_cards()

    # -- for search -------------------------------------------------------------------

    def clone(self) -> Game:
        """An independent copy, to play on and throw away (search, what-ifs): the deal in
        play is copied, the finished ones (which never change) are shared, and its
        generator is in the same state, so it deals the same deals next."""
        other = Game.__new__(Game)
        other.rules = self.rules
        other.seed = self.seed
        other.auto_deal = self.auto_deal
        other._rng = random.Random()
        other._rng.setstate(self._rng.getstate())
        other._deals = self._deals[:]
        if self._phase is Phase.PLAYING:
            other._deals[-1] = self._deals[-1].copy()
        other._results = self._results[:]
        other._hands = self._hands
        other._declarer = self._declarer
        other._totals = self._totals[:]
        other._trumps_declared = self._trumps_declared[:]
        other._negatives_declared = self._negatives_declared[:]
        other._contract_counts = dict(self._contract_counts)
        other._phase = self._phase
        return other

    def determinized(self, hands: Sequence[CardSet | int | str]) -> Game:
        """A clone in which the cards held now are ``hands`` (four hands, each seat as
        many cards as it holds, the same cards among them): one world a seat's view
        allows (``king.bots.search.sampler.sample_world`` deals them), with every declaration
        and play so far the same.  Raises ``ValueError`` when the hands do not fit the
        game (a card played out of turn of a suit the new hand still holds, say)."""
        if self._phase not in (Phase.DECLARING, Phase.PLAYING):
            raise GameStateError(f"no cards are held now: the game is {self._phase.value}")
        masks = hand_masks(hands, size=None)
        held = [self.hand(seat).mask for seat in range(4)]
        if any(mask.bit_count() != now.bit_count() for mask, now in zip(masks, held, strict=True)):
            raise ValueError("each seat must hold as many cards as it holds now")
        if (masks[0] | masks[1] | masks[2] | masks[3]) != (held[0] | held[1] | held[2] | held[3]):
            raise ValueError("the hands must hold the cards held now, no others")
        other = self.clone()
        if self._phase is Phase.DECLARING:
            a, b, c, d = masks
            other._hands = (a, b, c, d)
            return other
        deal = self._deals[-1]
        dealt = [masks[seat] | (deal.dealt_masks[seat] & ~held[seat]) for seat in range(4)]
        world = Deal(dealt, deal.declarer, deal.declaration, self.rules)
        for card in deal.plays:
            try:
                world.play(card)
            except IllegalMoveError as error:
                raise ValueError(f"the hands do not fit the plays so far: {error}") from None
        other._deals[-1] = world
        a, b, c, d = dealt
        other._hands = (a, b, c, d)
        return other

    def last_trick(self) -> Trick | None:
        """The most recently completed trick, of this deal or the one before (public:
        every player and spectator has seen it)."""
        for deal in reversed(self._deals):
            tricks = deal.tricks
            if tricks:
                return tricks[-1]
        return None

    def view(self, seat: Seat | None) -> SeatView:
        """What ``seat`` may see now, or a spectator (``None``; see :mod:`king.view`)."""
        return seat_view(self, seat)

    def winners(self) -> list[int]:
        """The seats with the highest total (several on a tie)."""
        best = max(self._totals)
        return [seat for seat, total in enumerate(self._totals) if total == best]

    def obligations(self, seat: Seat) -> tuple[int, int]:
        """What ``seat`` still owes: (trump contracts, negative contracts)."""
        return (
            TRUMPS_PER_PLAYER - self._trumps_declared[seat],
            NEGATIVES_PER_PLAYER - self._negatives_declared[seat],
        )

    def __repr__(self) -> str:
        return (
            f"<Game {self.rules.name} seed={self.seed} deal={self.deal_number} {self._phase.value}>"
        )
