"""``king analyze``: every decision evaluated from its player's view.  Known blunders are
marked as the worst decisions of their deals; an evaluation does not change when the
hidden cards are dealt differently in a way the view allows; the annotated record is
still a valid record."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from king.bots import make_bot
from king.bots.analysis import AnalysisOptions, Hint, analyze, hint
from king.bots.rule.bot import choose_card
from king.bots.search.bot import SearchBot
from king.cards import DECK, Card, CardSet
from king.deal import Deal
from king.game import Game, Phase
from king.record import replay, to_record
from king.rules import Declaration
from tests.support.games import EXAMPLES, random_move

QUICK = AnalysisOptions(seconds=0.05, seed=3)
Blunder = Callable[[Deal, list[Card]], Card | None]


def deal_with_a_blunder(contract: str, blunder: Blunder) -> tuple[dict[str, Any], int]:
    """A one-deal record where rule bots play ``contract`` and, once, a player makes the
    blunder ``blunder`` picks (given the deal and the legal cards); the index of that
    card among the deal's plays."""
    for seed in range(200):
        game = Game(seed=seed)
        game.declare(Declaration.parse(contract))
        made: int | None = None
        while game.phase is Phase.PLAYING:
            deal = game.deal
            assert deal is not None and deal.to_play is not None
            legal = deal.legal_moves()
            card = blunder(deal, legal) if made is None else None
            if card is not None:
                made = len(deal.plays)
            else:
                card = DECK[choose_card(game.view(deal.to_play))]
            game.play(card)
        if made is not None:
            record = to_record(game)
            record["deals"] = record["deals"][:1]
            return record, made
    raise AssertionError("no deal offered the blunder")


def takes_the_king_of_hearts(deal: Deal, legal: list[Card]) -> Card | None:
    """Last to a heart trick that a lower heart is winning: play the king of hearts (and
    take it) while a heart below the winner was there to play."""
    trick = [card for _, card in deal.current_trick]
    king = Card.parse("KH")
    if len(trick) != 3 or trick[0].suit.letter != "H" or king not in legal:
        return None
    top = max(c for c in trick if c.suit is trick[0].suit)
    if Card.parse("AH") in trick or not any(c.suit is king.suit and c < top for c in legal):
        return None
    return king


def wins_a_last_trick(deal: Deal, legal: list[Card]) -> Card | None:
    """Last to trick 12, able to duck: win it instead with the highest card of the suit."""
    trick = [card for _, card in deal.current_trick]
    if deal.trick_count != 11 or len(trick) != 3:
        return None
    led = trick[0].suit
    top = max(c for c in trick if c.suit is led)
    follow = [c for c in legal if c.suit is led]
    if not any(c > top for c in follow) or not any(c < top for c in follow):
        return None
    return max(follow)


@pytest.mark.parametrize(
    ("contract", "blunder"),
    [("no-king", takes_the_king_of_hearts), ("no-last-two", wins_a_last_trick)],
    ids=["no-king", "no-last-two"],
)
def test_a_known_blunder_is_the_worst_decision_of_its_deal(contract: str, blunder: Blunder) -> None:
    record, play = deal_with_a_blunder(contract, blunder)
    annotated = analyze(record, QUICK)
    decisions = annotated["analysis"]["deals"][0]["decisions"]
    assert len(decisions) == 1 + 52  # the declaration and every card
    worst = max(decisions, key=lambda d: d["loss"])
    assert worst["kind"] == "play" and worst["play"] == play, worst
    assert worst["mistake"] and worst["loss"] > 2 * worst["error"]
    lost = annotated["analysis"]["deals"][0]["lost"]
    assert lost[worst["seat"]] >= worst["loss"]
    # The record with its analysis is still a record: it replays valid.
    assert replay(json.dumps(annotated)).valid


def swapped_hidden_cards() -> tuple[Game, Game, int]:
    """A position and the same position with the other hands dealt differently, as the
    view of the seat to play allows (two unplayed cards of a suit both hold, swapped
    between two other seats); and that seat."""
    rng = random.Random(12)
    game = Game(seed=12)
    game.declare(game.allowed_declarations()[2])
    for _ in range(9):
        random_move(game, rng)
    deal = game.deal
    assert deal is not None and deal.to_play is not None
    me = deal.to_play
    others = [s for s in range(4) if s != me]
    hands = [deal.hand(s) for s in range(4)]
    swap: tuple[int, int, Card, Card] | None = None
    for a in others:
        for b in others:
            if a < b:
                for x in hands[a]:
                    same = [y for y in hands[b] if y.suit is x.suit]
                    if same:
                        swap = (a, b, x, same[0])
                        break
            if swap:
                break
        if swap:
            break
    assert swap is not None
    a, b, x, y = swap
    record = to_record(game)
    dealt = [CardSet.parse(h) for h in record["deals"][0]["hands"]]
    dealt[a] = (dealt[a] - CardSet.of([x])) | CardSet.of([y])
    dealt[b] = (dealt[b] - CardSet.of([y])) | CardSet.of([x])
    record["deals"][0]["hands"] = [str(h) for h in dealt]
    other = replay(record).game
    assert other.view(me) == game.view(me)
    assert other.hand(a) != game.hand(a)
    return game, other, me


def test_an_evaluation_reads_only_the_view() -> None:
    """The other hands dealt differently, as the view allows: the same values, world
    for world, with the same seed."""
    game, other, me = swapped_hidden_cards()

    def values(g: Game) -> Any:
        bot = make_bot("search:time=0.05", seed=5)
        assert isinstance(bot, SearchBot)
        return bot.evaluate(g.view(me)).table

    first = values(game)
    assert len(first) > 100 and first == values(other)


def test_a_hint_reads_only_the_view() -> None:
    """A table's hint for the seat to act: the same with the hidden cards dealt
    differently, and naming only that seat's legal cards."""
    game, other, me = swapped_hidden_cards()

    def advice(g: Game) -> Hint:
        bot = make_bot("search:time=0.05", seed=5)
        assert isinstance(bot, SearchBot)
        try:
            return hint(bot, g.view(me))
        finally:
            bot.close()

    first = advice(game)
    assert first == advice(other)
    legal = {str(card) for card in game.view(me).legal_cards}
    assert {row[0] for row in first.choices} == legal and first.best in legal
    assert first.choices[0][0] == first.best and first.choices[0][3] == 0.0
    assert all(row[3] >= 0 for row in first.choices)


@pytest.mark.slow
def test_king_analyze_annotates_every_decision_of_the_example(tmp_path: Path) -> None:
    out = tmp_path / "annotated.json"
    result = subprocess.run(
        [sys.executable, "-m", "king", "analyze", str(EXAMPLES / "game-classic.json"),
         "--json", "--time", "0.02", "--out", str(out)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    annotated = json.loads(result.stdout)
    analysis = annotated["analysis"]
    assert len(analysis["deals"]) == 20
    decisions = [d for deal in analysis["deals"] for d in deal["decisions"]]
    assert len(decisions) == 20 + 20 * 52
    for d in decisions:
        names = [c["choice"] for c in d["choices"]]
        assert d["forced"] or (d["chosen"] in names and d["best"] in names)
        assert d["loss"] >= 0 and d["error"] >= 0
        assert d["mistake"] == (not d["forced"] and d["loss"] > 2 * d["error"] and d["loss"] > 0)
    assert analysis["lost"] == [
        round(sum(deal["lost"][s] for deal in analysis["deals"]), 2) for s in range(4)
    ]
    # The annotated record replays as valid and is the same game.
    check = subprocess.run(
        [sys.executable, "-m", "king", "replay", str(out), "--json"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert check.returncode == 0, check.stderr
    original = replay((EXAMPLES / "game-classic.json").read_text())
    assert json.loads(check.stdout)["totals"] == list(original.game.totals)


def test_king_analyze_refuses_a_bot_that_cannot_evaluate() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "king", "analyze", str(EXAMPLES / "game-classic.json"),
         "--bot", "rule"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert "search bot" in result.stderr and "Traceback" not in result.stderr
