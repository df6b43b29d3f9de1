// One board's WebSocket: hello on open, reconnect with exponential backoff and jitter, resume from
// the last applied seq (R10), liveness pings (a silent server is left within seconds, see
// LIVENESS). On a cluster, a `redirect` (then close 4005) sends the
// next socket to the node that sequences the board at once; after a failure the page's own server
// is tried again, and it redirects. The owner supplies `helloFields()` (clientId,
// lastSeq) and handles messages; it resends unacknowledged operations after each welcome.
// Frames are written and read by protocol.js: only messages that follow docs/PROTOCOL.md arrive.
import { SUBPROTOCOL, build, decode, encode } from "./protocol.js";
import { accessEndedInWords } from "../model/people.js";

/** The close code after a `redirect`: the board is sequenced by another node of the cluster. */
const MOVED = 4005;
/** Redirects followed in a row without a welcome before falling back to the usual backoff. */
const MAX_REDIRECTS = 8;

/**
 * Liveness (docs/PROTOCOL.md, Liveness), in milliseconds: a joined socket that heard nothing for
 * `pingAfter` sends one `ping` (the server answers `pong`); one silent for `silenceLimit` (a stalled
 * server, a dropped network: TCP would take minutes to notice) is closed 4100 and the page
 * reconnects and resumes. A socket still opening or waiting for its welcome gets `welcomeLimit`
 * (a cluster node may hold a hello while its board settles). Checked every `checkEvery`.
 */
export const LIVENESS = Object.freeze({ pingAfter: 1500, silenceLimit: 5000, welcomeLimit: 10000, checkEvery: 250 });

/**
 * Closes after which reconnecting would not help: another tab took this identity (4000), another
 * protocol (4002), a key that opens nothing or no such board (4003, 4004), and the links rotated
 * while joined (1008 with Room.keysRotatedReason), this person removed or the share links turned off
 * (1008, issue 45). The page says which in words (join-words.js, people.js).
 */
const FATAL_CODES = new Set([4000, 4002, 4003, 4004]);
const isFatal = (code, reason) => FATAL_CODES.has(code) || (code === 1008 && (/share links were replaced/.test(reason) || accessEndedInWords(code, reason) !== null));

/**
 * A socket refused before it opened while the server answers HTTP: the upgrade was refused (503
 * over a connection cap, 429 for an address refused for now; a browser cannot read the status),
 * so the server is busy. Reported as close code 1013 ("try again later"); the next attempt waits
 * at least `BUSY_MS` (the server's Retry-After is not readable either).
 */
const BUSY = 1013;
const BUSY_MS = 5000;

export class Connection extends EventTarget {
  constructor({ url, board, key, name, helloFields, beforeHello }) {
    super();
    this.beforeHello = beforeHello;
    this.url = url;
    this.entryURL = url;
    this.redirectTo = null;
    this.redirects = 0;
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
    this.lastHeardAt = 0;
    this.pinging = false;
    this.stopped = false;
  }

  start() {
    this.#open();
    // Leaving cleanly: a page put away (navigated from, or into the back/forward cache) closes its
    // socket at once, so the room drops it from everyone's members now rather than when a ping
    // finds it gone; a page brought back from that cache joins again and resumes (R10).
    this.pageListeners = [
      ["online", () => this.#retryNow()],
      ["pagehide", () => this.#leave()],
      ["pageshow", (event) => event.persisted && this.#comeBack()],
    ];
    for (const [type, listener] of this.pageListeners) addEventListener(type, listener);
  }

  stop() {
    for (const [type, listener] of this.pageListeners || []) removeEventListener(type, listener);
    this.pageListeners = [];
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

  /**
   * The page is put away: its socket closes (1000: scripts may not send 1001, the browser's own
   * "going away"; the room ends the member on any close) and nothing reconnects until it is back.
   */
  #leave() {
    if (this.stopped || this.away) return;
    this.away = true;
    clearTimeout(this.timer);
    clearInterval(this.pingTimer);
    const socket = this.socket;
    this.socket = null; // its close event is ignored: this is no drop to recover from
    this.joined = false;
    try {
      socket?.close(1000, "page hidden");
    } catch {
      // A socket still connecting may throw in some browsers; it is dropped either way.
    }
  }

  /** The page is back from the back/forward cache: join again at once and resume. */
  #comeBack() {
    if (this.stopped || !this.away) return;
    this.away = false;
    this.url = this.entryURL;
    this.attempt = 0;
    this.#setState("reconnecting", { reason: "the page came back", code: 0, delay: 0 });
    this.#open();
  }

  #open() {
    if (this.stopped || this.away) return;
    let socket;
    try {
      socket = new WebSocket(this.url, SUBPROTOCOL);
    } catch (error) {
      this.#scheduleReconnect(`could not open a WebSocket (${error.message})`, 0);
      return;
    }
    this.socket = socket;
    this.joined = false;
    this.#watch(socket);
    socket.addEventListener("open", async () => {
      socket.opened = true;
      if (socket === this.socket) this.#heard();
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
      this.#heard();
      // The frame's size, for progress while a board arrives in parts (about bytes: UTF-16 units).
      this.lastMessageSize = typeof event.data === "string" ? event.data.length : 0;
      const { message, error } = decode(event.data);
      if (error) {
        console.warn(`corkboard: ignoring a frame that does not follow the protocol: ${error.message}`);
        return;
      }
      if (message.type === "redirect") {
        // The close (4005) follows; the next socket goes to the node named (or back to the entry).
        this.redirectTo = message.url ?? null;
        return;
      }
      if (message.type === "welcome") {
        this.joined = true;
        this.attempt = 0;
        this.redirects = 0;
        this.#setState("open");
      }
      this.dispatchEvent(new CustomEvent("message", { detail: message }));
    });
    socket.addEventListener("close", (event) => {
      if (socket !== this.socket) return;
      this.joined = false;
      clearInterval(this.pingTimer);
      if (isFatal(event.code, event.reason) || this.stopped) {
        this.stopped = true;
        this.#setState("closed", { reason: event.reason || "closed", code: event.code });
        return;
      }
      if (event.code === MOVED && this.redirects < MAX_REDIRECTS) {
        this.#follow(event.reason || "the board moved to another server");
        return;
      }
      if (!socket.opened && event.code === 1006) {
        this.#probe(socket);
        return;
      }
      this.#scheduleReconnect(event.reason || `connection closed (${event.code})`, event.code);
    });
    // An `error` event is always followed by `close`; nothing to do here.
  }

  /** A socket that never opened: busy when the server answers HTTP (see BUSY), else the network. */
  async #probe(socket) {
    let answers = false;
    try {
      const response = await fetch(new URL("/healthz", this.url.replace(/^ws/, "http")), { cache: "no-store", signal: AbortSignal.timeout(2000) });
      answers = response.status < 500 || response.status === 503;
    } catch {
      answers = false;
    }
    if (socket !== this.socket || this.stopped || this.away) return;
    if (answers) this.#scheduleReconnect("the server refused a new connection for now", BUSY, BUSY_MS);
    else this.#scheduleReconnect("connection closed (1006)", 1006);
  }

  /** Opens the next socket to where a redirect pointed: at once with a node, a moment later without. */
  #follow(reason) {
    clearTimeout(this.timer);
    this.redirects += 1;
    this.url = this.redirectTo ?? this.entryURL;
    const delay = this.redirectTo ? 0 : 200 * this.redirects;
    this.redirectTo = null;
    this.retryAt = Date.now() + delay;
    this.#setState("reconnecting", { reason, code: MOVED, delay });
    this.timer = setTimeout(() => this.#open(), delay);
  }

  /** `reason` is for logs; `code` (the close code, 0 when none) is what the page words for people. */
  #scheduleReconnect(reason, code = 0, atLeast = 0) {
    clearTimeout(this.timer);
    // The node a redirect led to may be gone: the page's own server knows where the board is now.
    this.url = this.entryURL;
    const base = Math.min(10000, 300 * 2 ** this.attempt);
    let delay = Math.max(atLeast, Math.round(base / 2 + Math.random() * (base / 2)));
    // A server that refuses for now says how long ("…; try again in 42 s"): trying sooner is refused again.
    const asked = /try again in (\d+) s/.exec(reason ?? "");
    if (asked) delay = Math.max(delay, Number(asked[1]) * 1000 + Math.round(Math.random() * 1000));
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

  /** Something arrived on the current socket: its silence starts over. */
  #heard() {
    this.lastHeardAt = Date.now();
    this.pinging = false;
  }

  /** Watches a new socket's silence until it is replaced or closed (LIVENESS). */
  #watch(socket) {
    clearInterval(this.pingTimer);
    this.#heard();
    this.pingTimer = setInterval(() => this.#checkLiveness(socket), LIVENESS.checkEvery);
  }

  #checkLiveness(socket) {
    if (socket !== this.socket || this.stopped) {
      clearInterval(this.pingTimer);
      return;
    }
    const silence = Date.now() - this.lastHeardAt;
    if (silence >= (this.joined ? LIVENESS.silenceLimit : LIVENESS.welcomeLimit)) {
      // Nothing heard, not even the pong: the server stalled or the network dropped, and the
      // socket does not know it yet. Leave it (its close event is ignored) and resume.
      clearInterval(this.pingTimer);
      this.socket = null;
      this.joined = false;
      try {
        socket.close(4100, "no answer");
      } catch {
        // Closing a socket still connecting may throw in some browsers; it is dropped either way.
      }
      this.#scheduleReconnect("the server stopped answering", 4100);
      return;
    }
    if (this.joined && silence >= LIVENESS.pingAfter && !this.pinging) {
      this.pinging = this.send(build.ping({ ref: "alive" }));
    }
  }
}
