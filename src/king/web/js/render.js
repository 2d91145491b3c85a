// Drawing the table from the latest state: the top bar, the four seats, the trick,
// whose turn it is and the score panel.  Nothing here talks to the server.

import { cardFace, cardGroups, cardLabel, position, SUIT_SYMBOLS, suitMark } from "./cards.js";
import { playerLink, ratingBadge } from "./people.js";
import { botName, t } from "./strings.js";

const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The name shown for a seat: "You", the person's name, or "rule bot". */
export function seatName(ctx, seat) {
  if (ctx.seat !== null && seat === ctx.seat) return t("table.you");
  const info = ctx.table?.seats?.[seat];
  if (!info) return t("table.seat", { n: seat + 1 });
  if (info.kind === "bot") return t("table.bot", { bot: botName(info.bot), n: seat });
  if (info.name && info.guest) return t("table.guest", { name: info.name });
  return info.name ?? t("table.seat", { n: seat + 1 });
}

export function contractName(contract, trump) {
  const name = t(`contract.${contract}`);
  return trump ? `${name} ${SUIT_SYMBOLS[trump]} ${t(`suit.${trump}`)}` : name;
}

export function renderTopbar(ctx) {
  const box = $("deal-info");
  box.replaceChildren();
  const state = ctx.state;
  if (!state) return;
  const view = state.view;
  if (view.phase === "over") {
    box.append(el("span", "deal-number", t("table.gameOver")));
    return;
  }
  const deal = Math.min(view.deal + 1, 20);
  const number = el("span", "deal-number", t("table.deal", { n: deal }));
  number.id = "deal-number";
  number.dataset.deal = String(deal);
  box.append(number);
  if (view.contract) {
    const contract = el("span", "deal-contract", t(`contract.${view.contract}`));
    if (view.trump) contract.append(" ", suitMark(view.trump), " ", t(`suit.${view.trump}`));
    box.append(contract);
  }
  if (view.phase === "playing" && view.tricks.length < 13) {
    const n = view.tricks.length + 1;
    const led = view.trick.length > 0 && view.leader !== null;
    const text = led
      ? t("table.trickLed", { n, name: seatName(ctx, view.leader), you: view.leader === ctx.seat })
      : t("table.trickNumber", { n });
    const trick = el("span", "deal-trick", text);
    trick.id = "trick-number";
    box.append(trick);
  }
  box.append(el("span", "deal-declarer", t("table.declarer", { name: seatName(ctx, view.declarer) })));
}

export function renderContract(ctx) {
  const box = $("contract");
  box.replaceChildren();
  delete box.dataset.contract;
  const view = ctx.state?.view;
  if (!view || view.phase === "over") return;
  if (!view.contract) {
    box.append(el("span", "muted", t("table.noContract")));
    return;
  }
  box.dataset.contract = view.contract;
  const title = el("strong", "contract-name", t(`contract.${view.contract}`));
  box.append(title);
  if (view.trump) box.append(" ", suitMark(view.trump), el("span", "", t(`suit.${view.trump}`)));
  box.append(el("span", "hint", t(`contract.hint.${view.contract}`)));
}

export function renderSeats(ctx) {
  const state = ctx.state;
  const view = state?.view;
  for (let seat = 0; seat < 4; seat += 1) {
    const pos = position(seat, ctx.me);
    const box = document.querySelector(`.seat[data-pos="${pos}"]`);
    box.replaceChildren();
    box.dataset.seat = String(seat);
    const info = ctx.table?.seats?.[seat];
    box.classList.toggle("to-act", view?.to_act === seat && view.phase !== "over");
    box.classList.toggle("declarer", view?.declarer === seat && view.phase !== "over");
    const head = el("div", "seat-head");
    head.append(seatLabel(ctx, seat, info));
    if (info?.rating !== null && info?.rating !== undefined) {
      head.append(ratingBadge(info.rating, info.provisional, "seat-rating"));
    }
    if (info?.kind === "bot") head.append(el("span", "badge bot", t("badge.bot")));
    if (info?.kind === "human" && info.claimed && !info.connected && seat !== ctx.seat) head.append(absence(ctx, info));
    if (view?.declarer === seat && view.phase !== "over") {
      const badge = el("span", "badge declarer-badge", t("badge.declarer"));
      badge.title = t("badge.declarerTitle");
      head.append(badge);
    }
    box.append(head);
    if (!state) continue;
    const stats = el("div", "seat-stats");
    const points = view.points[seat];
    const chip = el("span", `chip points ${points > 0 ? "plus" : points < 0 ? "minus" : ""}`);
    chip.textContent = points > 0 ? `+${points}` : String(points);
    stats.append(chip);
    stats.append(el("span", "chip", t("table.tricksWon", { n: view.tricks_won[seat] })));
    const [trumps, negatives] = state.obligations[seat];
    stats.append(el("span", "chip owes", t("scores.owesShort", { t: trumps, n: negatives })));
    box.append(stats);
    const taken = takenThisDeal(state, seat);
    if (taken.length) {
      const line = el("div", "seat-taken");
      line.dataset.taken = taken.join(" ");
      line.append(el("span", "visually-hidden", t("table.taken")), cardGroups(taken));
      box.append(line);
    }
    if (seat !== ctx.seat && pos !== "bottom") {
      const backs = el("div", "backs");
      backs.setAttribute("role", "img");
      backs.setAttribute("aria-label", t("table.cards", { n: state.hand_sizes[seat] }));
      for (let i = 0; i < state.hand_sizes[seat]; i += 1) backs.append(el("span", "back"));
      box.append(backs);
    }
  }
}

/** A seat's name: a link to the player's page when they have one (in a new tab while
 * the game goes on, so that the table stays open). */
function seatLabel(ctx, seat, info) {
  const name = seatName(ctx, seat);
  if (!info?.player) return el("span", "seat-name", name);
  const going = ctx.table?.status === "waiting" || ctx.table?.status === "playing";
  const link = playerLink(info.player, name, going);
  link.className = "seat-name player-link";
  return link;
}

/** The penalty cards `seat` has taken in the deal on the table (none between deals). */
export function takenThisDeal(state, seat) {
  const taken = state?.taken;
  if (!taken || taken.deal !== state.view.deal || !state.view.contract) return [];
  return taken.cards[seat] ?? [];
}

/** Put cards in the trick area: `cards` are {seat, card}; `arriving` animates one in. */
export function renderTrick(ctx, cards, { arriving = null, winner = null } = {}) {
  delete document.getElementById("trick").dataset.gather;
  for (const slot of document.querySelectorAll("#trick .slot")) slot.replaceChildren();
  for (const { seat, card } of cards) {
    const pos = position(seat, ctx.me);
    const face = cardFace(card);
    face.dataset.seat = String(seat);
    face.querySelector("img").alt = t("table.playedBy", { name: seatName(ctx, seat), card: cardLabel(card) });
    if (arriving === card) face.classList.add(`arrive-${pos}`);
    if (winner !== null && winner === seat) face.classList.add("winner");
    document.querySelector(`#trick .slot[data-pos="${pos}"]`).append(face);
  }
}

/** Sweep the finished trick towards the seat that took it (still under reduced motion:
 * the cards then simply stay until they are cleared). */
export function gatherTrick(ctx, winner) {
  const trick = document.getElementById("trick");
  trick.dataset.gather = position(winner, ctx.me);
}

export function renderTurn(ctx) {
  const box = $("turn");
  const view = ctx.state?.view;
  box.replaceChildren();
  document.body.classList.remove("my-turn");
  if (!view) return;
  if (view.phase === "over") {
    box.textContent = t("table.gameOver");
    return;
  }
  const seat = view.to_act;
  if (seat === null) return;
  const declaring = view.phase === "declaring";
  if (seat === ctx.seat) {
    document.body.classList.add("my-turn");
    box.append(el("strong", "", t(declaring ? "table.yourTurnDeclare" : "table.yourTurn")));
  } else {
    const key = declaring ? "table.theirTurnDeclare" : "table.theirTurn";
    box.textContent = t(key, { name: seatName(ctx, seat) });
    awayLine(ctx, box, seat);
  }
  renderClock(ctx, box);
}

let clockTimer = null;

/** When a bot will play for an away person, as a time on this page's clock (null: none
 * will, or one already does). */
function standInDue(ctx, info) {
  if (info.stand_in_in === null || info.stand_in_in === undefined) return null;
  return (ctx.tableReceived ?? Date.now()) + info.stand_in_in * 1000;
}

function secondsLeft(due) {
  return Math.max(0, Math.ceil((due - Date.now()) / 1000));
}

/** The badge of a person not at the table: on their way (just joined), away with the
 * seconds before a bot plays for them counting down for everyone, or played for. */
function absence(ctx, info) {
  if (info.joining) return el("span", "badge joining", t("table.joining"));
  if (info.stand_in) return el("span", "badge away", t("table.standIn"));
  const badge = el("span", "badge away", t("table.away"));
  const due = standInDue(ctx, info);
  if (due !== null) {
    badge.classList.add("away-countdown");
    badge.dataset.due = String(due);
    badge.textContent = t("table.awayFor", { n: secondsLeft(due) });
    startAwayTicks();
  }
  return badge;
}

let awayTimer = null;

/** Count the away badges (and the turn line) down each second, on every screen. */
function startAwayTicks() {
  if (awayTimer !== null) return;
  awayTimer = window.setInterval(() => {
    const badges = document.querySelectorAll("[data-due]");
    for (const badge of badges) {
      const left = secondsLeft(Number(badge.dataset.due));
      badge.textContent = t(badge.dataset.key ?? "table.awayFor", { n: left, name: badge.dataset.name ?? "" });
    }
    if (!badges.length) {
      window.clearInterval(awayTimer);
      awayTimer = null;
    }
  }, 1000);
}

/** The person to act is away: when a bot plays for them, counting down. */
function awayLine(ctx, box, seat) {
  const info = ctx.table?.seats?.[seat];
  if (!info || info.kind !== "human" || info.connected || info.joining) return;
  const due = standInDue(ctx, info);
  if (due === null) return;
  const name = seatName(ctx, seat);
  const line = el("span", "away-line", t("table.awayTurn", { n: secondsLeft(due), name }));
  line.id = "away-line";
  Object.assign(line.dataset, { due: String(due), key: "table.awayTurn", name });
  box.replaceChildren(line);
  startAwayTicks();
}

/** A rated table's clock for the person to act: the time before the stand-in moves
 * for them, counting down (#clock; data-low when ten seconds or fewer are left). */
function renderClock(ctx, box) {
  window.clearInterval(clockTimer);
  const clock = ctx.state?.clock;
  if (!clock || clock.due_in === null || clock.due_in === undefined) return;
  const due = (ctx.state.received ?? Date.now()) + clock.due_in * 1000;
  const span = el("span", "clock");
  span.id = "clock";
  const tick = () => {
    const left = Math.max(0, Math.ceil((due - Date.now()) / 1000));
    const text = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    span.textContent = text;
    span.title = t("table.clock", { time: text });
    span.dataset.low = String(left <= 10);
    if (left === 0) window.clearInterval(clockTimer);
  };
  tick();
  clockTimer = window.setInterval(tick, 500);
  box.append(" ", span);
}

export function renderScores(ctx) {
  const box = $("scores");
  box.replaceChildren();
  const state = ctx.state;
  const title = el("h2", "", t("scores.title"));
  title.id = "scores-title";
  box.append(title);
  const table = el("table", "score-table");
  const head = el("tr");
  for (const key of ["scores.player", "scores.deal", "scores.total"]) {
    head.append(el("th", "", t(key)));
  }
  table.append(wrap("thead", head));
  const body = el("tbody");
  for (let seat = 0; seat < 4; seat += 1) {
    const row = el("tr");
    if (seat === ctx.seat) row.className = "me";
    if (state?.view.to_act === seat) row.classList.add("to-act");
    const name = el("td", "name", seatName(ctx, seat));
    name.title = seatName(ctx, seat); // the whole name, when the column cuts it short
    row.append(name);
    const deal = state ? state.view.points[seat] : 0;
    const total = state ? state.view.totals[seat] : 0;
    row.append(el("td", `num ${deal < 0 ? "minus" : deal > 0 ? "plus" : ""}`, String(deal)));
    row.append(el("td", `num total ${total < 0 ? "minus" : total > 0 ? "plus" : ""}`, String(total)));
    body.append(row);
  }
  table.append(body);
  box.append(table);
  if (state?.board?.length) {
    const title = el("h2", "", t("board.title"));
    title.id = "board-title";
    box.append(title, contractBoard(ctx, state), el("p", "legend", `${t("board.legend")} ${t("scores.legend")}`));
  }
}

/**
 * The contract board, as on a King score card: a row for each contract (the negative
 * ones, then Trumps) with the deals each player declared it in and how often it may
 * still be declared, and a last row with what each player still owes.
 */
export function contractBoard(ctx, state) {
  const view = state.view;
  const table = el("table", "score-table board");
  const head = el("tr");
  head.append(el("th", "", t("board.contract")));
  for (let seat = 0; seat < 4; seat += 1) {
    const th = el("th", seat === ctx.seat ? "me" : "", seatName(ctx, seat));
    th.title = seatName(ctx, seat);
    head.append(th);
  }
  head.append(el("th", "", t("board.left")));
  table.append(wrap("thead", head));
  const body = el("tbody");
  for (const line of state.board) {
    const row = el("tr");
    row.dataset.line = line.contract;
    if (line.left !== null) row.dataset.left = String(line.left);
    if (line.left === 0) row.classList.add("used-up");
    row.append(el("th", "contract-cell", t(`contract.${line.contract}`)));
    for (let seat = 0; seat < 4; seat += 1) {
      const cell = el("td", "declared");
      cell.dataset.seat = String(seat);
      const deals = line.declared.filter((entry) => entry.declarer === seat);
      cell.dataset.deals = deals.map((entry) => entry.deal + 1).join(" ");
      for (const entry of deals) {
        const mark = el("span", "board-deal", String(entry.deal + 1));
        if (entry.trump) mark.append(suitMark(entry.trump));
        if (entry.deal === view.deal && view.phase === "playing") mark.classList.add("now");
        mark.title = t("board.declaredIn", { name: seatName(ctx, seat), n: entry.deal + 1 });
        cell.append(mark);
      }
      row.append(cell);
    }
    // How often it may still be declared: a number, worded for screen readers.
    const left = el("td", "left");
    if (line.left !== null) {
      const words = line.left === 0 ? t("board.usedUp") : t("board.leftCount", { n: line.left });
      left.title = words;
      const number = el("span", "", String(line.left));
      number.setAttribute("aria-hidden", "true");
      left.append(number, el("span", "visually-hidden", words));
    }
    row.append(left);
    body.append(row);
  }
  const owes = el("tr", "owes-row");
  owes.append(el("th", "", t("board.owes")));
  for (let seat = 0; seat < 4; seat += 1) {
    const [trumps, negatives] = state.obligations[seat];
    const cell = el("td", "owes", t("scores.owesShort", { t: trumps, n: negatives }));
    cell.dataset.seat = String(seat);
    cell.title = t("scores.owesValue", { t: trumps, n: negatives });
    owes.append(cell);
  }
  owes.append(el("td"));
  table.append(body, wrap("tfoot", owes));
  return table;
}

/** A new element holding `children`. */
export function wrap(tag, ...children) {
  const node = document.createElement(tag);
  node.append(...children);
  return node;
}

export { el };
