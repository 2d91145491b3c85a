// One WebSocket to a table, reopened with a growing delay when it drops, so that a
// player who loses the network (or a server that restarts) comes back by itself.

const PROTOCOL = 1;

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
  }

  open() {
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    const url = `${scheme}://${window.location.host}/api/tables/${encodeURIComponent(this.table)}/ws`;
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.delay = 250;
      this.handlers.onStatus("open");
      this.send(this.greeting());
    });
    socket.addEventListener("message", (event) => {
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
    this.socket?.close();
  }
}
