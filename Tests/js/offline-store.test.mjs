// The offline store (issue 44): what a board page keeps in localStorage, bounded, per board, key and
// tab slot, with anything unreadable ignored; and the session keeping its pending operations there,
// resuming the same client from it, and dropping them when the room refuses them for good.
import assert from "node:assert/strict";
import { test } from "node:test";
import { OfflineStore, recordName, storageClaims } from "../../web/js/net/offline-store.js";
import { BoardSession } from "../../web/js/net/session.js";
import { unsavedInWords, refusedForGoodInWords } from "../../web/js/model/unsaved.js";
import { newCardRepresentations } from "../../web/js/model/card-content.js";
import { FakeConnection, welcomeExample } from "./fake-session.mjs";

/** localStorage without a browser; `quota` (characters of names and values) makes setItem throw past it. */
class MemoryStorage {
  constructor(quota = Infinity) {
    this.map = new Map();
    this.quota = quota;
  }
  get length() {
    return this.map.size;
  }
  key(i) {
    return [...this.map.keys()][i] ?? null;
  }
  getItem(name) {
    return this.map.has(name) ? this.map.get(name) : null;
  }
  setItem(name, value) {
    const used = [...this.map].reduce((n, [k, v]) => n + (k === name ? 0 : k.length + v.length), 0);
    if (used + name.length + String(value).length > this.quota) throw new Error("QuotaExceededError");
    this.map.set(name, String(value));
  }
  removeItem(name) {
    this.map.delete(name);
  }
}

/** Claims that always succeed unless the name is in `held`: one browser tab each. */
const freeClaims = (held = new Set()) => ({
  claim: async (name) => (held.has(name) ? null : (held.add(name), { release: () => held.delete(name) })),
});

const identity = { clientId: "c-1", resumeToken: "r-1", history: "h-1", lastSeq: 7 };
const move = (n) => ({ opId: `op-x-${n}`, op: { kind: "move", items: [`i${n}`], destination: { collection: "c", section: "s", index: 0, intent: "insertAtDestinationIndexPath" }, session: "d1" }, label: `Card ${n}` });

test("a record round-trips per board and key, without the drag's session", async () => {
  const storage = new MemoryStorage();
  const store = new OfflineStore({ board: "b", key: "k1", storage, claims: freeClaims() });
  assert.equal(await store.claim(), null, "nothing stored yet: a new client");
  assert.equal(store.save({ ...identity, pending: [move(1), move(2)] }), true);
  const again = new OfflineStore({ board: "b", key: "k1", storage, claims: freeClaims() });
  const record = await again.claim();
  assert.equal(record.clientId, "c-1");
  assert.equal(record.lastSeq, 7);
  assert.deepEqual(record.pending.map((p) => p.opId), ["op-x-1", "op-x-2"]);
  assert.equal(record.pending[0].op.session, undefined);
  assert.equal(record.pending[0].label, "Card 1");
  for (const [board, key] of [["b", "k2"], ["other", "k1"], ["b", undefined]]) {
    const elsewhere = new OfflineStore({ board, key, storage, claims: freeClaims() });
    assert.equal(await elsewhere.claim(), null, `board ${board} with key ${key} has its own record`);
  }
  assert.ok(![...storage.map.keys()].some((name) => name.includes("k1")), "the share key is not in the storage name");
});

test("anything unreadable in storage is ignored, then overwritten", async () => {
  const bad = [
    "not json{",
    "null",
    JSON.stringify({ v: 2, ...identity, pending: [] }),
    JSON.stringify({ v: 1, ...identity, lastSeq: -1, pending: [] }),
    JSON.stringify({ v: 1, ...identity, clientId: 5, pending: [] }),
    JSON.stringify({ v: 1, ...identity, pending: [{ opId: "op-1" }] }),
    JSON.stringify({ v: 1, ...identity, pending: "x" }),
  ];
  for (const text of bad) {
    const storage = new MemoryStorage();
    storage.setItem(recordName("b", "k", 0), text);
    const store = new OfflineStore({ board: "b", key: "k", storage, claims: freeClaims() });
    assert.equal(await store.claim(), null, `ignored: ${text}`);
    assert.equal(store.save({ ...identity, pending: [move(1)] }), true);
    assert.equal(store.read().pending.length, 1);
  }
});

test("a record over the bound keeps the identity but not the operations, and says so", async () => {
  const storage = new MemoryStorage();
  const store = new OfflineStore({ board: "b", key: "k", storage, claims: freeClaims(), limits: { recordChars: 600, slots: 4, records: 64 } });
  await store.claim();
  assert.equal(store.save({ ...identity, pending: [move(1)] }), true);
  const many = Array.from({ length: 20 }, (_, n) => move(n));
  assert.equal(store.save({ ...identity, pending: many }), false, "past 600 characters");
  assert.equal(store.kept, false);
  const record = store.read();
  assert.equal(record.clientId, "c-1", "the identity stays (undo history after a reload)");
  assert.deepEqual(record.pending, []);
  assert.ok(storage.getItem(recordName("b", "k", 0)).length <= 600);
  assert.equal(store.save({ ...identity, pending: [] }), true, "kept again once nothing waits");
});

test("a full storage makes room from records with nothing waiting, never from operations", async () => {
  const storage = new MemoryStorage(800);
  const old = new OfflineStore({ board: "old", key: "k", storage, claims: freeClaims(), now: () => 1 });
  await old.claim();
  old.save({ ...identity, pending: [] });
  const busy = new OfflineStore({ board: "busy", key: "k", storage, claims: freeClaims(), now: () => 2 });
  await busy.claim();
  busy.save({ ...identity, pending: [move(1)] });
  const store = new OfflineStore({ board: "b", key: "k", storage, claims: freeClaims() });
  await store.claim();
  assert.equal(store.save({ ...identity, pending: [move(2), move(3)] }), true);
  assert.equal(old.read(), null, "the board with nothing waiting was forgotten");
  assert.equal(busy.read().pending.length, 1, "operations waiting are never dropped for room");
  assert.equal(store.save({ ...identity, pending: Array.from({ length: 8 }, (_, n) => move(n)) }), false, "still too full: not kept");
});

test("at most `records` records are kept: those with nothing waiting go, oldest first", async () => {
  const storage = new MemoryStorage();
  const limits = { recordChars: 10000, slots: 2, records: 3 };
  for (let n = 0; n < 5; n++) {
    const store = new OfflineStore({ board: `b${n}`, key: "k", storage, claims: freeClaims(), limits, now: () => n });
    await store.claim();
    store.save({ ...identity, pending: n === 0 ? [move(1)] : [] });
  }
  const names = [...storage.map.keys()].map((name) => name.split(":")[1]).sort();
  assert.deepEqual(names, ["b0", "b3", "b4"], "b0 holds operations; b1 and b2 were the oldest without");
});

test("two tabs on one board take different slots; a free slot with operations comes first", async () => {
  const storage = new MemoryStorage();
  const held = new Set();
  const first = new OfflineStore({ board: "b", key: "k", storage, claims: freeClaims(held) });
  await first.claim();
  first.save({ ...identity, pending: [] });
  const second = new OfflineStore({ board: "b", key: "k", storage, claims: freeClaims(held) });
  assert.equal(await second.claim(), null, "the second tab is a new client");
  assert.notEqual(second.slot, first.slot);
  second.save({ ...identity, clientId: "c-2", pending: [move(1)] });
  first.release();
  second.release();
  const third = new OfflineStore({ board: "b", key: "k", storage, claims: freeClaims(held) });
  assert.equal((await third.claim()).clientId, "c-2", "the slot with a change waiting is resumed first");
  const full = new OfflineStore({ board: "b", key: "k", storage, claims: { claim: async () => null } });
  assert.equal(await full.claim(), null);
  assert.equal(full.kept, false, "no slot: nothing can be kept, the page warns before closing");
});

test("storage claims: another tab's fresh claim holds, a stale one is free, a release frees it", async () => {
  const storage = new MemoryStorage();
  let clock = 1000;
  const now = () => clock;
  const a = storageClaims(storage, { now, every: 0, stale: 10000, tab: "a" });
  const b = storageClaims(storage, { now, every: 0, stale: 10000, tab: "b" });
  const held = await a.claim("x");
  assert.ok(held);
  assert.equal(await b.claim("x"), null);
  clock += 10001;
  const taken = await b.claim("x");
  assert.ok(taken, "a tab silent for longer than `stale` crashed");
  taken.release();
  assert.ok(await a.claim("x"), "released");
  storage.setItem("y.claim", "{broken");
  assert.ok(await b.claim("y"), "an unreadable claim is free");
});

/** A session on the demo board with a store, joined; returns what it needs to be driven. */
async function sessionWithStore(storage, told = {}) {
  let conn;
  const store = new OfflineStore({ board: "demo", key: "k", storage, claims: freeClaims() });
  const handlers = { refusedForGood: (r) => (told.refused = r) };
  const session = new BoardSession({ url: "ws://t/ws", board: "demo", name: "Grace", store, connect: (o) => (conn = new FakeConnection(o)) }, handlers);
  session.start(await store.claim());
  return { session, store, conn: () => conn };
}

const insert = () => ({ kind: "insert", items: [{ representations: newCardRepresentations({ title: "Buy rope", text: "Twenty metres" }) }], destination: { collection: "demo-inbox", section: "demo-inbox", index: 0, intent: "insertAtDestinationIndexPath" } });

test("a session keeps its pending operations as they are made; the next page resumes and resends them", async () => {
  const storage = new MemoryStorage();
  const first = await sessionWithStore(storage);
  first.conn().receive(structuredClone(welcomeExample));
  first.conn().drop();
  const opId = first.session.submit(insert(), { label: "Buy rope" });
  const stored = first.store.read();
  assert.deepEqual(stored.pending.map((p) => p.opId), [opId], "kept the moment it was made");
  assert.equal(stored.clientId, welcomeExample.member.clientId);
  assert.equal(stored.resumeToken, welcomeExample.resumeToken);
  assert.equal(first.session.unkept, false);
  first.store.release();
  // The page is closed and opened again: the same client, its operation resent with its opId.
  const second = await sessionWithStore(storage);
  assert.equal(second.session.pendingCount, 1, "counted before the server answers");
  const hello = second.conn().options.helloFields();
  assert.deepEqual(hello, { clientId: welcomeExample.member.clientId, resumeToken: welcomeExample.resumeToken });
  second.conn().receive(structuredClone(welcomeExample));
  const resent = second.conn().take("submit");
  assert.deepEqual(resent.map((m) => m.opId), [opId]);
  assert.ok(second.session.board.itemIDs("demo-inbox").length > 0);
  // The ack (committed) empties the store's operations.
  const committed = { seq: welcomeExample.snapshot.seq + 1, opId, clientId: welcomeExample.member.clientId, op: resent[0].op, effect: { changes: [], skipped: [], removed: [] } };
  second.conn().receive({ type: "ack", opId, outcome: { kind: "committed", ...committed } });
  assert.equal(second.session.pendingCount, 0);
  assert.deepEqual(second.store.read().pending, []);
});

test("a link that no longer works (4003) drops the pending work, forgets it and makes the session read-only", async () => {
  const storage = new MemoryStorage();
  const told = {};
  const page = await sessionWithStore(storage, told);
  page.conn().receive(structuredClone(welcomeExample));
  page.conn().drop();
  page.session.submit(insert(), { label: "Buy rope" });
  assert.equal(page.session.canEdit, true);
  page.conn().dispatchEvent(new CustomEvent("state", { detail: { state: "closed", code: 4003, reason: "bad key" } }));
  assert.equal(told.refused.code, 4003);
  assert.equal(told.refused.envelopes.length, 1);
  assert.match(unsavedInWords(told.refused.envelopes), /Buy rope: Twenty metres/, "the text to copy holds what was typed");
  assert.match(refusedForGoodInWords(4003, 1), /no longer works.*new link/);
  assert.equal(page.session.pendingCount, 0);
  assert.equal(page.session.canEdit, false);
  assert.equal(page.store.read(), null, "forgotten: nothing is resent with the old link");
});

test("a welcome that makes the client a viewer refuses its stored work for good", async () => {
  const storage = new MemoryStorage();
  const first = await sessionWithStore(storage);
  first.conn().receive(structuredClone(welcomeExample));
  first.conn().drop();
  first.session.submit(insert(), { label: "Buy rope" });
  first.store.release();
  const told = {};
  const second = await sessionWithStore(storage, told);
  const viewer = structuredClone(welcomeExample);
  viewer.member.role = "viewer";
  viewer.members = viewer.members.map((m) => (m.id === viewer.member.id ? { ...m, role: "viewer" } : m));
  second.conn().receive(viewer);
  assert.equal(told.refused.code, 0);
  assert.equal(told.refused.envelopes.length, 1);
  assert.deepEqual(second.conn().take("submit"), [], "nothing resent");
  assert.match(refusedForGoodInWords(0, 1), /viewing only/);
});

test("R17: a welcome as a commenter resends stored comments, and refuses for good work it may no longer send", async () => {
  const asCommenter = () => {
    const w = structuredClone(welcomeExample);
    w.member.role = "commenter";
    w.members = w.members.map((m) => (m.id === w.member.id ? { ...m, role: "commenter" } : m));
    w.keys = { view: w.keys.view, comment: w.keys.comment };
    return w;
  };
  const comment = { kind: "addComment", item: "demo-gc1", text: "Nice" };
  for (const [pending, refused] of [[[comment], false], [[comment, insert()], true]]) {
    const storage = new MemoryStorage();
    const first = await sessionWithStore(storage);
    first.conn().receive(structuredClone(welcomeExample));
    first.conn().drop();
    for (const op of pending) first.session.submit(op, { label: "change" });
    first.store.release();
    const told = {};
    const second = await sessionWithStore(storage, told);
    second.conn().receive(asCommenter());
    assert.equal(second.session.canEdit, false);
    if (refused) {
      assert.equal(told.refused.code, 0);
      assert.equal(told.refused.reason, "forbidden");
      assert.deepEqual(second.conn().take("submit"), [], "nothing resent");
      assert.equal(second.session.canComment, false, "refused for good: the page is read-only");
    } else {
      assert.equal(told.refused, undefined);
      assert.deepEqual(second.conn().take("submit").map((m) => m.op.kind), ["addComment"]);
      assert.equal(second.session.canComment, true);
    }
  }
  assert.match(refusedForGoodInWords(0, 1, "forbidden"), /commenting only/);
});
