"""The card faces of the page: 52 fronts and a back, drawn as SVG.

The files ship in ``king/web/cards``; this module is how they were made, so that a
change of design is a change of code (``python scripts/cardfaces.py``) and a test
can check that the shipped files are what it draws.  Suits are drawn as paths, not
font glyphs, so every browser shows the same cards.
"""

from __future__ import annotations

import sys
from pathlib import Path

from king.cards import DECK, Card, Rank, Suit

__all__ = ["card_svg", "back_svg", "write_cards", "CARD_FOLDER"]

CARD_FOLDER = Path(__file__).resolve().parent.parent / "src" / "king" / "web" / "cards"

WIDTH, HEIGHT = 240, 336
RED, BLACK = "#c62828", "#1b1b1b"
FONT = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"
SERIF = "DejaVu Serif, Liberation Serif, Georgia, Times New Roman, serif"

#: Each suit as a path in a 100 x 100 box.
SUIT_PATHS = {
    Suit.SPADES: (
        "M50 2C42 20 6 40 6 64C6 79 17 88 30 88C38 88 44 84 47 78C46 88 42 94 32 99H68"
        "C58 94 54 88 53 78C56 84 62 88 70 88C83 88 94 79 94 64C94 40 58 20 50 2Z"
    ),
    Suit.HEARTS: (
        "M50 95C44 86 4 60 4 31C4 15 15 4 29 4C39 4 46 10 50 19C54 10 61 4 71 4"
        "C85 4 96 15 96 31C96 60 56 86 50 95Z"
    ),
    Suit.DIAMONDS: "M50 1L88 50L50 99L12 50Z",
    Suit.CLUBS: (
        "M50 4A21 21 0 0 0 34 39A21 21 0 1 0 46 74C45 86 41 93 32 99H68C59 93 55 86 54 74"
        "A21 21 0 1 0 66 39A21 21 0 0 0 50 4Z"
    ),
}

# Pip positions: column (0 left, 1 middle, 2 right) and row (0 top … 1 bottom).
_L, _M, _R = 0, 1, 2
_SIX = [(_L, 0), (_R, 0), (_L, 0.5), (_R, 0.5), (_L, 1), (_R, 1)]
_NINE = [(_L, 0), (_R, 0), (_L, 1 / 3), (_R, 1 / 3), (_L, 2 / 3), (_R, 2 / 3), (_L, 1), (_R, 1)]
PIPS: dict[int, list[tuple[int, float]]] = {
    2: [(_M, 0), (_M, 1)],
    3: [(_M, 0), (_M, 0.5), (_M, 1)],
    4: [(_L, 0), (_R, 0), (_L, 1), (_R, 1)],
    5: [(_L, 0), (_R, 0), (_M, 0.5), (_L, 1), (_R, 1)],
    6: _SIX,
    7: [*_SIX, (_M, 0.25)],
    8: [*_SIX, (_M, 0.25), (_M, 0.75)],
    9: [*_NINE, (_M, 0.5)],
    10: [*_NINE, (_M, 1 / 6), (_M, 5 / 6)],
}
_COLUMNS = (78, 120, 162)
_TOP, _BOTTOM = 76, 260


def _colour(suit: Suit) -> str:
    return RED if suit in (Suit.HEARTS, Suit.DIAMONDS) else BLACK


def _suit(suit: Suit, cx: float, cy: float, size: float, flip: bool = False) -> str:
    """A suit symbol of ``size`` centred on (cx, cy), upside down if ``flip``."""
    scale = size / 100
    x, y = cx - size / 2, cy - size / 2
    transform = f"translate({x:.1f} {y:.1f}) scale({scale:.3f})"
    if flip:
        transform = f"rotate(180 {cx:.1f} {cy:.1f}) " + transform
    return f'<path transform="{transform}" d="{SUIT_PATHS[suit]}"/>'


def _rank_text(rank: Rank) -> str:
    return "10" if rank is Rank.TEN else rank.letter


def _corner(card: Card) -> str:
    """The index in the top-left corner: rank over suit."""
    text = _rank_text(card.rank)
    squeeze = ' textLength="40" lengthAdjust="spacingAndGlyphs"' if text == "10" else ""
    return (
        f'<text x="27" y="50" text-anchor="middle" font-family="{FONT}" font-size="40" '
        f'font-weight="700"{squeeze}>{text}</text>' + _suit(card.suit, 27, 72, 26)
    )


def _centre(card: Card) -> str:
    rank = card.rank
    if rank is Rank.ACE:
        return _suit(card.suit, WIDTH / 2, HEIGHT / 2, 112)
    if rank >= Rank.JACK:
        return _court(card)
    parts = []
    for column, row in PIPS[int(rank)]:
        cx = _COLUMNS[column]
        cy = _TOP + (_BOTTOM - _TOP) * row
        parts.append(_suit(card.suit, cx, cy, 40, flip=row > 0.5))
    return "".join(parts)


def _court(card: Card) -> str:
    """A court card: a framed panel with a large letter between two suit symbols."""
    colour = _colour(card.suit)
    tint = "#fdf1f1" if colour == RED else "#eef2fb"
    letter = card.rank.letter
    cx, cy = WIDTH / 2, HEIGHT / 2
    return (
        f'<rect x="50" y="44" width="140" height="248" rx="10" fill="{tint}" '
        f'stroke="{colour}" stroke-width="3"/>'
        f'<rect x="58" y="52" width="124" height="232" rx="6" fill="none" '
        f'stroke="{colour}" stroke-width="1" opacity="0.5"/>'
        + _suit(card.suit, cx, 86, 42)
        + _suit(card.suit, cx, HEIGHT - 86, 42, flip=True)
        + f'<text x="{cx}" y="{cy + 32}" text-anchor="middle" font-family="{SERIF}" '
        f'font-size="92" font-weight="700">{letter}</text>'
    )


def card_svg(card: Card) -> str:
    """The SVG text of one card's face."""
    colour = _colour(card.suit)
    corner = _corner(card)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{card.label}">'
        f'<rect x="2" y="2" width="{WIDTH - 4}" height="{HEIGHT - 4}" rx="16" fill="#fffefb" '
        f'stroke="#b9b4a8" stroke-width="3"/>'
        f'<g fill="{colour}">{corner}'
        f'<g transform="rotate(180 {WIDTH / 2} {HEIGHT / 2})">{corner}</g>'
        f"{_centre(card)}</g></svg>\n"
    )


def back_svg() -> str:
    """The SVG text of the back of every card."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="a card">'
        '<defs><pattern id="p" width="20" height="20" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="20" height="20" fill="#1d3f8f"/>'
        '<path d="M0 10H20M10 0V20" stroke="#3f63b8" stroke-width="3"/></pattern></defs>'
        f'<rect x="2" y="2" width="{WIDTH - 4}" height="{HEIGHT - 4}" rx="16" fill="#fffefb" '
        'stroke="#b9b4a8" stroke-width="3"/>'
        f'<rect x="16" y="16" width="{WIDTH - 32}" height="{HEIGHT - 32}" rx="10" fill="url(#p)" '
        'stroke="#17306e" stroke-width="3"/>'
        f'<circle cx="{WIDTH / 2}" cy="{HEIGHT / 2}" r="38" fill="#fffefb" stroke="#17306e" '
        'stroke-width="4"/>'
        f'<text x="{WIDTH / 2}" y="{HEIGHT / 2 + 17}" text-anchor="middle" font-family="{SERIF}" '
        'font-size="50" font-weight="700" fill="#1d3f8f">K</text></svg>\n'
    )


def faces() -> dict[str, str]:
    """Every file of the card folder: name to SVG text."""
    files = {f"{card}.svg": card_svg(card) for card in DECK}
    files["back.svg"] = back_svg()
    return files


def write_cards(folder: Path = CARD_FOLDER) -> int:
    """Write the 53 files into ``folder``; returns how many."""
    folder.mkdir(parents=True, exist_ok=True)
    files = faces()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return len(files)


if __name__ == "__main__":
    count = write_cards(Path(sys.argv[1]) if len(sys.argv) > 1 else CARD_FOLDER)
    print(f"wrote {count} card files")
