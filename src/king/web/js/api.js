// HTTP calls to the server and the seat tokens this browser holds.

/** An error answered by the server: `code` is a stable word, `message` a sentence. */
export class ApiError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/** One request to the server: its JSON answer, or an ApiError.  A string body (a
 * record file as it was read) is sent as it is, anything else as JSON. */
export async function call(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined || typeof body === "string" ? body : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError("network", String(error), 0);
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = data && data.error ? data.error : { code: "error", message: response.statusText };
    throw new ApiError(error.code, error.message, response.status);
  }
  return data;
}

export const api = {
  bots: () => call("GET", "/api/bots"),
  /** How far the computer players are in getting ready (the local game's first start). */
  preparing: () => call("GET", "/api/preparing"),
  lobby: () => call("GET", "/api/tables"),
  table: (id) => call("GET", `/api/tables/${encodeURIComponent(id)}`),
  create: (request) => call("POST", "/api/tables", request),
  join: (id, name, seat) =>
    call("POST", `/api/tables/${encodeURIComponent(id)}/join`, { name, seat }),
  again: (id, token) => call("POST", `/api/tables/${encodeURIComponent(id)}/again`, { token }),
  recordUrl: (id) => `/api/tables/${encodeURIComponent(id)}/record`,
  boardUrl: (id) => `/board?table=${encodeURIComponent(id)}`,
  // Accounts: the session cookie (HttpOnly) names the person; the page never sees it.
  me: () => call("GET", "/api/me"),
  register: (name, password) => call("POST", "/api/accounts", { name, password }),
  login: (name, password) => call("POST", "/api/login", { name, password }),
  logout: () => call("POST", "/api/logout"),
  logoutEverywhere: () => call("POST", "/api/logout/everywhere"),
  /** Take the account's seat at an unfinished table back on this device (a new token). */
  takeBack: (id) => call("POST", `/api/tables/${encodeURIComponent(id)}/seat`),
  ratings: (id) => call("GET", `/api/tables/${encodeURIComponent(id)}/ratings`),
  player: (ref) => call("GET", `/api/players/${encodeURIComponent(ref)}`),
  stats: (ref, since, until) => {
    const query = new URLSearchParams();
    if (since) query.set("since", since);
    if (until) query.set("until", until);
    const text = query.toString();
    return call("GET", `/api/players/${encodeURIComponent(ref)}/stats${text ? `?${text}` : ""}`);
  },
  games: (ref, offset = 0, limit = 20) =>
    call("GET", `/api/players/${encodeURIComponent(ref)}/games?offset=${offset}&limit=${limit}`),
  leaderboard: () => call("GET", "/api/leaderboard"),
  /** A player's page: a registered name, or `bot:<spec>`. */
  playerUrl: (ref) => `/players/${encodeURIComponent(ref)}`,
};

const TOKEN_KEY = (table) => `king:token:${table}`;

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** The token this browser holds for a table's seat, if any. */
export function loadToken(table) {
  return storage()?.getItem(TOKEN_KEY(table)) ?? null;
}

export function saveToken(table, token) {
  storage()?.setItem(TOKEN_KEY(table), token);
}

export function forgetToken(table) {
  storage()?.removeItem(TOKEN_KEY(table));
}

/** Forget every seat token this browser holds (at Log out: the next person at this
 * browser takes no seat of the last one's). */
export function forgetAllTokens() {
  const store = storage();
  if (!store) return;
  const keys = [];
  for (let i = 0; i < store.length; i += 1) {
    const key = store.key(i);
    if (key?.startsWith("king:token:")) keys.push(key);
  }
  for (const key of keys) store.removeItem(key);
}

export function loadName() {
  return storage()?.getItem("king:name") ?? "";
}

export function saveName(name) {
  storage()?.setItem("king:name", name);
}

/** The bots' speed this browser asked for last (fast, normal, slow), if any. */
export const SPEEDS = ["fast", "normal", "slow"];

export function loadSpeed() {
  const speed = storage()?.getItem("king:speed");
  return SPEEDS.includes(speed) ? speed : null;
}

export function saveSpeed(speed) {
  storage()?.setItem("king:speed", speed);
}

let site = null;

/** Where people reach this server (GET /api/site): its public address, the address a
 * phone on the home network opens and its QR code; asked once a page. */
export async function loadSite() {
  if (site === null) {
    site = await call("GET", "/api/site").catch(() => ({ public_url: null, lan_url: null, phone_url: null, phone_qr: null }));
  }
  return site;
}

/** The absolute invite link of a table: at the server's public address when it has one
 * (behind a proxy, or king --lan), not whatever address this browser used. */
export function inviteLink(table) {
  const base = site?.public_url ?? window.location.origin;
  return `${base}/t/${encodeURIComponent(table)}`;
}

/** Whether an address can reach this server from another device: not this computer's
 * own (127.0.0.1, localhost, ::1), which a friend's phone would take for its own. */
export function reachesOthers(url) {
  const host = new URL(url).hostname;
  return !(host === "localhost" || host === "[::1]" || host.startsWith("127."));
}

/** Copy text to the clipboard; false when the browser refuses (then select it instead). */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
