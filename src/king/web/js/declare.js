// The declarer's choice: the ten declarations, the disallowed ones greyed out with why.
// Each button carries data-contract="no-queens" (and data-trump="S" for Trumps).

import { suitMark } from "./cards.js";
import { el } from "./render.js";
import { t } from "./strings.js";

export function renderDeclare(ctx, onDeclare) {
  const box = document.getElementById("declare");
  const choices = ctx.state ? ctx.state.declarations : [];
  // Never under a dialog: the panel shows once the dialog (a deal's summary) is closed.
  if (!choices.length || ctx.state.view.phase !== "declaring" || document.querySelector("dialog[open]")) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const wasOpen = !box.hidden;
  const focused = box.contains(document.activeElement) ? choiceKey(document.activeElement) : null;
  box.hidden = false;
  box.replaceChildren();
  box.append(el("h2", "", t("declare.title")));
  box.querySelector("h2").id = "declare-title";
  const negatives = el("div", "choices negatives");
  const trumps = el("div", "choices trumps");
  for (const choice of choices) {
    const button = el("button", "choice");
    button.type = "button";
    button.dataset.contract = choice.contract;
    if (choice.trump) button.dataset.trump = choice.trump;
    button.disabled = !choice.allowed || ctx.pending;
    const name = choice.trump
      ? t("declare.trumps.suit", { suit: t(`suit.${choice.trump}`) })
      : t(`contract.${choice.contract}`);
    button.setAttribute("aria-label", t("declare.action", { contract: name }));
    const title = el("span", "choice-title", t(`contract.${choice.contract}`));
    if (choice.trump) title.append(" ", suitMark(choice.trump), " ", el("span", "suit-name", t(`suit.${choice.trump}`)));
    button.append(title);
    const why = choice.allowed ? t(`contract.hint.${choice.contract}`) : t(`declare.why.${choice.why}`);
    const whyText = el("span", "choice-why", why);
    whyText.id = `why-${choice.contract}${choice.trump ? `-${choice.trump}` : ""}`;
    button.setAttribute("aria-describedby", whyText.id);
    button.append(whyText);
    if (!choice.allowed) button.title = why;
    button.addEventListener("click", () => onDeclare(choice.contract, choice.trump));
    (choice.trump ? trumps : negatives).append(button);
  }
  box.append(el("h3", "", t("declare.negatives")), negatives, el("h3", "", t("declare.trumps")), trumps);
  const again = focused && [...box.querySelectorAll("button.choice")].find((b) => choiceKey(b) === focused);
  if (again && !again.disabled) again.focus({ preventScroll: true });
  else if (!wasOpen || focused) box.querySelector("button:not([disabled])")?.focus({ preventScroll: true });
}

function choiceKey(button) {
  return `${button.dataset.contract ?? ""}:${button.dataset.trump ?? ""}`;
}

/** Arrow keys move between the choices (Tab does too; Enter or Space declares). */
export function installDeclareKeys() {
  const box = document.getElementById("declare");
  box.addEventListener("keydown", (event) => {
    const buttons = [...box.querySelectorAll("button.choice:not([disabled])")];
    const index = buttons.indexOf(document.activeElement);
    if (index < 0 || !buttons.length) return;
    let next = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") next = index + 1;
    if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = index - 1;
    if (event.key === "Home") next = 0;
    if (event.key === "End") next = buttons.length - 1;
    if (next === null) return;
    event.preventDefault();
    buttons[(next + buttons.length) % buttons.length].focus();
  });
}
