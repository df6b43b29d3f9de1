// A board session for the JS tests, without a browser: a fake connection records every message
// the page sends (each checked by protocol.js) and delivers server messages (each checked too),
// starting from the welcome example of docs/PROTOCOL.md (the demo board, joined as Grace, m2).
import { BoardSession } from "../../web/js/net/session.js";
import { DragController } from "../../web/js/drag/drag-controller.js";
import { Selection } from "../../web/js/drag/selection.js";
import { encode, validateServerMessage } from "../../web/js/net/protocol.js";
import { loadProtocolDocument } from "./protocol-document.mjs";

export const welcomeExample = loadProtocolDocument().blocks.find((b) => b.json.type === "welcome" && b.json.snapshot).json;

/** A connection that records what it was sent and is told what the server says. */
export class FakeConnection extends EventTarget {
  constructor(options) {
    super();
    this.options = options;
    this.sent = [];
    this.joined = false;
  }

  start() {}

  send(message) {
    if (!this.joined) return false;
    this.sent.push(JSON.parse(encode(message)));
    return true;
  }

  reconnectNow() {
    this.reconnects = (this.reconnects || 0) + 1;
  }

  receive(message) {
    validateServerMessage(message);
    if (message.type === "welcome") {
      this.joined = true;
      this.dispatchEvent(new CustomEvent("state", { detail: { state: "open" } }));
    }
    this.dispatchEvent(new CustomEvent("message", { detail: message }));
  }

  drop(reason = "connection closed (1006)") {
    this.joined = false;
    this.dispatchEvent(new CustomEvent("state", { detail: { state: "reconnecting", reason } }));
  }

  /** The messages sent since the last call, of one type or all. */
  take(type) {
    const taken = this.sent.filter((m) => !type || m.type === type);
    this.sent = this.sent.filter((m) => type && m.type !== type);
    return taken;
  }
}

/** A session joined to the demo board as Grace (m2), with a drag controller and what they said. */
export function joined() {
  const told = { toasts: [], announcements: [], rejected: [], events: [], loading: [] };
  let conn;
  // Wired as client.js wires them.
  const handlers = {
    connection: ({ state, wasOpen }) => state === "reconnecting" && wasOpen && drags.connectionLost(),
    rejected: (envelope, outcome) => told.rejected.push({ envelope, outcome }),
    refusedMessage: (error, envelope) => told.rejected.push({ envelope, error }),
    granted: (m) => drags.granted(m),
    proposal: (m) => drags.proposed(m),
    loading: (progress) => told.loading.push(progress && progress.assembler.fraction),
    log: (event) => told.events.push(event),
  };
  const session = new BoardSession({ url: "ws://test/ws", board: "demo", name: "Grace", connect: (options) => (conn = new FakeConnection(options)) }, handlers);
  const hooks = {
    render() {},
    renderNow() {},
    log: (event) => told.events.push(event),
    toast: (text) => told.toasts.push(text),
    announce: (text) => told.announcements.push(text),
  };
  const selection = new Selection({ board: () => session.board, announce: hooks.announce, changed() {} });
  const drags = new DragController({ session, selection, hooks });
  session.start();
  conn.receive(structuredClone(welcomeExample));
  return { session, drags, selection, conn, told };
}

