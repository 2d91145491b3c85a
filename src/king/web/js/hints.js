// Hints at a table created with them: the person to act asks (the Hint button, or H),
// and the engine's value of each legal card or declaration, worked out from their view
// alone, is written on it: ★ on the best, what each other one gives up against it.

import { t } from "./strings.js";

/** The position a hint belongs to: the deal, whether its contract is being declared,
 * and the cards played in it so far. */
function positionOf(state) {
  const view = state.view;
  const plays = view.tricks.reduce((n, trick) => n + trick.cards.length, 0) + view.trick.length;
  return `${view.deal}:${view.phase === "declaring" ? "declare" : "play"}:${plays}`;
}

function myTurn(ctx) {
  const state = ctx.state;
  if (!state || ctx.seat === null || state.view.to_act !== ctx.seat) return false;
  return state.legal.length > 0 || state.declarations.some((d) => d.allowed);
}

/** Show the Hint button (and the table's hints badge) as the table and the turn allow. */
export function renderHints(ctx) {
  const on = Boolean(ctx.table?.hints);
  const badge = document.getElementById("hints-badge");
  badge.hidden = !on;
  const button = document.getElementById("btn-hint");
  button.hidden = !(on && myTurn(ctx));
  button.disabled = ctx.hintAsked === positionOf(ctx.state ?? { view: { deal: -1, tricks: [], trick: [] } });
  if (ctx.hint && ctx.state && ctx.hint.position !== positionOf(ctx.state)) ctx.hint = null;
  decorate(ctx);
}

/** Ask for a hint at the position now (once per position). */
export function askHint(ctx, send) {
  if (!ctx.table?.hints || !myTurn(ctx)) return;
  const position = positionOf(ctx.state);
  if (ctx.hintAsked === position) return;
  if (send({ type: "hint" })) {
    ctx.hintAsked = position;
    renderHints(ctx);
  }
}

/** A hint arrived: keep it if it is for the position shown now. */
export function receiveHint(ctx, message) {
  const position = `${message.deal}:${message.kind}:${message.plays}`;
  if (!ctx.state || position !== positionOf(ctx.state)) return;
  ctx.hint = { ...message, position };
  renderHints(ctx);
}

function target(choice) {
  if (/^[2-9TJQKA][SHDC]$/.test(choice)) return document.querySelector(`#hand .card[data-card="${choice}"]`);
  const [contract, trump] = choice.split(" ");
  const selector = trump ? `[data-contract="${contract}"][data-trump="${trump}"]` : `[data-contract="${contract}"]:not([data-trump])`;
  return document.querySelector(`#declare button.choice${selector}`);
}

function decorate(ctx) {
  for (const old of document.querySelectorAll(".hint-mark")) old.remove();
  for (const marked of document.querySelectorAll("[data-hint-loss]")) {
    delete marked.dataset.hintLoss;
    delete marked.dataset.hintBest;
  }
  const hint = ctx.hint;
  if (!hint) return;
  for (const choice of hint.choices) {
    const node = target(choice.choice);
    if (!node) continue;
    const best = choice.choice === hint.best;
    node.dataset.hintLoss = choice.loss.toFixed(2);
    node.dataset.hintBest = best ? "true" : "false";
    const mark = document.createElement("span");
    mark.className = `hint-mark${best ? " best" : ""}`;
    mark.textContent = best ? "★" : `−${Math.round(choice.loss)}`;
    mark.title = t("hint.value", { value: choice.value.toFixed(1), loss: choice.loss.toFixed(1) });
    mark.setAttribute("aria-hidden", "true");
    node.append(mark);
  }
}
