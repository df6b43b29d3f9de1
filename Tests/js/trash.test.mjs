// The Trash (R15) in the browser's model and replica (web/js/model/model.js, trash.js, replica.js),
// against the shapes CorkboardModel's Trash.swift writes: deletes put what they remove in the
// Trash, a restore puts an entry back once, evictions come from the committed effect.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Board, Rejection } from "../../web/js/model/model.js";
import { Replica } from "../../web/js/model/replica.js";
import { entryCardCount } from "../../web/js/model/trash.js";

const card = (id) => ({ id, representations: [{ type: "public.plain-text", value: id }] });
const board = () => ({
  collections: [
    { id: "c", title: "Main", layout: "grid", accepts: [], sections: [{ id: "s", title: "S", items: ["a", "b", "c", "d"].map(card) }, { id: "t", title: "T", items: [card("x")] }] },
  ],
});
const ids = (b, section) => b.itemIDs(section);

test("a delete puts the cards in the Trash with who and when; a restore puts them back at their anchors", () => {
  const b = Board.fromJSON(board());
  b.apply({ kind: "delete", items: ["b", "c"], name: "Bob", at: 1000 }, "bob", "op-9");
  assert.deepEqual(ids(b, "s"), ["a", "d"]);
  assert.equal(b.trash.length, 1);
  const entry = b.trash[0];
  assert.equal(entry.id, "bob:op-9");
  assert.equal(entry.name, "Bob");
  assert.equal(entry.at, 1000);
  assert.deepEqual(entry.cards[0].origin, { collection: "c", section: "s", index: 1, after: "a", before: "d" });
  assert.equal(entryCardCount(entry), 2);
  b.apply({ kind: "move", items: ["a"], destination: { collection: "c", section: "s", index: 2, intent: "insertAtDestinationIndexPath" } }, "alice", "m");
  const effect = b.apply({ kind: "restore", entry: "bob:op-9" }, "alice", "r");
  assert.deepEqual(ids(b, "s"), ["d", "a", "b", "c"]);
  assert.deepEqual(effect.changes.map((c) => c.item), ["b", "c"]);
  assert.equal(b.trash.length, 0);
  assert.throws(() => b.apply({ kind: "restore", entry: "bob:op-9" }, "carol", "r2"), (e) => e instanceof Rejection && e.code === "gone");
});

test("a section and a collection come back with their cards; cards wait for their collection", () => {
  const b = Board.fromJSON(board());
  b.apply({ kind: "delete", items: ["a"] }, "bob", "d1");
  b.apply({ kind: "deleteSection", section: "t" }, "bob", "d2");
  b.apply({ kind: "deleteCollection", collection: "c" }, "ada", "d3");
  assert.deepEqual(b.trash.map((e) => e.id), ["bob:d1", "bob:d2", "ada:d3"]);
  assert.throws(() => b.apply({ kind: "restore", entry: "bob:d1" }, "ada", "r1"), (e) => e.code === "gone");
  assert.throws(() => b.apply({ kind: "restore", entry: "bob:d2" }, "ada", "r1"), (e) => e.code === "gone");
  b.apply({ kind: "restore", entry: "ada:d3" }, "ada", "r2");
  b.apply({ kind: "restore", entry: "bob:d2" }, "ada", "r3");
  b.apply({ kind: "restore", entry: "bob:d1" }, "ada", "r4");
  assert.deepEqual(ids(b, "s"), ["a", "b", "c", "d"]);
  assert.deepEqual(ids(b, "t"), ["x"]);
  assert.equal(b.trash.length, 0);
  assert.deepEqual(JSON.parse(JSON.stringify(b.toJSON())), board());
});

test("moves out and placeholders never go to the Trash; emptyTrash lets everything go", () => {
  const b = Board.fromJSON(board());
  b.apply({ kind: "moveOut", items: ["a"] }, "bob", "o1");
  assert.equal(b.trash.length, 0);
  b.apply({ kind: "delete", items: ["b"] }, "bob", "d1");
  const effect = b.apply({ kind: "emptyTrash" }, "bob", "e1");
  assert.deepEqual(effect.evicted, ["bob:d1"]);
  assert.equal(b.trash.length, 0);
});

test("the replica drops the entries a committed operation evicted", () => {
  const replica = new Replica("me", board(), 0);
  replica.receiveCommitted({ seq: 1, opId: "d1", clientId: "bob", op: { kind: "delete", items: ["a"], name: "Bob", at: 5 }, effect: { changes: [], skipped: [], removed: [] } });
  replica.receiveCommitted({ seq: 2, opId: "d2", clientId: "bob", op: { kind: "delete", items: ["b"], name: "Bob", at: 6 }, effect: { changes: [], skipped: [], removed: [], evicted: ["bob:d1"] } });
  assert.deepEqual(replica.view.trash.map((e) => e.id), ["bob:d2"]);
  assert.ok(replica.view.toJSON().trash);
});
