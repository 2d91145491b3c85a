// Learn King: a first game that teaches as it goes (the home screen's "Learn King", or
// any table opened with ?learn, the offline one too).  Each lesson shows once, at its
// moment: the game when it starts, the choice of a contract when it is the person's,
// each contract's rules when it is first played, the first card they play and the
// first time a card must follow suit, who takes a trick, what a penalty card costs,
// and the score after the first deal.  The page waits while a lesson is open; "Skip
// the lessons" ends them for this game.  What was shown is kept per game (the table's
// id and when it was made: the offline table's id is always "offline"), so a reload
// does not repeat it and the next game teaches afresh.

import { SUIT_SYMBOLS } from "./cards.js";
import { renderMarkdown } from "./markdown.js";
import { contractName, seatName } from "./render.js";
import { t } from "./strings.js";

const params = new URLSearchParams(window.location.search);

/** Whether this page teaches (?learn in its address). */
export const learning = params.has("learn");

/** Where one game's progress is kept: `table` is the table as the server sends it. */
function storeKey(table) {
  return `king:learn:${table.id}:${table.created}`;
}

function load(key) {
  try {
    const saved = JSON.parse(window.localStorage.getItem(key) ?? "{}");
    return { seen: new Set(Array.isArray(saved.seen) ? saved.seen : []), skipped: saved.skipped === true };
  } catch {
    return { seen: new Set(), skipped: false };
  }
}

function save(key, progress) {
  try {
    window.localStorage.setItem(key, JSON.stringify({ seen: [...progress.seen], skipped: progress.skipped }));
  } catch {
    // private browsing: the lessons may then repeat after a reload
  }
}

/** The lessons due after `message` (the state just shown), in the order they read. */
function lessonsFor(ctx, message, before) {
  const view = message.view;
  const due = [];
  due.push({ id: "welcome" });
  const trick = message.event?.kind === "play" && message.event.winner !== null ? message.last_trick : null;
  if (trick) {
    due.push({ id: "trick", vars: { name: seatName(ctx, trick.winner), you: trick.winner === ctx.seat } });
    const cost = penaltyLesson(ctx, message, before, trick);
    if (cost) due.push(cost);
  }
  if (message.event?.deal_over && view.results.length === 1) due.push({ id: "summary" });
  if (view.phase === "declaring" && view.to_act === ctx.seat) due.push(declareLesson(ctx, message));
  if (view.phase === "playing" && view.contract) {
    const suit = view.trump ? t(`suit.${view.trump}`) : "";
    due.push({ id: `contract.${view.contract}`, title: contractName(view.contract, view.trump), vars: { suit } });
  }
  if (view.phase === "playing" && view.to_act === ctx.seat) due.push(...playLessons(ctx, message));
  return due;
}

function declareLesson(ctx, message) {
  const [trumps, negatives] = message.obligations?.[ctx.seat] ?? [2, 3];
  return { id: "declare", vars: { trumps, negatives } };
}

/** "Your turn", and the first time the cards in hand are not all playable: why. */
function playLessons(ctx, message) {
  const view = message.view;
  const due = [{ id: "play" }];
  const legal = message.legal ?? [];
  if (!view.trick.length && legal.length < view.hand.length) due.push({ id: "heartsLead" });
  if (view.trick.length && legal.length < view.hand.length) {
    const led = view.trick[0].card.slice(-1);
    const follows = legal.every((card) => card.slice(-1) === led);
    const suit = t(`suit.${led}`);
    due.push(follows ? { id: "follow", vars: { suit } } : { id: "mustPlay", vars: { suit } });
  }
  return due;
}

/** The first trick of a negative contract that cost its taker points, said as the
 * contract counts: the trick itself (No Tricks, No Last Two, whatever cards are in it),
 * or the penalty cards in it (the hearts in No Hearts), never the other cards. */
function penaltyLesson(ctx, message, before, trick) {
  const view = message.view;
  if (!before || !view.contract || view.contract === "trumps" || !message.event) return null;
  if (message.event.deal_over) return null; // the summary shows that deal's points
  const lost = (before.view.points[trick.winner] ?? 0) - (view.points[trick.winner] ?? 0);
  if (lost <= 0) return null;
  const taken = message.taken?.cards?.[trick.winner] ?? [];
  const penalties = trick.cards.filter((code) => taken.includes(code));
  const byTricks = message.taken?.counts === "tricks" || !penalties.length;
  const cards = penalties.map((code) => `${code.slice(0, -1).replace("T", "10")}${SUIT_SYMBOLS[code.slice(-1)]}`).join(" ");
  return {
    id: "penalty",
    text: byTricks ? "penalty.trick" : "penalty.cards",
    vars: { name: seatName(ctx, trick.winner), you: trick.winner === ctx.seat, points: lost, cards, contract: contractName(view.contract, view.trump) },
  };
}

/** Show one lesson; resolves with "next" or "skip" once it is closed. */
function show(lesson, shown) {
  const box = document.getElementById("dlg-lesson");
  box.replaceChildren();
  box.dataset.lesson = lesson.id;
  const kicker = document.createElement("p");
  kicker.className = "lesson-kicker";
  kicker.textContent = t("learn.kicker", { n: shown });
  const title = document.createElement("h2");
  title.id = "dlg-lesson-title";
  title.textContent = lesson.title ?? t(`learn.${lesson.id}.title`);
  const text = document.createElement("div");
  text.className = "lesson-text";
  text.append(renderMarkdown(t(`learn.${lesson.text ?? lesson.id}`, lesson.vars ?? {}), { headingLevel: 3 }));
  const buttons = document.createElement("div");
  buttons.className = "dialog-buttons";
  const skip = document.createElement("button");
  skip.type = "button";
  skip.id = "lesson-skip";
  skip.textContent = t("learn.skip");
  const next = document.createElement("button");
  next.type = "button";
  next.id = "lesson-next";
  next.className = "primary";
  next.textContent = t("learn.next");
  next.autofocus = true;
  buttons.append(skip, next);
  box.append(kicker, title, text, buttons);
  return new Promise((resolve) => {
    let answer = "next";
    skip.addEventListener("click", () => {
      answer = "skip";
      box.close();
    });
    next.addEventListener("click", () => box.close());
    // The lesson about choosing a contract sits beside the choices it explains, which
    // stay in view and in reach: choosing one closes it.
    const beside = lesson.id === "declare";
    box.classList.toggle("beside-declare", beside);
    document.body.classList.toggle("lesson-beside", beside);
    const chosen = () => box.close();
    if (beside) document.getElementById("declare")?.addEventListener("click", chosen, { once: true });
    box.addEventListener(
      "close",
      () => {
        document.body.classList.remove("lesson-beside");
        document.getElementById("declare")?.removeEventListener("click", chosen);
        resolve(answer);
      },
      { once: true },
    );
    if (beside) box.show();
    else box.showModal();
    box.scrollTop = 0;
  });
}

/** The lessons of one table: `teach` after each state the page has shown. */
export class Lessons {
  constructor() {
    this.key = null;
    this.progress = null;
    this.before = null;
  }

  /** Show the lessons due now that were not shown yet (the page waits meanwhile). */
  async teach(ctx, message) {
    const before = this.before;
    this.before = message;
    if (ctx.seat === null || !message.view || !ctx.table) return;
    const key = storeKey(ctx.table);
    if (key !== this.key) {
      this.key = key; // the game is known from the welcome on
      this.progress = load(key);
    }
    if (this.progress.skipped) return;
    for (const lesson of lessonsFor(ctx, message, before)) {
      if (this.progress.seen.has(lesson.id)) continue;
      this.progress.seen.add(lesson.id);
      save(key, this.progress);
      const answer = await show(lesson, this.progress.seen.size);
      if (answer === "skip") {
        this.progress.skipped = true;
        save(key, this.progress);
        return;
      }
    }
  }
}
