// The leaderboard (/leaderboard): every rated player and house bot, best first, with
// their rating ("?" while provisional) and how many rated games it rests on.

import { api, ApiError } from "./api.js";
import { el, formatNumber, playerLink, ratingBadge } from "./people.js";
import { errorText } from "./reasons.js";
import { applyStrings, installLanguageSelect, loadStrings, onLanguageChange, t } from "./strings.js";

const $ = (id) => document.getElementById(id);
let players = null;
/** The name of the registered player this browser is signed in as, if any. */
let mine = null;

function render() {
  document.title = t("leaderboard.pageTitle");
  const table = $("leaderboard");
  table.replaceChildren();
  if (players === null) return;
  const head = el("tr");
  for (const [key, cls] of [["leaderboard.rank", "num"], ["scores.player", ""], ["rating.title", "num"], ["leaderboard.games", "num"]]) {
    const th = el("th", cls, t(key));
    th.scope = "col";
    head.append(th);
  }
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  players.forEach((player, index) => {
    const row = el("tr", player.kind !== "bot" && player.ref === mine ? "me" : "");
    row.dataset.ref = player.ref;
    row.dataset.kind = player.kind;
    row.append(el("td", "num rank", formatNumber(index + 1)));
    const name = el("th", "name");
    name.scope = "row";
    name.append(playerLink(player.ref, player.name));
    if (player.kind === "bot") name.append(" ", el("span", "badge bot", t("badge.bot")));
    row.append(name);
    const rating = el("td", "num");
    rating.append(ratingBadge(player.rating, player.provisional));
    row.append(rating, el("td", "num", formatNumber(player.rated_games)));
    body.append(row);
  });
  table.append(thead, body);
  table.dataset.state = "shown";
  $("leaderboard-none").hidden = players.length > 0;
}

async function main() {
  await loadStrings();
  applyStrings();
  installLanguageSelect();
  onLanguageChange(render);
  render();
  try {
    const [board, me] = await Promise.all([api.leaderboard(), api.me().catch(() => ({ account: null }))]);
    players = board.players;
    mine = me.account?.name ?? null;
  } catch (error) {
    $("leaderboard-error").textContent = error instanceof ApiError ? errorText(error) : String(error);
    $("leaderboard").dataset.state = "failed";
    return;
  }
  render();
}

main();
