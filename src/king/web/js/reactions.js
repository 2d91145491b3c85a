// Quick reactions at a table of friends: a fixed set of phrases (king.table.messages.REACTIONS),
// each shown in the reader's own language, so there is nothing to moderate.  The ☺
// button (#btn-react) opens the set (#reactions, a button per [data-phrase]); what
// someone sends shows for a few seconds beside their seat (.reaction[data-seat]).

import { position } from "./cards.js";
import { seatName } from "./render.js";
import { t } from "./strings.js";

/** The phrases, in the order the picker shows them (as the server's REACTIONS). */
export const PHRASES = ["hello", "good-luck", "nice", "oops", "thinking", "thanks", "good-game"];

const SHOWN_MS = 3500;

/** Whether this page may send reactions: a person seated at a table of two or more people. */
function mayReact(ctx) {
  const people = ctx.table?.seats?.filter((seat) => seat.kind === "human").length ?? 0;
  return ctx.seat !== null && people >= 2 && !ctx.offline;
}

/** Show or hide the ☺ button as the table allows, and fill the picker. */
export function renderReactions(ctx) {
  const button = document.getElementById("btn-react");
  const picker = document.getElementById("reactions");
  button.hidden = !mayReact(ctx);
  if (button.hidden) picker.hidden = true;
  picker.replaceChildren(
    ...PHRASES.map((phrase) => {
      const choice = document.createElement("button");
      choice.type = "button";
      choice.dataset.phrase = phrase;
      choice.textContent = t(`reaction.${phrase}`);
      return choice;
    }),
  );
}

/** Wire the button and the picker: a choice is sent, and the picker closes. */
export function installReactions(send) {
  const button = document.getElementById("btn-react");
  const picker = document.getElementById("reactions");
  const setOpen = (open) => {
    picker.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
  };
  button.addEventListener("click", () => {
    setOpen(picker.hidden);
    if (!picker.hidden) picker.querySelector("button")?.focus();
  });
  picker.addEventListener("click", (event) => {
    const choice = event.target.closest("[data-phrase]");
    if (!choice) return;
    send({ type: "react", phrase: choice.dataset.phrase });
    setOpen(false);
    button.focus();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !picker.hidden) setOpen(false);
  });
}

/** Someone reacted: their phrase beside their seat, for a few seconds. */
export function showReaction(ctx, message) {
  if (!PHRASES.includes(message.phrase)) return;
  const seat = document.querySelector(`.seat[data-pos="${position(message.seat, ctx.me)}"]`);
  if (!seat) return;
  seat.querySelector(".reaction")?.remove();
  const bubble = document.createElement("div");
  bubble.className = "reaction";
  bubble.dataset.seat = String(message.seat);
  bubble.dataset.phrase = message.phrase;
  bubble.setAttribute("role", "status");
  bubble.textContent = t(`reaction.${message.phrase}`);
  bubble.title = seatName(ctx, message.seat);
  seat.append(bubble);
  window.setTimeout(() => bubble.remove(), SHOWN_MS);
}
