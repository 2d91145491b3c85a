// King's service worker, served at /sw.js (or at a static site's root) with this build's
// manifest written in (king.server.site.offline): it keeps the pages' small files on the
// first visit, and the large ones (Pyodide and the game's Python) when the person asks
// to keep the game for offline play (or installs the app; a static site's pages ask at
// once), each in a cache named by the build.  At a server, every page and file comes
// from the server as before; only when the server cannot be reached does the kept copy
// answer.  A static site has no server to ask first: every file of this build is
// answered from its cache (kept, and checked, when this build installed), so a page
// never mixes two builds.  A new build is a new script: it takes over at once (the next
// visit runs it), but the offline game of an older build goes on from that build's
// cache until the game is over (the worker then removes it: offline/worker.js).
//
// Every file the manifest names a SHA-256 for (the shipped files: scripts, styles,
// fonts, cards, Pyodide, the game's Python) is kept only if its bytes are that file: a
// copy damaged or altered on the way (plain http on a home network) is fetched once
// more, past the browser's cache, and refused if it is still wrong.  A kept copy is
// checked again before it answers for a large file and when a build is installed.

const MANIFEST = __MANIFEST__;
const SHELL = `king-shell-${MANIFEST.build}`;
const LARGE = `king-offline-${MANIFEST.build}`;
/** How long a page waits for the server before the kept copy answers (ms). */
const PATIENCE = 4000;
/** The SHA-256 (hex) of each shipped file, by its address. */
const INTEGRITY = MANIFEST.integrity;
/** The static site (no server behind its files), and where it lives. */
const STATIC_SITE = MANIFEST.site === "static";
const ROOT = MANIFEST.root;
const SHELL_FILES = new Set(MANIFEST.shell);
const LARGE_FILES = new Set(MANIFEST.large);

/** Whether a response holds the bytes this build names for ``url`` (any response for
 * an address the manifest names no digest for: a page, a catalog). */
async function intact(url, response) {
  const wanted = INTEGRITY[url];
  if (!wanted) return true;
  const digest = await crypto.subtle.digest("SHA-256", await response.clone().arrayBuffer());
  const hex = Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
  return hex === wanted;
}

/** The server's copy of ``url``, checked: fetched once more past every cache when the
 * first is not the file (one damaged on the way), refused when that is not either. */
async function fetchIntact(url, first = "no-cache") {
  for (const mode of [first, "reload"]) {
    const response = await fetch(url, { cache: mode });
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    if (await intact(url, response)) return response;
  }
  throw new Error(`${url}: not the file this version of King ships`);
}

/** Keep ``url`` in ``cache``, checked. */
async function keep(cache, url) {
  await cache.put(url, await fetchIntact(url));
}

/** Drop the copies kept in ``cache`` that are not this build's files (damaged on the
 * disk, or kept from a damaged answer by an older script); returns what was dropped. */
async function revalidate(cache) {
  const dropped = [];
  for (const request of await cache.keys()) {
    const url = new URL(request.url).pathname + new URL(request.url).search;
    const response = await cache.match(request);
    if (!response || !(await intact(url, response))) {
      await cache.delete(request);
      dropped.push(url);
    }
  }
  return dropped;
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const shell = await caches.open(SHELL);
      await revalidate(shell);
      // One file that fails (a server restarting) must not stop the rest.
      await Promise.all(
        MANIFEST.shell.map(async (url) => ((await shell.match(url)) ? null : keep(shell, url).catch(() => null))),
      );
      const names = await caches.keys();
      if (names.includes(LARGE)) await revalidate(await caches.open(LARGE));
      // A static site's newer build, on a device that kept an older one, keeps its own
      // large files before it takes over (Pyodide copied from the older build's cache
      // when unchanged: the game's Python alone travels), so that its next game starts
      // offline too; with no connection now, it installs at a later visit.
      if (STATIC_SITE && names.some((name) => name.startsWith("king-offline-") && name !== LARGE)) await keepLarge(null);
      await self.skipWaiting();
    })(),
  );
});
self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      // A static site's older files stay until its game is over (a page of the older
      // build still draws its cards from them: offline/worker.js removes them then);
      // a server serves its files again.
      for (const name of await caches.keys()) {
        if (!STATIC_SITE && name.startsWith("king-shell-") && name !== SHELL) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server's answer; the kept copy (``fallback``'s) when the server cannot be reached,
 * or answers only with an error, or is slower than PATIENCE while a copy is kept.  With
 * no copy kept, a slow server is waited for: the page would have nothing else. */
async function networkFirst(request, fallback) {
  const kept = () => caches.match(fallback ?? request, { ignoreVary: true });
  const answer = fetch(request).then(
    (response) => response,
    () => null,
  );
  const first = await Promise.race([answer, sleep(PATIENCE).then(() => "slow")]);
  if (first === "slow") {
    const copy = await kept();
    if (copy) return copy;
  }
  const response = first === "slow" ? await answer : first;
  if (response && response.status < 500) return response;
  return (await kept()) ?? response ?? Response.error();
}

/** A large file of the offline game: a kept copy that is this build's file (checked,
 * this build's cache first: an older build's may hold another file at the address),
 * else the server's, checked, in place of a damaged copy of this build's.  A file the
 * manifest names no digest for (an older build's bundle) is served as it was kept. */
async function keptFirst(request) {
  const url = new URL(request.url).pathname;
  if (!INTEGRITY[url]) return (await caches.match(request, { ignoreSearch: true })) ?? fetch(request);
  const others = (await caches.keys()).filter((name) => name !== LARGE);
  for (const name of [LARGE, ...others]) {
    const kept = await (await caches.open(name)).match(request, { ignoreSearch: true });
    if (kept && (await intact(url, kept))) return kept;
  }
  const fresh = await fetchIntact(url, "default").catch(() => null);
  if (!fresh) return Response.error();
  const large = await caches.open(LARGE);
  if (await large.match(url)) await large.put(url, fresh.clone());
  return fresh;
}

/** The kept catalog of the first language asked for that is kept (else English). */
function stringsFallback(url) {
  const wanted = (url.searchParams.get("lang") ?? "").split(",").map((code) => code.trim().toLowerCase().split("-")[0]);
  const kept = MANIFEST.shell.filter((entry) => entry.startsWith("/api/i18n?lang="));
  const codes = kept.map((entry) => entry.slice("/api/i18n?lang=".length));
  const code = wanted.find((c) => codes.includes(c)) ?? "en";
  return `/api/i18n?lang=${code}`;
}

/** A static site's file of this build: its kept copy, checked (a copy damaged on the
 * disk is never served), else its checked copy from the site, kept now. */
async function keptShell(url) {
  const shell = await caches.open(SHELL);
  const kept = await shell.match(url);
  if (kept && (await intact(url, kept))) return kept;
  try {
    const fresh = await fetchIntact(url);
    await shell.put(url, fresh.clone());
    return fresh;
  } catch {
    return Response.error();
  }
}

/** The static site's answers: this build's files from its caches, this build's
 * manifest (the page then runs the game's Python of the build that answered it), and
 * anything else (another page's address) from the site. */
function staticAnswer(request, path) {
  if (LARGE_FILES.has(path) || path.startsWith(`${ROOT}offline/king-`)) return keptFirst(request);
  if (path === `${ROOT}offline/manifest.json`) {
    return new Response(JSON.stringify(MANIFEST), { headers: { "Content-Type": "application/json" } });
  }
  if (request.mode === "navigate") {
    const page = path === `${ROOT}index.html` ? ROOT : path;
    return MANIFEST.pages.includes(page) ? keptShell(page) : null;
  }
  if (SHELL_FILES.has(path)) return keptShell(path);
  // An older build's file, for its page still open (the site serves only the newest).
  if (path.startsWith(`${ROOT}static/`)) return caches.match(request).then((kept) => kept ?? fetch(request));
  return null;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  const path = url.pathname;
  if (STATIC_SITE) {
    const answer = staticAnswer(request, path);
    if (answer) event.respondWith(answer);
  } else if (path.startsWith("/static/pyodide/") || path.startsWith("/offline/king-")) {
    event.respondWith(keptFirst(request));
  } else if (path === "/offline/manifest.json") {
    event.respondWith(
      networkFirst(request).then((response) =>
        response.type === "error" ? new Response(JSON.stringify(MANIFEST), { headers: { "Content-Type": "application/json" } }) : response,
      ),
    );
  } else if (path === "/api/i18n") {
    event.respondWith(networkFirst(request, stringsFallback(url)));
  } else if (request.mode === "navigate") {
    const page = MANIFEST.pages.includes(path) ? path : "/";
    event.respondWith(networkFirst(request, page));
  } else if (path.startsWith("/static/")) {
    event.respondWith(networkFirst(request));
  }
});

/** An older build's copy of ``url`` that is this build's file (Pyodide, unchanged from
 * one build to the next, is not fetched again), or null. */
async function keptBefore(url) {
  for (const name of await caches.keys()) {
    if (name === LARGE || !name.startsWith("king-offline-")) continue;
    const kept = await (await caches.open(name)).match(url);
    if (kept && (await intact(url, kept))) return kept;
  }
  return null;
}

/** The pages waiting for the large files to be kept, told how far it got. */
const waiting = new Set();
let keeping = null;

/** Keep every large file of this build once (a second page that asks meanwhile waits
 * for the same), telling every page that asked how far it got. */
function keepLarge(client) {
  if (client) waiting.add(client);
  keeping ??= (async () => {
    const cache = await caches.open(LARGE);
    let done = 0;
    for (const url of MANIFEST.large) {
      if (!(await cache.match(url))) {
        const before = await keptBefore(url);
        if (before) await cache.put(url, before);
        else await keep(cache, url);
      }
      done += 1;
      for (const page of waiting) page.postMessage({ type: "keep-progress", done, total: MANIFEST.large.length });
    }
  })().finally(() => {
    keeping = null;
    waiting.clear();
  });
  return keeping;
}

/** Whether every large file of this build is kept (asking makes no cache: an empty one
 * would read, to a page, as files kept before). */
async function isKept() {
  if (!(await caches.has(LARGE))) return false;
  const cache = await caches.open(LARGE);
  const found = await Promise.all(MANIFEST.large.map((url) => cache.match(url)));
  return found.every(Boolean);
}

self.addEventListener("message", (event) => {
  const client = event.source;
  const kind = event.data?.type;
  if (kind === "keep-offline") {
    event.waitUntil(
      keepLarge(client).then(
        () => client?.postMessage({ type: "kept", build: MANIFEST.build }),
        (error) => client?.postMessage({ type: "keep-failed", error: String(error?.message ?? error) }),
      ),
    );
  } else if (kind === "status") {
    event.waitUntil(isKept().then((kept) => client?.postMessage({ type: "status", kept, build: MANIFEST.build, bytes: MANIFEST.large_bytes })));
  }
});
