// What the pages about people share: ratings, numbers and days in the page's language,
// links to a player's page, and the words for a refused account request.

import { api } from "./api.js";
import { language, t } from "./strings.js";

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A rating as players read it: "1532", "1500?" while provisional, "?" before any. */
export function ratingText(rating, provisional) {
  if (rating === null || rating === undefined) return "?";
  return `${formatNumber(rating)}${provisional ? "?" : ""}`;
}

/** What a rating's "?" means, for its title (and screen readers). */
export function ratingTitle(rating, provisional) {
  if (rating === null || rating === undefined) return t("rating.none");
  return provisional ? t("rating.provisional") : t("rating.title");
}

/** A rating in a small element: the number, "?" while provisional, and its meaning. */
export function ratingBadge(rating, provisional, className = "rating") {
  const badge = el("span", className, ratingText(rating, provisional));
  badge.title = ratingTitle(rating, provisional);
  if (provisional || rating === null || rating === undefined) badge.classList.add("provisional");
  return badge;
}

/** Number formats by language and options, made once (the scores show on every
 * message of the table, and an Intl object costs far more to make than to use). */
const numberFormats = new Map();

/** A number in the page's language; `signed`: "+12", "−4". */
export function formatNumber(value, { signed = false, digits = 0 } = {}) {
  const grouped = Math.abs(value) >= 10000;
  const lang = language();
  const key = `${lang} ${signed} ${digits} ${grouped}`;
  if (!numberFormats.has(key)) {
    const options = {
      maximumFractionDigits: digits,
      minimumFractionDigits: 0,
      signDisplay: signed ? "exceptZero" : "auto",
      useGrouping: grouped,
    };
    numberFormats.set(key, new Intl.NumberFormat(lang, options));
  }
  return numberFormats.get(key).format(value);
}

/** A day (Unix seconds) in the page's language; `time`: with the hour. */
export function formatWhen(seconds, time = false) {
  const options = time ? { dateStyle: "medium", timeStyle: "short" } : { dateStyle: "medium" };
  return new Intl.DateTimeFormat(language(), options).format(new Date(seconds * 1000));
}

/** A link to a player's page (`ref`: a registered name or `bot:<spec>`). */
export function playerLink(ref, text, newTab = false) {
  const link = el("a", "player-link", text);
  link.href = api.playerUrl(ref);
  if (newTab) {
    link.target = "_blank";
    link.rel = "noopener";
  }
  return link;
}

/** The words for a refused account request (register, log in): the catalog's, or the
 * server's sentence when the code is not one the catalog knows. */
export function accountErrorText(error) {
  const key = `account.error.${error.code}`;
  if (t(key) !== key) return t(key);
  const known = `error.${error.code}`;
  if (t(known) !== known) return t(known, { message: error.message });
  return t("error.generic", { message: error.message });
}
