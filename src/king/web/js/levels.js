// The local game's level (king, for the person at this machine): asked once per local
// game, on its first visit (#dlg-level, with a way out: keep the level it plays), never at
// another table (a table for friends); remembered by the server beside the game, and
// changed from the menu (#btn-level) at the local game; a choice starts a new game
// against three computer players of that level (POST /api/local/game).  Elsewhere
// nothing shows.

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

/** Open the level dialog; a choice starts the new game and goes to it.  The first time
 * it is asked (``first``), the way out keeps the level the game plays now. */
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
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.id = "level-cancel";
  cancel.textContent = first ? t("level.keep", { level: botName(info.playing ?? "medium") }) : t("account.cancel");
  cancel.addEventListener("click", () => dialog.close());
  buttons.append(cancel);
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

/** Whether this local game has asked for the level already (chosen, or kept). */
function askedAt(table) {
  try {
    return window.localStorage.getItem(`king:level-asked:${table}`) !== null;
  } catch {
    return false;
  }
}

function noteAsked(table) {
  try {
    window.localStorage.setItem(`king:level-asked:${table}`, "1");
  } catch {
    // private browsing: asked again next time
  }
}

/** At the local game's own table: ask for the level once, and offer the menu's
 * #btn-level.  Nothing at any other table (a table for friends, a game watched). */
export async function installLevels(tableId) {
  let info;
  try {
    const me = await api.me();
    if (me.account?.kind !== "local") return; // not the local game's owner: nothing to ask
    info = await call("GET", "/api/local/game");
  } catch {
    return;
  }
  if (info.table !== tableId) return;
  const button = document.getElementById("btn-level");
  button.hidden = false;
  button.addEventListener("click", () => askLevel(info, false));
  if (info.ask && !askedAt(tableId)) {
    noteAsked(tableId);
    askLevel(info, true);
  }
}
