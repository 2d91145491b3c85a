// The dialogs: the summary of a finished deal, the score sheet, the last trick, joining
// a table, the invite link, and the rules.

import { api, copyText, inviteLink, loadName, reachesOthers } from "./api.js";
import { cardFace, cardGroups } from "./cards.js";
import { renderMarkdown } from "./markdown.js";
import { formatNumber } from "./people.js";
import { contractBoard, contractName, el, seatName, wrap } from "./render.js";
import { pageUrl } from "./site.js";
import { botName, t } from "./strings.js";

function open(dialog) {
  if (dialog.open) return;
  dialog.showModal();
  // Its main button has the focus (Enter closes it), but the dialog opens at its top,
  // title in view: a long one (the game over) would otherwise open at its bottom.
  dialog.scrollTop = 0;
}

/** The dialog's title, which names it for screen readers (aria-labelledby). */
function heading(dialog, text) {
  const h2 = el("h2", "", text);
  h2.id = `${dialog.id}-title`;
  return h2;
}

function closeButton(dialog, key, id, primary = true) {
  const button = el("button", primary ? "primary" : "", t(key));
  button.type = "button";
  button.autofocus = primary; // the dialog opens with its main button focused
  if (id) button.id = id;
  button.addEventListener("click", () => dialog.close());
  return button;
}

function signed(points) {
  return points > 0 ? `+${points}` : String(points);
}

function numberCell(value, total = false) {
  const cls = `num${total ? " total" : ""} ${value < 0 ? "minus" : value > 0 ? "plus" : ""}`;
  return el("td", cls, total ? String(value) : signed(value));
}

/** After a deal: its contract, each player's points and the running totals
 * (``state``: the state that ended it, whose results hold the deal). */
export function showSummary(ctx, state = ctx.state) {
  const view = state.view;
  const result = view.results[view.results.length - 1];
  if (!result) return;
  const dialog = document.getElementById("dlg-summary");
  dialog.replaceChildren();
  const number = view.results.length;
  dialog.dataset.result = result.contract;
  dialog.append(
    heading(dialog, t("summary.title", { n: number, contract: contractName(result.contract, result.trump) })),
    el("p", "muted", t("summary.declaredBy", { name: seatName(ctx, result.declarer) })),
  );
  const table = el("table", "score-table summary");
  const head = el("tr");
  for (const key of ["scores.player", "summary.took", "summary.points", "summary.total"]) {
    head.append(el("th", "", t(key)));
  }
  table.append(wrap("thead", head));
  const body = el("tbody");
  // What each player took: the penalty cards of a card contract, otherwise tricks.
  const taken = state.taken && state.taken.deal === number - 1 ? state.taken : null;
  for (let seat = 0; seat < 4; seat += 1) {
    const row = el("tr", seat === ctx.seat ? "me" : "");
    row.dataset.seat = String(seat);
    const took = el("td", "took");
    if (taken) {
      const cards = taken.cards[seat];
      took.dataset.tricks = String(taken.tricks[seat]);
      took.dataset.cards = cards.join(" ");
      if (cards.length) took.append(cardGroups(cards));
      else if (taken.counts === "cards") took.textContent = "—";
      else took.textContent = t("table.tricksWon", { n: taken.tricks[seat] });
    }
    row.append(el("td", "name", seatName(ctx, seat)), took, numberCell(result.points[seat]), numberCell(view.totals[seat], true));
    body.append(row);
  }
  table.append(body);
  const buttons = wrap("div", closeButton(dialog, "summary.continue", "summary-continue"));
  buttons.className = "dialog-buttons";
  const auto = el("p", "muted small", "");
  auto.id = "summary-auto";
  dialog.append(table, auto, buttons);
  open(dialog);
}

const CONTRACTS = ["trumps", "no-tricks", "no-hearts", "no-queens", "no-boys", "no-king", "no-last-two"];

/** The game over: places 1-4 with totals (ties share a place), and each player's
 * points per contract. */
function gameOver(ctx, view) {
  const box = el("div", "game-over");
  const order = [0, 1, 2, 3].sort((a, b) => view.totals[b] - view.totals[a] || a - b);
  const places = el("ol", "places");
  order.forEach((seat) => {
    const place = order.findIndex((other) => view.totals[other] === view.totals[seat]) + 1;
    const item = el("li", [place === 1 ? "first" : "", seat === ctx.seat ? "me" : ""].join(" ").trim());
    item.dataset.place = String(place);
    item.dataset.seat = String(seat);
    item.append(
      el("span", "place", t("over.place", { n: place })),
      el("span", "name", seatName(ctx, seat)),
      el("span", `num ${view.totals[seat] < 0 ? "minus" : "plus"}`, String(view.totals[seat])),
    );
    places.append(item);
  });
  box.append(el("h3", "", t("over.places")), places);
  const table = el("table", "score-table sheet by-contract");
  const head = el("tr");
  head.append(el("th", "", t("sheet.contract")));
  for (let seat = 0; seat < 4; seat += 1) head.append(el("th", "", seatName(ctx, seat)));
  table.append(wrap("thead", head));
  const body = el("tbody");
  for (const contract of CONTRACTS) {
    const sums = [0, 0, 0, 0];
    for (const result of view.results) {
      if (result.contract === contract) result.points.forEach((p, seat) => (sums[seat] += p));
    }
    const row = el("tr");
    row.append(el("td", "", t(`contract.${contract}`)));
    for (const points of sums) row.append(numberCell(points));
    body.append(row);
  }
  table.append(body);
  box.append(el("h3", "", t("over.byContract")), table);
  return box;
}

/** The tab of the score sheet shown last (it opens on the same one again). */
let sheetTab = "deals";

/** A row of tabs over `panels` ([name, title, element]): one panel shows at a time; the
 * arrow keys move between the tabs, as the ARIA tabs pattern has it. */
function tabs(dialog, panels) {
  const list = el("div", "sheet-tabs");
  list.setAttribute("role", "tablist");
  const buttons = [];
  const show = (name) => {
    sheetTab = name;
    panels.forEach(([id, , panel], i) => {
      panel.hidden = id !== name;
      buttons[i].setAttribute("aria-selected", String(id === name));
      buttons[i].tabIndex = id === name ? 0 : -1;
    });
  };
  panels.forEach(([id, title, panel], i) => {
    const button = el("button", "sheet-tab", title);
    button.type = "button";
    button.id = `tab-${id}`;
    button.setAttribute("role", "tab");
    button.setAttribute("aria-controls", `${dialog.id}-${id}`);
    panel.id = `${dialog.id}-${id}`;
    panel.setAttribute("role", "tabpanel");
    panel.setAttribute("aria-labelledby", button.id);
    button.addEventListener("click", () => show(id));
    button.addEventListener("keydown", (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      const next = buttons[(i + step + buttons.length) % buttons.length];
      next.click();
      next.focus();
    });
    buttons.push(button);
    list.append(button);
  });
  show(panels.some(([id]) => id === sheetTab) ? sheetTab : panels[0][0]);
  return list;
}

/** Every finished deal, the totals and (at the end) the winner, the places, the points
 * by contract, and the ways on: play again (``onAgain``) or a new table. */
export function showSheet(ctx, recordUrl, onAgain = null) {
  const view = ctx.state?.view;
  const dialog = document.getElementById("dlg-sheet");
  dialog.replaceChildren();
  dialog.append(heading(dialog, t("sheet.title")));
  const results = view ? view.results : [];
  const deals = el("div", "sheet-panel");
  if (!results.length) {
    deals.append(el("p", "muted", t("sheet.none")));
  } else {
    const table = el("table", "score-table sheet");
    const head = el("tr");
    head.append(el("th", "", t("sheet.deal")), el("th", "", t("sheet.contract")));
    for (let seat = 0; seat < 4; seat += 1) head.append(el("th", "", seatName(ctx, seat)));
    table.append(wrap("thead", head));
    const body = el("tbody");
    results.forEach((result, index) => {
      const row = el("tr");
      row.append(el("td", "num", String(index + 1)));
      row.append(el("td", "", `${contractName(result.contract, result.trump)} · ${seatName(ctx, result.declarer)}`));
      for (const points of result.points) row.append(numberCell(points));
      body.append(row);
    });
    const foot = el("tr", "totals");
    const label = el("th", "", t("sheet.total"));
    label.colSpan = 2;
    foot.append(label);
    for (const total of view.totals) foot.append(numberCell(total, true));
    table.append(body, wrap("tfoot", foot));
    const scroller = el("div", "sheet-scroll");
    scroller.append(table);
    deals.append(scroller);
  }
  const over = Boolean(view && view.phase === "over");
  if (over) {
    // The game over: who won and one's own place first, in view on a phone; the deals
    // after them.
    const best = Math.max(...view.totals);
    const names = view.totals
      .map((total, seat) => (total === best ? seatName(ctx, seat) : null))
      .filter((name) => name !== null);
    dialog.append(el("p", "winner", t("sheet.winner", { names: names.join(", ") })));
    dialog.append(gameOver(ctx, view));
    if (ctx.table?.rated) dialog.append(ratingChanges(ctx));
  }
  if (view && !over && ctx.state.board?.length) {
    // During the game the sheet has two tabs: the deals so far, and the contract board.
    const board = el("div", "sheet-panel");
    const table = contractBoard(ctx, ctx.state);
    table.id = "sheet-board";
    board.append(table, el("p", "legend small", `${t("board.legend")} ${t("scores.legend")}`));
    dialog.append(tabs(dialog, [["deals", t("sheet.deals"), deals], ["board", t("board.title"), board]]), deals, board);
  } else {
    dialog.append(deals);
  }
  const buttons = el("div", "dialog-buttons");
  let again = null;
  if (over && recordUrl && ctx.table) {
    const link = el("a", "button", t("table.record"));
    link.href = recordUrl;
    link.setAttribute("download", "");
    buttons.append(link);
    const board = el("a", "button", t("lobby.board"));
    board.href = ctx.offline ? pageUrl("board", "?offline") : api.boardUrl(ctx.table.id);
    board.id = "btn-board";
    buttons.append(board);
    const fresh = el("a", "button", t("over.newTable"));
    fresh.href = "/";
    fresh.id = "btn-new-table";
    buttons.append(fresh);
    if (onAgain && ctx.seat !== null) {
      again = el("button", "primary", t("over.again"));
      again.type = "button";
      again.autofocus = true;
      again.id = "btn-again";
      again.addEventListener("click", () => onAgain());
      buttons.append(again);
    }
  }
  // One primary button: Play again when there is one, else Close.
  buttons.append(closeButton(dialog, "sheet.close", "sheet-close", again === null));
  dialog.append(buttons);
  open(dialog);
}

/** How the finished rated game moved each player's rating ("1500 → 1532 (+32)"), from
 * the server (asked again for a few seconds: the ratings follow the game's end). */
function ratingChanges(ctx) {
  const section = el("section", "rating-changes");
  section.id = "rating-changes";
  const title = el("h3", "", t("rated.changes"));
  title.id = "rating-changes-title";
  section.setAttribute("aria-labelledby", title.id);
  section.append(title);
  if (ctx.ratingChanges?.length) {
    section.append(ratingList(ctx, ctx.ratingChanges));
    section.dataset.state = "shown";
    return section;
  }
  section.dataset.state = "loading";
  section.append(el("p", "muted small", t("rated.pending")));
  if (!ctx.ratingsAsked) {
    ctx.ratingsAsked = true;
    askRatings(ctx, 0);
  }
  return section;
}

async function askRatings(ctx, attempt) {
  let changes = [];
  try {
    changes = (await api.ratings(ctx.table.id)).changes;
  } catch {
    changes = [];
  }
  if (!changes.length) {
    if (attempt < 6) window.setTimeout(() => askRatings(ctx, attempt + 1), 500 * 2 ** attempt);
    else ctx.ratingsAsked = false;
    return;
  }
  ctx.ratingChanges = changes;
  const section = document.getElementById("rating-changes");
  if (!section) return;
  section.querySelector("p")?.remove();
  section.append(ratingList(ctx, changes));
  section.dataset.state = "shown";
}

function ratingList(ctx, changes) {
  const list = el("ul", "rating-list");
  const used = new Set();
  for (const change of changes) {
    // A person is named as the table names them ("You"); a house bot is one player
    // however many seats it took, named by its kind.
    const bot = change.ref.startsWith("bot:");
    const seat = bot ? null : (ctx.table?.seats ?? []).find((s) => s.player === change.ref && !used.has(s.seat));
    if (seat) used.add(seat.seat);
    const delta = change.after - change.before;
    const item = el("li", seat && seat.seat === ctx.seat ? "me" : "");
    item.dataset.ref = change.ref;
    item.dataset.before = String(change.before);
    item.dataset.after = String(change.after);
    const name = el("span", "name", seat ? seatName(ctx, seat.seat) : change.name);
    if (bot) name.append(" ", el("span", "badge bot", t("badge.bot")));
    item.append(
      name,
      el(
        "span",
        `num ${delta > 0 ? "plus" : delta < 0 ? "minus" : ""}`,
        t("rated.change", {
          before: formatNumber(change.before),
          after: formatNumber(change.after),
          delta: formatNumber(delta, { signed: true }),
        }),
      ),
    );
    list.append(item);
  }
  return list;
}

/** The last completed trick, with who played what and who won it. */
export function showLastTrick(ctx) {
  const dialog = document.getElementById("dlg-last");
  dialog.replaceChildren();
  dialog.append(heading(dialog, t("last.title")));
  const trick = ctx.state?.last_trick;
  if (!trick) {
    dialog.append(el("p", "muted", t("last.none")));
  } else {
    const row = el("div", "last-trick");
    trick.cards.forEach((card, index) => {
      const seat = (trick.leader + index) % 4;
      const cell = el("figure", seat === trick.winner ? "winner" : "");
      cell.append(cardFace(card), el("figcaption", "", seatName(ctx, seat)));
      row.append(cell);
    });
    dialog.append(row, el("p", "", t("last.won", { name: seatName(ctx, trick.winner) })));
  }
  const buttons = el("div", "dialog-buttons");
  buttons.append(closeButton(dialog, "last.close", "last-close"));
  dialog.append(buttons);
  open(dialog);
}

/** A taken person's seat as the join dialog names it (a guest marked). */
function seatShown(seat) {
  const name = seat.name ?? t("table.seat", { n: seat.seat + 1 });
  return seat.guest && seat.name ? t("table.guest", { name }) : name;
}

/** Ask a visitor for a name and a free seat; resolves to {name, seat} or null (watch).
 * A registered player (`account`) sits under their own name: the box shows it. */
export function askToJoin(ctx, info, account = null) {
  const dialog = document.getElementById("dlg-join");
  dialog.replaceChildren();
  return new Promise((resolve) => {
    const form = el("form", "join-form");
    form.method = "dialog";
    form.append(heading(dialog, t("join.title")));
    // Who made the table, its rules, and who sits where: bots, people, free seats.
    const about = el("div", "join-about");
    if (info.by) about.append(el("p", "join-by", t(info.by_guest ? "join.byGuest" : "join.by", { name: info.by })));
    about.append(el("p", "join-rules", t("join.rules", { rules: rulesName(info.rules) })));
    if (info.hints) about.append(el("p", "join-hints", t("hint.onTitle")));
    if (info.rated) about.append(el("p", "join-rated", t("rated.badgeTitle")));
    const list = el("ul", "join-seats");
    for (const seat of info.seats) {
      const who =
        seat.kind === "bot"
          ? t("join.seatBot", { bot: botName(seat.bot) })
          : seat.claimed
            ? t("join.seatTaken", { name: seatShown(seat) })
            : t("join.seatFree");
      const item = el("li", seat.kind === "human" && !seat.claimed ? "free" : "", "");
      item.dataset.seat = String(seat.seat);
      item.append(el("strong", "", t("table.seat", { n: seat.seat + 1 })), " ", who);
      list.append(item);
    }
    about.append(list);
    form.append(about);
    const label = el("label", "", t("join.name"));
    const input = el("input");
    input.name = "name";
    input.id = "join-name";
    input.maxLength = 32;
    input.required = true;
    input.value = loadName();
    if (account?.name && account.kind === "player") {
      input.value = account.name;
      input.readOnly = true;
    }
    label.append(input);
    form.append(label);
    const seats = el("div", "dialog-buttons seats");
    for (const seat of info.seats) {
      if (seat.kind !== "human" || seat.claimed) continue;
      const button = el("button", "primary", t("join.seat", { n: seat.seat + 1 }));
      button.type = "submit";
      button.dataset.seat = String(seat.seat);
      button.addEventListener("click", (event) => {
        event.preventDefault();
        if (!input.value.trim()) {
          input.reportValidity();
          return;
        }
        dialog.close();
        resolve({ name: input.value.trim(), seat: seat.seat });
      });
      seats.append(button);
    }
    const watch = el("button", "", t("join.watch"));
    watch.type = "button";
    watch.id = "join-watch";
    watch.addEventListener("click", () => {
      dialog.close();
      resolve(null);
    });
    seats.append(watch);
    form.append(seats);
    dialog.append(form);
    dialog.addEventListener("cancel", () => resolve(null), { once: true });
    open(dialog);
  });
}

/** The command that serves the home network too (a command: the same in every language). */
const LAN_COMMAND = "king --lan";

/** The invite link in a box, with a copy button. */
export function showInvite(tableId, toast) {
  const dialog = document.getElementById("dlg-invite");
  dialog.replaceChildren();
  const link = inviteLink(tableId);
  dialog.append(heading(dialog, t("table.invite")));
  if (!reachesOthers(link)) {
    // Plain `king`: this computer's own address, which reaches no one else.
    const how = el("p", "invite-local");
    how.id = "invite-local";
    how.append(t("table.inviteLocal"), " ", el("code", "", LAN_COMMAND), " ", t("table.inviteLocalThen"));
    dialog.append(how);
  }
  dialog.append(el("p", "", t(reachesOthers(link) ? "table.inviteText" : "table.inviteHere")));
  const input = el("input", "invite-link");
  input.readOnly = true;
  input.id = "invite-link";
  input.setAttribute("aria-label", t("table.inviteText"));
  input.value = link;
  const copy = el("button", "primary", t("table.copy"));
  copy.type = "button";
  copy.addEventListener("click", async () => {
    input.select();
    toast((await copyText(input.value)) ? t("lobby.copied") : t("lobby.copyFailed"));
  });
  const row = el("div", "invite-row");
  row.append(input, copy);
  const buttons = el("div", "dialog-buttons");
  buttons.append(closeButton(dialog, "sheet.close"));
  dialog.append(row, buttons);
  open(dialog);
}

/** The name of a table's rules (`rules` of the table: a preset name, or an object of the
 * preset and the toggles that differ from it), the preset named in the page's language. */
function rulesName(spec) {
  const preset = (name) => {
    const key = `rules.preset.${name}`;
    const text = t(key);
    return text === key ? String(name) : text;
  };
  if (typeof spec === "string") return preset(spec);
  if (!spec || typeof spec !== "object") return preset("classic");
  // As king.rules.Rules.name: "classic+overruff" and the like.
  const changes = Object.entries(spec).filter(([key]) => key !== "preset" && key !== "extra");
  return preset(spec.preset ?? "classic") + changes.map(([key, on]) => `${on ? "+" : "-"}${key}`).join("");
}

/** The optional rules this table plays by, after the rules of the game: its toggles, or
 * that it uses none.  Nothing when the table is not known (the lobby, an old server). */
function tableRules(table, titleId) {
  if (!table || !Array.isArray(table.toggles)) return null;
  const section = el("section", "rules-of-table");
  const name = rulesName(table.rules);
  const toggles = table.toggles
    .map((toggle) => t(`rules.toggle.${toggle}`))
    .filter((text) => !text.startsWith("rules.toggle."));
  if (!toggles.length) {
    section.append(renderMarkdown(t("rules.no_toggles", { name })));
    return section;
  }
  const title = el("h3", "", t("rules.of_this_game", { name }));
  title.id = titleId;
  section.setAttribute("aria-labelledby", titleId);
  section.append(title);
  for (const text of toggles) section.append(renderMarkdown(text));
  return section;
}

let rulesOpener = null;

/** The rules of the game (the catalog's `rules.body`) and, at a table, the optional rules
 * it plays by, in the page's language.  Called again while open (the language changed),
 * it draws them again in place.  Closing gives the focus back to what opened it. */
export function showRules(table) {
  const dialog = document.getElementById("dlg-rules");
  const reopen = dialog.open;
  const focused = reopen && dialog.contains(document.activeElement);
  const scrolled = reopen ? (dialog.querySelector(".rules-text")?.scrollTop ?? 0) : 0;
  if (!reopen) rulesOpener = document.activeElement;
  if (!dialog.dataset.wired) {
    dialog.dataset.wired = "true";
    dialog.addEventListener("close", () => {
      const opener = rulesOpener;
      rulesOpener = null;
      // Back to what opened it, or to the menu button when that is folded away now.
      const shown = opener?.isConnected && opener.getClientRects().length > 0;
      const target = shown ? opener : document.getElementById("btn-more");
      if (target && typeof target.focus === "function") target.focus();
    });
  }
  dialog.replaceChildren();
  const title = heading(dialog, t("rules.title"));
  // The text scrolls on its own, between the title and the Close button, and takes the
  // focus first (so that the arrow keys scroll it, from its top).
  const text = el("div", "rules-text");
  text.tabIndex = 0;
  text.setAttribute("role", "region");
  text.setAttribute("aria-labelledby", title.id);
  text.autofocus = true;
  text.append(renderMarkdown(t("rules.body"), { headingLevel: 3 })); // under the title (h2)
  text.append(renderMarkdown(t("rules.honest"), { headingLevel: 3 }));
  const own = tableRules(table, `${dialog.id}-table`);
  if (own) text.append(own);
  const buttons = el("div", "dialog-buttons");
  const close = closeButton(dialog, "rules.close", "rules-close");
  close.autofocus = false;
  buttons.append(close);
  dialog.append(title, text, buttons);
  open(dialog);
  text.scrollTop = scrolled;
  if (!reopen || focused) text.focus({ preventScroll: true });
}
