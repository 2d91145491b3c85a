// The declarer's choice: the ten declarations, the disallowed ones greyed out with why.
// Each button carries data-contract="no-queens" (and data-trump="S" for Trumps).

import { suitMark } from "./cards.js";
import { el } from "./render.js";
import { t } from "./strings.js";

export function renderDeclare(ctx, onDeclare) {
  const box = document.getElementById("declare");
  const choices = ctx.state ? ctx.state.declarations : [];
  if (!choices.length || ctx.state.view.phase !== "declaring") {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const wasOpen = !box.hidden;
  box.hidden = false;
  box.replaceChildren();
  box.append(el("h2", "", t("declare.title")));
  const negatives = el("div", "choices negatives");
  const trumps = el("div", "choices trumps");
  for (const choice of choices) {
    const button = el("button", "choice");
    button.type = "button";
    button.dataset.contract = choice.contract;
    if (choice.trump) button.dataset.trump = choice.trump;
    button.disabled = !choice.allowed || ctx.pending;
    const title = el("span", "choice-title", t(`contract.${choice.contract}`));
    if (choice.trump) title.append(" ", suitMark(choice.trump));
    button.append(title);
    const why = choice.allowed ? t(`contract.hint.${choice.contract}`) : t(`declare.why.${choice.why}`);
    button.append(el("span", "choice-why", why));
    if (!choice.allowed) button.title = why;
    button.addEventListener("click", () => onDeclare(choice.contract, choice.trump));
    (choice.trump ? trumps : negatives).append(button);
  }
  box.append(el("h3", "", t("declare.negatives")), negatives, el("h3", "", t("declare.trumps")), trumps);
  if (!wasOpen) box.querySelector("button:not([disabled])")?.focus({ preventScroll: true });
}
