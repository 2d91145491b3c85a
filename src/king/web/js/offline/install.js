// The page's side of the service worker (/sw.js): register it, keep the offline game's
// large files when the person asks (or installs the app), and say whether they are kept.

import { siteUrl, STATIC_SITE } from "../site.js";

/** Register the service worker (every page does; it keeps the small files at once).
 * A person who kept an older build for offline play gets this one's files kept too. */
export function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return Promise.resolve(null);
  const registered = navigator.serviceWorker.register(siteUrl("sw.js")).catch(() => null);
  if (!checkedNewer) {
    checkedNewer = true;
    registered.then(() => keepNewerBuild()).catch(() => null);
    // A newer build that takes this page over keeps its files too.
    navigator.serviceWorker.addEventListener("controllerchange", () => keepNewerBuild().catch(() => null));
  }
  return registered;
}

let checkedNewer = false;

/** Keep the files of the build the service worker serves now, where the device kept an
 * older one's (a static site keeps them in any case: it has no server to come back to). */
async function keepNewerBuild() {
  if (!window.caches) return;
  const status = await offlineStatus();
  if (!status || status.kept) return;
  if (STATIC_SITE || (await keptOlderBuild(status.build))) await keepOffline(null);
}

/** Whether the device holds an older build's kept files (a cache with files in it:
 * never the person's first visit, which asks before it keeps 12 MB). */
async function keptOlderBuild(build) {
  for (const name of await caches.keys()) {
    if (!name.startsWith("king-offline-") || name === `king-offline-${build}`) continue;
    if ((await (await caches.open(name)).keys()).length) return true;
  }
  return false;
}

async function activeWorker() {
  if (!("serviceWorker" in navigator)) return null;
  await registerServiceWorker();
  const registration = await navigator.serviceWorker.ready;
  return registration.active;
}

/** Ask the service worker something; resolves with its answer of type ``answer``. */
async function ask(question, answer, onEach = null) {
  const worker = await activeWorker();
  if (!worker) return null;
  return new Promise((resolve) => {
    const listener = (event) => {
      const data = event.data ?? {};
      if (data.type === "keep-progress") onEach?.(data);
      if (data.type === answer || data.type === "keep-failed") {
        navigator.serviceWorker.removeEventListener("message", listener);
        resolve(data);
      }
    };
    navigator.serviceWorker.addEventListener("message", listener);
    worker.postMessage({ type: question });
  });
}

/** Whether the offline game's files are kept: {kept, build, bytes} (null: no service worker). */
export function offlineStatus() {
  return ask("status", "status");
}

/** Keep the offline game's files; ``onProgress({done, total})`` as each arrives. */
export function keepOffline(onProgress) {
  return ask("keep-offline", "kept", onProgress);
}

/** Keep the files when the person installs the app to the home screen. */
export function keepWhenInstalled() {
  window.addEventListener("appinstalled", () => {
    keepOffline(null);
  });
}

/** The offline game's manifest: the build and its files (the service worker answers
 * with its own when the server cannot be reached). */
export async function offlineManifest() {
  const response = await fetch(siteUrl("offline/manifest.json"));
  if (!response.ok) throw new Error(`no offline manifest (${response.status})`);
  return response.json();
}
