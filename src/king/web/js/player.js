// A player's page (/players/NAME, /players/bot:SPEC): the rating, the statistics over a
// period (by contract and by trump suit), and the games, newest first; the person's own
// page also lists their unfinished games (to continue on this device) and logs them out
// everywhere.

import { api, ApiError, saveToken } from "./api.js";
import { suitMark } from "./cards.js";
import { accountErrorText, el, formatNumber, formatWhen, playerLink, ratingBadge } from "./people.js";
import { errorText } from "./reasons.js";
import { applyStrings, botName, installLanguageSelect, loadStrings, onLanguageChange, t } from "./strings.js";

const $ = (id) => document.getElementById(id);
const ref = decodeURIComponent(window.location.pathname.split("/").filter(Boolean).pop() ?? "");

/** The contracts, as the score card lists them, and the trump suits. */
const CONTRACTS = ["trumps", "no-tricks", "no-hearts", "no-queens", "no-boys", "no-king", "no-last-two"];
const SUITS = ["S", "H", "D", "C"];
const DAY = 86400000;

/** What the page has loaded (kept to draw again in another language). */
const page = { player: null, stats: null, games: [], next: 0, loading: false };
let toastTimer = null;

function toast(text) {
  const box = $("toast");
  box.textContent = text;
  box.hidden = false;
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => {
    box.hidden = true;
  }, 3500);
}

// -- the player ----------------------------------------------------------------------

function renderPlayer() {
  const player = page.player;
  if (!player) return;
  document.title = t("player.title", { name: player.name });
  $("player-name").textContent = player.name;
  const kind = $("player-kind");
  kind.hidden = player.kind !== "bot";
  kind.replaceChildren();
  if (player.kind === "bot") kind.append(el("span", "badge bot", t(player.house ? "player.houseBot" : "player.bot")));
  const rating = $("player-rating");
  const badge = ratingBadge(player.rating, player.provisional);
  rating.textContent = badge.textContent;
  rating.title = badge.title;
  rating.classList.toggle("provisional", badge.classList.contains("provisional"));
  rating.dataset.rating = player.rating === null ? "" : String(player.rating);
  rating.dataset.provisional = String(player.provisional);
  $("player-rated-games").textContent = t("player.ratedGames", { n: player.rated_games });
  const since = $("player-since");
  since.hidden = !player.since;
  if (player.since) since.textContent = t("player.since", { date: formatWhen(player.since) });
  $("player-actions").hidden = !player.me;
}

// -- statistics ----------------------------------------------------------------------

/** A day as the server reads it (YYYY-MM-DD, UTC). */
function isoDay(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The period chosen: {since, until} (either may be empty: open-ended). */
function period() {
  const choice = $("stats-period").value;
  if (choice === "all") return { since: "", until: "" };
  if (choice === "custom") return { since: $("stats-since").value, until: $("stats-until").value };
  const days = Number(choice);
  const today = Date.now();
  return { since: isoDay(today - (days - 1) * DAY), until: isoDay(today) };
}

async function loadStats() {
  const { since, until } = period();
  if (since && until && since > until) {
    $("stats-error").textContent = t("stats.badDates");
    return;
  }
  $("stats-error").textContent = "";
  $("stats").dataset.state = "loading";
  try {
    page.stats = await api.stats(ref, since || null, until || null);
  } catch (error) {
    $("stats-error").textContent = error instanceof ApiError ? errorText(error) : String(error);
    $("stats").dataset.state = "failed";
    return;
  }
  renderStats();
}

/** An average per deal or game: "+12.5", "−40", or "—" when there is none. */
function average(value) {
  return value === null || value === undefined ? "—" : formatNumber(value, { signed: true, digits: 1 });
}

function averageCell(value, deals) {
  const cell = el("td", "num");
  const shown = el("span", value > 0 ? "plus" : value < 0 ? "minus" : "", average(value));
  cell.append(shown);
  if (deals) cell.append(" ", el("span", "deals muted", `(${formatNumber(deals)})`));
  cell.dataset.deals = String(deals ?? 0);
  return cell;
}

/** A table of figures: a row per contract or trump suit (`lines`: {head, figures, mark}),
 * with how often it was declared and the average points per deal on either side. */
function figureTable(table, label, lines) {
  table.replaceChildren();
  const head = el("tr");
  for (const key of [label, "stats.declared", "stats.asDeclarer", "stats.asDefender"]) {
    const th = el("th", "", t(key));
    th.scope = "col";
    head.append(th);
  }
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  for (const { head: name, figures, mark } of lines) {
    const row = el("tr");
    mark(row);
    name.scope = "row";
    row.append(name);
    row.append(el("td", "num", formatNumber(figures.declared ?? 0)));
    row.append(averageCell(figures.declarer_average ?? null, figures.declarer_deals ?? 0));
    row.append(averageCell(figures.defender_average ?? null, figures.defender_deals ?? 0));
    body.append(row);
  }
  table.append(thead, body);
}

function renderStats() {
  const stats = page.stats;
  if (!stats) return;
  $("stats").dataset.state = "shown";
  $("stats-games").textContent = formatNumber(stats.games);
  $("stats-wins").textContent = formatNumber(stats.wins);
  $("stats-average").textContent = average(stats.average);
  const places = el("ol", "places-count");
  stats.places.forEach((count, index) => {
    const item = el("li");
    item.dataset.place = String(index + 1);
    item.dataset.count = String(count);
    item.append(el("span", "muted", t("over.place", { n: index + 1 })), " ", el("strong", "", formatNumber(count)));
    places.append(item);
  });
  $("stats-places").replaceChildren(places);
  $("stats-none").hidden = stats.games > 0;
  figureTable(
    $("stats-contracts"),
    "stats.contract",
    CONTRACTS.map((contract) => ({
      head: el("th", "", t(`contract.${contract}`)),
      figures: stats.contracts?.[contract] ?? {},
      mark: (row) => {
        row.dataset.contract = contract;
      },
    })),
  );
  figureTable(
    $("stats-trumps"),
    "stats.suit",
    SUITS.map((suit) => {
      const head = el("th");
      const symbol = suitMark(suit);
      symbol.setAttribute("aria-hidden", "true"); // the suit is named beside it
      head.append(symbol, " ", t(`suit.${suit}`));
      return {
        head,
        figures: stats.trumps?.[suit] ?? {},
        mark: (row) => {
          row.dataset.trump = suit;
        },
      };
    }),
  );
}

function installPeriod() {
  const select = $("stats-period");
  select.addEventListener("change", () => {
    if (select.value !== "custom") {
      const { since, until } = period();
      $("stats-since").value = since;
      $("stats-until").value = until;
    }
    loadStats();
  });
  for (const id of ["stats-since", "stats-until"]) {
    $(id).addEventListener("change", () => {
      select.value = "custom";
      loadStats();
    });
  }
  $("stats-form").addEventListener("submit", (event) => event.preventDefault());
}

// -- the games -----------------------------------------------------------------------

function statusText(status) {
  return t(status === "playing" ? "history.status.playing" : `lobby.status.${status}`);
}

/** A seat's name as the page says it: a bot by its kind and seat, a free seat as free. */
function seatText(game, seat) {
  if (seat.player?.startsWith("bot:")) return t("table.bot", { bot: botName(seat.player.slice(4)), n: seat.seat });
  if (game.status === "waiting" && !seat.player && seat.name === `seat ${seat.seat}`) return t("lobby.free");
  if (seat.guest) return t("table.guest", { name: seat.name });
  return seat.name;
}

async function takeBack(game, button) {
  button.disabled = true;
  try {
    const claim = await api.takeBack(game.table);
    saveToken(claim.table, claim.token);
    window.location.assign(`/t/${encodeURIComponent(claim.table)}`);
  } catch (error) {
    toast(error instanceof ApiError ? accountErrorText(error) : String(error));
    button.disabled = false;
  }
}

function gameRow(game) {
  const item = el("li", "game-row");
  item.dataset.table = game.table;
  item.dataset.status = game.status;
  const head = el("div", "game-head");
  const when = el("time", "game-when", formatWhen(game.when, true));
  when.dateTime = new Date(game.when * 1000).toISOString();
  head.append(when, el("span", "muted", statusText(game.status)));
  if (game.rated) {
    const mark = el("span", "badge rated-badge", t("rated.badge"));
    mark.title = t("rated.badgeTitle");
    head.append(mark);
  }
  if (game.status === "over" && game.place !== null) {
    const result = el("span", "game-result");
    const points = el("span", game.points > 0 ? "plus" : game.points < 0 ? "minus" : "", formatNumber(game.points, { signed: true }));
    result.append(el("strong", "", t("over.place", { n: game.place })), " ", points);
    head.append(result);
  }
  const seats = el("ol", "game-seats");
  seats.setAttribute("aria-label", t("history.players"));
  const newTab = game.status === "waiting" || game.status === "playing";
  for (const seat of game.seats) {
    const line = el("li", seat.seat === game.seat ? "me" : "");
    line.dataset.seat = String(seat.seat);
    if (seat.place !== null) line.append(el("span", "place", t("over.place", { n: seat.place })));
    const name = seatText(game, seat);
    line.append(seat.player ? playerLink(seat.player, name, newTab) : el("span", "seat-name", name));
    if (seat.points !== null && seat.points !== undefined) {
      const cls = `points ${seat.points > 0 ? "plus" : seat.points < 0 ? "minus" : ""}`;
      line.append(el("span", cls, formatNumber(seat.points, { signed: true })));
    }
    seats.append(line);
  }
  const actions = el("div", "table-actions");
  if (game.status === "waiting" || game.status === "playing") {
    const button = el("button", "primary", t("history.continue"));
    button.type = "button";
    button.dataset.action = "take-back";
    button.addEventListener("click", () => takeBack(game, button));
    actions.append(button);
  } else {
    if (game.status === "over") {
      const board = el("a", "button", t("lobby.board"));
      board.href = api.boardUrl(game.table);
      board.dataset.action = "board";
      actions.append(board);
    }
    const record = el("a", "button", t("lobby.record"));
    record.href = api.recordUrl(game.table);
    record.setAttribute("download", "");
    record.dataset.action = "record";
    actions.append(record);
  }
  item.append(head, seats, actions);
  return item;
}

function renderGames() {
  $("history-list").replaceChildren(...page.games.map(gameRow));
  $("history-none").hidden = page.games.length > 0 || page.loading;
  $("history-more").hidden = page.next === null;
}

async function loadGames() {
  if (page.next === null || page.loading) return;
  page.loading = true;
  $("history-more").disabled = true;
  try {
    const answer = await api.games(ref, page.next, 20);
    page.games.push(...answer.games);
    page.next = answer.next;
  } catch (error) {
    toast(error instanceof ApiError ? errorText(error) : String(error));
  } finally {
    page.loading = false;
    $("history-more").disabled = false;
  }
  renderGames();
}

// -- the page ------------------------------------------------------------------------

async function logoutEverywhere() {
  try {
    const answer = await api.logoutEverywhere();
    // The account's seats were taken back to this browser: the new tokens are these.
    for (const seat of answer.seats ?? []) saveToken(seat.table, seat.token);
  } catch (error) {
    if (!(error instanceof ApiError && error.code === "not_logged_in")) {
      toast(error instanceof ApiError ? accountErrorText(error) : String(error));
      return;
    }
  }
  window.location.assign("/");
}

function missing() {
  $("player").dataset.state = "missing";
  document.title = t("player.missingTitle");
  for (const id of ["stats", "history"]) $(id).hidden = true;
  document.querySelector(".player-head").hidden = true;
  const box = $("player-missing");
  box.textContent = t("player.missing", { name: ref });
  box.hidden = false;
}

function redraw() {
  if ($("player").dataset.state === "missing") {
    missing();
    return;
  }
  renderPlayer();
  renderStats();
  renderGames();
}

async function main() {
  await loadStrings();
  applyStrings();
  installLanguageSelect();
  onLanguageChange(redraw);
  installPeriod();
  $("history-more").addEventListener("click", loadGames);
  $("btn-logout-everywhere").addEventListener("click", logoutEverywhere);
  try {
    page.player = await api.player(ref);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) missing();
    else toast(error instanceof ApiError ? errorText(error) : String(error));
    return;
  }
  $("player").dataset.state = "shown";
  renderPlayer();
  await Promise.all([loadStats(), loadGames()]);
}

main();
