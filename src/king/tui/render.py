"""Turning the game into coloured text: cards, the table, scores and summaries.

Pure functions of the game (no widgets), so what the screen says can be read and tested
on its own.  Every word comes from the player's :class:`~king.i18n.Translator`; cards
keep the international letters (``Q♠``, ``10♥``).  Hearts and diamonds are red; spades
and clubs keep the terminal's colour.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text

from king.cards import Card, CardSet, Rank, Seat, Suit
from king.deal import Trick
from king.game import Game
from king.i18n import Translator
from king.phase import Phase
from king.rules import GAME_DEALS, Contract, Declaration
from king.tui.words import count, declaration_name, fit, you_or
from king.view import SeatView

__all__ = [
    "HAND_SUIT_ORDER",
    "SeatShown",
    "TableScene",
    "card_label",
    "card_style",
    "card_text",
    "cards_text",
    "compact_cards",
    "contract_rule",
    "deal_summary",
    "from_seat",
    "game_summary",
    "hand_order",
    "scene_of",
    "scoreboard",
    "table_lines",
    "taken_text",
    "trick_scene",
    "trick_sentence",
]

#: The hand is shown by suit, colours alternating: ♠ ♥ ♣ ♦.
HAND_SUIT_ORDER = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)
RED = "red"
HIGHLIGHT = "bold black on yellow"

#: How each seat is named on screen, from its seat number.
Namer = Callable[[int], str]


def card_label(card: Card) -> str:
    """The card as people write it: ``10♥``, ``Q♠``."""
    rank = "10" if card.rank is Rank.TEN else card.rank.letter
    return f"{rank}{card.suit.symbol}"


def card_style(card: Card) -> str:
    """Red for hearts and diamonds, the default colour otherwise."""
    return RED if card.suit in (Suit.HEARTS, Suit.DIAMONDS) else ""


def card_text(card: Card, style: str = "") -> Text:
    """The card in its suit's colour, with ``style`` added (``dim``, ``bold``…)."""
    return Text(card_label(card), style=f"{card_style(card)} {style}".strip())


def cards_text(cards: Sequence[Card] | CardSet, empty: str = "—") -> Text:
    """Cards separated by spaces, each in its colour."""
    out = Text()
    for index, card in enumerate(cards):
        if index:
            out.append(" ")
        out.append_text(card_text(card))
    return out if out.plain else Text(empty, style="dim")


def hand_order(hand: CardSet) -> list[Card]:
    """The hand by suit (♠ ♥ ♣ ♦, so colours alternate), high to low in each suit."""
    return [card for suit in HAND_SUIT_ORDER for card in hand.suit(suit)]


def contract_rule(t: Translator, declaration: Declaration) -> str:
    """What a contract scores, in a few words, for the declaration menu."""
    contract = declaration.contract
    if contract is Contract.TRUMPS and declaration.trump is not None:
        return t("tui.declare.trumps_rule", suit=t.suit(declaration.trump.letter))
    return t(f"contract.hint.{contract.value}")


def compact_cards(cards: CardSet, width: int) -> Text:
    """Cards in at most ``width`` columns: ``A♥ K♥ 10♥`` when that fits, otherwise by
    suit with rank letters only, ``♥AKQT9 ♠KJ``, which fits any set of penalty cards."""
    full = cards_text(list(cards))
    if full.cell_len <= width:
        return full
    out = Text()
    for suit in HAND_SUIT_ORDER:
        ranks = "".join(card.rank.letter for card in cards.suit(suit))
        if ranks:
            if out.plain:
                out.append(" ")
            out.append(suit.symbol + ranks, style=card_style(Card(suit, Rank.TWO)))
    return out


def taken_text(
    t: Translator, contract: Contract, tricks: Sequence[Trick], seat: Seat, width: int = 17
) -> Text:
    """What ``seat`` has taken in a deal that counts, read from the deal's tricks (public):
    its penalty cards in a card contract, otherwise its number of tricks."""
    won = [trick for trick in tricks if trick.winner == seat]
    if contract.penalty_mask:
        taken = sum(card.mask for trick in won for card in trick.cards)
        penalty = CardSet(taken & contract.penalty_mask)
        if penalty:
            return compact_cards(penalty, width)
        return Text("—", style="dim")
    words = count(t, "tui.tricks", len(won))
    if contract is Contract.NO_LAST_TWO:
        last = sum(1 for number, done in enumerate(tricks) if number >= 11 and done.winner == seat)
        if last:
            words = t("tui.tricks.of_last_two", tricks=words, n=last)
    return Text(words)


def trick_sentence(t: Translator, trick: Trick, name: Namer, me: int | None = None) -> Text:
    """A completed trick in order of play: ``Left K♠, Top Q♠, … — won by You``
    (``me``: the person's seat, for the words of "won by you")."""
    out = Text()
    for position, card in enumerate(trick.cards):
        if position:
            out.append(", ")
        out.append(f"{name(trick.seat_of(position))} ")
        out.append_text(card_text(card, "bold" if trick.seat_of(position) == trick.winner else ""))
    won_by = t(you_or("tui.trick.won_by", trick.winner == me), name=name(trick.winner))
    out.append(" — " + won_by)
    return out


# -- the table ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatShown:
    """One seat as the table shows it."""

    title: str
    detail: str
    status: str = ""
    active: bool = False


@dataclass(frozen=True, slots=True)
class TableScene:
    """What the table shows: the four seats (indexed by position: 0 you at the bottom,
    1 left, 2 top, 3 right), the card each has in the trick, and a line under it."""

    seats: tuple[SeatShown, SeatShown, SeatShown, SeatShown]
    cards: tuple[Card | None, Card | None, Card | None, Card | None]
    winner: Seat | None = None
    caption: str = ""


class _Canvas:
    """Lines of text with pieces put at given columns; what the table is drawn on."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.rows: list[list[tuple[int, Text]]] = [[] for _ in range(height)]

    def put(self, row: int, col: int, text: Text) -> None:
        if 0 <= row < len(self.rows):
            self.rows[row].append((max(0, col), text))

    def centre(self, row: int, centre: int, text: Text) -> None:
        self.put(row, centre - text.cell_len // 2, text)

    def lines(self) -> list[Text]:
        out = []
        for pieces in self.rows:
            line = Text()
            for col, text in sorted(pieces, key=lambda p: p[0]):
                if col > line.cell_len:
                    line.append(" " * (col - line.cell_len))
                line.append_text(text)
            line.truncate(self.width)
            out.append(line)
        return out


def _card_box(card: Card | None, style: str) -> list[Text]:
    if card is None:
        return [Text("     "), Text("     "), Text("     ")]
    face = Text("│", style=style)
    label = card_label(card)
    face.append(" " * (3 - len(label)))
    face.append_text(card_text(card, "bold"))
    face.append("│", style=style)
    return [Text("┌───┐", style=style), face, Text("└───┘", style=style)]


def _status(seat: SeatShown) -> Text:
    return Text(seat.status, style="bold yellow" if seat.active else "italic")


def _title(seat: SeatShown) -> Text:
    return Text(seat.title, style=HIGHLIGHT if seat.active else "bold")


#: The rows the table's drawing takes: the top seat (2), the trick (9) and you (2).
DRAWING_ROWS = 13
#: The most columns a side seat's words (name, number, bot) take beside the trick.
SIDE_ROOM = 16


def table_lines(scene: TableScene, width: int, height: int = 15) -> list[Text]:
    """Draw the table: you at the bottom, then left, top and right in playing order,
    each seat's card in the middle (the winner's card in green), the caption under it.

    The drawing keeps its size and sits in the middle of a larger table, the side seats
    near the trick, so that the trick stays in the middle of the felt at any size."""
    canvas = _Canvas(width, height)
    mid = width // 2
    top = max(0, (height - DRAWING_ROWS - 1) // 2)
    boxes = [
        _card_box(card, "bold green" if scene.winner == pos else "")
        for pos, card in enumerate(scene.cards)
    ]
    you, left, top_seat, right = scene.seats
    canvas.centre(top, mid, Text.assemble(_title(top_seat), (f" · {top_seat.detail}", "dim")))
    canvas.centre(top + 1, mid, _status(top_seat))
    left_col = max(0, mid - 10 - SIDE_ROOM)
    right_col = mid + 12
    sides = (
        (left, left_col, mid - 10 - left_col),
        (right, right_col, min(SIDE_ROOM, width - right_col)),
    )
    for seat, col, room in sides:
        seat_line, _, bot = seat.detail.partition(" · ")
        canvas.put(top + 4, col, _title(seat)[:room])
        canvas.put(top + 5, col, Text(seat_line[:room], style="dim"))
        canvas.put(top + 6, col, Text(bot[:room], style="dim"))
        canvas.put(top + 7, col, _status(seat)[:room])
    for row in range(3):
        canvas.put(top + 2 + row, mid - 2, boxes[2][row])
        canvas.put(top + 5 + row, mid - 9, boxes[1][row])
        canvas.put(top + 5 + row, mid + 5, boxes[3][row])
        canvas.put(top + 8 + row, mid - 2, boxes[0][row])
    canvas.centre(top + 11, mid, Text.assemble(_title(you), (f" · {you.detail}", "dim")))
    canvas.centre(top + 12, mid, _status(you))
    if scene.caption:
        row = min(height - 1, top + DRAWING_ROWS + 1)
        canvas.centre(row, mid, Text(scene.caption[:width], style="cyan"))
    return canvas.lines()


# -- scores and summaries ----------------------------------------------------------------


def from_seat(me: int) -> list[int]:
    """The seats in playing order starting with ``me``: you, left, top, right."""
    return [(me + offset) % 4 for offset in range(4)]


def scoreboard(
    t: Translator,
    view: SeatView,
    name: Namer,
    saved: str = "",
    width: int = 23,
) -> Text:
    """The side panel: each seat's points this deal and in all, what it still owes,
    what it has taken this deal, and the file the game is saved in.  ``name`` gives
    the short seat names (six cells at most)."""
    me = view.seat
    points = view.deal_points
    out = Text()
    out.append(
        " " * 6
        + fit(t("tui.scores.deal"), 5, ">")
        + fit(t("tui.scores.total"), 7, ">")
        + " "
        + fit(t("tui.scores.owes"), 4)
        + "\n",
        style="bold",
    )
    for seat in from_seat(me):
        trumps, negatives = view.obligations(seat)
        out.append(f"{fit(name(seat), 6)}{points[seat]:>5}{view.totals[seat]:>7} ")
        out.append(t("tui.scores.owed", trumps=trumps, negatives=negatives) + "\n")
    out.append(fit(t("tui.scores.owes_legend"), width).rstrip() + "\n", style="dim")
    out.append("\n")
    if view.contract is None or view.phase is not Phase.PLAYING:
        state = t("tui.game_over") if view.phase is Phase.OVER else t("tui.scores.no_contract")
        out.append(state + "\n", style="dim")
    else:
        _taken_lines(t, out, view, name, width)
    if saved:
        name_part = saved if len(saved) <= width else "…" + saved[-(width - 1) :]
        out.append("\n" + t("tui.scores.saved") + "\n", style="dim")
        out.append(name_part, style="dim")
    return out


def _taken_lines(t: Translator, out: Text, view: SeatView, name: Namer, width: int) -> None:
    contract = view.contract
    assert contract is not None
    heading = t(f"tui.taken.{contract.value}")
    out.append(fit(heading, width).rstrip() + "\n", style="bold")
    for seat in from_seat(view.seat):
        out.append(fit(name(seat), 6) + " ")
        taken = taken_text(t, contract, view.tricks, seat, width - 7)
        taken.truncate(width - 7)
        out.append_text(taken)
        out.append("\n")


def deal_summary(
    t: Translator, game: Game, name: Namer, me: int, short: Namer | None = None
) -> Text:
    """The summary shown after a deal: the contract, each seat's points, what it took,
    the running totals and the last trick.  ``short`` names the seats in the columns."""
    short = short or name
    result = game.results[-1]
    deal = game.deals[result.number]
    out = Text()
    title = t(
        you_or("tui.summary.deal", result.declarer == me),
        n=result.number + 1,
        deals=GAME_DEALS,
        contract=declaration_name(t, result.declaration),
        name=name(result.declarer),
    )
    out.append(title + "\n\n", style="bold")
    cards = bool(deal.contract.penalty_mask)
    took = fit(t("tui.summary.penalty_cards"), 24) if cards else ""
    out.append(
        " " * 7
        + fit(t("tui.summary.points"), 7, ">")
        + fit(t("tui.summary.tricks"), 7, ">")
        + "  "
        + took
        + fit(t("tui.summary.total"), 7, ">")
        + "\n",
        style="bold",
    )
    for seat in from_seat(me):
        out.append(f"{fit(short(seat), 7)}{result.points[seat]:>7}{deal.tricks_won(seat):>7}  ")
        if cards:
            taken = taken_text(t, deal.contract, deal.tricks, seat, 24)
            taken.truncate(24, pad=True)
            out.append_text(taken)
        out.append(f"{game.totals[seat]:>7}\n")
    tricks = deal.tricks
    if tricks:
        out.append("\n" + t("tui.summary.last_trick") + " ")
        out.append_text(trick_sentence(t, tricks[-1], name, me))
        out.append("\n")
    if deal.trick_count < 13:
        out.append(t("tui.summary.early_end", n=deal.trick_count) + "\n", style="dim")
    out.rstrip()
    return out


def game_summary(
    t: Translator, game: Game, name: Namer, me: int, short: Namer | None = None
) -> Text:
    """The end of the game: the winner, the totals and the points of each contract."""
    short = short or name
    winners = game.winners()
    best = f"{game.totals[winners[0]]:+d}"
    out = Text()
    if winners == [me]:
        headline = t("tui.over.you_win", deals=GAME_DEALS, points=best)
    elif len(winners) == 1:
        headline = t("tui.over.wins", deals=GAME_DEALS, name=name(winners[0]), points=best)
    else:
        names = [name(s) for s in winners]
        together = t("tui.list.and", first=", ".join(names[:-1]), last=names[-1])
        headline = t("tui.over.share", deals=GAME_DEALS, names=together, points=best)
    out.append(headline + "\n\n", style="bold")
    labels = {c: t.contract(c.value) for c in Contract}
    total = t("tui.summary.total")
    first = max(cell_len(text) for text in [*labels.values(), total]) + 1
    out.append(" " * first + "".join(" " + fit(short(s), 7, ">") for s in from_seat(me)) + "\n")
    by_contract: dict[Contract, list[int]] = {c: [0, 0, 0, 0] for c in Contract}
    for result in game.results:
        row = by_contract[result.declaration.contract]
        for seat in range(4):
            row[seat] += result.points[seat]
    for contract in Contract:
        row = by_contract[contract]
        out.append(fit(labels[contract], first) + "".join(f"{row[s]:>8}" for s in from_seat(me)))
        out.append("\n")
    out.append(fit(total, first), style="bold")
    for seat in from_seat(me):
        style = "bold green" if seat in winners else "bold"
        out.append(f"{game.totals[seat]:>8}", style=style)
    return out


def trick_scene(t: Translator, trick: Trick, me: int, name: Namer, detail: Namer) -> TableScene:
    """A completed trick round the table, as the last-trick window shows it."""
    order = from_seat(me)
    seats = [
        SeatShown(
            name(seat),
            detail(seat),
            t("tui.status.won")
            if seat == trick.winner
            else (t("tui.status.led") if seat == trick.leader else ""),
        )
        for seat in order
    ]
    cards = [trick.card_of(seat) for seat in order]
    return TableScene(
        (seats[0], seats[1], seats[2], seats[3]),
        (cards[0], cards[1], cards[2], cards[3]),
        order.index(trick.winner),
    )


def scene_of(
    t: Translator,
    view: SeatView,
    name: Namer,
    detail: Namer,
    thinking: int | None = None,
) -> TableScene:
    """The table as the person sees it now (their ``view``): the current trick, or the
    trick just won until the next card is led, so that the last card of a trick stays
    on screen."""
    me = view.seat

    def pos(seat: Seat) -> int:
        return (seat - me) % 4

    cards: list[Card | None] = [None, None, None, None]
    status = ["", "", "", ""]
    winner: Seat | None = None
    caption = ""
    to_act = view.to_act
    playing = view.phase is Phase.PLAYING
    leader = view.leader if view.leader is not None else view.declarer
    if not playing:
        if view.phase is Phase.OVER:
            caption = t("tui.game_over")
        elif to_act is not None:
            caption = t(you_or("tui.caption.declaring", to_act == me), name=name(to_act))
    else:
        trick = view.current_trick
        if trick:
            for seat, card in trick:
                cards[pos(seat)] = card
            status[pos(leader)] = t("tui.status.led")
            caption = t(
                you_or("tui.caption.led", leader == me),
                n=len(view.tricks) + 1,
                name=name(leader),
                suit=t.suit(trick[0][1].suit.letter),
            )
        elif view.tricks:
            last = view.tricks[-1]
            for seat in range(4):
                cards[pos(seat)] = last.card_of(seat)
            winner = pos(last.winner)
            status[winner] = t("tui.status.won")
            caption = t(
                you_or("tui.caption.won", last.winner == me),
                n=len(view.tricks),
                name=name(last.winner),
            )
        else:
            caption = t(you_or("tui.caption.first", leader == me), name=name(leader))
    if to_act is not None:
        if to_act == me and thinking != me:
            status[pos(to_act)] = t("tui.status.your_turn")
        elif thinking == to_act:
            status[pos(to_act)] = t("tui.status.thinking")
        else:
            status[pos(to_act)] = t("tui.status.to_play" if playing else "tui.status.to_declare")
    seats = [
        SeatShown(name(s), detail(s), status[pos(s)], s == to_act)
        for s in sorted(range(4), key=pos)
    ]
    return TableScene(
        (seats[0], seats[1], seats[2], seats[3]),
        (cards[0], cards[1], cards[2], cards[3]),
        winner,
        caption,
    )
