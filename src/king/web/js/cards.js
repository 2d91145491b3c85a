// Card elements: the shipped SVG faces, names for screen readers, seat positions.

import { assetUrl } from "./site.js";
import { t } from "./strings.js";

export const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
export const RED_SUITS = new Set(["H", "D"]);

/** "queen of spades" for "QS" (or "10S"), in the page's language. */
export function cardLabel(code) {
  const rank = code.length === 3 ? "T" : code[0];
  return t("card.label", { rank: t(`rank.${rank}`), suit: t(`suit.${code[code.length - 1]}`) });
}

export function cardImage(code) {
  const img = document.createElement("img");
  img.src = assetUrl(`cards/${code}.svg`);
  img.alt = code === "back" ? "" : cardLabel(code);
  img.draggable = false;
  img.className = "card-face";
  return img;
}

/** A played card (not interactive). */
export function cardFace(code) {
  const div = document.createElement("div");
  div.className = "card";
  div.dataset.played = code;
  div.appendChild(cardImage(code));
  return div;
}

/** A suit: its symbol (a shape, coloured as on the cards), named for screen readers. */
export function suitMark(letter) {
  const span = document.createElement("span");
  span.className = `suit ${RED_SUITS.has(letter) ? "red" : "black"}`;
  span.textContent = SUIT_SYMBOLS[letter] ?? "";
  span.setAttribute("role", "img");
  span.setAttribute("aria-label", t(`suit.${letter}`));
  span.title = t(`suit.${letter}`);
  return span;
}

/** Where a seat sits on screen, seen from `me`: bottom, left, top or right. */
export const POSITIONS = ["bottom", "left", "top", "right"];
export function position(seat, me) {
  return POSITIONS[(seat - me + 4) % 4];
}

const RANKS = "AKQJT98765432";

/** Cards as players jot them down, by suit, highest first: "♥A K 10 ♠Q" (coloured as on
 * the cards, each card named for screen readers). */
export function cardGroups(codes) {
  const box = document.createElement("span");
  box.className = "card-groups";
  box.dataset.cards = codes.join(" ");
  for (const suit of ["S", "H", "D", "C"]) {
    const ranks = codes
      .filter((code) => code[code.length - 1] === suit)
      .map((code) => (code.length === 3 ? "T" : code[0]))
      .sort((a, b) => RANKS.indexOf(a) - RANKS.indexOf(b));
    if (!ranks.length) continue;
    const group = document.createElement("span");
    group.className = `card-group ${RED_SUITS.has(suit) ? "red" : "black"}`;
    group.textContent = SUIT_SYMBOLS[suit] + ranks.map((rank) => (rank === "T" ? "10" : rank)).join(" ");
    group.setAttribute("aria-hidden", "true");
    box.append(group);
  }
  const names = document.createElement("span");
  names.className = "visually-hidden";
  names.textContent = codes.map(cardLabel).join(", ");
  box.append(names);
  return box;
}
