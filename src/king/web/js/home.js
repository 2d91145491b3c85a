// The static site's home screen (king site; a server's is lobby.js): the game on this
// device (continue it, a new one against the computer at the level chosen here, Learn
// King, the analysis board of the game just over), the game kept for offline play at
// the first visit with its progress, and in words what a King server adds (tables with
// friends, accounts, ratings) and how to run one.  Nothing here asks a server.

import { showRules } from "./dialogs.js";
import { keepOffline, keepWhenInstalled, offlineStatus, registerServiceWorker } from "./offline/install.js";
import { readSaved } from "./offline/storage.js";
import { assetUrl, pageUrl } from "./site.js";
import { applyStrings, botName, installLanguageSelect, loadStrings, onLanguageChange, t } from "./strings.js";

const $ = (id) => document.getElementById(id);
/** The level this browser plays against (the server's home screen keeps the same). */
const LEVEL_KEY = "king:level";

/** The levels with their measured strength against Medium (levels.json). */
let levels = [];
/** Where keeping the game for offline stands: null, {done, total}, "kept", "failed". */
let keeping = null;

function storedLevel() {
  try {
    return window.localStorage.getItem(LEVEL_KEY);
  } catch {
    return null; // private browsing: Medium until chosen
  }
}

function chosenLevel() {
  const saved = storedLevel();
  return levels.some((level) => level.name === saved) ? saved : "medium";
}

function signed(value) {
  const rounded = Math.round(value);
  return rounded > 0 ? `+${rounded}` : rounded < 0 ? `−${-rounded}` : "0";
}

/** The level choice, and the links that start a game at it. */
function renderLevels() {
  const select = $("home-level");
  const current = chosenLevel();
  select.replaceChildren(
    ...levels.map((level) => {
      const option = document.createElement("option");
      option.value = level.name;
      option.textContent = botName(level.name);
      return option;
    }),
  );
  select.value = current;
  const level = levels.find((entry) => entry.name === current);
  const figure = level && level.vs_rule !== null && level.name !== "medium" ? t("level.figure", { points: signed(level.vs_rule), interval: Math.round(level.interval) }) : "";
  $("home-level-help").textContent = [t(`level.${current}.help`), figure].filter(Boolean).join(" · ");
  $("btn-play-computer").href = pageUrl("offline", `?bots=${current},${current},${current}`);
}

/** Continue the game kept on this device, or lay out the one just over. */
async function renderSaved() {
  const saved = await readSaved().catch(() => null);
  $("btn-continue").hidden = !saved || saved.over;
  $("btn-continue").href = pageUrl("offline");
  $("btn-board").hidden = !saved?.over;
  $("btn-board").href = pageUrl("board", "?offline");
}

function renderKeeping() {
  const help = $("offline-keep-help");
  help.dataset.state = keeping === null ? "" : typeof keeping === "string" ? keeping : "keeping";
  if (keeping === "kept") help.textContent = t("offline.kept");
  else if (keeping === "failed") help.textContent = t("offline.keepFailed");
  else if (keeping) help.textContent = t("offline.keeping", keeping);
  else help.textContent = "";
}

/** There is no server to come back to: the first visit keeps the whole game on this
 * device, saying how far it got. */
async function keepTheGame() {
  const status = await offlineStatus();
  if (!status) return; // no service worker (a private window, an old browser)
  if (!status.kept) {
    keeping = { done: 0, total: 1 };
    renderKeeping();
    const answer = await keepOffline((progress) => {
      keeping = { done: progress.done, total: progress.total };
      renderKeeping();
    });
    keeping = answer?.type === "kept" ? "kept" : "failed";
  } else {
    keeping = "kept";
  }
  renderKeeping();
}

async function loadLevels() {
  try {
    const response = await fetch(assetUrl("levels.json"));
    levels = response.ok ? await response.json() : [];
  } catch {
    levels = [];
  }
  if (!levels.length) levels = [{ name: "medium", vs_rule: 0, interval: 0 }];
}

async function main() {
  registerServiceWorker();
  keepWhenInstalled();
  await Promise.all([loadStrings(), loadLevels()]);
  applyStrings();
  installLanguageSelect();
  document.title = t("lobby.title");
  onLanguageChange(() => {
    document.title = t("lobby.title");
    renderLevels();
    renderKeeping();
    if ($("dlg-rules").open) showRules(null);
  });
  $("btn-rules").addEventListener("click", () => showRules(null));
  $("btn-learn").href = pageUrl("offline", "?learn");
  $("home-level").addEventListener("change", (event) => {
    try {
      window.localStorage.setItem(LEVEL_KEY, event.target.value);
    } catch {
      // private browsing: asked again next time
    }
    renderLevels();
  });
  renderLevels();
  await renderSaved();
  document.body.dataset.ready = "true"; // every link answers from now on
  await keepTheGame();
}

main();
