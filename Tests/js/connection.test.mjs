// The browser's connection on a cluster, with a fake WebSocket: a `redirect` sends the next socket
// to the node that sequences the board at once, the hello resumes there, and after a failure the
// page's own server is tried again.
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

  close() {
    this.readyState = 3;
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
globalThis.addEventListener ??= () => {};
const { Connection } = await import("../../web/js/connection.js");

async function flush() {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

test("a redirect sends the next socket to the node named, at once, and the hello resumes there", async () => {
  mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
  try {
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
  } finally {
    mock.timers.reset();
  }
});

test("a redirect without a node, or too many in a row, falls back to the entry and the usual backoff", async () => {
  mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
  try {
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
      mock.timers.tick(20000);
    }
    assert.equal(FakeSocket.opened.length, 10, "one socket per redirect, then one after the backoff");
    assert.equal(connection.state, "reconnecting");
    connection.stop();
  } finally {
    mock.timers.reset();
  }
});

test("a server that refuses for now is tried again only after the wait it names", async () => {
  mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
  try {
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
  } finally {
    mock.timers.reset();
  }
});
