// The table page: connect to the table, apply each state the server sends in order
// (animating the cards as they are played), and send the person's choices.

import { api, ApiError, forgetToken, loadName, loadSite, loadSpeed, loadToken, saveName, saveSpeed, saveToken } from "./api.js";
import { Connection } from "./connection.js";
import { OfflineConnection } from "./offline/connection.js";
import { watchPreparing } from "./preparing.js";
import { learning, Lessons } from "./learn.js";
import { installLevels } from "./levels.js";
import { installReactions, renderReactions, showReaction } from "./reactions.js";
import { installSetting, setting } from "./settings.js";
import { sound, unlockSound } from "./sound.js";
import { cardLabel } from "./cards.js";
import { keepOffline, keepWhenInstalled, offlineManifest, offlineStatus, registerServiceWorker } from "./offline/install.js";
import { installDeclareKeys, renderDeclare } from "./declare.js";
import { askToJoin, showInvite, showLastTrick, showRules, showSheet, showSummary } from "./dialogs.js";
import { installKeys, renderHand, usingKeyboard } from "./hand.js";
import { askHint, receiveHint, renderHints } from "./hints.js";
import { errorText } from "./reasons.js";
import { onOfflinePage, pageUrl, STATIC_SITE } from "./site.js";
import {
  gatherTrick,
  renderContract,
  renderScores,
  renderSeats,
  renderTopbar,
  renderTrick,
  renderTurn,
  seatName,
} from "./render.js";
import { applyStrings, installLanguageSelect, loadStrings, onLanguageChange, t } from "./strings.js";

const tableId = decodeURIComponent(window.location.pathname.split("/").filter(Boolean).pop() ?? "");
const params = new URLSearchParams(window.location.search);
/** The game with no server: the table runs in a Web Worker (offline/worker.js). */
const offline = onOfflinePage();
/** The offline game's record is made by the worker, on demand (see downloadRecord). */
const recordUrl = () => (offline ? "#offline-record" : api.recordUrl(tableId));

/** What the page knows: the seat it plays (null: watching) and the latest messages. */
const ctx = {
  seat: null,
  me: 0,
  role: null,
  table: null,
  state: null,
  pending: false,
  /** The move sent last and not yet answered ({ move, seq, reconnected }): sent again
   * if the connection died with it and the state after reconnecting shows it unmade. */
  unanswered: null,
  pauseMs: 700,
  token: null,
  /** The bots' speed this person chose (remembered), and the table's (the slowest
   * anyone at the table chose: the server paces its bots by it). */
  speed: loadSpeed() ?? "normal",
  tableSpeed: "normal",
  /** The engine's hint for the position now (a table with hints), and the position
   * one was last asked at. */
  hint: null,
  hintAsked: null,
  /** The game runs in this page's worker, with no server (/offline). */
  offline: onOfflinePage(),
};
const queue = [];
/** Learn King's lessons (a table opened with ?learn), or null. */
const lessons = learning ? new Lessons() : null;
let pumping = false;
let connection = null;
let toastTimer = null;
/** The seat is now played on another device: nothing here reconnects. */
let replaced = false;

const sleep = (ms) => new Promise((resolve) => window.setTimeout(resolve, ms));

function toast(text) {
  const box = document.getElementById("toast");
  box.textContent = text;
  box.hidden = false;
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => {
    box.hidden = true;
  }, 3500);
}

function banner(text) {
  const box = document.getElementById("banner");
  box.textContent = text ?? "";
  box.hidden = !text;
}

// -- acting --------------------------------------------------------------------------

/** The person's move is on its way to the server (or no longer): the hand waits, and
 * <body data-busy> says the page has not settled until the answer is shown. */
function setPending(on) {
  ctx.pending = on;
  document.getElementById("hand").classList.toggle("pending", on);
  document.body.dataset.busy = String(on || pumping);
}

/** Play a card: at once, or (with "tap a card twice" on) once it has been chosen, a
 * first tap lifting it and saying so.  An illegal card goes at once: the table says
 * why it may not be played. */
function play(card) {
  if (ctx.pending || ctx.seat === null || replaced) return;
  const legal = ctx.state?.legal.includes(card);
  if (setting("confirm") && legal && ctx.chosen !== card) {
    ctx.chosen = card;
    renderHand(ctx, play);
    document.getElementById("turn").textContent = t("settings.confirmAgain", { card: cardLabel(card) });
    return;
  }
  ctx.chosen = null;
  if (send({ type: "play", card })) setPending(true);
}

function declare(contract, trump) {
  if (ctx.pending || ctx.seat === null || replaced) return;
  if (send({ type: "declare", contract, trump: trump ?? null })) {
    setPending(true);
    renderDeclare(ctx, declare);
  }
}

/** Send the person's move, kept until the state answers it. */
function send(move) {
  if (!connection.send(move)) return false;
  ctx.unanswered = { move, seq: ctx.state?.seq ?? null, reconnected: false };
  return true;
}

/** A move sent on a connection that died with it (its server killed, the table taken
 * over) is sent again, once, when the state after reconnecting shows it unmade: the
 * same position (seq), this seat to act, the move still allowed.  Returns whether. */
function resendUnanswered(message) {
  const sent = ctx.unanswered;
  ctx.unanswered = null;
  if (!sent || !sent.reconnected || message.seq !== sent.seq) return false;
  if (message.view.to_act !== ctx.seat) return false;
  const { move } = sent;
  const allowed =
    move.type === "play"
      ? message.legal.includes(move.card)
      : message.declarations.some((d) => d.allowed && d.contract === move.contract && (d.trump ?? null) === move.trump);
  if (!allowed || !connection.send(move)) return false;
  ctx.unanswered = { ...sent, reconnected: false };
  return true;
}

/** This page's query for the next game: the lessons were this game's. */
function queryAfterThisGame() {
  const search = new URLSearchParams(window.location.search);
  search.delete("learn");
  const query = search.toString();
  return query ? `?${query}` : "";
}

/** The same seats, new deals: take this seat at the next table and go there. */
async function playAgain() {
  if (offline) {
    await connection.newGame();
    window.location.assign(pageUrl("offline", queryAfterThisGame()));
    return;
  }
  if (!ctx.token) return;
  try {
    const claim = await api.again(tableId, ctx.token);
    saveToken(claim.table, claim.token);
    window.location.assign(`/t/${encodeURIComponent(claim.table)}${queryAfterThisGame()}`);
  } catch (error) {
    toast(error instanceof ApiError ? errorText(error) : String(error));
  }
}

// -- drawing -------------------------------------------------------------------------

function renderAll() {
  renderTopbar(ctx);
  renderContract(ctx);
  renderSeats(ctx);
  renderTurn(ctx);
  renderScores(ctx);
  renderHand(ctx, play);
  renderDeclare(ctx, declare);
  renderHints(ctx);
  renderReactions(ctx);
  renderWaiting();
  const over = ctx.state?.view.phase === "over";
  const closed = ctx.table?.status === "closed";
  if (closed) banner(t("table.closed"));
  if (replaced) banner(t("table.replaced"));
  const record = document.getElementById("btn-record");
  record.hidden = !(over || closed);
  record.href = recordUrl();
  record.setAttribute("download", "");
  const free = ctx.table ? ctx.table.seats.filter((s) => !s.claimed).length : 0;
  document.getElementById("btn-invite").hidden = !(ctx.table?.status === "waiting" && free > 0);
  document.getElementById("badge-rated").hidden = !ctx.table?.rated;
  // A static site has no other game to tell this one from.
  document.getElementById("badge-offline").hidden = !offline || STATIC_SITE;
  document.getElementById("link-offline").hidden = offline;
  const turn = ctx.state && ctx.seat !== null && ctx.state.view.to_act === ctx.seat;
  document.title = `${turn ? "● " : ""}${t("table.title", { id: tableId })}`;
}

function renderWaiting() {
  const box = document.getElementById("waiting");
  const table = ctx.table;
  if (!table || table.status !== "waiting") {
    box.hidden = true;
    return;
  }
  const free = table.seats.filter((s) => !s.claimed).length;
  box.hidden = false;
  box.replaceChildren();
  const text = document.createElement("p");
  text.textContent = t("table.waiting", { n: free });
  const button = document.createElement("button");
  button.type = "button";
  button.className = "primary";
  button.textContent = t("table.invite");
  button.addEventListener("click", () => showInvite(tableId, toast));
  box.append(text, button);
}

/** How long a card takes to arrive, the shortest a finished trick stays, and the
 * seconds a deal's summary stays open before the next deal comes by itself, by speed. */
const PACES = {
  fast: { arrive: 180, hold: 450, summary: 8 },
  normal: { arrive: 260, hold: 900, summary: 12 },
  slow: { arrive: 340, hold: 1600, summary: 20 },
};

/** Whether the person asked for no motion (cards then appear without arriving). */
const REDUCED_MOTION = window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** How long cards stay on the table: paced like the server's bots (whose pause is the
 * table's speed at work), and never faster than the table's speed.  With no pause at
 * all (a server told to play at once) a card shows as soon as it is played when
 * nothing animates its arrival; a finished trick still stays a moment. */
function timing() {
  const pause = ctx.pauseMs;
  const pace = PACES[ctx.tableSpeed] ?? PACES.normal;
  if (pause <= 0) return { arrive: REDUCED_MOTION ? 0 : 60, hold: 150, summary: pace.summary };
  return { arrive: pace.arrive, hold: Math.max(pace.hold, pause * 1.6), summary: pace.summary };
}

/** The ☰ menu of a narrow screen (Rules, bot speed, language): opens under its button,
 * closes on a choice, on Esc, or on a tap elsewhere. */
function installMenu() {
  const button = document.getElementById("btn-more");
  const menu = document.getElementById("more");
  const setOpen = (open) => {
    menu.classList.toggle("open", open);
    button.setAttribute("aria-expanded", String(open));
  };
  button.addEventListener("click", () => {
    const open = !menu.classList.contains("open");
    setOpen(open);
    if (open) menu.querySelector("button, select")?.focus();
  });
  menu.addEventListener("click", (event) => {
    if (event.target.closest("button, a")) setOpen(false);
  });
  menu.addEventListener("change", () => setOpen(false));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && menu.classList.contains("open")) {
      setOpen(false);
      button.focus();
    }
  });
  document.addEventListener("pointerdown", (event) => {
    if (!menu.contains(event.target) && !button.contains(event.target)) setOpen(false);
  });
}

/** The person chose a speed: remember it and tell the table. */
function chooseSpeed(speed) {
  ctx.speed = speed;
  saveSpeed(speed);
  connection?.send({ type: "speed", speed });
  renderSpeed();
}

/** The speed select shows the person's choice; its title says when someone at the
 * table asked for a slower one (the bots then move at theirs). */
function renderSpeed() {
  const select = document.getElementById("speed-select");
  select.value = ctx.speed;
  const slower = ctx.tableSpeed !== ctx.speed && PACES[ctx.tableSpeed].hold > PACES[ctx.speed].hold;
  select.title = slower
    ? t("speed.slower", { speed: t(`speed.${ctx.tableSpeed}`) })
    : t("speed.title");
  select.closest(".speed-picker").dataset.tableSpeed = ctx.tableSpeed;
}

/** How long a finished trick takes to sweep to the seat that took it. */
const GATHER_MS = REDUCED_MOTION ? 0 : 320;

/**
 * The end of a deal, in the order a person follows it: the last trick stays on the felt
 * with who took it, then the deal's summary; only when it is closed (or after
 * a few seconds: timing().summary) does anything of the next deal show: its number, hand, totals and
 * declaration.  The last deal ends in the final score sheet the same way.
 */
async function endOfDeal(message, hurry) {
  const { arrive, hold } = timing();
  const event = message.event;
  const trick = message.last_trick;
  const before = ctx.state;
  if (before) {
    // The finished deal as it stands after its last card: nothing of the next one yet
    // (what each player took is the finished deal's, the last trick included), and its
    // numbers final, as the summary shows them: the deal's points, the new totals.
    const result = message.view.results[message.view.results.length - 1];
    const view = {
      ...before.view,
      hand: before.view.hand.filter((c) => c !== event.card),
      to_act: null,
      trick: [],
      points: result ? result.points : before.view.points,
      totals: message.view.totals,
      tricks_won: message.taken?.tricks ?? before.view.tricks_won,
    };
    ctx.state = { ...before, view, legal: [], declarations: [], taken: message.taken };
  }
  setPending(false);
  renderAll();
  sound(trick?.winner === ctx.seat ? "trick" : "card");
  if (trick) {
    const cards = trick.cards.map((card, i) => ({ seat: (trick.leader + i) % 4, card }));
    renderTrick(ctx, cards, { arriving: event.card, winner: trick.winner });
    document.getElementById("turn").textContent = t("table.trickWon", { name: seatName(ctx, trick.winner), you: trick.winner === ctx.seat });
    await sleep(hurry ? arrive : arrive + hold);
    gatherTrick(ctx, trick.winner);
    await sleep(GATHER_MS);
  }
  document.body.dataset.dealEnd = String(message.view.results.length);
  if (message.view.phase === "over") {
    ctx.state = message;
    renderAll();
    renderTrick(ctx, []);
    showSheet(ctx, recordUrl(), playAgain);
    return;
  }
  await summarySeen(message, hurry);
  ctx.state = message;
  renderAll();
  renderTrick(ctx, message.view.trick);
}

/** The state whose deal the open summary shows (to redraw it in another language). */
let summaryState = null;

/** Show the summary of the deal just finished; resolves once it is closed. */
function summarySeen(message, hurry) {
  const dialog = document.getElementById("dlg-summary");
  summaryState = message;
  return new Promise((resolve) => {
    // A spectator far behind (catching up) sees each summary for a moment only; a
    // player always gets the whole time.
    let left = hurry && ctx.seat === null ? 0 : timing().summary;
    const tick = () => {
      const note = document.getElementById("summary-auto");
      if (note) note.textContent = t("summary.auto", { n: left });
      left -= 1;
      if (left < 0) dialog.close();
    };
    const timer = window.setInterval(tick, 1000);
    dialog.addEventListener(
      "close",
      () => {
        window.clearInterval(timer);
        summaryState = null;
        resolve();
      },
      { once: true },
    );
    showSummary(ctx, message);
    tick();
  });
}

async function applyState(message, hurry) {
  if (message.event && message.event.deal_over && message.event.kind === "play") {
    await endOfDeal(message, hurry);
    return;
  }
  const myTurnBefore = ctx.state?.view.to_act === ctx.seat;
  ctx.state = message;
  ctx.chosen = null;
  setPending(resendUnanswered(message));
  const event = message.event;
  const { arrive, hold } = timing();
  renderAll();
  playSounds(message, myTurnBefore);
  const view = message.view;
  if (event && event.kind === "play" && !hurry) {
    if (event.winner !== null && message.last_trick) {
      const trick = message.last_trick;
      const cards = trick.cards.map((card, i) => ({ seat: (trick.leader + i) % 4, card }));
      renderTrick(ctx, cards, { arriving: event.card, winner: trick.winner });
      document.getElementById("turn").textContent = t("table.trickWon", {
        name: seatName(ctx, trick.winner),
        you: trick.winner === ctx.seat,
      });
      await sleep(arrive + hold);
      gatherTrick(ctx, trick.winner);
      await sleep(GATHER_MS);
      renderTurn(ctx);
    } else {
      renderTrick(ctx, view.trick, { arriving: event.card });
      await sleep(arrive);
    }
  }
  renderTrick(ctx, view.trick);
  if (event && event.kind === "resume" && view.phase === "over") {
    showSheet(ctx, recordUrl(), playAgain);
  }
}

/** The sounds of a state (when the person has turned them on): a card, a trick the
 * person took, their turn coming. */
function playSounds(message, myTurnBefore) {
  const event = message.event;
  if (event?.kind === "play") sound(event.winner !== null && event.winner === ctx.seat ? "trick" : "card");
  const mine = ctx.seat !== null && message.view.to_act === ctx.seat;
  if (mine && !myTurnBefore) window.setTimeout(() => sound("turn"), 250);
}

// The page marks <body data-busy data-seq> so that tests can wait for it to settle.
async function pump() {
  if (pumping) return;
  pumping = true;
  document.body.dataset.busy = "true";
  try {
    while (queue.length) {
      const message = queue.shift();
      await applyState(message, queue.length > 6);
      if (lessons) await lessons.teach(ctx, message); // the page waits while one is open
      document.body.dataset.seq = String(message.seq);
    }
  } finally {
    pumping = false;
    document.body.dataset.busy = String(ctx.pending);
  }
}

// -- the conversation ----------------------------------------------------------------

function onMessage(message) {
  switch (message.type) {
    case "welcome":
      ctx.role = message.role;
      ctx.seat = message.seat;
      ctx.me = message.seat ?? 0;
      ctx.table = message.table;
      ctx.tableReceived = Date.now(); // the seats' stand_in_in count from here
      ctx.pauseMs = message.bot_pause_ms;
      ctx.tableSpeed = message.speed ?? "normal";
      queue.length = 0;
      if (ctx.unanswered) ctx.unanswered.reconnected = true;
      if (loadSpeed()) connection.send({ type: "speed", speed: ctx.speed });
      renderSpeed();
      document.body.classList.toggle("spectator", message.role === "spectator");
      if (message.role === "spectator") toast(t("table.spectating"));
      renderAll();
      break;
    case "pace":
      ctx.pauseMs = message.bot_pause_ms;
      ctx.tableSpeed = message.speed;
      renderSpeed();
      break;
    case "table":
      ctx.table = message.table;
      ctx.tableReceived = Date.now();
      if (!pumping) {
        renderAll();
      } else {
        renderSeats(ctx); // who is here or away shows at once, even mid-animation
        renderTurn(ctx);
      }
      break;
    case "state":
      message.received = Date.now(); // the clock's due_in counts from here
      queue.push(message);
      pump();
      break;
    case "hint":
      receiveHint(ctx, message);
      break;
    case "reaction":
      showReaction(ctx, message);
      break;
    case "error":
      onError(message);
      break;
    default:
      break;
  }
}

function onError(message) {
  if (message.about === "hint") {
    ctx.hintAsked = null;
    toast(errorText(message));
    renderHints(ctx);
    return;
  }
  setPending(false);
  ctx.unanswered = null; // answered: the person was told why it was not made
  if (message.code === "bad_token") {
    forgetToken(tableId);
    ctx.token = null;
    toast(t("error.bad_token"));
    connection.close();
    connect();
    return;
  }
  if (message.code === "unavailable") {
    // The server could not write the move (its database is restarting): it closes the
    // connection, and the page says it is reconnecting, as for any lost connection.
    banner(t("table.reconnecting"));
    toast(errorText(message));
    return;
  }
  if (message.code === "not_found") {
    banner(t("table.noSuchTable"));
    return;
  }
  if (message.code === "replaced") {
    // The account took this seat back on another device: this page only watches what
    // it last saw, and does not connect again (it would take the seat back from there).
    replaced = true;
    forgetToken(tableId);
    ctx.token = null;
    connection.close();
    banner(t("table.replaced"));
    document.getElementById("banner").dataset.code = "replaced";
    document.body.dataset.replaced = "true";
    return;
  }
  toast(errorText(message));
  if (!pumping) renderAll();
}

/** Bring a keyboard player to what they must do now: a contract or a legal card. */
function focusTurn() {
  if (!usingKeyboard() || document.querySelector("dialog[open]")) return;
  const target =
    document.querySelector("#declare:not([hidden]) button.choice:not([disabled])") ??
    document.querySelector('#hand .card[data-legal="true"]');
  target?.focus({ preventScroll: true });
}

/** Draw everything again in a newly chosen language (open dialogs included). */
function redraw() {
  renderAll();
  renderSpeed();
  if (ctx.state && !pumping) renderTrick(ctx, ctx.state.view.trick);
  if (document.getElementById("dlg-summary").open) showSummary(ctx, summaryState ?? ctx.state);
  if (document.getElementById("dlg-sheet").open) showSheet(ctx, recordUrl(), playAgain);
  if (document.getElementById("dlg-last").open) showLastTrick(ctx);
  if (document.getElementById("dlg-invite").open) showInvite(tableId, toast);
  if (document.getElementById("dlg-rules").open) showRules(ctx.table);
}

/** What the offline table's worker says while it starts, and when a saved game cannot
 * go on. */
/** The saved game goes on: say so, or that a newer version waits for the next game
 * (the game's build is older than the page's, or than the service worker's now). */
async function sayResumed(news) {
  const status = news.newer || updateWaiting ? null : await offlineStatus().catch(() => null);
  const newer = news.newer || updateWaiting || (status?.build && status.build !== news.build);
  toast(t(newer ? "offline.update" : "offline.resumed"));
}

/** A newer version taking over this page while its game goes on starts with the next
 * game: say so (listening from the page's first moment, so as not to miss it; a page's
 * first service worker taking it over is no news). */
function installUpdateNotice() {
  const before = navigator.serviceWorker?.controller;
  navigator.serviceWorker?.addEventListener("controllerchange", () => {
    if (!before || !offline) return;
    updateWaiting = true; // said again if the saved game's news comes after
    toast(t("offline.update"));
  });
}

function onOffline(news) {
  document.body.dataset.offline = news.kind;
  if (news.kind === "progress") banner(t(`offline.loading.${news.step}`));
  if (news.kind === "ready") {
    banner(null);
    document.body.dataset.offlineMs = String(news.ms);
    document.body.dataset.offlineBuild = news.build;
    if (news.wasmBytes) document.body.dataset.offlineMemory = String(news.wasmBytes);
    if (news.resumed) sayResumed(news);
  }
  if (news.kind === "failed") banner(t("offline.failed", { error: news.error }));
  if (news.kind === "busy") banner(t("offline.busy"));
  if (news.kind === "unsaved") toast(t("offline.unsaved"));
  if (news.kind === "refused") showRefusedGame(t(`offline.saved.${news.code}`));
}

/** A saved game that cannot go on: say why, and offer a new one. */
function showRefusedGame(sentence) {
  banner(null);
  const box = document.getElementById("waiting");
  box.hidden = false;
  box.replaceChildren();
  const text = document.createElement("p");
  text.id = "offline-refused";
  text.textContent = `${sentence} ${t("offline.refused")}`;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "primary";
  button.id = "btn-offline-new";
  button.textContent = t("offline.newGame");
  button.addEventListener("click", playAgain);
  box.append(text, button);
}

/** The offline game's options: the bots and rules of the address (?bots=rule,random,rule
 * &rules=classic&bot_pause=0.7&hints=1; Learn King has hints), the person's name, and
 * the build's manifest. */
function offlineOptions(manifest) {
  const bots = (params.get("bots") ?? "rule,rule,rule").split(",").slice(0, 3);
  const pause = Number.parseFloat(params.get("bot_pause") ?? "0.7");
  return {
    manifest,
    bots: bots.length === 3 ? bots : ["rule", "rule", "rule"],
    rules: params.get("rules") ?? "classic",
    name: loadName() || t("table.you"),
    botPause: Number.isFinite(pause) && pause >= 0 && pause <= 10 ? pause : 0.7,
    hints: params.get("hints") === "1" || params.has("learn"),
  };
}

/** Download the offline game's record (made by the worker) as a file. */
async function downloadRecord() {
  const text = await connection.record();
  if (!text) return;
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = `king-offline-${new Date().toISOString().slice(0, 10)}.json`;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** Whether a newer version took over while this game goes on (it starts next game). */
let updateWaiting = false;

async function connectOffline() {
  ctx.token = "offline";
  banner(t("offline.loading.runtime"));
  let manifest;
  try {
    manifest = await offlineManifest();
  } catch {
    banner(t("offline.unavailable"));
    return;
  }
  connection = new OfflineConnection(() => ({ type: "hello", token: ctx.token }), { onMessage, onStatus: () => {}, onOffline }, offlineOptions(manifest));
  connection.open();
  document.addEventListener("click", (event) => {
    const link = event.target.closest?.('a[href="#offline-record"]');
    if (!link) return;
    event.preventDefault();
    downloadRecord();
  });
  renderKeep();
}

/** On the offline game: keep it for offline use (the button goes once it is kept). */
async function renderKeep() {
  const button = document.getElementById("btn-keep");
  const status = await offlineStatus();
  if (!status || status.kept) return;
  if (STATIC_SITE) return; // kept at once (offline/install.js): no server to come back to
  button.hidden = false;
  button.addEventListener("click", async () => {
    button.disabled = true;
    const answer = await keepOffline(({ done, total }) => {
      button.textContent = t("offline.keeping", { done, total });
    });
    button.hidden = answer?.type === "kept";
    if (answer?.type === "kept") toast(t("offline.kept"));
    else toast(t("offline.keepFailed"));
    button.disabled = false;
  });
}

/** The server has been out of reach for a while: offer the game on this device. */
let unreachableTimer = null;
function offerOffline(status) {
  window.clearTimeout(unreachableTimer);
  const note = document.getElementById("offline-unreachable");
  if (status !== "reconnecting") {
    note.hidden = true;
    return;
  }
  unreachableTimer = window.setTimeout(() => {
    note.hidden = replaced;
  }, 5000);
}

function connect() {
  if (offline) {
    connectOffline();
    return;
  }
  connection = new Connection(
    tableId,
    () => (ctx.token ? { type: "hello", token: ctx.token } : { type: "watch" }),
    {
      onMessage,
      onStatus: (status) => {
        if (!replaced) banner(status === "reconnecting" ? t("table.reconnecting") : null);
        offerOffline(status);
      },
    },
  );
  connection.open();
}

async function join() {
  let info;
  try {
    info = await api.table(tableId);
  } catch (error) {
    banner(error instanceof ApiError && error.code === "not_found" ? t("table.noSuchTable") : t("error.network"));
    return false;
  }
  const free = info.seats.some((s) => s.kind === "human" && !s.claimed);
  if (info.status !== "waiting" || !free) return true;
  const account = (await api.me().catch(() => ({ account: null }))).account;
  for (;;) {
    const choice = await askToJoin(ctx, info, account);
    if (choice === null) return true;
    try {
      const claim = await api.join(tableId, choice.name, choice.seat);
      if (!account || account.kind === "guest") saveName(choice.name);
      saveToken(tableId, claim.token);
      ctx.token = claim.token;
      return true;
    } catch (error) {
      toast(error instanceof ApiError ? errorText(error) : String(error));
      info = await api.table(tableId);
    }
  }
}

async function main() {
  installUpdateNotice();
  registerServiceWorker();
  keepWhenInstalled();
  document.body.classList.toggle("offline-game", offline);
  await loadStrings();
  if (!offline) await loadSite();
  applyStrings();
  installLanguageSelect();
  onLanguageChange(redraw);
  installKeys();
  installDeclareKeys();
  document.getElementById("dlg-summary").addEventListener("close", () => window.setTimeout(focusTurn, 0));
  // The declaration panel never opens under a dialog: it shows again once they close.
  for (const dialog of document.querySelectorAll("dialog")) {
    dialog.addEventListener("close", () => {
      if (!pumping) renderAll();
    });
  }
  document.querySelector(".skip-link").addEventListener("click", (event) => {
    event.preventDefault();
    const target =
      document.querySelector('#hand .card[data-legal="true"]') ??
      document.querySelector("#hand .card") ??
      document.getElementById("hand");
    target.focus();
  });
  document.getElementById("btn-last").addEventListener("click", () => showLastTrick(ctx));
  document.getElementById("btn-sheet").addEventListener("click", () => showSheet(ctx, recordUrl(), playAgain));
  document.getElementById("btn-invite").addEventListener("click", () => showInvite(tableId, toast));
  document.getElementById("btn-rules").addEventListener("click", () => showRules(ctx.table));
  document.getElementById("btn-hint").addEventListener("click", () => askHint(ctx, (m) => connection.send(m)));
  document.addEventListener("keydown", (event) => {
    if (event.key !== "h" || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    askHint(ctx, (m) => connection.send(m));
  });
  installMenu();
  installReactions((m) => connection.send(m));
  installSetting("confirm", document.getElementById("opt-confirm"), () => {
    ctx.chosen = null;
    renderHand(ctx, play);
  });
  installSetting("sound", document.getElementById("opt-sound"), (on) => {
    if (on) unlockSound();
  });
  const speedSelect = document.getElementById("speed-select");
  speedSelect.addEventListener("change", () => chooseSpeed(speedSelect.value));
  renderSpeed();
  if (window.location.hash.startsWith("#token=")) {
    saveToken(tableId, decodeURIComponent(window.location.hash.slice("#token=".length)));
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  ctx.token = params.has("watch") ? null : loadToken(tableId);
  renderAll();
  if (!offline && !ctx.token && !params.has("watch")) {
    if (!(await join())) return;
  }
  connect();
  if (!offline) {
    watchPreparing();
    installLevels(tableId);
  }
}

main();
