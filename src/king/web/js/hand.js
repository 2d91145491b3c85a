// The person's hand: real card faces, legal cards raised, click/tap or keyboard to play.
// Each card is a button with data-card="QS" and data-legal="true|false".

import { cardImage, cardLabel } from "./cards.js";
import { language, t } from "./strings.js";

const hand = () => document.getElementById("hand");
// Whether the person plays with the keyboard: then focus follows their turn.
let keyboard = false;

/** What the hand was last drawn from: drawn again unchanged, every card's face and
 * shadow would be painted anew on each message of the table, for nothing. */
let drawn = ""; // (a new screen size lays the same cards out again: layout below)

/** Draw the hand; `onPlay(code)` is called when a card is chosen. */
export function renderHand(ctx, onPlay) {
  const box = hand();
  const state = ctx.state;
  const cards = state ? state.view.hand : [];
  const legal = new Set(state ? state.legal : []);
  const focused = document.activeElement?.dataset?.card ?? null;
  const hadFocus = box.contains(document.activeElement);
  box.classList.toggle("my-turn", legal.size > 0);
  box.classList.toggle("pending", ctx.pending);
  const drawing = JSON.stringify([cards, [...legal], ctx.chosen, language()]);
  if (drawing !== drawn) {
    arrange(box, buttonsOf(cards, legal, ctx.chosen, onPlay));
    drawn = drawing;
  }
  // Keep keyboard players where they were, or bring them to their first legal card.
  const again = focused && box.querySelector(`[data-card="${focused}"]`);
  if (again && hadFocus) {
    again.focus();
  } else if (legal.size > 0 && keyboard && (hadFocus || document.activeElement === document.body)) {
    box.querySelector('[data-legal="true"]')?.focus({ preventScroll: true });
  }
}

/** A button for each card, the legal ones marked (and the one chosen, to tap again). */
function buttonsOf(cards, legal, chosen, onPlay) {
  return cards.map((code) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "card";
    button.dataset.card = code;
    const playable = legal.has(code);
    button.dataset.legal = playable ? "true" : "false";
    if (playable && chosen === code) button.dataset.chosen = "true"; // tap again to play
    const label = cardLabel(code);
    button.setAttribute("aria-label", playable ? t("card.playable", { card: label }) : label);
    button.append(cardImage(code));
    button.addEventListener("click", () => onPlay(code));
    return button;
  });
}

/** The narrowest strip of a card a finger must be able to tap (CSS px). */
const TAP = 44;

/** Lay the cards out overlapping, in one row, or in two when one row would leave less
 * than a finger's width of each card in view (or hide the middle, where a tap lands). */
function arrange(box, buttons) {
  const width = box.clientWidth - 8;
  const card = cardWidth(box);
  const shown = Math.min(card, Math.max(card * 0.52, TAP));
  const fits = (n) => n < 2 || (width - card) / (n - 1) >= shown;
  const rows = fits(buttons.length) ? [buttons] : [buttons.slice(0, Math.ceil(buttons.length / 2)), buttons.slice(Math.ceil(buttons.length / 2))];
  const longest = Math.max(...rows.map((row) => row.length));
  const step = longest < 2 ? card : Math.min(Math.max(card * 0.78, shown), (width - card) / (longest - 1));
  box.style.setProperty("--step", `${Math.max(step, 10)}px`);
  box.replaceChildren(
    ...rows.map((row) => {
      const div = document.createElement("div");
      div.className = "hand-row";
      div.append(...row);
      return div;
    }),
  );
}

function cardWidth(box) {
  const probe = box.querySelector(".card");
  if (probe) return probe.getBoundingClientRect().width;
  const value = getComputedStyle(box).getPropertyValue("--card-w");
  const test = document.createElement("div");
  test.style.width = value || "80px";
  box.append(test);
  const measured = test.getBoundingClientRect().width;
  test.remove();
  return measured || 80;
}

/** Lay the hand out again for a new screen width. */
export function layout() {
  const box = hand();
  arrange(box, [...box.querySelectorAll(".card")]);
}

/** Whether the person is playing with the keyboard (then focus follows their turn). */
export function usingKeyboard() {
  return keyboard;
}

/** Arrow keys, Home and End move between the cards (Tab does too; Enter plays). */
export function installKeys() {
  const box = hand();
  document.addEventListener("keydown", (event) => {
    if (event.key === "Tab" || event.key.startsWith("Arrow") || event.key === "Enter") keyboard = true;
  });
  document.addEventListener("pointerdown", () => {
    keyboard = false;
  });
  box.addEventListener("keydown", (event) => {
    const cards = [...box.querySelectorAll(".card")];
    const index = cards.indexOf(document.activeElement);
    if (index < 0) return;
    let next = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") next = index + 1;
    if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = index - 1;
    if (event.key === "Home") next = 0;
    if (event.key === "End") next = cards.length - 1;
    if (next === null) return;
    event.preventDefault();
    cards[(next + cards.length) % cards.length].focus();
  });
  window.addEventListener("resize", layout);
}
