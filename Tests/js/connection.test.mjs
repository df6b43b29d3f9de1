// The browser's connection on a cluster, with a fake WebSocket: a `redirect` sends the next socket
// to the node that sequences the board at once, the hello resumes there, and after a failure the
// page's own server is tried again; a silent server is left within seconds (liveness).
import assert from "node:assert/strict";
import { mock, test } from "node:test";
import { welcomeExample } from "./fake-session.mjs";

class FakeSocket extends EventTarget {
  static OPEN = 1;
  static opened = [];

  constructor(url, protocol) {
    super();
    this.url = url;
    this.protocol = protocol;
    this.readyState = 0;
    this.sent = [];
    FakeSocket.opened.push(this);
  }

  send(text) {
    this.sent.push(JSON.parse(text));
  }

  close(code, reason) {
    this.readyState = 3;
    this.closedWith = { code, reason };
  }

  serverOpens() {
    this.readyState = 1;
    this.dispatchEvent(new Event("open"));
  }

  serverSends(message) {
    const event = new Event("message");
    event.data = JSON.stringify(message);
    this.dispatchEvent(event);
  }

  serverCloses(code, reason = "") {
    this.readyState = 3;
    const event = new Event("close");
    event.code = code;
    event.reason = reason;
    this.dispatchEvent(event);
  }
}

globalThis.WebSocket = FakeSocket;
// The window's events (online, pagehide, pageshow), dispatched by the tests.
const page = new EventTarget();
globalThis.addEventListener ??= (type, listener) => page.addEventListener(type, listener);
globalThis.removeEventListener ??= (type, listener) => page.removeEventListener(type, listener);
const { Connection } = await import("../../web/js/net/connection.js");

/** A test on mocked timers (`apis`), put back after it whatever happens. */
function timedTest(name, apis, body) {
  if (!body) [apis, body] = [["setTimeout", "setInterval"], apis];
  test(name, async () => {
    mock.timers.enable({ apis });
    try {
      await body();
    } finally {
      mock.timers.reset();
    }
  });
}

async function flush() {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

timedTest("a redirect sends the next socket to the node named, at once, and the hello resumes there", async () => {
  FakeSocket.opened = [];
  const states = [];
  const connection = new Connection({
    url: "ws://a.example/ws", board: "demo", name: "Grace", helloFields: () => ({ clientId: "c-1", lastSeq: 4 }),
  });
  connection.addEventListener("state", (event) => states.push(event.detail.state));
  connection.start();
  const first = FakeSocket.opened[0];
  assert.equal(first.url, "ws://a.example/ws");
  first.serverOpens();
  await flush();
  assert.equal(first.sent[0].type, "hello");
  first.serverSends({ type: "redirect", ref: "hello", board: "demo", url: "ws://b.example/ws", reason: "another server sequences this board" });
  first.serverCloses(4005, "another server sequences this board");
  mock.timers.tick(0);
  const second = FakeSocket.opened[1];
  assert.equal(second.url, "ws://b.example/ws", "the node the redirect named");
  second.serverOpens();
  await flush();
  assert.deepEqual(
    [second.sent[0].type, second.sent[0].clientId, second.sent[0].lastSeq], ["hello", "c-1", 4], "the same resuming hello");
  second.serverSends(welcomeExample);
  assert.equal(connection.state, "open");

  // That node dies: the page's own server is tried again (it knows where the board is now).
  second.serverCloses(1006);
  mock.timers.tick(20000);
  assert.equal(FakeSocket.opened[2].url, "ws://a.example/ws");
  assert.ok(states.includes("reconnecting"));
  connection.stop();
});

timedTest("a redirect without a node, or too many in a row, falls back to the entry and the usual backoff", async () => {
  FakeSocket.opened = [];
  const connection = new Connection({ url: "ws://a.example/ws", board: "demo", name: "Grace", helloFields: () => ({}) });
  connection.start();
  for (let n = 0; n < 9; n++) {
    const socket = FakeSocket.opened.at(-1);
    assert.equal(socket.url, "ws://a.example/ws");
    socket.serverOpens();
    await flush();
    socket.serverSends({ type: "redirect", ref: "hello", board: "demo", reason: "this board is moving between servers; try again" });
    socket.serverCloses(4005, "moving");
    // Past every redirect's delay and the first backoff, and short of the liveness limits.
    mock.timers.tick(2000);
  }
  assert.equal(FakeSocket.opened.length, 10, "one socket per redirect, then one after the backoff");
  assert.equal(connection.state, "reconnecting");
  connection.stop();
});

timedTest("a server that refuses for now is tried again only after the wait it names", async () => {
  FakeSocket.opened = [];
  const connection = new Connection({ url: "ws://a.example/ws", board: "trip", name: "Grace", helloFields: () => ({}) });
  connection.start();
  const socket = FakeSocket.opened[0];
  socket.serverOpens();
  await flush();
  socket.serverSends({ type: "error", ref: "hello", code: "rate-limited", field: "board", message: "Refused for now." });
  socket.serverCloses(1008, "too many failed joins to this board from your address; try again in 42 s");
  assert.equal(connection.state, "reconnecting");
  mock.timers.tick(41000);
  assert.equal(FakeSocket.opened.length, 1, "not before the wait");
  mock.timers.tick(2100);
  assert.equal(FakeSocket.opened.length, 2);
  connection.stop();
});

timedTest("a page put away closes its socket at once and stays away; brought back from the cache, it resumes", async () => {
  FakeSocket.opened = [];
  const states = [];
  const connection = new Connection({ url: "ws://leave.example/ws", board: "demo", name: "Grace", helloFields: () => ({ clientId: "c-1", lastSeq: 7 }) });
  connection.addEventListener("state", (event) => states.push(event.detail.state));
  connection.start();
  const first = FakeSocket.opened[0];
  first.serverOpens();
  await flush();
  first.serverSends(welcomeExample);
  page.dispatchEvent(new Event("pagehide"));
  assert.deepEqual(first.closedWith, { code: 1000, reason: "page hidden" }, "closed at once (scripts may not send 1001)");
  assert.equal(connection.joined, false);
  first.serverCloses(1000, "page hidden");
  mock.timers.tick(60000);
  assert.equal(FakeSocket.opened.length, 1, "nothing reconnects while the page is away");
  assert.equal(connection.send({ type: "ping", ref: "x" }), false);
  // A pageshow of a fresh load (not from the cache) is not a return.
  page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: false }));
  assert.equal(FakeSocket.opened.length, 1);
  page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
  assert.equal(FakeSocket.opened.length, 2, "back from the cache: joins again at once");
  assert.equal(states.at(-1), "reconnecting");
  const second = FakeSocket.opened[1];
  second.serverOpens();
  await flush();
  assert.deepEqual([second.sent[0].type, second.sent[0].clientId, second.sent[0].lastSeq], ["hello", "c-1", 7], "a resuming hello");
  second.serverSends(welcomeExample);
  assert.equal(connection.state, "open");
  // Once stopped, the page's events reach it no more.
  connection.stop();
  page.dispatchEvent(new Event("pagehide"));
  page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
  assert.equal(FakeSocket.opened.length, 2);
});

const { LIVENESS } = await import("../../web/js/net/connection.js");

/** A joined connection on a fresh fake socket; the mock clock must be enabled. */
async function joined() {
  FakeSocket.opened = [];
  const states = [];
  const connection = new Connection({ url: "ws://a.example/ws", board: "demo", name: "Grace", helloFields: () => ({}) });
  connection.addEventListener("state", (event) => states.push(event.detail));
  connection.start();
  const socket = FakeSocket.opened[0];
  socket.serverOpens();
  await flush();
  socket.serverSends(welcomeExample);
  return { connection, socket, states };
}

const pings = (socket) => socket.sent.filter((message) => message.type === "ping");

timedTest("a quiet joined socket sends one ping after 1.5 s and stays while anything answers", ["setTimeout", "setInterval", "Date"], async () => {
  const { connection, socket } = await joined();
  assert.equal(connection.state, "open");
  mock.timers.tick(LIVENESS.pingAfter - LIVENESS.checkEvery);
  assert.equal(pings(socket).length, 0, "no ping while the link was heard from recently");
  mock.timers.tick(LIVENESS.checkEvery);
  assert.equal(pings(socket).length, 1, "one ping after 1.5 s of silence");
  mock.timers.tick(1000);
  assert.equal(pings(socket).length, 1, "one ping at a time");
  socket.serverSends({ type: "pong", ref: "alive", head: 1 });
  // Answered every time: the socket lives on, with one ping per quiet 1.5 s.
  for (let n = 0; n < 10; n++) {
    mock.timers.tick(LIVENESS.pingAfter);
    socket.serverSends({ type: "pong", ref: "alive", head: 1 });
  }
  assert.equal(connection.state, "open");
  assert.equal(FakeSocket.opened.length, 1);
  assert.ok(pings(socket).length >= 10 && pings(socket).length <= 12, `${pings(socket).length} pings`);
  connection.stop();
});

timedTest("a joined socket silent for 5 s is closed 4100 and the page reconnects and resumes", ["setTimeout", "setInterval", "Date"], async () => {
  const { connection, socket, states } = await joined();
  mock.timers.tick(LIVENESS.silenceLimit - LIVENESS.checkEvery);
  assert.equal(connection.state, "open", "still open just before the limit");
  mock.timers.tick(LIVENESS.checkEvery);
  assert.deepEqual(socket.closedWith, { code: 4100, reason: "no answer" });
  assert.equal(connection.state, "reconnecting");
  assert.equal(states.at(-1).code, 4100);
  // The old socket's own close (whenever the browser gets to it) changes nothing.
  socket.serverCloses(1006);
  assert.equal(FakeSocket.opened.length, 1);
  mock.timers.tick(states.at(-1).delay);
  assert.equal(FakeSocket.opened.length, 2, "a new socket after the backoff");
  const next = FakeSocket.opened[1];
  next.serverOpens();
  await flush();
  assert.equal(next.sent[0].type, "hello");
  next.serverSends(welcomeExample);
  assert.equal(connection.state, "open");
  connection.stop();
});

timedTest("a socket that never opens, or never gets its welcome, is given up after 10 s", ["setTimeout", "setInterval", "Date"], async () => {
  FakeSocket.opened = [];
  const connection = new Connection({ url: "ws://a.example/ws", board: "demo", name: "Grace", helloFields: () => ({}) });
  connection.start();
  mock.timers.tick(LIVENESS.welcomeLimit - LIVENESS.checkEvery);
  assert.equal(FakeSocket.opened[0].closedWith, undefined, "a slow handshake gets its time");
  mock.timers.tick(LIVENESS.checkEvery);
  assert.equal(FakeSocket.opened[0].closedWith?.code, 4100);
  assert.equal(connection.state, "reconnecting");
  mock.timers.tick(1000);
  const second = FakeSocket.opened[1];
  second.serverOpens();
  await flush();
  assert.equal(second.sent[0].type, "hello");
  assert.equal(pings(second).length, 0, "no ping before the welcome");
  mock.timers.tick(LIVENESS.welcomeLimit);
  assert.equal(second.closedWith?.code, 4100, "a hello unanswered for 10 s");
  connection.stop();
});

timedTest("issue 45: the hello claims an invite with the device key; a removed person or links turned off close for good", async () => {
  for (const reason of ["you were removed from this board by an admin", "this board's share links were turned off; ask an admin for an invite"]) {
    FakeSocket.opened = [];
    const device = "d-0123456789abcdef0123456789abcdef";
    const invite = "t-5f0c1e2d3b4a69788796a5b4c3d2e1f0";
    const connection = new Connection({ url: "ws://a.example/ws", board: "trip", name: "Beatrice", helloFields: () => ({ invite, device }) });
    connection.start();
    const socket = FakeSocket.opened[0];
    socket.serverOpens();
    await flush();
    assert.deepEqual(socket.sent[0], { type: "hello", ref: "hello", protocol: 1, board: "trip", name: "Beatrice", invite, device });
    socket.serverSends({ ...structuredClone(welcomeExample), ref: "hello" });
    socket.serverCloses(1008, reason);
    assert.equal(connection.state, "closed", reason);
    mock.timers.tick(60000);
    assert.equal(FakeSocket.opened.length, 1, `no reconnect after "${reason}"`);
    connection.stop();
  }
});
