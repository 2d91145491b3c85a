// The offline table as the page sees it: the same interface as the server's
// WebSocket connection (../connection.js) — open(), send(), close(), and the
// onMessage/onStatus handlers — to a table that runs in a Web Worker (worker.js).
// Besides: the game's record, a new game, and what the worker says while it starts.

import { assetUrl } from "../site.js";

/** The table protocol's version, as the server or the static site wrote it on the page. */
const PROTOCOL = Number(document.documentElement.dataset.protocol);

export class OfflineConnection {
  /**
   * @param {() => object} greeting the first message once the table is ready
   * @param {{onMessage: Function, onStatus: Function, onOffline: Function}} handlers
   *   onOffline gets the worker's own news: progress, ready, refused, failed
   * @param {object} options the table's options for a new game, and the manifest
   */
  constructor(greeting, handlers, options) {
    this.greeting = greeting;
    this.handlers = handlers;
    this.options = options;
    this.worker = null;
    this.ready = false;
    this.waiting = [];
  }

  open() {
    const worker = new Worker(assetUrl("js/offline/worker.js"), { type: "module" });
    this.worker = worker;
    worker.addEventListener("message", (event) => this.receive(event.data));
    worker.addEventListener("error", (event) => {
      this.handlers.onOffline({ kind: "failed", error: event.message ?? "the worker failed" });
    });
    this.handlers.onStatus("connecting");
    worker.postMessage({ kind: "start", options: this.options });
  }

  receive(data) {
    switch (data.kind) {
      case "message": {
        let message;
        try {
          message = JSON.parse(data.text);
        } catch {
          return;
        }
        this.handlers.onMessage(message);
        break;
      }
      case "ready":
        this.ready = true;
        this.handlers.onStatus("open");
        this.handlers.onOffline(data);
        this.send(this.greeting());
        break;
      case "record":
        this.waiting.shift()?.(data.text);
        break;
      default:
        this.handlers.onOffline(data);
        break;
    }
  }

  /** Send one message (the protocol version is added); false before the table is ready. */
  send(message) {
    if (!this.ready) return false;
    this.worker.postMessage({ kind: "send", text: JSON.stringify({ v: PROTOCOL, ...message }) });
    return true;
  }

  /** The game's record (king-record/1 JSON text), or null before the worker is ready. */
  record() {
    if (!this.worker) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.worker.postMessage({ kind: "record" });
    });
  }

  /** Forget the game in play (the page then opens the table again, which deals the
   * next one); resolves once it is forgotten. */
  newGame() {
    return new Promise((resolve) => {
      const listener = (event) => {
        if (event.data.kind !== "fresh") return;
        this.worker.removeEventListener("message", listener);
        resolve();
      };
      this.worker.addEventListener("message", listener);
      this.worker.postMessage({ kind: "new" });
    });
  }

  close() {
    this.worker?.postMessage({ kind: "detach" });
    this.worker?.terminate();
    this.worker = null;
    this.ready = false;
  }
}
