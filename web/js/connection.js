// One board's WebSocket: hello on open, reconnect with exponential backoff and jitter, resume from
// the last applied seq (R10), keepalive pings. The owner supplies `helloFields()` (clientId,
// lastSeq) and handles messages; it resends unacknowledged operations after each welcome.
// Frames are written and read by protocol.js: only messages that follow docs/PROTOCOL.md arrive.
import { SUBPROTOCOL, build, decode, encode } from "./protocol.js";

/** Close codes after which reconnecting would not help. */
const FATAL_CLOSE = new Map([
  [4000, "This board was opened again with the same identity in another tab; this tab stopped."],
  [4002, "This server speaks another protocol version; reload the page."],
  [4003, "The key in the link opens neither editing nor viewing this board; check the share link."],
  [4004, "There is no such board on this server; check the link."],
]);

export class Connection extends EventTarget {
  constructor({ url, board, key, name, helloFields, beforeHello }) {
    super();
    this.beforeHello = beforeHello;
    this.url = url;
    this.board = board;
    this.key = key;
    this.name = name;
    this.helloFields = helloFields;
    this.socket = null;
    this.state = "connecting"; // connecting | open | reconnecting | closed
    this.joined = false;
    this.attempt = 0;
    this.timer = null;
    this.pingTimer = null;
    this.lastMessageAt = 0;
    this.stopped = false;
  }

  start() {
    this.#open();
    addEventListener("online", () => this.#retryNow());
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pingTimer);
    this.socket?.close(1000, "bye");
    this.#setState("closed");
  }

  /** Sends a message when joined; returns false when it could not be sent now. */
  send(message) {
    if (!this.joined || this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(encode(message));
    return true;
  }

  /** Drops the current socket and joins again at once (to get a fresh snapshot). */
  reconnectNow() {
    const old = this.socket;
    this.socket = null;
    this.joined = false;
    old?.close(1000, "rejoining");
    clearTimeout(this.timer);
    this.#open();
  }

  #setState(state, detail = {}) {
    this.state = state;
    this.dispatchEvent(new CustomEvent("state", { detail: { state, ...detail } }));
  }

  #open() {
    if (this.stopped) return;
    let socket;
    try {
      socket = new WebSocket(this.url, SUBPROTOCOL);
    } catch (error) {
      this.#scheduleReconnect(`could not open a WebSocket (${error.message})`, 0);
      return;
    }
    this.socket = socket;
    this.joined = false;
    socket.addEventListener("open", async () => {
      try {
        await this.beforeHello?.();
      } catch {
        // Best effort: the hello goes out either way.
      }
      if (socket !== this.socket || socket.readyState !== WebSocket.OPEN) return;
      const hello = build.hello({ ref: "hello", board: this.board, name: this.name, ...this.helloFields(), key: this.key || undefined });
      socket.send(encode(hello));
    });
    socket.addEventListener("message", (event) => {
      if (socket !== this.socket) return;
      this.lastMessageAt = performance.now();
      // The frame's size, for progress while a board arrives in parts (about bytes: UTF-16 units).
      this.lastMessageSize = typeof event.data === "string" ? event.data.length : 0;
      const { message, error } = decode(event.data);
      if (error) {
        console.warn(`corkboard: ignoring a frame that does not follow the protocol: ${error.message}`);
        return;
      }
      if (message.type === "welcome") {
        this.joined = true;
        this.attempt = 0;
        this.#setState("open");
        this.#startPings();
      }
      this.dispatchEvent(new CustomEvent("message", { detail: message }));
    });
    socket.addEventListener("close", (event) => {
      if (socket !== this.socket) return;
      this.joined = false;
      clearInterval(this.pingTimer);
      const fatal = FATAL_CLOSE.get(event.code);
      if (fatal || this.stopped) {
        this.stopped = true;
        this.#setState("closed", { reason: fatal || "closed", code: event.code });
        return;
      }
      this.#scheduleReconnect(event.reason || `connection closed (${event.code})`, event.code);
    });
    // An `error` event is always followed by `close`; nothing to do here.
  }

  /** `reason` is for logs; `code` (the close code, 0 when none) is what the page words for people. */
  #scheduleReconnect(reason, code = 0) {
    clearTimeout(this.timer);
    const base = Math.min(10000, 300 * 2 ** this.attempt);
    const delay = Math.round(base / 2 + Math.random() * (base / 2));
    this.attempt += 1;
    this.retryAt = Date.now() + delay;
    this.#setState("reconnecting", { reason, code, delay });
    this.timer = setTimeout(() => this.#open(), delay);
  }

  #retryNow() {
    if (this.state !== "reconnecting") return;
    clearTimeout(this.timer);
    this.#open();
  }

  #startPings() {
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      if (performance.now() - this.lastMessageAt > 45000) {
        // Nothing heard for a long time (not even pongs): the socket is dead without knowing it.
        this.socket?.close(4100, "no answer");
        this.#scheduleReconnect("the server stopped answering", 4100);
        this.socket = null;
        return;
      }
      this.send(build.ping({ ref: "ping" }));
    }, 15000);
  }
}
