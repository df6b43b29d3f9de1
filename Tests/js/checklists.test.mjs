// Checklists on cards (issue 41) without a browser: the `checklist` operation in model.js (the
// golden vectors in model.test.mjs replay the Swift model's; these name the cases), its protocol
// checks (net/protocol.js), what a card's face says of them (board/card-face.js) and the CSV export.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Board, Rejection } from "../../web/js/model/model.js";
import { CHECKLIST_LIMITS, checklistProgress } from "../../web/js/model/checklists.js";
import { operation } from "../../web/js/net/protocol.js";
import { detailsInWords, faceKey } from "../../web/js/board/card-face.js";

const board = () => Board.fromJSON({
  collections: [{ id: "c", title: "C", layout: "list", accepts: [], sections: [{ id: "s", title: "S", items: [{ id: "a", representations: [{ type: "public.plain-text", value: "A" }] }] }] }],
});
const op = (parts) => ({ kind: "checklist", item: "a", checklist: "k1", ...parts });
const texts = (b) => (b.item("a").details?.checklists?.[0]?.items || []).map((e) => (e.done ? "x " : "") + e.text);
const refused = (b, parts, code, field) =>
  assert.throws(() => b.apply(op(parts), "ada", "o"), (e) => e instanceof Rejection && e.code === code && e.field === field, JSON.stringify(parts));

test("R16: checklists and items are added, checked, renamed, moved and deleted by id", () => {
  const b = board();
  b.apply(op({ action: "add", name: "Launch" }), "ada", "o1");
  for (const [n, text] of ["posters", "tickets", "chairs"].entries()) b.apply(op({ action: "addItem", entry: `e${n}`, text }), "ada", `o${n + 2}`);
  b.apply(op({ action: "check", entry: "e1", done: true }), "ada", "o6");
  b.apply(op({ action: "check", entry: "e1", done: true }), "bob", "o6");
  b.apply(op({ action: "moveItem", entry: "e2", index: 0 }), "ada", "o7");
  b.apply(op({ action: "renameItem", entry: "e0", text: "big posters", from: "posters" }), "ada", "o8");
  assert.deepEqual(texts(b), ["chairs", "big posters", "x tickets"]);
  assert.deepEqual(checklistProgress(b.item("a").details), { done: 1, total: 3 });
  // The wire shape: `done` only when true, `items` only when there are some.
  assert.deepEqual(b.item("a").details.checklists[0].items[2], { id: "e1", text: "tickets", done: true });
  b.apply(op({ action: "deleteItem", entry: "e2" }), "ada", "o9");
  b.apply(op({ checklist: "k0", action: "add", name: "Before", index: 0, restore: [{ id: "r1", text: "back", done: false }] }), "ada", "o10");
  assert.deepEqual(b.item("a").details.checklists.map((l) => l.name), ["Before", "Launch"]);
  assert.deepEqual(b.item("a").details.checklists[0].items, [{ id: "r1", text: "back" }]);
  b.apply(op({ checklist: "k0", action: "delete" }), "ada", "o11");
  b.apply(op({ action: "delete" }), "ada", "o12");
  assert.equal(b.item("a").details, undefined, "no checklists left, no details");
});

test("R16 bounds and R12: refusals name the field and change nothing", () => {
  const b = board();
  refused(b, { action: "add", name: " " }, "invalid", "name");
  refused(b, { action: "add", name: "x".repeat(CHECKLIST_LIMITS.textCharacters + 1) }, "invalid", "name");
  refused(b, { action: "addItem", entry: "e1", text: "x" }, "not-found", "checklist");
  b.apply(op({ action: "add", name: "L" }), "ada", "o1");
  refused(b, { action: "add", name: "again" }, "duplicate-id", "checklist");
  refused(b, { action: "addItem", text: "x" }, "invalid", "entry");
  refused(b, { action: "check", entry: "e1" }, "invalid", "done");
  refused(b, { action: "check", entry: "ghost", done: true }, "not-found", "entry");
  b.apply(op({ action: "addItem", entry: "e1", text: "one" }), "ada", "o2");
  refused(b, { action: "addItem", entry: "e1", text: "same id" }, "duplicate-id", "entry");
  refused(b, { action: "renameItem", entry: "e1", text: "new", from: "stale" }, "conflict", "from");
  refused(b, { action: "rename", name: "new", from: "stale" }, "conflict", "from");
  refused(b, { action: "moveItem", entry: "e1", index: -1 }, "invalid", "index");
  assert.deepEqual(texts(b), ["one"]);
});

test("the protocol's checklist composes what a client sends and refuses what the room would", () => {
  assert.deepEqual(operation.checklist({ item: "a", checklist: "k1", action: "check", entry: "e1", done: false }),
    { kind: "checklist", item: "a", checklist: "k1", action: "check", entry: "e1", done: false });
  assert.throws(() => operation.checklist({ item: "a", checklist: "k1", action: "addItem", entry: "e1", text: "" }), /op\.text/);
  assert.throws(() => operation.checklist({ item: "a", checklist: "k1", action: "shuffle" }), /action/);
  assert.throws(() => operation.checklist({ item: "a", checklist: "k1", action: "delete", entry: "e1" }), /entry/);
});

test("a card's face says its checklist progress in words, and changes with it", () => {
  const b = board();
  b.apply(op({ action: "add", name: "L" }), "ada", "o1");
  b.apply(op({ action: "addItem", entry: "e1", text: "one" }), "ada", "o2");
  b.apply(op({ action: "addItem", entry: "e2", text: "two" }), "ada", "o3");
  const face = { now: 0, labels: [] };
  const before = faceKey(b.item("a"), face);
  assert.equal(detailsInWords(b.item("a"), face), "0 of 2 checklist items done");
  b.apply(op({ action: "check", entry: "e2", done: true }), "ada", "o4");
  assert.equal(detailsInWords(b.item("a"), face), "1 of 2 checklist items done");
  assert.notEqual(faceKey(b.item("a"), face), before);
});
