// Why a card or a declaration was refused, in the page's language: the server names the
// rule (a reason code and its details) and the catalog words it, as king.i18n's
// Translator does for the terminal.

import { cardLabel } from "./cards.js";
import { t } from "./strings.js";

/** Card codes separated by spaces ("QS KS AS") as names: "queen of spades, … or …". */
export function cardList(codes) {
  const names = (codes ?? "").split(" ").filter(Boolean).map(cardLabel);
  if (names.length <= 1) return names.join("");
  return t("list.or", { first: names.slice(0, -1).join(", "), last: names[names.length - 1] });
}

/** Why a card may not be played (a king.deal.why_illegal code and its details). */
export function illegalText(reason, params = {}) {
  return t(`illegal.${reason}`, {
    card: params.card ? cardLabel(params.card) : "",
    suit: params.suit ? t(`suit.${params.suit}`) : "",
    trump: params.trump ? t(`suit.${params.trump}`) : "",
    cards: cardList(params.cards),
  });
}

/** Why a declaration was refused (a king.game.Game.why_refused code and its details). */
export function refusedText(reason, params = {}) {
  return t(`refused.${reason}`, {
    times: params.times ?? "",
    contract: params.contract ? t(`contract.${params.contract}`) : "",
  });
}

/** The words for an `error` message about a move: the rule when the server named one. */
export function errorText(message) {
  if (message.code === "illegal" && message.reason) {
    const params = message.params ?? {};
    const explain = message.about === "declare" ? refusedText : illegalText;
    const key = `${message.about === "declare" ? "refused" : "illegal"}.${message.reason}`;
    if (t(key) !== key) return explain(message.reason, params);
  }
  const known = `error.${message.code}`;
  if (message.code === "illegal") return t("error.illegal", { message: message.message });
  if (t(known) !== known) return t(known, { message: message.message });
  return t("error.generic", { message: message.message });
}
