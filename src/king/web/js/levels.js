// The local game's level (king, for the person at this machine): asked once, on the
// first visit (#dlg-level), remembered by the server beside the game, and changed from
// the menu (#btn-level); a choice starts a new game against three computer players of
// that level (POST /api/local/game).  Elsewhere nothing shows.

import { api, call, saveToken } from "./api.js";
import { botName, t } from "./strings.js";

/** Each level's measured strength, from GET /api/bots. */
async function figures() {
  try {
    return Object.fromEntries((await api.bots()).filter((bot) => bot.level).map((bot) => [bot.name, bot]));
  } catch {
    return {};
  }
}

function signed(value) {
  const rounded = Math.round(value);
  return rounded > 0 ? `+${rounded}` : rounded < 0 ? `−${-rounded}` : "0";
}

function choice(level, measured, current) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = `level-choice${level === current ? " current" : ""}`;
  button.dataset.level = level;
  const name = document.createElement("strong");
  name.textContent = botName(level);
  const help = document.createElement("span");
  help.className = "small";
  const bot = measured[level];
  const figure = bot && bot.vs_rule !== null ? t("level.figure", { points: signed(bot.vs_rule), interval: Math.round(bot.interval) }) : "";
  help.textContent = [t(`level.${level}.help`), figure].filter(Boolean).join(" · ");
  button.append(name, help);
  return button;
}

/** Open the level dialog; a choice starts the new game and goes to it. */
async function askLevel(info, first) {
  const dialog = document.getElementById("dlg-level");
  const measured = await figures();
  dialog.replaceChildren();
  const title = document.createElement("h2");
  title.id = "dlg-level-title";
  title.textContent = t("level.choose");
  const help = document.createElement("p");
  help.className = "muted small";
  help.textContent = t(first ? "level.chooseFirst" : "level.chooseAgain");
  const list = document.createElement("div");
  list.className = "level-choices";
  list.append(...info.levels.map((level) => choice(level, measured, info.level)));
  const suggested = list.querySelector(`[data-level="${info.level ?? "medium"}"]`);
  if (suggested) suggested.autofocus = true; // the level now, or Medium for a newcomer
  const buttons = document.createElement("div");
  buttons.className = "dialog-buttons";
  if (!first) {
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.id = "level-cancel";
    cancel.textContent = t("account.cancel");
    cancel.addEventListener("click", () => dialog.close());
    buttons.append(cancel);
  }
  dialog.append(title, help, list, buttons);
  list.addEventListener("click", async (event) => {
    const button = event.target.closest("[data-level]");
    if (!button) return;
    const game = await call("POST", "/api/local/game", { level: button.dataset.level });
    saveToken(game.table, game.token);
    window.location.assign(`/t/${encodeURIComponent(game.table)}${window.location.search}`);
  });
  dialog.showModal();
  dialog.scrollTop = 0;
}

/** At the local game: ask for the level once, and offer the menu's #btn-level. */
export async function installLevels() {
  let info;
  try {
    const me = await api.me();
    if (me.account?.kind !== "local") return; // not the local game's owner: nothing to ask
    info = await call("GET", "/api/local/game");
  } catch {
    return;
  }
  const button = document.getElementById("btn-level");
  button.hidden = false;
  button.addEventListener("click", () => askLevel(info, false));
  if (info.ask) askLevel(info, true);
}
