// The WebSocket to the server this page came from: hello (or resume a seat with its token and
// the last seq held), reconnect with backoff when the connection drops, and say so.

import { t } from "./i18n.js";

export const PROTOCOL_VERSION = 3;
export const CLOSE_SEAT_RESUMED = 4000;
/** Closes after which the page does not come back: the room closed, or the host removed you. */
const CLOSE_FOR_GOOD = new Map([
  [4001, "status.room_closed"],
  [4002, "status.removed"],
]);
const BACKOFF = [500, 1000, 2000, 4000, 8000, 15000];

/** ws://host/ or wss://host/ for the page's own origin. */
export function socketUrl(location) {
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/`;
}

export class Connection {
  /**
   * `hello()` returns the hello fields to send (name, and token/room/last_seq when resuming);
   * `onMessage(message)` gets every server message; `onStatus(status, text)` hears
   * "connecting", "online", "offline" (with when the next try is), "closed".
   */
  constructor(url, { hello, onMessage, onStatus, onOpen }) {
    this.url = url;
    this.hello = hello;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.onOpen = onOpen;
    this.socket = null;
    this.attempt = 0;
    this.nextId = 1;
    this.greeted = false;
    this.stopped = false;
    this.queue = [];
    this.timer = null;
  }

  start() {
    this.stopped = false;
    this._open();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.socket) this.socket.close(1000, "bye");
  }

  /** Close this connection and open a new one at once (to say hello again). */
  restart() {
    const old = this.socket;
    this.socket = null;
    if (old) old.close(1000, "hello again"); // i18n: not shown (a close reason)
    clearTimeout(this.timer);
    this.attempt = 0;
    this._open();
  }

  /** Forget the commands queued for the next welcome (the hello was refused: they were asked
   *  under a name the server would not take). */
  dropQueued() {
    this.queue = [];
  }

  /** Whether the command whose id is `id` waits in the queue for the next welcome. */
  isQueued(id) {
    return this.queue.some((item) => item.id === id);
  }

  /** Send a command (given an id); queued while the connection is down. */
  send(message) {
    const framed = { ...message, id: this.nextId++ };
    if (this.greeted && this.socket?.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(framed));
    } else if (message.type !== "resync") {
      this.queue.push(framed);
    }
    return framed.id;
  }

  _open() {
    this.greeted = false;
    this.onStatus("connecting", this.attempt ? t("status.reconnecting") : t("status.connecting"));
    let socket;
    try {
      socket = new WebSocket(this.url);
    } catch {
      this._retry();
      return;
    }
    this.socket = socket;
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify({ type: "hello", version: PROTOCOL_VERSION, id: 0, ...this.hello() }));
    });
    socket.addEventListener("message", (event) => {
      if (this.socket !== socket) return;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!message || typeof message !== "object") return;
      if (message.type === "welcome" && !this.greeted) {
        this.greeted = true;
        const wasRetry = this.attempt > 0;
        this.attempt = 0;
        this.onStatus("online", wasRetry ? t("status.back") : t("status.connected"));
        if (this.onOpen) this.onOpen(wasRetry);
        const queued = this.queue.splice(0);
        for (const item of queued) socket.send(JSON.stringify(item));
      }
      this.onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.greeted = false;
      if (event.code === CLOSE_SEAT_RESUMED) {
        this.stopped = true;
        this.onStatus("closed", t("status.seat_elsewhere"));
        return;
      }
      if (CLOSE_FOR_GOOD.has(event.code)) {
        this.stopped = true;
        this.onStatus("closed", t(CLOSE_FOR_GOOD.get(event.code)));
        return;
      }
      if (!this.stopped) this._retry();
    });
  }

  _retry() {
    const wait = BACKOFF[Math.min(this.attempt, BACKOFF.length - 1)];
    const jitter = Math.round(wait * 0.2 * Math.random());
    this.attempt += 1;
    const seconds = Math.max(1, Math.round((wait + jitter) / 1000));
    this.onStatus("offline", t("status.lost", { seconds }));
    this.timer = setTimeout(() => this._open(), wait + jitter);
  }
}
