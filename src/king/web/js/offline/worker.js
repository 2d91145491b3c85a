// The offline game's table, in a Web Worker: Pyodide (CPython compiled to WebAssembly,
// served by the page's own server and kept by the service worker) runs king's own
// Python — the core, the rule and random bots, and king.offline.table, which speaks
// the server's table protocol.  The page talks to this worker through
// offline/connection.js as it talks to a server's WebSocket.
//
// Messages from the page: {kind: "start", options}, {kind: "send", text},
// {kind: "detach"}, {kind: "new"}, {kind: "record"}, and from the analysis
// board {kind: "board", options}: the saved game's board document, {kind:
// "board-record", options, record}: a record file's (a static site's board), and
// {kind: "analyse", options, record}: the record analysed on the device.
// Messages to the page: {kind: "progress", step}, {kind: "ready", build, resumed},
// {kind: "message", text}, {kind: "refused", sentence}, {kind: "record", text},
// {kind: "failed", error}, {kind: "fresh"}, {kind: "board", board, record},
// {kind: "analysis-progress", done, total}, {kind: "analysis", record}.

import { deleteSaved, readSaved, writeSaved } from "./storage.js";

const SOURCES = "/home/pyodide/king-offline";

let python = null;
let tables = null; // the king.offline.table module
let table = null;
let build = null;
let timer = null;
const startedAt = performance.now();

const post = (message) => self.postMessage(message);

/** The Python list of message texts, as JavaScript strings (the proxy released). */
function texts(proxy) {
  const list = proxy.toJs();
  proxy.destroy();
  return list;
}

/** The bundle of the build that began the saved game, when this device still keeps it
 * (a newer build waits for the next game: never a switch in the middle of one). */
async function bundleFor(manifest, saved) {
  if (!saved || saved.over || !saved.build || saved.build === manifest.build) return manifest.bundle;
  const older = manifest.bundle.replace(`king-${manifest.build}.zip`, `king-${saved.build}.zip`);
  return (await caches.match(older)) ? older : manifest.bundle;
}

/** A new game begins with this build: the kept files of older ones go (once this
 * build's are all kept, so that the device is never left with none), and a static
 * site's older pages' files (kept while a game of theirs went on). */
async function forgetOlderBuilds(manifest) {
  const mine = await caches.open(`king-offline-${manifest.build}`);
  const kept = await Promise.all(manifest.large.map((url) => mine.match(url)));
  if (!kept.every(Boolean)) return;
  const own = [`king-offline-${manifest.build}`, `king-shell-${manifest.build}`];
  for (const name of await caches.keys()) {
    if (name.startsWith("king-offline-") && !own.includes(name)) await caches.delete(name);
    if (manifest.site === "static" && name.startsWith("king-shell-") && !own.includes(name)) await caches.delete(name);
  }
}

async function boot(manifest, bundle = manifest.bundle) {
  post({ kind: "progress", step: "runtime" });
  // Pyodide's folder is the manifest's: the server's /static/pyodide/, or a static
  // site's folder named by its files' digest.
  const { loadPyodide } = await import(`${manifest.runtime}pyodide.mjs`);
  python = await loadPyodide({
    indexURL: manifest.runtime,
    lockFileURL: `${manifest.runtime}pyodide-lock.json`,
    packages: [],
    fullStdLib: false,
  });
  post({ kind: "progress", step: "python" });
  const response = await fetch(bundle);
  if (!response.ok) throw new Error(`the game's files could not be read (${response.status})`);
  python.unpackArchive(await response.arrayBuffer(), "zip", { extractDir: SOURCES });
  python.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(SOURCES)})`);
  tables = python.pyimport("king.offline.table");
  build = bundle === manifest.bundle ? manifest.build : bundle.slice(bundle.lastIndexOf("/king-") + "/king-".length, -".zip".length);
}

function newTable(options) {
  const seed = Math.floor(Math.random() * 2 ** 48);
  const made = tables.OfflineTable.new.callKwargs(options.rules ?? "classic", seed, {
    name: options.name ?? "You",
    bots: python.toPy(options.bots ?? ["rule", "rule", "rule"]),
    bot_pause: options.botPause ?? 0.7,
    hints: Boolean(options.hints),
    created: Date.now() / 1000,
  });
  return made;
}

let unsaved = false;

/** Keep the game in the browser; a browser that refuses (storage off) is told once. */
async function save() {
  if (!table) return;
  try {
    await writeSaved({ build, text: table.saved(), over: table.status === "over" });
  } catch {
    if (!unsaved) post({ kind: "unsaved" });
    unsaved = true;
  }
}

/** One page at a time plays the saved game (two would overwrite each other's moves):
 * a second waits, says so, and goes on once the first is closed. */
function claimGame() {
  const locks = self.navigator?.locks;
  if (!locks) return Promise.resolve();
  return new Promise((resolve) => {
    const hold = () => {
      resolve();
      return new Promise(() => {}); // held until this worker ends
    };
    locks.request("king-offline-game", { ifAvailable: true }, (lock) => {
      if (lock) return hold();
      post({ kind: "busy" });
      locks.request("king-offline-game", hold);
      return undefined;
    });
  });
}

function schedule() {
  self.clearTimeout(timer);
  timer = null;
  const delay = table?.bot_delay();
  if (delay === undefined || delay === null) return;
  timer = self.setTimeout(async () => {
    timer = null;
    deliver(table.advance());
    await save();
  }, delay * 1000);
}

function deliver(proxy) {
  for (const text of texts(proxy)) post({ kind: "message", text });
  schedule();
}

async function start(options) {
  await claimGame();
  const saved = await readSaved().catch(() => null);
  const bundle = await bundleFor(options.manifest, saved);
  try {
    await boot(options.manifest, bundle);
  } catch (error) {
    post({ kind: "failed", error: String(error?.message ?? error) });
    return;
  }
  post({ kind: "progress", step: "game" });
  let resumed = false;
  if (saved && !saved.over) {
    const [found, code, sentence] = texts(tables.resume(saved.text));
    if (!found) {
      post({ kind: "refused", code, sentence });
      return;
    }
    table = found;
    resumed = true;
  }
  if (!table) {
    table = newTable(options);
    await save();
    forgetOlderBuilds(options.manifest).catch(() => null);
  }
  const newer = build !== options.manifest.build;
  const ms = Math.round(performance.now() - startedAt);
  const wasmBytes = python._module?.HEAPU8?.byteLength ?? null; // the interpreter's memory
  post({ kind: "ready", build, resumed, newer, ms, wasmBytes });
}

self.addEventListener("message", async (event) => {
  const message = event.data;
  switch (message.kind) {
    case "start":
      try {
        await start(message.options);
      } catch (error) {
        post({ kind: "failed", error: String(error?.message ?? error) });
      }
      break;
    case "send":
      if (!table) return;
      deliver(table.receive(message.text));
      await save();
      break;
    case "board":
      try {
        await boot(message.options.manifest);
        const saved = await readSaved();
        const [board, record] = saved ? texts(tables.board_of_saved(saved.text)) : [null, null];
        post({ kind: "board", board, record });
      } catch (error) {
        post({ kind: "failed", error: String(error?.message ?? error) });
      }
      break;
    case "board-record":
      // A record a person opened on a static site's board (no server to read it).
      try {
        await boot(message.options.manifest);
        const [board, answer] = texts(tables.board_of_record(message.record));
        post(board ? { kind: "board", board, record: answer } : { kind: "refused", sentence: answer });
      } catch (error) {
        post({ kind: "failed", error: String(error?.message ?? error) });
      }
      break;
    case "analyse":
      // The finished game analysed on this device (the board's own worker): every
      // decision evaluated by the engine, its progress said after each.
      try {
        if (!tables) await boot(message.options.manifest);
        const progress = (done, total) => post({ kind: "analysis-progress", done, total });
        post({ kind: "analysis", record: tables.analysis_of(message.record, progress) });
      } catch (error) {
        post({ kind: "failed", error: String(error?.message ?? error) });
      }
      break;
    case "detach":
      table?.detach();
      break;
    case "record":
      post({ kind: "record", text: table ? table.record_text() : null });
      break;
    case "new":
      // The game is over (or refused): the page opens the table again, and that page's
      // worker deals the new game under the newest build it has (this worker may run
      // an older build's Python, kept for the game that just ended).
      self.clearTimeout(timer);
      table = null;
      await deleteSaved();
      post({ kind: "fresh" });
      break;
    default:
      break;
  }
});
