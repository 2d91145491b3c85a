// The home screen: the big choices first (continue your game, play against the computer,
// play with friends, join a table, learn King), then the open tables (named by their
// host: join, watch, copy an invite link), the finished games, and the custom table form.

import { currentAccount, installAccount, onAccountChange, renderAccount } from "./account.js";
import { api, ApiError, copyText, inviteLink, loadName, loadSite, loadToken, saveName, saveToken } from "./api.js";
import { showRules } from "./dialogs.js";
import { keepOffline, keepWhenInstalled, offlineManifest, offlineStatus, registerServiceWorker } from "./offline/install.js";
import { errorText } from "./reasons.js";
import { pageUrl } from "./site.js";
import { applyStrings, botName, installLanguageSelect, loadStrings, onLanguageChange, t } from "./strings.js";

const $ = (id) => document.getElementById(id);
let toastTimer = null;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function toast(text) {
  const box = $("toast");
  box.textContent = text;
  box.hidden = false;
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => {
    box.hidden = true;
  }, 3000);
}

function seatLabel(seat) {
  if (seat.kind === "bot") return t("table.bot", { bot: botName(seat.bot), n: seat.seat });
  if (seat.name && seat.guest) return t("table.guest", { name: seat.name });
  return seat.name ?? t("lobby.free");
}

function statusText(table) {
  if (table.status === "playing") return t("lobby.status.playing", { deal: table.deal + 1 });
  return t(`lobby.status.${table.status}`);
}

/** The person who opened the table (the first person seated), by whom people know it. */
function hostOf(table) {
  return table.seats.find((seat) => seat.kind === "human" && seat.name)?.name ?? null;
}

function tableItem(table, finished) {
  const item = el("li", "table-item");
  item.dataset.table = table.id;
  const head = el("div", "table-head");
  const host = hostOf(table);
  // One of this browser's own games is "your table", whatever name it sits under.
  const name = loadToken(table.id) ? t("lobby.yourTable") : host ? t("lobby.hostTable", { name: host }) : table.id;
  const title = el("strong", "table-name", name);
  title.title = table.id;
  head.append(title, el("span", "muted", statusText(table)));
  if (table.spectators) head.append(el("span", "muted", t("lobby.spectators", { n: table.spectators })));
  if (table.hints) head.append(el("span", "badge hints-badge", t("hint.on")));
  if (table.rated) head.append(el("span", "badge rated-badge", t("rated.badge")));
  const seats = el("ul", "seat-list");
  for (const seat of table.seats) {
    const entry = el("li", seat.claimed ? "" : "free", seatLabel(seat));
    seats.append(entry);
  }
  const actions = el("div", "table-actions");
  const free = table.seats.some((s) => !s.claimed);
  const link = (key, href, className = "button") => {
    const a = el("a", className, t(key));
    a.href = href;
    return a;
  };
  if (finished) {
    actions.append(link("lobby.view", `/t/${table.id}?watch`));
    actions.append(link("lobby.board", api.boardUrl(table.id)));
    const record = link("lobby.record", api.recordUrl(table.id));
    record.setAttribute("download", "");
    actions.append(record);
  } else {
    if (table.status === "waiting" && free) actions.append(link("lobby.join", `/t/${table.id}`, "button primary"));
    actions.append(link("lobby.watch", `/t/${table.id}?watch`));
    if (table.status === "waiting" && free) {
      const copy = el("button", "", t("lobby.copyInvite"));
      copy.type = "button";
      copy.className = "copy-invite";
      copy.addEventListener("click", async () => {
        const url = inviteLink(table.id);
        if (await copyText(url)) {
          toast(t("lobby.copied"));
        } else {
          const box = el("input", "invite-link");
          box.readOnly = true;
          box.setAttribute("aria-label", t("lobby.copyInvite"));
          box.value = url;
          actions.append(box);
          box.select();
          toast(t("lobby.copyFailed"));
        }
      });
      actions.append(copy);
    }
  }
  item.append(head, seats, actions);
  return item;
}

/** Whether the offline game's files are kept on this device (asked once). */
let kept = null;

async function refresh() {
  let lobby;
  try {
    lobby = await api.lobby();
    $("offline-unreachable").hidden = true;
  } catch {
    serverUnreachable();
    return;
  }
  // This browser's own unfinished games are under "Continue", not among the open tables
  // (but for one that waits for a friend: it is an invitation, with its link to copy).
  const waiting = (table) => table.status === "waiting" && table.seats.some((s) => !s.claimed);
  const others = lobby.open.filter((table) => !loadToken(table.id) || waiting(table));
  const open = $("open-tables");
  open.replaceChildren(...others.map((table) => tableItem(table, false)));
  if (!others.length) open.append(el("li", "muted", t("lobby.noOpen")));
  const done = $("finished-tables");
  done.replaceChildren(...lobby.finished.map((table) => tableItem(table, true)));
  if (!lobby.finished.length) done.append(el("li", "muted", t("lobby.noFinished")));
  showContinue(lobby.open);
  const joinable = lobby.open.filter((table) => table.status === "waiting" && table.seats.some((s) => !s.claimed));
  $("join-help").textContent = joinable.length ? t("home.joinOpen", { n: joinable.length }) : t("home.joinHelp");
}

/** "Continue your game": the latest unfinished table this browser holds a seat at, and
 * its other unfinished games below it. */
function showContinue(open) {
  const mine = open.filter((table) => loadToken(table.id) && table.status !== "closed");
  const button = $("btn-continue");
  button.hidden = !mine.length;
  const more = $("continue-more");
  more.replaceChildren();
  more.hidden = mine.length < 2;
  if (!mine.length) return;
  button.href = `/t/${mine[0].id}`;
  $("continue-help").textContent = gameLine(mine[0]);
  for (const table of mine.slice(1)) {
    const link = el("a", "continue-other", gameLine(table));
    link.href = `/t/${table.id}`;
    const item = el("li");
    item.append(link);
    more.append(item);
  }
}

/** A game as "Continue" names it: where it stands, and who plays in it. */
function gameLine(table) {
  const players = table.seats.filter((seat) => seat.claimed || seat.kind === "bot").map(seatLabel);
  return `${statusText(table)} · ${players.join(", ")}`;
}

/** The name a quick game is played under: the account's, the last one typed, or a
 * plain word for a newcomer (changeable in the custom table). */
function quickName() {
  const account = currentAccount();
  if (account?.kind === "player" && account.name) return account.name;
  return loadName() || t("home.defaultName");
}

/** Create a table from the home screen's choices and go to it (``then`` adds to its
 * address: ?learn for the lessons). */
async function quickTable(seats, { hints = false, rated = false, then = "", name = quickName() } = {}) {
  $("home-error").textContent = "";
  try {
    const claim = await api.create({ name, rules: "classic", seats: [{ kind: "human" }, ...seats], seat: 0, hints, rated });
    saveToken(claim.table, claim.token);
    window.location.assign(`/t/${claim.table}${then}`);
  } catch (error) {
    $("home-error").textContent = error instanceof ApiError ? errorText(error) : String(error);
  }
}

/** Play against the computer: the strongest computer players, rated for a registered
 * player (the ratings follow their games against the bots). */
function playComputer() {
  const bot = chosenLevel();
  const seats = [1, 2, 3].map(() => ({ kind: "bot", bot }));
  quickTable(seats, { rated: mayRate(currentAccount()) && ratedBot(bot) });
}

/** Play with friends: seats for one to three of them (computer players in the rest);
 * the table then shows its invitation link. */
function askFriends() {
  const dialog = $("dlg-friends");
  const account = currentAccount();
  // A registered player plays under their name; anyone else (the local game's owner
  // too, whom friends must not see as "You") says the name their friends will see.
  const registered = account?.kind === "player" && account.name;
  $("friends-name-label").hidden = Boolean(registered);
  $("friends-name").required = !registered;
  $("friends-name").value = registered ? account.name : loadName();
  $("friends-error").textContent = "";
  dialog.showModal();
}

async function createForFriends(event) {
  event.preventDefault();
  const name = $("friends-name").value.trim() || quickName();
  const count = Number($("friends-form").querySelector("input[name=friends]:checked")?.value ?? 3);
  const bot = chosenLevel();
  const seats = [1, 2, 3].map((n) => (n <= count ? { kind: "human" } : { kind: "bot", bot }));
  if (!$("friends-name-label").hidden) saveName(name);
  $("friends-create").disabled = true;
  await quickTable(seats, { name });
  $("friends-create").disabled = false;
  $("friends-error").textContent = $("home-error").textContent;
}

/** Learn King: a first game against the quick rule bots, with hints, whose page teaches
 * (learn.js: each lesson at its moment, skippable). */
function learn() {
  if (!$("offline-unreachable").hidden) {
    window.location.assign(pageUrl("offline", "?learn")); // no server: the lessons play on this device
    return;
  }
  const seats = [1, 2, 3].map(() => ({ kind: "bot", bot: "rule" }));
  quickTable(seats, { hints: true, then: "?learn" });
}

let bots = null;

async function buildSeatChoices() {
  if (bots === null) {
    try {
      bots = await api.bots();
    } catch {
      bots = [{ name: "rule" }, { name: "random" }];
    }
  }
  const box = $("seat-choices");
  const chosen = [...box.querySelectorAll("select")].map((select) => select.value);
  box.replaceChildren();
  const you = el("div", "seat-choice");
  you.append(el("span", "", t("lobby.seat", { n: 1 })), el("strong", "", t("lobby.seat.you")));
  box.append(you);
  for (let seat = 1; seat < 4; seat += 1) {
    const label = el("label", "seat-choice");
    label.append(el("span", "", t("lobby.seat", { n: seat + 1 })));
    const select = el("select");
    select.name = `seat${seat}`;
    select.id = `seat-${seat}`;
    const human = el("option", "", t("lobby.seat.human"));
    human.value = "human";
    select.append(human, ...botOptions());
    select.value = chosen[seat - 1] ?? `bot:${chosenLevel()}`;
    label.append(select);
    box.append(label);
  }
  applyRated();
  renderLevelChoice();
}

/** The levels, weakest first (as GET /api/bots marks them). */
function levels() {
  return (bots ?? []).filter((bot) => bot.level).sort((a, b) => a.strength - b.strength);
}

/** A seat's computer players: the levels by name (the engines and their settings are
 * for the command line and the API, not for a player's screen). */
function botOptions() {
  return levels().map((bot) => {
    const option = el("option", "", t("lobby.seat.bot", { bot: botName(bot.name) }));
    option.value = `bot:${bot.name}`;
    return option;
  });
}

const LEVEL_KEY = "king:level";

/** The level this browser plays against (remembered; Medium until chosen). */
function chosenLevel() {
  let saved = null;
  try {
    saved = window.localStorage.getItem(LEVEL_KEY);
  } catch {
    saved = null;
  }
  const known = levels().map((bot) => bot.name);
  if (saved && known.includes(saved)) return saved;
  return known.includes("medium") ? "medium" : (known[0] ?? bots?.[0]?.name ?? "rule");
}

function saveLevel(name) {
  try {
    window.localStorage.setItem(LEVEL_KEY, name);
  } catch {
    // private browsing: the level is asked for again next time
  }
}

/** The home screen's level: each with what it was measured at against Medium. */
function renderLevelChoice() {
  const select = $("home-level");
  const current = chosenLevel();
  select.replaceChildren(
    ...levels().map((bot) => {
      const option = el("option", "", botName(bot.name));
      option.value = bot.name;
      return option;
    }),
  );
  select.value = current;
  const bot = levels().find((entry) => entry.name === current);
  const figure = bot?.vs_rule === null || bot?.vs_rule === undefined ? "" : t("level.figure", { points: signed(bot.vs_rule), interval: Math.round(bot.interval) });
  $("home-level-help").textContent = [t(`level.${current}.help`), figure].filter(Boolean).join(" · ");
  // The offline game plays every level (the engine runs in the page).
  const offline = bot?.offline ? `?bots=${current},${current},${current}` : "";
  $("link-offline").href = pageUrl("offline", offline);
}

function signed(value) {
  const rounded = Math.round(value);
  return rounded > 0 ? `+${rounded}` : rounded < 0 ? `−${-rounded}` : "0";
}

/** Whether a bot may sit at a rated table (it has a measured rating: GET /api/bots). */
function ratedBot(name) {
  return Boolean(bots?.find((bot) => bot.name === name)?.rated);
}

/** Whether the account may create a rated table: a registered player. */
function mayRate(account) {
  // The local game's owner too: their games against the computer are rated on this
  // computer (its table shows the badge), with no login.
  return account !== null && (account.kind === "player" || account.kind === "local");
}

/** The form for the account now: a registered player sits under their own name and may
 * ask for a rated table; the local game's owner gives the name their friends see and
 * may ask for one too; anyone else gives a name and plays unrated. */
function formForAccount(account) {
  const name = $("create-name");
  const registered = account?.kind === "player" && account.name !== null;
  if (registered) {
    name.value = account.name;
    name.readOnly = true;
  } else if (name.readOnly) {
    name.readOnly = false;
    name.value = loadName();
  }
  const rated = $("create-rated");
  rated.disabled = !mayRate(account);
  if (rated.disabled) rated.checked = false;
  const help = $("create-rated-help");
  help.dataset.i18n = mayRate(account) ? "rated.createHelp" : "rated.needAccount";
  help.textContent = t(help.dataset.i18n);
  applyRated();
}

/** A rated table: no hints, and only the rated bots at their defaults. */
function applyRated() {
  const rated = $("create-rated").checked;
  const hints = $("create-hints");
  hints.disabled = rated;
  if (rated) hints.checked = false;
  for (let seat = 1; seat < 4; seat += 1) {
    const select = $(`seat-${seat}`);
    if (!select) continue;
    for (const option of select.options) {
      option.disabled = rated && option.value.startsWith("bot:") && !ratedBot(option.value.slice(4));
    }
    if (select.selectedOptions[0]?.disabled) {
      const house = [...select.options].find((option) => !option.disabled && option.value.startsWith("bot:"));
      select.value = house ? house.value : "human";
    }
  }
}

async function create(event) {
  event.preventDefault();
  const form = event.target;
  const name = $("create-name").value.trim();
  const seats = [{ kind: "human" }];
  for (let seat = 1; seat < 4; seat += 1) {
    const value = $(`seat-${seat}`).value;
    seats.push(value === "human" ? { kind: "human" } : { kind: "bot", bot: value.slice(4) });
  }
  $("create-error").textContent = "";
  form.querySelector("button[type=submit]").disabled = true;
  try {
    const hints = $("create-hints").checked;
    const rated = $("create-rated").checked;
    const claim = await api.create({ name, rules: $("create-rules").value, seats, seat: 0, hints, rated });
    if (!$("create-name").readOnly) saveName(name);
    saveToken(claim.table, claim.token);
    window.location.assign(`/t/${claim.table}`);
  } catch (error) {
    $("create-error").textContent = error instanceof ApiError ? errorText(error) : String(error);
    form.querySelector("button[type=submit]").disabled = false;
  }
}

/** The server cannot be reached: say so; with the offline game kept here, go and play it. */
async function serverUnreachable() {
  $("offline-unreachable").hidden = false;
  if (kept === null) kept = Boolean((await offlineStatus())?.kept);
  if (kept && !sessionStorage.getItem("king:stayInLobby")) {
    sessionStorage.setItem("king:stayInLobby", "1"); // once: the lobby link brings them back
    window.location.assign(pageUrl("offline"));
  }
}

/** "Play on your phone": the address a phone on the home network opens, and its QR code
 * (king --lan; a server's public address otherwise), or how to get one. */
async function showPhone() {
  const info = await loadSite();
  const url = info.phone_url;
  $("phone-help").textContent = t(url ? "phone.open" : "phone.noLan");
  const link = $("phone-url");
  link.textContent = url ?? "";
  link.href = url ?? "";
  link.hidden = !url;
  const image = $("phone-qr");
  image.hidden = !info.phone_qr;
  if (info.phone_qr) {
    image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(info.phone_qr)}`;
    image.alt = t("phone.qr", { url });
  }
  $("dlg-phone").showModal();
}

/** The lobby's offline panel: play on this device, and keep the game for offline use. */
async function installOffline() {
  const button = $("btn-keep");
  const help = $("offline-keep-help");
  if (!window.isSecureContext) {
    // Plain http at another device's address (king --lan): browsers keep a page for
    // offline play only from https or the computer itself; say so, and what does.
    button.hidden = true;
    help.textContent = t("offline.insecure");
    help.dataset.reason = "insecure";
    return;
  }
  const status = await offlineStatus();
  kept = Boolean(status?.kept);
  if (!status || status.kept) {
    button.hidden = true;
    help.textContent = status ? t("offline.kept") : "";
    return;
  }
  const manifest = await offlineManifest().catch(() => null);
  const mb = Math.round((manifest?.large_bytes ?? status.bytes ?? 0) / 1e6);
  help.textContent = t("offline.keepHelp", { mb });
  button.hidden = false;
  button.onclick = async () => {
    button.disabled = true;
    const answer = await keepOffline(({ done, total }) => {
      button.textContent = t("offline.keeping", { done, total });
    });
    button.disabled = false;
    button.textContent = t("offline.keep");
    if (answer?.type === "kept") {
      kept = true;
      button.hidden = true;
      help.textContent = t("offline.kept");
    } else {
      toast(t("offline.keepFailed"));
    }
  };
}

async function main() {
  registerServiceWorker();
  keepWhenInstalled();
  await loadStrings();
  applyStrings();
  installLanguageSelect();
  onLanguageChange(() => {
    document.title = t("lobby.title");
    renderAccount();
    if ($("dlg-rules").open) showRules(null);
    buildSeatChoices();
    refresh();
  });
  document.title = t("lobby.title");
  if (!$("create-name").value) $("create-name").value = loadName(); // never over what was typed
  $("create-form").addEventListener("submit", create);
  $("btn-rules").addEventListener("click", () => showRules(null));
  $("create-rated").addEventListener("change", applyRated);
  onAccountChange(formForAccount);
  installOffline();
  $("btn-phone").addEventListener("click", showPhone);
  $("btn-play-computer").addEventListener("click", playComputer);
  $("btn-play-friends").addEventListener("click", askFriends);
  $("friends-form").addEventListener("submit", createForFriends);
  $("friends-cancel").addEventListener("click", () => $("dlg-friends").close());
  $("btn-learn").addEventListener("click", learn);
  $("home-level").addEventListener("change", (event) => {
    saveLevel(event.target.value);
    renderLevelChoice();
  });
  $("phone-close").addEventListener("click", () => $("dlg-phone").close());
  document.body.dataset.ready = "true"; // every button answers from now on
  await Promise.all([installAccount(), buildSeatChoices(), loadSite()]);
  await refresh();
  window.setInterval(refresh, 4000);
}

main();
