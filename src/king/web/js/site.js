// Where the pages live and what stands behind them: a King server (`king`, `king serve`:
// the pages at the root of its address, beside its API), or the static site `king site`
// writes (any address and folder, no server: the home screen, the offline table and the
// analysis board, docs/offline.md).  A static site's pages say so in their head,
// `<meta name="king-site" content="static" data-root="/king/" data-languages="en,tr,…">`;
// its scripts, styles and images sit in a folder named by the build, found here from
// this module's own address, so that the same scripts serve both.

const meta = globalThis.document?.querySelector?.('meta[name="king-site"]') ?? null;

/** Whether these pages are the static site (no server: no API, no tables with friends). */
export const STATIC_SITE = meta?.content === "static";

/** The site's root address ("/" at a server; the base path of a static site). */
export const ROOT = meta?.dataset.root ?? "/";

/** The folder of the scripts, styles and images ("/static/" at a server). */
const ASSETS = new URL("../", import.meta.url).pathname;

/** The languages a static site ships (a server chooses among its own). */
export const SITE_LANGUAGES = (meta?.dataset.languages ?? "").split(",").filter(Boolean);

const PAGES = STATIC_SITE
  ? { home: "", offline: "offline.html", board: "board.html" }
  : { home: "", offline: "offline", board: "board" };

/** The address of one of the pages (`home`, `offline`, `board`), with ``query``. */
export function pageUrl(name, query = "") {
  return `${ROOT}${PAGES[name]}${query}`;
}

/** The address of a file of the site's own (``offline/manifest.json``, ``sw.js``). */
export function siteUrl(path) {
  return `${ROOT}${path}`;
}

/** The address of a script, style or image (``cards/AS.svg``, ``js/offline/worker.js``). */
export function assetUrl(path) {
  return `${ASSETS}${path}`;
}

/** Whether this page is the offline table. */
export function onOfflinePage() {
  return globalThis.location?.pathname === pageUrl("offline");
}
