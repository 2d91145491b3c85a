// Every string the page shows, in one place, so that a translation swaps this object.
// Placeholders are written {name}; t() fills them in.

export const STRINGS = {
  "app.title": "King",
  "app.tagline": "The trick-taking game of twenty deals",
  "app.loading": "Loading…",

  "lobby.title": "King — lobby",
  "lobby.create": "New table",
  "lobby.create.button": "Create the table",
  "lobby.yourName": "Your name",
  "lobby.rules": "Rules",
  "lobby.rules.classic": "Classic",
  "lobby.rules.pagat": "Pagat (forced penalty cards, early end)",
  "lobby.rules.turkish": "Turkish (pagat + overruff, trump lead, two of diamonds)",
  "lobby.seat": "Seat {n}",
  "lobby.seat.you": "You",
  "lobby.seat.human": "A friend (invite)",
  "lobby.seat.bot": "Computer: {bot}",
  "lobby.open": "Open tables",
  "lobby.noOpen": "No open tables. Create one!",
  "lobby.finished": "Finished games",
  "lobby.noFinished": "No finished games yet.",
  "lobby.join": "Join",
  "lobby.watch": "Watch",
  "lobby.view": "Scores",
  "lobby.record": "Record",
  "lobby.copyInvite": "Copy invite link",
  "lobby.copied": "Invite link copied",
  "lobby.copyFailed": "Copy the link from the box",
  "lobby.free": "free seat",
  "lobby.status.waiting": "waiting for players",
  "lobby.status.playing": "deal {deal} of 20",
  "lobby.status.over": "finished",
  "lobby.spectators": "{n} watching",
  "lobby.created": "Table created",

  "table.title": "King — table {id}",
  "table.lobby": "Lobby",
  "table.lastTrick": "Last trick",
  "table.scores": "Score sheet",
  "table.record": "Download record",
  "table.invite": "Invite",
  "table.inviteText": "Send this link to your friends:",
  "table.copy": "Copy",
  "table.deal": "Deal {n} of 20",
  "table.declarer": "declarer {name}",
  "table.contract": "Contract",
  "table.trump": "trump {suit}",
  "table.noContract": "choosing a contract…",
  "table.yourTurn": "Your turn",
  "table.yourTurnDeclare": "Your turn: choose a contract",
  "table.theirTurn": "{name} to play",
  "table.theirTurnDeclare": "{name} is choosing a contract",
  "table.waiting": "Waiting for players: {n} free seat(s)",
  "table.spectating": "You are watching",
  "table.reconnecting": "Connection lost — reconnecting…",
  "table.gameOver": "The game is over",
  "table.trickWon": "{name} takes the trick",
  "table.you": "You",
  "table.seat": "Seat {n}",
  "table.bot": "{bot} bot {n}",
  "table.standIn": "a bot plays for them",
  "table.away": "away",
  "table.cards": "{n} cards",
  "table.tricksWon": "{n} tricks",
  "table.hand": "Your hand",
  "table.handHint": "Arrow keys or Tab to choose, Enter to play",
  "table.noSuchTable": "There is no such table.",
  "table.notStarted": "The game starts when every seat is taken.",

  "join.title": "Join this table",
  "join.name": "Your name",
  "join.seat": "Take seat {n}",
  "join.watch": "Just watch",
  "join.full": "Every seat is taken: you can watch.",

  "badge.bot": "bot",
  "badge.declarer": "declarer",
  "badge.declarerTitle": "declarer of this deal",

  "scores.title": "Scores",
  "scores.player": "Player",
  "scores.deal": "Deal",
  "scores.total": "Total",
  "scores.owes": "Owes",
  "scores.legend": "Owes: Trumps (T) and negative contracts (N) still to declare",
  "scores.owesValue": "{t} trumps · {n} negative",
  "scores.owesShort": "T{t} N{n}",
  "scores.tricks": "Tricks",

  "declare.title": "Choose the contract",
  "declare.negatives": "Negative contracts",
  "declare.trumps": "Trumps (you name the trump suit)",
  "declare.why.trumps_done": "you have declared Trumps twice",
  "declare.why.negatives_done": "you have declared three negative contracts",
  "declare.why.played_twice": "already played twice this game",

  "summary.title": "Deal {n}: {contract}",
  "summary.declaredBy": "declared by {name}",
  "summary.points": "Points",
  "summary.total": "Total",
  "summary.continue": "Continue",

  "sheet.title": "Score sheet",
  "sheet.deal": "Deal",
  "sheet.contract": "Contract",
  "sheet.total": "Total",
  "sheet.winner": "Winner: {names}",
  "sheet.close": "Close",
  "sheet.none": "No deal has finished yet.",

  "last.title": "Last trick",
  "last.none": "No trick has been played yet.",
  "last.won": "won by {name}",
  "last.close": "Close",

  "contract.trumps": "Trumps",
  "contract.no-tricks": "No Tricks",
  "contract.no-hearts": "No Hearts",
  "contract.no-queens": "No Queens",
  "contract.no-boys": "No Boys",
  "contract.no-king": "No King",
  "contract.no-last-two": "No Last Two",
  "contract.hint.trumps": "+50 per trick",
  "contract.hint.no-tricks": "−50 per trick",
  "contract.hint.no-hearts": "−30 per heart",
  "contract.hint.no-queens": "−100 per queen",
  "contract.hint.no-boys": "−60 per king or jack",
  "contract.hint.no-king": "−320 for the K♥",
  "contract.hint.no-last-two": "−180 per last-two trick",

  "suit.S": "spades",
  "suit.H": "hearts",
  "suit.D": "diamonds",
  "suit.C": "clubs",
  "rank.A": "ace",
  "rank.K": "king",
  "rank.Q": "queen",
  "rank.J": "jack",
  "rank.T": "ten",
  "rank.9": "nine",
  "rank.8": "eight",
  "rank.7": "seven",
  "rank.6": "six",
  "rank.5": "five",
  "rank.4": "four",
  "rank.3": "three",
  "rank.2": "two",
  "card.label": "{rank} of {suit}",
  "card.playable": "{card}, playable",

  "error.generic": "Refused: {message}",
  "error.illegal": "Not allowed: {message}",
  "error.not_your_turn": "It is not your turn.",
  "error.bad_token": "Your seat's key is not valid at this table.",
  "error.not_found": "There is no such table.",
  "error.network": "The server cannot be reached.",
  "error.seat_taken": "That seat was just taken.",
};

/** The string for `key`, with {placeholders} filled from `vars`. */
export function t(key, vars = {}) {
  const text = STRINGS[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

/** Fill every element with data-i18n (text) or data-i18n-label (aria-label/title). */
export function applyStrings(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-label]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nLabel));
    el.title = t(el.dataset.i18nLabel);
  }
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
}
