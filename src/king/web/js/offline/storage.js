// The offline game kept in the browser (IndexedDB): one record, the game in play, saved
// after every card by the worker and read back when the page opens again.

const DATABASE = "king-offline";
const STORE = "games";
const KEY = "current";

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function run(mode, action) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const transaction = db.transaction(STORE, mode);
      const request = action(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  } finally {
    db.close();
  }
}

/** The saved game ({build, text, over, at}), or null. */
export async function readSaved() {
  const value = await run("readonly", (store) => store.get(KEY));
  return value && typeof value === "object" && typeof value.text === "string" ? value : null;
}

/** Keep the game (it replaces the one kept before, in one transaction). */
export function writeSaved(entry) {
  return run("readwrite", (store) => store.put({ ...entry, at: Date.now() }, KEY));
}

export function deleteSaved() {
  return run("readwrite", (store) => store.delete(KEY));
}
