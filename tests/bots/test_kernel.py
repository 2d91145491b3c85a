"""The bots' copy of the rules (:mod:`king.bots.position`, plain Python) against the core
engine (a differential test over thousands of random positions), the engine's rule
policy playing whole deals the core engine accepts and scores alike, the engine's exact
solver against hand-solved endgames, a plain minimax on the core engine and plain
enumeration (the engine's and the Python reference's), and the legality of the
solver's move-ordering policy."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import pytest

from king.bots import engine
from king.bots import position as K
from king.bots.search import solver
from king.cards import FULL_MASK, CardSet, Suit, shuffled_hands
from king.deal import Deal
from king.rules import ALL_DECLARATIONS, Contract, Declaration, Rules

TOGGLE_SETS = [
    Rules(),
    Rules.preset("pagat"),
    Rules.preset("turkish"),
    Rules(overruff=True),
    Rules(forced_penalty=True),
]


def _state_of(deal: Deal) -> np.ndarray:  # type: ignore[type-arg]
    state = K.new_state(np.array(deal.dealt_masks, dtype=np.int64), deal.declarer)
    for card in deal.play_ids:
        K.play(
            state, card, deal.declaration.contract.code, _trump(deal.declaration), deal.rules.flags
        )
    return state


def _trump(declaration: Declaration) -> int:
    return -1 if declaration.trump is None else int(declaration.trump)


def test_kernel_agrees_with_the_engine_over_thousands_of_positions() -> None:
    rng = random.Random(2026)
    positions = 0
    for number in range(400):
        rules = TOGGLE_SETS[number % len(TOGGLE_SETS)]
        declaration = ALL_DECLARATIONS[number % 10]
        hands = shuffled_hands(rng)
        deal = Deal(hands, number % 4, declaration, rules)
        code, trump, flags = declaration.contract.code, _trump(declaration), rules.flags
        state = K.new_state(np.array(hands, dtype=np.int64), number % 4)
        while not deal.is_over:
            positions += 1
            assert not state[K.S_OVER]
            assert state[K.S_TURN] == deal.to_play
            legal = deal.legal_mask()
            assert K.legal_now(state, code, trump, flags) == legal
            # The policy always picks a legal card.
            assert legal >> solver.policy_move(state, code, trump, flags) & 1
            card = rng.choice(CardSet(legal).ids())
            deal.play_unchecked(card)
            K.play(state, card, code, trump, flags)
            assert list(state[K.S_POINTS : K.S_POINTS + 4]) == deal.points()
            for seat in range(4):
                assert state[seat] == deal.hand(seat).mask
        assert state[K.S_OVER]
        assert state[K.S_TRICKS] == deal.trick_count
    assert positions > 15_000


def test_the_engines_rule_policy_plays_whole_deals_the_core_engine_scores_alike() -> None:
    """The engine's rule card at every position of a deal (the whole position, every
    hand known, as its rollouts see it), each card played on the core engine too, which
    accepts it as legal; the points the core engine gives at the end are the engine's
    whole playout's, and add up to the contract's total."""
    rng = random.Random(5)
    for number in range(40):
        declaration = ALL_DECLARATIONS[number % 10]
        rules = TOGGLE_SETS[number % len(TOGGLE_SETS)]
        code, trump, flags = declaration.contract.code, _trump(declaration), rules.flags
        hands = shuffled_hands(rng)
        deal = Deal(hands, number % 4, declaration, rules)
        out = np.zeros(1, dtype=np.int64)
        engine.rule_declaration_values(
            np.array([hands], dtype=np.int64), number % 4, code, trump, flags, out
        )
        state = K.new_state(np.array(hands, dtype=np.int64), number % 4)
        while not deal.is_over:
            card = engine.rule_card(state, code, trump, flags)
            assert deal.legal_mask() >> card & 1, (number, len(deal.plays))
            deal.play_unchecked(card)
            K.play(state, card, code, trump, flags)
        assert state[K.S_OVER]
        assert out[0] == deal.points()[number % 4]
        assert sum(deal.points()) == declaration.contract.total


def _endgame(hands: list[str], leader: int, tricks_done: int = 11) -> np.ndarray:  # type: ignore[type-arg]
    masks = [CardSet.parse(h).mask for h in hands]
    state = K.new_state(np.array(masks, dtype=np.int64), leader)
    state[K.S_TRICKS] = tricks_done
    state[K.S_PLAYED] = FULL_MASK & ~(masks[0] | masks[1] | masks[2] | masks[3])
    return state


# Two-trick endgames solved by hand; seat 0 leads and searches.  For each card it may
# lead, the value it gets when the others play to hurt it most, worked out in the
# comments.
HAND_SOLVED = [
    (
        # AH: seat 1 follows KH, seat 3 must ruff with 3S and wins; then seat 3 leads 6D
        # and seat 0, void, must trump with 2S and wins: +50.  2S: seat 3 overtakes
        # with 3S and cashes 6D while seat 0 discards: 0.
        Declaration(Contract.TRUMPS, Suit.SPADES),
        ["AH 2S", "KH 3H", "4D 5D", "3S 6D"],
        {"AH": 50, "2S": 0},
    ),
    (
        # AH wins, and 2H wins again (seat 1 is void): -100.  2H: seat 1 wins with 3H and
        # seat 0 discards AH on the diamond: 0.
        Declaration(Contract.NO_TRICKS),
        ["AH 2H", "3H 4D", "5D 6D", "7D 8D"],
        {"AH": -100, "2H": 0},
    ),
    (
        # AH takes its own heart and KH: -60.  2C loses to a higher club, and AH is
        # discarded on the next club trick: 0.
        Declaration(Contract.NO_HEARTS),
        ["AH 2C", "KH 3C", "4C 5C", "6C 7C"],
        {"AH": -60, "2C": 0},
    ),
    (
        # QS: seat 1 drops JS, seat 2 4S: seat 0 wins its own queen, -100.  2S: JS wins,
        # seat 1 leads 3C and seat 0 discards QS under seat 2's 4C: 0.
        Declaration(Contract.NO_QUEENS),
        ["QS 2S", "JS 3C", "4S 4C", "5D 6D"],
        {"QS": -100, "2S": 0},
    ),
    (
        # KS wins the trick with its own king, -60.  2S: seat 2's 4S wins; on its 4C
        # seat 0 discards KS: 0.
        Declaration(Contract.NO_BOYS),
        ["KS 2S", "3S 3C", "4S 4C", "5D 6D"],
        {"KS": -60, "2S": 0},
    ),
    (
        # KH wins over 2H: -320.  2C: seat 2 wins with a higher club and leads another;
        # seat 0 discards KH: 0.
        Declaration(Contract.NO_KING),
        ["KH 2C", "2H 3C", "4C 5C", "5D 6D"],
        {"KH": -320, "2C": 0},
    ),
    (
        # AS wins trick 12, seat 1 having to drop its only spade, so 2S wins trick 13
        # too: -360.  2S: seat 1 wins with 3S, leads 4D and seat 0 discards AS: 0.
        Declaration(Contract.NO_LAST_TWO),
        ["AS 2S", "3S 4D", "5D 6D", "7D 8D"],
        {"AS": -360, "2S": 0},
    ),
]


@pytest.mark.parametrize(
    ("declaration", "hands", "expected"),
    HAND_SOLVED,
    ids=[d.contract.value for d, _, _ in HAND_SOLVED],
)
def test_solver_matches_hand_solved_endgames(
    declaration: Declaration, hands: list[str], expected: dict[str, int]
) -> None:
    state = _endgame(hands, leader=0)
    code, trump = declaration.contract.code, _trump(declaration)
    out = np.full(52, -99999, dtype=np.int64)
    engine.solve_moves(state, 0, code, trump, 0, out)
    got = {str(card): int(out[card.id]) for card in CardSet.parse(hands[0])}
    assert got == expected
    value, nodes = engine.solve(state, 0, code, trump, 0)
    assert value == max(expected.values())
    assert nodes > 0


def _random_ending(
    rng: random.Random, trial: int, declaration: Declaration, plays: int, spread: int = 0
) -> Deal | None:
    """Trial ``trial``'s deal (its leader and optional rules by the trial's number)
    played at random to ``plays`` cards, plus up to ``spread`` - 1 more (so sometimes
    inside a trick); None when the deal ended before."""
    rules = TOGGLE_SETS[trial % len(TOGGLE_SETS)]
    deal = Deal(shuffled_hands(rng), trial % 4, declaration, rules)
    stop = plays + (rng.randrange(spread) if spread else 0)
    while len(deal.plays) < stop and not deal.is_over:
        deal.play(rng.choice(deal.legal_moves()))
    return None if deal.is_over else deal


def _minimax(deal: Deal, me: int) -> int:
    """The plain paranoid minimax on the core engine: no pruning, no tables."""
    if deal.is_over:
        return deal.points()[me]
    values = []
    for card in deal.legal_moves():
        child = deal.copy()
        child.play(card)
        values.append(_minimax(child, me))
    return max(values) if deal.to_play == me else min(values)


@pytest.mark.parametrize("declaration", ALL_DECLARATIONS, ids=str)
def test_solver_agrees_with_plain_minimax_on_random_endgames(declaration: Declaration) -> None:
    rng = random.Random(declaration.action_index)
    for trial in range(6):
        deal = _random_ending(rng, trial, declaration, 40, 4)  # three tricks left
        if deal is None:
            continue
        me = rng.randrange(4)
        state = _state_of(deal)
        value, _ = engine.solve(
            state, me, declaration.contract.code, _trump(declaration), deal.rules.flags
        )
        assert value == _minimax(deal, me)


def test_plain_enumeration_agrees_with_the_core_engines_minimax() -> None:
    """Plain enumeration (every card at every node), the engine's and the Python
    reference's, against the plain minimax on the core engine: the reference the
    solver's benchmark checks it against."""
    rng = random.Random(77)
    for trial in range(20):
        declaration = ALL_DECLARATIONS[trial % 10]
        rules = TOGGLE_SETS[trial % len(TOGGLE_SETS)]
        deal = Deal(shuffled_hands(rng), trial % 4, declaration, rules)
        while len(deal.plays) < 44 + rng.randrange(3) and not deal.is_over:
            deal.play(rng.choice(deal.legal_moves()))
        if deal.is_over:
            continue
        me = rng.randrange(4)
        code, trump = declaration.contract.code, _trump(declaration)
        state = _state_of(deal)
        plain = engine.enumerate_value(state, me, code, trump, rules.flags)
        assert plain == solver.enumerate_value(state.copy(), me, code, trump, rules.flags)
        assert plain == _minimax(deal, me)


@pytest.mark.parametrize("tricks_left", [4, 5])
def test_the_solver_agrees_with_plain_enumeration_on_many_endings(tricks_left: int) -> None:
    """Hundreds of random endings, every declaration and set of optional rules, some
    inside a trick: the solver's value (tables keyed on relative ranks, bounds,
    ordering) is the plain enumeration's.  ``king bench --only solver`` checks
    thousands more."""
    rng = random.Random(tricks_left)
    checked = 0
    for trial in range(300 if tricks_left == 4 else 60):
        declaration = ALL_DECLARATIONS[trial % 10]
        deal = _random_ending(rng, trial, declaration, 52 - 4 * tricks_left, 4)
        if deal is None:
            continue
        me = rng.randrange(4)
        code, trump, flags = declaration.contract.code, _trump(declaration), deal.rules.flags
        state = _state_of(deal)
        value, _ = engine.solve(state, me, code, trump, flags)
        assert value == engine.enumerate_value(state, me, code, trump, flags), (trial, str(deal))
        checked += 1
    assert checked > (250 if tricks_left == 4 else 50)


@pytest.mark.slow
def test_the_solver_agrees_with_plain_enumeration_where_a_seat_may_take_no_more() -> None:
    """Endings made to test when a seat is settled as taking no more tricks: a few cards
    in one to four suits (so that one side often holds only higher cards of a suit),
    every negative contract and set of optional rules, sometimes with no heart played
    yet (a heart may not be led then in No Hearts and No King) or inside a trick.  Such
    endings found a wrong settlement that thousands of endings from real play had not."""
    rng = random.Random(11)
    checked = 0
    settled = 0
    negatives = [c.code for c in Contract if c.code != Contract.TRUMPS.code]
    for trial in range(20000):
        each = rng.choice((2, 3, 4))
        suits = rng.sample(range(4), rng.choice((1, 2, 2, 3, 4)))
        pool = [suit * 13 + rank for suit in suits for rank in range(13)]
        if len(pool) < 4 * each:
            continue
        hands = np.zeros(4, dtype=np.int64)
        for n, card in enumerate(rng.sample(pool, 4 * each)):
            hands[n % 4] |= np.int64(1) << card
        state = K.new_state(hands, rng.randrange(4))
        code = rng.choice(negatives)
        flags = TOGGLE_SETS[trial % len(TOGGLE_SETS)].flags
        played = FULL_MASK & ~int(hands[0] | hands[1] | hands[2] | hands[3])
        if rng.random() < 0.5:
            played &= ~int(K.HEARTS)
        state[K.S_PLAYED] = played
        state[K.S_TRICKS] = 13 - each
        for _ in range(rng.randrange(4)):
            legal = K.legal_now(state, code, -1, flags)
            K.play(state, rng.choice([c for c in range(52) if legal >> c & 1]), code, -1, flags)
        if state[K.S_OVER]:
            continue
        me = rng.randrange(4)
        value, _ = engine.solve(state.copy(), me, code, -1, flags)
        plain = engine.enumerate_value(state.copy(), me, code, -1, flags)
        assert value == plain, (trial, code, flags, me, state.tolist())
        checked += 1
        settled += solver._takes_no_more(state.reshape(1, -1), 0, me, code, flags)
    assert checked > 18000
    assert settled > 1500, settled  # settled at the root, not only deeper in the search


def test_the_solvers_table_size_changes_the_work_not_the_value() -> None:
    """A table of one bucket (every position fighting for four rows), one that starts
    at one bucket and doubles many times during the search (every row moved to its new
    bucket), and the default: the same value on endings of six tricks, and the value
    of plain enumeration where that is quick enough (three tricks)."""
    rng = random.Random(5)
    grew = False
    for trial in range(40):
        declaration = ALL_DECLARATIONS[trial % 10]
        tricks_left = 3 if trial % 4 == 0 else 6
        deal = _random_ending(rng, trial, declaration, 52 - 4 * tricks_left)
        if deal is None:
            continue
        me = rng.randrange(4)
        code, trump, flags = declaration.contract.code, _trump(declaration), deal.rules.flags
        state = _state_of(deal)
        value, nodes = engine.solve(state, me, code, trump, flags)
        tiny, _ = engine.solve_sized(state, me, code, trump, flags, 4, 4)
        growing, _ = engine.solve_sized(state, me, code, trump, flags, 4, solver.MOST_ROWS)
        assert tiny == growing == value, (trial, str(deal))
        if tricks_left == 3:
            assert value == engine.enumerate_value(state, me, code, trump, flags)
        grew |= nodes > 4 * solver.FIRST_ROWS  # the default table doubled too
    assert grew


def test_equivalent_cards_are_reduced_only_when_truly_equivalent() -> None:
    queens = Contract.NO_QUEENS.penalty_mask
    hand = CardSet.parse("KS QS JS 9S").mask
    earlier = CardSet.parse("TS").mask
    kept = CardSet(int(K.distinct(hand, earlier, queens)))
    # KS and QS differ in penalty; QS and JS too; JS and 9S are adjacent once TS is gone.
    assert kept == CardSet.parse("KS QS JS")
    assert CardSet(int(K.distinct(hand, earlier, 0))) == CardSet.parse("KS")


def _random_hands(seed: int, count: int) -> Iterator[tuple[int, int, int]]:
    """``count`` random (hand, cards played in earlier tricks, penalty cards) triples."""
    rng = random.Random(seed)
    penalties = [int(mask) for mask in K.PENALTY]
    for _ in range(count):
        hand = rng.getrandbits(52) & rng.getrandbits(52)
        yield hand, rng.getrandbits(52) & ~hand, rng.choice(penalties)


def test_equivalent_cards_match_their_definition_on_random_hands() -> None:
    """The mask arithmetic of ``distinct`` (ranks packed down among the cards not yet
    played) against its definition card by card: a card goes when the next card up in
    its suit that is not gone is one of the hand's, with the same penalty status."""
    for hand, earlier, penalty in _random_hands(17, 3000):
        expected = 0
        for card in range(52):
            if not hand >> card & 1:
                continue
            above = next(
                (up for up in range(card + 1, (card // 13 + 1) * 13) if not earlier >> up & 1),
                -1,
            )
            same = above >= 0 and (penalty >> above & 1) == (penalty >> card & 1)
            if not (above >= 0 and hand >> above & 1 and same):
                expected |= 1 << card
        assert int(K.distinct(hand, earlier, penalty)) == expected, (hand, earlier, penalty)


def test_equal_cards_are_those_distinct_keeps_one_card_for() -> None:
    """``equal_cards`` gives the cards of a hand that ``distinct`` merges with a card:
    those for which it keeps the same card (the top of their run), on random hands."""
    for hand, earlier, penalty in _random_hands(23, 2000):
        kept = int(K.distinct(hand, earlier, penalty))
        # Each card of the hand with the card kept for it: the top of its run.
        top = {
            c: next(up for up in range(c, 52) if kept >> up & 1) for c in range(52) if hand >> c & 1
        }
        for card, its_top in top.items():
            expected = sum(1 << c for c, other in top.items() if other == its_top)
            assert int(K.equal_cards(hand, card, earlier, penalty)) == expected
    queens = Contract.NO_QUEENS.penalty_mask
    hand = CardSet.parse("KS QS JS 9S").mask
    jack = CardSet.parse("JS").mask.bit_length() - 1
    both = CardSet.parse("JS 9S").mask
    assert K.equal_cards(hand, jack, CardSet.parse("TS").mask, queens) == both
    assert K.equal_cards(hand, jack, CardSet.parse("TS").mask, 0) == hand  # no queens
    assert K.equal_cards(hand, jack, 0, queens) == 1 << jack  # TS still out


def test_the_solvers_own_seat_tries_its_high_cards_first() -> None:
    """The order the solver tries the searching seat's cards: in Trumps its highest
    rank (its lowest when it cannot follow); in a negative contract leading its
    highest rank, following its highest of the suit, discarding a penalty card, else
    the highest card of its shortest suit."""

    def first(
        hands: list[str], leader: int, before: list[str], contract: Contract, trump: int = -1
    ) -> str:
        state = _endgame(hands, leader, tricks_done=13 - len(hands[0].split()))
        for card in before:
            K.play(state, CardSet.parse(card).mask.bit_length() - 1, contract.code, trump, 0)
        stack = np.zeros((solver.STACK_ROWS, solver.ROW), dtype=np.int64)
        stack[0, : K.STATE_SIZE] = state
        moves = K.legal_now(state, contract.code, trump, 0)
        card = solver.seat_move(stack, 0, moves, contract.code)
        return str(CardSet(1 << int(card)))

    hands = ["AD 2S 9S 3C", "KS 4C 5H 6H", "QS 7C 8H 9H", "JS 8C TH JH"]
    assert first(hands, 0, [], Contract.NO_TRICKS) == "AD"
    assert first(hands, 3, ["JS"], Contract.NO_TRICKS) == "9S"
    void = ["AH KH 9D 2C 3C", "2S 3S 4S 5S 6S", "7S 8S 9S TS JS", "QS KS AS 4C 5C"]
    assert first(void, 3, ["AS"], Contract.NO_TRICKS) == "9D"
    queens = ["AH QH 9D 2C 3C", "2S 3S 4S 5S 6S", "7S 8S 9S TS JS", "QS KS AS 4C 5C"]
    assert first(queens, 3, ["AS"], Contract.NO_QUEENS) == "QH"
    assert first(void, 3, ["AS"], Contract.TRUMPS, int(Suit.DIAMONDS)) == "9D"  # must ruff
    assert first(void, 3, ["AS"], Contract.TRUMPS, int(Suit.SPADES)) == "2C"  # void: lowest
    assert first(void, 0, [], Contract.TRUMPS, int(Suit.SPADES)) == "AH"  # leading: highest
