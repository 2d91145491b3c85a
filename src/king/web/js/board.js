// The analysis board: a finished game face up, stepped through by card, trick and deal,
// each decision with what the engine found it worth from its player's view.  The game
// comes from a finished table (/board?table=ID) or a record file chosen or dropped on
// the page; the server lays it out (/api/board) and analyses it (/api/analysis).

import { ApiError, call } from "./api.js";
import { fixed, renderLost, renderTotals, SEAT_COLOURS } from "./board_chart.js";
import { cardFace, cardLabel, position, RED_SUITS, SUIT_SYMBOLS } from "./cards.js";
import { offlineManifest } from "./offline/install.js";
import { errorText } from "./reasons.js";
import { assetUrl, STATIC_SITE } from "./site.js";
import { contractName } from "./render.js";
import { applyStrings, installLanguageSelect, language, loadStrings, onLanguageChange, t } from "./strings.js";

const $ = (id) => document.getElementById(id);
const RANKS = "AKQJT98765432";
/** Loss in points from which a marked mistake is drawn as a mistake, then a blunder
 * (a heart is 30 points in No Hearts, a queen 100 in No Queens). */
const MISTAKE_POINTS = 30;
const BLUNDER_POINTS = 100;
const POLL_MS = 1000;

const view = {
  board: null, // the server's layout of the game
  analysis: null, // the record's analysis section, once there is one
  decisions: [], // per deal: { declare, plays: [] } from the analysis
  deal: 0,
  played: -1, // cards played in the deal shown; -1: before the declaration
  source: null, // { table } or { record }
  poll: null,
  shown: 0, // counts the games opened: an answer about an earlier one is dropped
};

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function banner(text) {
  const box = $("banner");
  box.textContent = text ?? "";
  box.hidden = !text;
}

// -- the game laid out -------------------------------------------------------------

function names() {
  const players = view.board?.players;
  return [0, 1, 2, 3].map((seat) => players?.[seat] || t("table.seat", { n: seat + 1 }));
}

/** Every card of a deal in play order: who played it, in which trick. */
function playsOf(deal) {
  const plays = [];
  deal.tricks.forEach((trick, index) => {
    trick.cards.forEach((card, i) => plays.push({ card, seat: trick.seats[i], trick: index }));
  });
  return plays;
}

function decisionsOf(analysis, board) {
  return board.deals.map((_, number) => {
    const entry = { declare: null, plays: [] };
    for (const decision of analysis?.deals?.[number]?.decisions ?? []) {
      if (decision.kind === "declare") entry.declare = decision;
      else entry.plays[decision.play] = decision;
    }
    return entry;
  });
}

function decisionAt(deal, played) {
  const entry = view.decisions[deal];
  if (!entry) return null;
  return played < 0 ? entry.declare : entry.plays[played] ?? null;
}

/** How a loss is drawn: best, fine (within the engine's noise), or a marked mistake
 * by its size. */
function grade(loss, mistake) {
  if (loss <= 0.05) return "best";
  if (!mistake) return "fine";
  if (loss < MISTAKE_POINTS) return "inaccuracy";
  if (loss < BLUNDER_POINTS) return "mistake";
  return "blunder";
}

/** Each legal choice of a decision with its loss against the best and its grade; the
 * chosen one graded by the analysis's own test, the others by theirs. */
function graded(decision) {
  if (!decision || !decision.choices.length) return [];
  const best = Math.max(...decision.choices.map((c) => c.value));
  const limit = view.analysis?.mistake_errors ?? 2;
  return decision.choices
    .map((choice) => {
      const chosen = choice.choice === decision.chosen;
      const loss = chosen ? decision.loss : best - choice.value;
      const marked = chosen ? decision.mistake : loss > limit * choice.error;
      return { ...choice, loss, chosen, grade: grade(loss, marked) };
    })
    .sort((a, b) => b.value - a.value);
}

function choiceName(choice) {
  if (/^[2-9TJQKA][SHDC]$/.test(choice)) return cardText(choice);
  const [contract, trump] = choice.split(" ");
  return contractName(contract, trump ?? null);
}

function cardText(code) {
  const rank = code[0] === "T" ? "10" : code[0];
  return `${rank}${SUIT_SYMBOLS[code[1]]}`;
}

// -- stepping ----------------------------------------------------------------------

function dealLength(number) {
  return playsOf(view.board.deals[number]).length;
}

function go(deal, played) {
  const last = view.board.deals.length - 1;
  if (deal < 0) [deal, played] = [0, -1];
  if (deal > last) [deal, played] = [last, dealLength(last)];
  view.deal = deal;
  view.played = Math.max(-1, Math.min(played, dealLength(deal)));
  window.history.replaceState(null, "", `${window.location.pathname}${window.location.search}#deal=${deal + 1}&card=${view.played + 1}`);
  draw();
}

function cardStep(delta) {
  const n = dealLength(view.deal);
  if (delta > 0 && view.played >= n) return go(view.deal + 1, -1);
  if (delta < 0 && view.played < 0) return go(view.deal - 1, dealLength(Math.max(view.deal - 1, 0)));
  go(view.deal, view.played + delta);
}

/** To the end of the next trick, or back to the end of the one before. */
function trickStep(delta) {
  const ends = [-1, 0];
  let count = 0;
  for (const trick of view.board.deals[view.deal].tricks) {
    count += trick.cards.length;
    ends.push(count);
  }
  if (delta > 0) {
    const next = ends.find((end) => end > view.played);
    return next === undefined ? go(view.deal + 1, -1) : go(view.deal, next);
  }
  const before = ends.filter((end) => end < view.played);
  return before.length ? go(view.deal, before.at(-1)) : go(view.deal - 1, dealLength(Math.max(view.deal - 1, 0)));
}

function dealStep(delta) {
  if (delta < 0 && view.played > -1) return go(view.deal, -1);
  go(view.deal + delta, -1);
}

/** A swipe across the felt steps a card: to the left forward, to the right back (a
 * mouse drag does the same). */
function installSwipe() {
  const felt = $("board-felt");
  let start = null;
  felt.addEventListener("pointerdown", (event) => {
    start = { x: event.clientX, y: event.clientY };
  });
  felt.addEventListener("pointerup", (event) => {
    if (!start || !view.board) return;
    const dx = event.clientX - start.x;
    const dy = event.clientY - start.y;
    start = null;
    if (Math.abs(dx) < 40 || Math.abs(dx) < 1.5 * Math.abs(dy)) return;
    cardStep(dx < 0 ? 1 : -1);
  });
  felt.addEventListener("pointercancel", () => {
    start = null;
  });
}

function installSteps() {
  $("step-back").addEventListener("click", () => cardStep(-1));
  $("step-forward").addEventListener("click", () => cardStep(1));
  $("step-trick-back").addEventListener("click", () => trickStep(-1));
  $("step-trick-forward").addEventListener("click", () => trickStep(1));
  $("step-deal-back").addEventListener("click", () => dealStep(-1));
  $("step-deal-forward").addEventListener("click", () => dealStep(1));
  $("step-deal").addEventListener("change", (event) => go(Number(event.target.value), -1));
  document.addEventListener("keydown", (event) => {
    if (!view.board || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target instanceof HTMLSelectElement || event.target instanceof HTMLInputElement) return;
    const actions = {
      ArrowLeft: () => cardStep(-1),
      ArrowRight: () => cardStep(1),
      ArrowUp: () => trickStep(-1),
      ArrowDown: () => trickStep(1),
      PageUp: () => dealStep(-1),
      PageDown: () => dealStep(1),
      Home: () => go(0, -1),
      End: () => go(view.board.deals.length - 1, dealLength(view.board.deals.length - 1)),
    };
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  });
}

// -- drawing -----------------------------------------------------------------------

function draw() {
  if (!view.board) return;
  const deal = view.board.deals[view.deal];
  const plays = playsOf(deal);
  const played = view.played;
  const shown = plays.slice(0, Math.max(played, 0));
  const tricksDone = deal.tricks.filter((trick, index) => trick.winner !== null && plays.findLastIndex((p) => p.trick === index) < played);
  const points = tricksDone.length ? tricksDone.at(-1).points : [0, 0, 0, 0];
  const toMove = played < 0 ? deal.declarer : played < plays.length ? plays[played].seat : null;
  const decision = decisionAt(view.deal, played);
  $("board").dataset.deal = String(view.deal + 1);
  $("board").dataset.played = String(played);
  drawInfo(deal, played, plays);
  drawSeats(deal, shown, tricksDone, points, toMove, decision);
  drawTrick(deal, plays, played);
  drawWhere(deal, played, plays, toMove);
  drawPosition(deal, played, plays, toMove);
  drawDecision(decision, toMove, deal);
  drawVerdict(decision, toMove);
  drawMistakes();
  renderTotals($("chart-totals"), view.board, names(), view.deal);
  renderLost($("chart-lost"), view.analysis, names(), view.deal);
  $("step-deal").value = String(view.deal);
  $("step-back").disabled = view.deal === 0 && played < 0;
  $("step-deal-back").disabled = view.deal === 0 && played < 0;
  $("step-trick-back").disabled = view.deal === 0 && played < 0;
  const atEnd = view.deal === view.board.deals.length - 1 && played >= plays.length;
  $("step-forward").disabled = atEnd;
  $("step-trick-forward").disabled = atEnd;
  $("step-deal-forward").disabled = view.deal === view.board.deals.length - 1;
}

/** The trick the felt shows: 0 before the declaration, else the trick of the last card
 * played (the first before any). */
function trickShown(played, plays) {
  if (played < 0) return 0;
  return played === 0 ? 1 : plays[Math.min(played, plays.length) - 1].trick + 1;
}

function drawInfo(deal, played, plays) {
  const box = $("board-info");
  box.replaceChildren();
  const number = el("span", "deal-number", t("table.deal", { n: deal.number + 1 }));
  number.id = "board-deal-number";
  box.append(number);
  if (played >= 0) {
    box.append(el("span", "deal-contract", contractName(deal.contract, deal.trump ?? null)));
    box.append(el("span", "deal-trick", t("table.trickNumber", { n: trickShown(played, plays) })));
  }
  box.append(el("span", "deal-declarer", t("table.declarer", { name: names()[deal.declarer] })));
}

function drawSeats(deal, shown, tricksDone, points, toMove, decision) {
  const gone = new Set(shown.map((p) => p.card));
  const choices = new Map(graded(decision).map((c) => [c.choice, c]));
  const moving = decision && decision.kind === "play";
  for (let seat = 0; seat < 4; seat += 1) {
    const box = document.querySelector(`.board-seat[data-pos="${position(seat, 0)}"]`);
    box.dataset.seat = String(seat);
    box.classList.toggle("to-act", seat === toMove);
    box.style.setProperty("--seat-colour", SEAT_COLOURS[seat]);
    const head = el("div", "seat-head");
    head.append(el("span", "seat-name", names()[seat]));
    if (seat === deal.declarer) head.append(el("span", "badge declarer-badge", t("badge.declarer")));
    const won = tricksDone.filter((trick) => trick.winner === seat).length;
    const stats = el("div", "seat-stats");
    const chip = el("span", `chip points ${points[seat] > 0 ? "plus" : points[seat] < 0 ? "minus" : ""}`, String(points[seat]));
    chip.dataset.points = String(points[seat]);
    chip.title = t("summary.points");
    const total = el("span", "chip total", t("analysis.totalValue", { points: deal.before[seat] + points[seat] }));
    total.dataset.total = String(deal.before[seat] + points[seat]);
    stats.append(chip, el("span", "chip", t("table.tricksWon", { n: won })), total);
    const hand = el("div", "board-hand");
    hand.setAttribute("aria-label", t("analysis.handOf", { name: names()[seat] }));
    for (const suit of ["S", "H", "D", "C"]) {
      const cards = deal.hands[seat].filter((c) => c[1] === suit && !gone.has(c)).sort((a, b) => RANKS.indexOf(a[0]) - RANKS.indexOf(b[0]));
      const line = el("div", `suit-line ${RED_SUITS.has(suit) ? "red" : "black"}`);
      line.append(el("span", "suit-symbol", SUIT_SYMBOLS[suit]));
      if (!cards.length) line.append(el("span", "void", "—"));
      for (const code of cards) {
        const card = el("span", "bcard", code[0] === "T" ? "10" : code[0]);
        card.dataset.card = code;
        card.setAttribute("aria-label", cardLabel(code));
        const choice = moving && seat === toMove ? choices.get(code) : null;
        if (choice) {
          card.dataset.grade = choice.grade;
          card.dataset.loss = choice.loss.toFixed(2);
          card.title = t("analysis.choiceTitle", { value: fixed(choice.value), loss: fixed(choice.loss) });
          if (choice.chosen) card.classList.add("chosen");
        } else if (moving && seat === toMove && decision.chosen === code) {
          card.classList.add("chosen");
        }
        line.append(card);
      }
      hand.append(line);
    }
    box.replaceChildren(head, stats, hand);
  }
}

function drawTrick(deal, plays, played) {
  const trick = $("board-trick");
  for (const slot of trick.querySelectorAll(".slot")) slot.replaceChildren();
  if (played <= 0) return;
  const last = plays[played - 1];
  const shown = plays.slice(0, played).map((p, index) => ({ ...p, index })).filter((p) => p.trick === last.trick);
  const full = deal.tricks[last.trick];
  const complete = shown.length === full.cards.length && full.winner !== null;
  for (const play of shown) {
    const face = cardFace(play.card);
    face.dataset.order = String(play.index);
    const decision = decisionAt(view.deal, play.index);
    if (decision) face.dataset.grade = grade(decision.loss, decision.mistake);
    if (complete && play.seat === full.winner) face.classList.add("winner");
    trick.querySelector(`.slot[data-pos="${position(play.seat, 0)}"]`).append(face);
  }
}

function drawWhere(deal, played, plays, toMove) {
  const box = $("board-where");
  const contract = $("board-contract");
  contract.textContent = played >= 0 ? contractName(deal.contract, deal.trump ?? null) : "";
  if (played < 0) {
    box.textContent = t("analysis.declares", { name: names()[deal.declarer] });
  } else if (toMove === null) {
    box.textContent = t(deal.complete ? "analysis.dealOver" : "analysis.recordStops");
  } else if (played > 0 && plays[played - 1].trick !== plays[played].trick) {
    const winner = deal.tricks[plays[played - 1].trick].winner;
    box.textContent = t("table.trickWon", { name: names()[winner] });
  } else {
    box.textContent = t("analysis.toPlay", { name: names()[toMove] });
  }
}

/** On the felt, in one line: what the choice made here cost (the details are in the
 * panel, below the felt on a phone). */
function drawVerdict(decision, toMove) {
  const box = $("board-verdict");
  box.replaceChildren();
  delete box.dataset.grade;
  if (toMove === null || !decision || decision.forced) return;
  box.dataset.grade = grade(decision.loss, decision.mistake);
  const chosen = choiceName(decision.chosen);
  box.textContent = decision.loss > 0.05
    ? t("analysis.verdict", { choice: chosen, loss: fixed(decision.loss), best: choiceName(decision.best) })
    : t("analysis.verdictBest", { choice: chosen });
}

/** The position the felt shows, at the head of the panel: its trick and who acts there
 * (the decision below is theirs, made from this very position). */
function drawPosition(deal, played, plays, toMove) {
  const box = $("panel-position");
  const trick = trickShown(played, plays);
  box.dataset.trick = String(trick);
  if (toMove === null) delete box.dataset.seat;
  else box.dataset.seat = String(toMove);
  box.style.setProperty("--seat-colour", toMove === null ? "" : SEAT_COLOURS[toMove]);
  box.textContent = positionText(deal, played, plays, toMove, trick);
}

function positionText(deal, played, plays, toMove, trick) {
  if (played < 0) return t("analysis.declares", { name: names()[deal.declarer] });
  if (toMove === null) return t(deal.complete ? "analysis.dealOver" : "analysis.recordStops");
  const name = names()[toMove];
  if (played === 0) return t("analysis.positionLead", { n: trick, name });
  if (plays[played - 1].trick !== plays[played].trick) return t("analysis.positionAfter", { n: trick, name });
  return t("analysis.positionPlay", { n: trick, name });
}

function drawDecision(decision, toMove, deal) {
  const box = $("decision");
  box.replaceChildren();
  delete box.dataset.kind;
  delete box.dataset.seat;
  if (toMove === null && !deal.complete) return; // the position line says the record stops
  if (toMove === null) {
    const summary = el("table", "score-table deal-points");
    const head = el("tr");
    head.append(el("th", "", ""), el("th", "num", t("summary.points")), el("th", "num", t("scores.total")));
    summary.append(head);
    names().forEach((name, seat) => {
      const row = el("tr");
      row.dataset.seat = String(seat);
      row.append(el("td", "name", name), el("td", "num", String(deal.points[seat])), el("td", "num total", String(deal.totals[seat])));
      summary.append(row);
    });
    box.append(summary);
    return;
  }
  if (!view.analysis) return;
  if (!decision) {
    box.append(el("p", "muted", t("analysis.noDecision")));
    return;
  }
  box.dataset.kind = decision.kind;
  box.dataset.seat = String(decision.seat);
  const who = names()[decision.seat];
  const chosen = choiceName(decision.chosen);
  if (decision.forced) {
    box.append(el("p", "", t("analysis.forced", { name: who, choice: chosen })));
    return;
  }
  const line = el("p", "decision-line");
  line.dataset.grade = grade(decision.loss, decision.mistake);
  line.append(
    el("strong", "", t(decision.kind === "declare" ? "analysis.declared" : "analysis.played", { name: who, choice: chosen })),
    document.createTextNode(" "),
    el("span", "", decision.loss > 0.05
      ? t("analysis.lost", { loss: fixed(decision.loss), error: fixed(decision.error), best: choiceName(decision.best) })
      : t("analysis.wasBest")),
  );
  if (decision.mistake) line.append(el("span", "badge mistake-badge", t(`analysis.grade.${grade(decision.loss, true)}`)));
  const list = el("ol", "choices-list");
  for (const choice of graded(decision)) {
    const item = el("li", choice.chosen ? "chosen" : "");
    item.dataset.choice = choice.choice;
    item.dataset.value = choice.value.toFixed(2);
    item.dataset.loss = choice.loss.toFixed(2);
    item.dataset.grade = choice.grade;
    item.append(
      el("span", "choice-name", choiceName(choice.choice)),
      el("span", "num", t("analysis.value", { value: fixed(choice.value), error: fixed(choice.error) })),
      el("span", "num loss", choice.loss > 0.05 ? `−${fixed(choice.loss)}` : "★"),
    );
    list.append(item);
  }
  box.append(line, list);
}

function drawMistakes() {
  const box = $("mistakes");
  box.replaceChildren();
  if (!view.analysis) {
    box.append(el("p", "muted small", t("analysis.notYet")));
    return;
  }
  const decisions = view.analysis.deals[view.deal]?.decisions ?? [];
  let any = false;
  names().forEach((name, seat) => {
    const mine = decisions.filter((d) => d.seat === seat && d.mistake).sort((a, b) => b.loss - a.loss).slice(0, 3);
    if (!mine.length) return;
    any = true;
    const group = el("div", "mistake-group");
    group.dataset.seat = String(seat);
    const title = el("h3", "", name);
    title.style.color = SEAT_COLOURS[seat];
    const list = el("ul", "mistake-list");
    for (const decision of mine) {
      const item = el("li");
      item.dataset.deal = String(view.deal + 1);
      item.dataset.seat = String(seat);
      item.dataset.play = decision.play === null ? "declare" : String(decision.play);
      item.dataset.loss = decision.loss.toFixed(2);
      item.dataset.chosen = decision.chosen;
      item.dataset.best = decision.best;
      item.dataset.grade = grade(decision.loss, true);
      const button = el("button", "mistake", "");
      button.type = "button";
      button.append(
        el("span", "", t("analysis.mistakeLine", { choice: choiceName(decision.chosen), best: choiceName(decision.best) })),
        el("span", "num loss", `−${fixed(decision.loss)}`),
      );
      button.addEventListener("click", () => go(view.deal, decision.play === null ? -1 : decision.play));
      item.append(button);
      list.append(item);
    }
    group.append(title, list);
    box.append(group);
  });
  if (!any) box.append(el("p", "muted small", t("analysis.noMistakes")));
}

function drawDealChoices() {
  const select = $("step-deal");
  select.replaceChildren(
    ...view.board.deals.map((deal, number) => {
      const option = el("option", "", `${number + 1} · ${contractName(deal.contract, deal.trump ?? null)}`);
      option.value = String(number);
      return option;
    }),
  );
}

// -- loading -----------------------------------------------------------------------

function showBoard(board, analysis) {
  view.shown += 1;
  $("board-download").hidden = true;
  window.clearTimeout(view.poll);
  view.board = board;
  view.analysis = analysis;
  view.decisions = decisionsOf(analysis, board);
  for (const id of ["board-felt", "board-steps", "board-panel"]) $(id).hidden = false;
  $("board-drop").hidden = true;
  $("board").dataset.state = "shown";
  drawDealChoices();
  const wanted = new URLSearchParams(window.location.hash.slice(1));
  const deal = Number(wanted.get("deal") ?? 1) - 1;
  const card = Number(wanted.get("card") ?? 0) - 1;
  go(Number.isInteger(deal) ? deal : 0, Number.isInteger(card) ? card : -1);
}

function setAnalysis(analysis) {
  view.analysis = analysis;
  view.decisions = decisionsOf(analysis, view.board);
  $("board").dataset.analysis = analysis ? "done" : "none";
  status("");
  if (analysis) $("analysis-status").append(...engineCredit(String(analysis.engine)));
  draw();
}

/** Who analysed the game, named for people ("Search engine · 4,000 deals sampled ·
 * 0.2 s a move"); the exact bot spec stays in its title and in a closed details. */
function engineCredit(spec) {
  const name = el("p", "engine-name small", engineName(spec));
  name.id = "analysis-engine";
  name.title = spec;
  name.dataset.spec = spec;
  const details = el("details", "engine-spec small muted");
  details.append(el("summary", "", t("analysis.engineSpec")), el("code", "", spec));
  return [name, el("p", "small muted", t("analysis.mistakeRule")), details];
}

/** A bot spec ("search:threads=2&worlds=4000&time=0.2") in words: the engine, the
 * deals it samples and its time a move; the other options (threads, seeds) are left
 * to the spec itself. */
function engineName(spec) {
  const colon = spec.indexOf(":");
  const name = colon < 0 ? spec : spec.slice(0, colon);
  const options = new URLSearchParams(colon < 0 ? "" : spec.slice(colon + 1));
  const number = new Intl.NumberFormat(language());
  const parts = [name === "search" ? t("analysis.engineSearch") : t("analysis.engineNamed", { name: name.replace(/[^\w-]/g, "") || "?" })];
  const worlds = Number(options.get("worlds") ?? NaN);
  if (worlds > 0) parts.push(t("analysis.engineWorlds", { count: number.format(worlds) }));
  const seconds = Number(options.get("time") ?? NaN);
  if (seconds > 0) parts.push(t("analysis.engineTime", { seconds: number.format(seconds) }));
  return parts.join(" · ");
}

/** Offer the record with its analysis as a file (king replay and this page read it). */
function offerDownload(text) {
  const link = $("board-download");
  if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  link.hidden = false;
}

function status(text, done = null, total = null) {
  const box = $("analysis-status");
  box.replaceChildren();
  if (text) box.append(el("p", "small muted", text));
  if (total !== null) {
    const bar = el("progress");
    bar.max = total;
    bar.value = done;
    bar.id = "analysis-progress";
    box.append(bar);
  }
}

async function analyse(start) {
  window.clearTimeout(view.poll);
  $("board").dataset.analysis = "running";
  const shown = view.shown;
  let job;
  try {
    job = await start();
    if (shown !== view.shown) return;
  } catch (error) {
    if (shown !== view.shown) return;
    if (error instanceof ApiError && error.code === "busy") {
      status(t("analysis.busy"));
      view.poll = window.setTimeout(() => analyse(start), 5 * POLL_MS);
      return;
    }
    $("board").dataset.analysis = "failed";
    status(error instanceof ApiError ? errorText(error) : (error?.message ?? String(error)));
    return;
  }
  if (job.state === "done") {
    offerDownload(JSON.stringify(job.record, null, 1));
    setAnalysis(job.record.analysis);
  } else if (job.state === "failed") {
    $("board").dataset.analysis = "failed";
    status(job.error);
  } else {
    status(t("analysis.running", { done: job.done, total: job.total }), job.done, job.total);
    view.poll = window.setTimeout(() => analyse(() => call("GET", `/api/analysis/${encodeURIComponent(job.key)}`)), POLL_MS);
  }
}

async function openTable(table) {
  banner(null);
  const path = `/api/tables/${encodeURIComponent(table)}`;
  try {
    const data = await call("GET", `${path}/board`);
    view.source = { table };
    showBoard(data.board, null);
  } catch (error) {
    banner(error instanceof ApiError ? errorText(error) : String(error));
    return;
  }
  analyse(() => call("POST", `${path}/analysis`));
}

async function openRecord(text, fileName) {
  banner(null);
  let data;
  try {
    JSON.parse(text);
  } catch {
    banner(t("analysis.notJson", { file: fileName }));
    return;
  }
  if (STATIC_SITE) {
    openRecordOnDevice(text, fileName);
    return;
  }
  try {
    data = await call("POST", "/api/board", text);
  } catch (error) {
    banner(t("analysis.badRecord", { file: fileName, reason: error.message }));
    return;
  }
  view.source = { record: text };
  window.history.replaceState(null, "", window.location.pathname);
  showBoard(data.board, data.analysis);
  if (data.analysis) {
    offerDownload(text);
    setAnalysis(data.analysis);
  } else {
    if (data.analysis_refused) banner(t("analysis.sectionRefused", { reason: data.analysis_refused }));
    analyse(() => call("POST", "/api/analysis", text));
  }
}

/** The offline game's board: laid out by the offline worker from the game kept on this
 * device (no server needed), and analysed by the server when it can be reached, else
 * on the device by the same engine in the worker. */
async function openOffline() {
  const manifest = await deviceManifest();
  if (!manifest) return;
  const [worker, answer] = await askWorker({ kind: "board", options: { manifest } });
  if (answer.kind !== "board" || !answer.board) {
    worker.terminate();
    banner(answer.kind === "failed" ? t("offline.failed", { error: answer.error }) : t("offline.noGame"));
    return;
  }
  banner(null);
  const data = JSON.parse(answer.board);
  view.source = { record: answer.record };
  showBoard(data.board, null);
  offerDownload(answer.record);
  if (STATIC_SITE) {
    analyseOnDevice(worker, manifest, answer.record); // no server behind a static site
    return;
  }
  try {
    const job = await call("POST", "/api/analysis", answer.record);
    worker.terminate();
    analyse(async () => job);
  } catch (error) {
    if (error instanceof ApiError && error.code !== "network") {
      worker.terminate();
      analyse(async () => Promise.reject(error));
      return;
    }
    analyseOnDevice(worker, manifest, answer.record);
  }
}

/** The offline game's manifest, saying that the game starts on the device; null (and
 * why, in the banner) where the game is not kept here. */
async function deviceManifest() {
  banner(t("offline.loading.runtime"));
  try {
    return await offlineManifest();
  } catch {
    banner(t("offline.unavailable"));
    return null;
  }
}

/** A new offline worker (the game's Python on this device) and its answer to
 * ``message``: the board, or why there is none. */
async function askWorker(message) {
  const worker = new Worker(assetUrl("js/offline/worker.js"), { type: "module" });
  const answer = await new Promise((resolve) => {
    worker.addEventListener("message", (event) => {
      if (["board", "failed", "refused"].includes(event.data.kind)) resolve(event.data);
    });
    worker.postMessage(message);
  });
  return [worker, answer];
}

/** A record file opened on a static site's board: checked and laid out by the game's
 * Python on this device (as a server's POST /api/board does), then analysed there. */
async function openRecordOnDevice(text, fileName) {
  const manifest = await deviceManifest();
  if (!manifest) return;
  const [worker, answer] = await askWorker({ kind: "board-record", options: { manifest }, record: text });
  if (answer.kind !== "board") {
    worker.terminate();
    banner(t("analysis.badRecord", { file: fileName, reason: answer.sentence ?? answer.error }));
    return;
  }
  banner(null);
  view.source = { record: answer.record };
  window.history.replaceState(null, "", window.location.pathname);
  showBoard(JSON.parse(answer.board).board, null);
  offerDownload(answer.record);
  analyseOnDevice(worker, manifest, answer.record);
}

/** Analyse the record in the offline worker (the server cannot be reached), saying how
 * far it is; the analysed record is offered for download as the server's would be. */
function analyseOnDevice(worker, manifest, record) {
  const shown = view.shown;
  $("board").dataset.analysis = "running";
  status(t("analysis.onDevice"));
  worker.addEventListener("message", (event) => {
    const message = event.data;
    if (shown !== view.shown) {
      worker.terminate();
      return;
    }
    if (message.kind === "analysis-progress") {
      status(t("analysis.running", { done: message.done, total: message.total }), message.done, message.total);
    } else if (message.kind === "analysis") {
      worker.terminate();
      offerDownload(message.record);
      setAnalysis(JSON.parse(message.record).analysis);
    } else if (message.kind === "failed") {
      worker.terminate();
      $("board").dataset.analysis = "failed";
      status(message.error);
    }
  });
  worker.postMessage({ kind: "analyse", options: { manifest }, record });
}

function readFile(file) {
  if (!file) return;
  const reader = new FileReader();
  reader.addEventListener("load", () => openRecord(String(reader.result), file.name));
  reader.addEventListener("error", () => banner(t("analysis.notJson", { file: file.name })));
  reader.readAsText(file);
}

function installDrop() {
  $("board-file").addEventListener("change", (event) => readFile(event.target.files[0]));
  document.addEventListener("dragover", (event) => {
    event.preventDefault();
    document.body.classList.add("dragging");
  });
  document.addEventListener("dragleave", (event) => {
    if (event.relatedTarget === null) document.body.classList.remove("dragging");
  });
  document.addEventListener("drop", (event) => {
    event.preventDefault();
    document.body.classList.remove("dragging");
    readFile(event.dataTransfer?.files?.[0]);
  });
}

async function main() {
  await loadStrings();
  applyStrings();
  installLanguageSelect();
  document.title = t("analysis.title");
  onLanguageChange(() => {
    document.title = t("analysis.title");
    if (view.board) {
      drawDealChoices();
      setAnalysis(view.analysis);
    }
  });
  installSteps();
  installSwipe();
  installDrop();
  // The file input and the drop zone listen from here on: tools wait for this.
  $("board").dataset.ready = "true";
  const query = new URLSearchParams(window.location.search);
  const table = query.get("table");
  if (query.has("offline")) await openOffline();
  else if (table) await openTable(table);
}

main();
