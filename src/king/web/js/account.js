// The lobby's account bar: who this browser plays as (nobody yet, a guest, a registered
// player), logging in and out, and the one dialog that registers or logs in.  The
// session cookie is HttpOnly: the page knows the person only through /api/me.

import { api, ApiError, forgetAllTokens } from "./api.js";
import { accountErrorText, ratingBadge } from "./people.js";
import { t } from "./strings.js";

const $ = (id) => document.getElementById(id);

/** The latest /api/me answer ({account: null} until known). */
let me = { account: null };
/** "login" or "register": what the dialog does now. */
let mode = "login";
const listeners = [];

/** The account this browser plays as, or null. */
export function currentAccount() {
  return me.account;
}

/** Call `listener(account)` whenever the account changes (known, logged in or out). */
export function onAccountChange(listener) {
  listeners.push(listener);
}

function changed(answer) {
  me = answer && "account" in answer ? answer : { account: null };
  renderAccount();
  for (const listener of listeners) listener(me.account);
}

/** Ask the server who this is (again: after a table was created, a guest may exist). */
export async function refreshAccount() {
  try {
    changed(await api.me());
  } catch {
    renderAccount();
  }
}

/** Draw the bar for the account now (and again after a change of language). */
export function renderAccount() {
  const account = me.account;
  const registered = account !== null && account.kind !== "guest" && account.name !== null;
  const guest = account !== null && account.kind === "guest";
  const local = account?.kind === "local";
  $("account-bar").dataset.account = account === null ? "none" : account.kind;
  $("account-guest").hidden = !guest;
  $("account-me").hidden = !registered;
  $("btn-login").hidden = registered;
  $("btn-register").hidden = registered;
  $("btn-logout").hidden = !registered || local;
  const games = $("link-my-games");
  games.hidden = !registered;
  if (registered) {
    const link = $("account-name-link");
    // The local game's owner has no name of their own here: "on this computer".
    link.textContent = local ? t("account.local") : account.name;
    link.href = api.playerUrl(account.name);
    games.href = api.playerUrl(account.name);
    const rating = $("account-rating");
    const badge = ratingBadge(account.rating, account.provisional, "rating");
    rating.hidden = local && !account.rated_games; // no "?" before a first rated game
    rating.textContent = badge.textContent;
    rating.title = badge.title;
    rating.setAttribute("aria-label", `${t("rating.title")}: ${badge.textContent}`);
    rating.classList.toggle("provisional", badge.classList.contains("provisional"));
  }
  if ($("account-dialog").open) renderDialog();
}

function renderDialog() {
  const register = mode === "register";
  $("account-dialog").dataset.mode = mode;
  $("account-dialog-title").textContent = t(register ? "account.registerTitle" : "account.loginTitle");
  $("account-help").textContent = t(register ? "account.registerHelp" : "account.loginHelp");
  $("account-submit").textContent = t(register ? "account.register" : "account.login");
  $("account-switch").textContent = t(register ? "account.toLogin" : "account.toRegister");
  $("account-password").autocomplete = register ? "new-password" : "current-password";
}

function openDialog(wanted) {
  mode = wanted;
  const dialog = $("account-dialog");
  $("account-error").textContent = "";
  $("account-password").value = "";
  renderDialog();
  if (!dialog.open) dialog.showModal();
  $("account-name").focus();
}

async function submit(event) {
  event.preventDefault();
  const name = $("account-name").value.trim();
  const password = $("account-password").value;
  const error = $("account-error");
  if (!name || !password) {
    (name ? $("account-password") : $("account-name")).reportValidity();
    return;
  }
  const button = $("account-submit");
  button.disabled = true;
  error.textContent = "";
  try {
    const answer = mode === "register" ? await api.register(name, password) : await api.login(name, password);
    $("account-password").value = "";
    $("account-dialog").close();
    changed(answer);
  } catch (failure) {
    error.textContent = failure instanceof ApiError ? accountErrorText(failure) : String(failure);
    const field = failure.code?.startsWith("password") ? "account-password" : "account-name";
    $(field).focus();
  } finally {
    button.disabled = false;
  }
}

async function logout() {
  try {
    await api.logout();
  } catch {
    // the cookie is gone or the server is away: either way, draw the bar as signed out
  }
  forgetAllTokens();
  changed({ account: null });
}

/** Wire the bar and its dialog, and ask the server who this is. */
export async function installAccount() {
  $("btn-login").addEventListener("click", () => openDialog("login"));
  $("btn-register").addEventListener("click", () => openDialog("register"));
  $("btn-logout").addEventListener("click", logout);
  $("account-switch").addEventListener("click", () => {
    mode = mode === "register" ? "login" : "register";
    $("account-error").textContent = "";
    renderDialog();
  });
  $("account-cancel").addEventListener("click", () => $("account-dialog").close());
  $("account-form").addEventListener("submit", submit);
  await refreshAccount();
}
