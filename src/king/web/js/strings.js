// The page's words: the message catalog of the chosen language (src/king/locales/<lang>/
// game.json and web.json, sent by the server), and the language itself.  Nothing here
// holds a word of its own: every string the page shows is a key of that catalog.
// Placeholders are written {name}; t() fills them in.

import { assetUrl, SITE_LANGUAGES, STATIC_SITE } from "./site.js";

const STORE_KEY = "king:lang";

let messages = {};
let languages = {};
let current = document.documentElement.lang || "en";
const listeners = [];

/** A language's plural rules, made once (an Intl object costs far more to make than
 * to ask, and t() is asked on every message of the table). */
const pluralRules = new Map();
function pluralOf(n) {
  if (!pluralRules.has(current)) pluralRules.set(current, new Intl.PluralRules(current));
  return pluralRules.get(current).select(n);
}

/**
 * The message `key` with its `{placeholders}` filled.  A count `n` picks the plural
 * form of the language (`key.one`, `key.other`, … by `Intl.PluralRules`), and
 * `you: true` the form whose subject is the person (`key.you`: "You take the trick").
 */
export function t(key, vars = {}) {
  let chosen = key;
  if (vars.you && `${key}.you` in messages) {
    chosen = `${key}.you`;
  } else if (typeof vars.n === "number" && `${key}.other` in messages) {
    const category = pluralOf(vars.n);
    chosen = `${key}.${category}` in messages ? `${key}.${category}` : `${key}.other`;
  }
  const text = messages[chosen] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

/** A bot as people name it: its level in this language ("Medium", for `medium` and for
 * `rule`, the level's engine: the catalog's `bot.<spec>` words, which the server derives
 * from the levels), "Random", else "Computer": never an engine's spec. */
export function botName(bot) {
  const spec = String(bot ?? "").trim().toLowerCase();
  const word = messages[`bot.${spec}`] ?? messages[`level.${spec}`];
  return word ?? t("level.computer");
}

/** The language shown now (a code: "en", "tr", …). */
export function language() {
  return current;
}

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function urlLanguage() {
  return new URLSearchParams(window.location.search).get("lang");
}

/** The first of ``wanted`` (codes or locales: "tr-TR") that the static site ships, else
 * English: a server makes this choice itself (GET /api/i18n). */
function siteLanguage(wanted) {
  for (const value of wanted) {
    const code = String(value ?? "").trim().toLowerCase().split(/[-_]/)[0];
    if (SITE_LANGUAGES.includes(code)) return code;
  }
  return "en";
}

/** Where the catalog of the first language of ``wanted`` is: the server's API, or the
 * static site's file of that language. */
function catalogUrl(wanted) {
  if (STATIC_SITE) return assetUrl(`i18n/${siteLanguage(wanted)}.json`);
  return `/api/i18n?lang=${encodeURIComponent(wanted.filter(Boolean).join(",").slice(0, 480))}`;
}

async function fetchCatalog(wanted) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      const response = await fetch(catalogUrl(wanted));
      if (response.ok) return await response.json();
    } catch {
      // the server is restarting: try again a little later
    }
    if (attempt >= 2) return null;
    await new Promise((resolve) => window.setTimeout(resolve, 500 * (attempt + 1)));
  }
}

function adopt(data) {
  if (!data) return;
  messages = data.messages;
  languages = data.languages;
  current = data.language;
  document.documentElement.lang = current;
}

/** Load the catalog of the language wanted most: the address's ?lang, then the one the
 * person chose before (remembered in this browser), then the browser's languages. */
export async function loadStrings() {
  const fromUrl = urlLanguage();
  const wanted = [fromUrl, storage()?.getItem(STORE_KEY), ...(navigator.languages ?? [navigator.language])];
  adopt(await fetchCatalog(wanted));
  if (fromUrl && fromUrl.toLowerCase().startsWith(current)) storage()?.setItem(STORE_KEY, current);
}

/** Switch the page to `code`, remember it, and tell every listener to draw again. */
export async function setLanguage(code) {
  const data = await fetchCatalog([code]);
  if (!data) return;
  adopt(data);
  storage()?.setItem(STORE_KEY, current);
  if (urlLanguage() !== null) {
    const url = new URL(window.location.href);
    url.searchParams.set("lang", current);
    window.history.replaceState(null, "", url.pathname + url.search + url.hash);
  }
  applyStrings();
  for (const listener of listeners) listener(current);
}

/** Call `listener(code)` after each change of language. */
export function onLanguageChange(listener) {
  listeners.push(listener);
}

/** Fill the language selector: each language named in itself, in its own `lang`. */
function fillLanguageSelect(select) {
  select.replaceChildren();
  for (const [code, name] of Object.entries(languages)) {
    const option = document.createElement("option");
    option.value = code;
    option.lang = code;
    option.textContent = name;
    select.append(option);
  }
  select.value = current;
}

/** Wire the page's language selector (`#lang-select`). */
export function installLanguageSelect() {
  const select = document.getElementById("lang-select");
  if (!select) return;
  fillLanguageSelect(select);
  select.addEventListener("change", () => setLanguage(select.value));
  onLanguageChange(() => fillLanguageSelect(select));
}

/** Fill every element with data-i18n (text) or data-i18n-label (aria-label/title). */
export function applyStrings(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-label]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nLabel));
    el.title = t(el.dataset.i18nLabel);
  }
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
}
