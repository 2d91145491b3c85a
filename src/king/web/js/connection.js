// One WebSocket to a table, reopened with a growing delay when it drops, so that a
// player who loses the network (or a server that restarts) comes back by itself.  A
// connection that goes quiet is asked for a pong, and given up (for a new one) when
// even that brings nothing: a server process that froze keeps its sockets open.

/** The table protocol's version, as the server or the static site wrote it on the page. */
const PROTOCOL = Number(document.documentElement.dataset.protocol);
/**
 * Quiet this long (ms): send a ping.  Quiet this long after all: connect afresh.  A live
 * server answers a ping at once, and a table whose server process froze is taken over
 * within its lease (1.5 s): giving up after 1.5 s brings the player back to the table
 * within the 3 s that shared tables promise (docs/deploy.md), at the cost of two pings a
 * second while nobody moves.
 */
const PING_AFTER = 500;
const GIVE_UP_AFTER = 1500;

export class Connection {
  /**
   * @param {string} table the table id
   * @param {() => object} greeting the first message after each (re)connection
   * @param {{onMessage: Function, onStatus: Function}} handlers
   */
  constructor(table, greeting, handlers) {
    this.table = table;
    this.greeting = greeting;
    this.handlers = handlers;
    this.socket = null;
    this.delay = 250;
    this.stopped = false;
    this.timer = null;
    this.heard = Date.now();
    this.pinged = false;
    this.watchdog = window.setInterval(() => this.watch(), 250);
  }

  /** Ping a quiet connection; replace one that stays silent even to a ping. */
  watch() {
    const socket = this.socket;
    if (this.stopped || !socket) return;
    const quiet = Date.now() - this.heard;
    if (quiet > GIVE_UP_AFTER) {
      // Silent even to a ping, or never opened: a new connection, without waiting.
      this.socket = null; // its close event, whenever it comes, is then ignored
      socket.close();
      this.handlers.onStatus("reconnecting");
      this.open();
    } else if (socket.readyState === WebSocket.OPEN && quiet > PING_AFTER && !this.pinged) {
      this.pinged = true;
      this.send({ type: "ping" });
    }
  }

  open() {
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    const url = `${scheme}://${window.location.host}/api/tables/${encodeURIComponent(this.table)}/ws`;
    const socket = new WebSocket(url);
    this.socket = socket;
    this.heard = Date.now();
    this.pinged = false;
    socket.addEventListener("open", () => {
      this.heard = Date.now();
      this.delay = 250;
      this.handlers.onStatus("open");
      this.send(this.greeting());
    });
    socket.addEventListener("message", (event) => {
      if (this.socket !== socket) return;
      this.heard = Date.now();
      this.pinged = false;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.handlers.onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.stopped || event.code === 4404) {
        this.handlers.onStatus("closed");
        return;
      }
      this.handlers.onStatus("reconnecting");
      this.timer = window.setTimeout(() => this.open(), this.delay);
      this.delay = Math.min(this.delay * 1.6, 3000);
    });
  }

  /** Send one message (the protocol version is added); false when not connected. */
  send(message) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify({ v: PROTOCOL, ...message }));
    return true;
  }

  close() {
    this.stopped = true;
    window.clearTimeout(this.timer);
    window.clearInterval(this.watchdog);
    this.socket?.close();
  }
}
