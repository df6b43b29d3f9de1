// Structural sharing in web/js/model/model.js (issue 44): an operation copies only the sections it
// changes, and never changes in place what the board it came from still holds, so a board kept from
// before (the replica's confirmed board under its view, the view a page drew last) stays as it was
// and a section whose items array is unchanged is the same to the renderer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Board } from "../../web/js/model/model.js";
import { Replica } from "../../web/js/model/replica.js";
import { expand, vectors } from "./golden-vectors.mjs";

test("no operation of the golden vectors, committed or refused, changes a board kept from before it", () => {
  for (const sequence of vectors.sequences) {
    const board = Board.fromJSON(expand(sequence.initial));
    sequence.steps.forEach((step, n) => {
      const { op, clientId, opId } = step.committed || step.rejected;
      const kept = board.clone();
      const before = JSON.stringify(kept.toJSON());
      try {
        board.apply(op, clientId, opId);
      } catch {
        // refused: the board is unchanged (model.test.mjs checks it)
      }
      assert.equal(JSON.stringify(kept.toJSON()), before, `sequence ${sequence.seed}, step ${n}: ${op.kind} changed a board kept from before it`);
    });
  }
});

const big = () => Board.fromJSON({
  labels: [{ id: "l1", name: "Red", color: "#e03131" }],
  collections: ["a", "b", "c"].map((c) => ({
    id: c, title: c.toUpperCase(), layout: "list", accepts: [],
    sections: [{ id: `${c}s`, title: "", items: Array.from({ length: 5 }, (_, k) => ({ id: `${c}${k}`, representations: [{ type: "public.plain-text", value: `${c} ${k}` }] })) }],
  })),
});
const arrays = (board) => new Map(board.collections.flatMap((c) => c.sections.map((s) => [s.id, s.items])));

test("a move replaces the items of its two sections only; the third keeps its array and its cards", () => {
  const board = big();
  const old = arrays(board);
  const c2 = board.item("c2");
  board.apply({ kind: "move", items: ["a1"], destination: { collection: "b", section: "bs", index: 0, intent: "insertAtDestinationIndexPath" } }, "x", "1");
  const now = arrays(board);
  assert.notEqual(now.get("as"), old.get("as"));
  assert.notEqual(now.get("bs"), old.get("bs"));
  assert.equal(now.get("cs"), old.get("cs"));
  assert.equal(board.item("c2"), c2);
  assert.deepEqual(board.itemIDs("bs"), ["a1", "b0", "b1", "b2", "b3", "b4"]);
  assert.deepEqual(old.get("as").map((i) => i.id), ["a0", "a1", "a2", "a3", "a4"], "the old list is unchanged");
});

test("a card's details change copies its section only, and a label's deletion the sections of the cards carrying it", () => {
  const board = big();
  board.apply({ kind: "updateCard", item: "b3", addLabels: ["l1"] }, "x", "1");
  let old = arrays(board);
  board.apply({ kind: "updateCard", item: "a0", done: true }, "x", "2");
  assert.equal(arrays(board).get("bs"), old.get("bs"));
  assert.notEqual(arrays(board).get("as"), old.get("as"));
  old = arrays(board);
  const labels = board.labels;
  board.apply({ kind: "deleteLabel", label: "l1" }, "x", "3");
  assert.notEqual(board.labels, labels);
  assert.equal(labels.length, 1, "the old labels are unchanged");
  assert.notEqual(arrays(board).get("bs"), old.get("bs"));
  assert.equal(arrays(board).get("as"), old.get("as"));
  assert.equal(arrays(board).get("cs"), old.get("cs"));
  assert.equal(old.get("bs")[3].details.labels[0], "l1", "the old card still carries the label");
});

test("a replica's view shares the sections its pending operations do not touch with the confirmed board", () => {
  const replica = new Replica("me", big().toJSON(), 0);
  replica.submitLocal({ kind: "move", items: ["a0"], destination: { collection: "a", section: "as", index: 3, intent: "insertAtDestinationIndexPath" } }, "1");
  const confirmed = arrays(replica.confirmed);
  const view = arrays(replica.view);
  assert.notEqual(view.get("as"), confirmed.get("as"));
  assert.equal(view.get("bs"), confirmed.get("bs"));
  const drawn = view.get("cs");
  // Someone else's change to another section: the view is rebuilt, and what neither touched stays the same array.
  replica.receiveCommitted({ seq: 1, clientId: "peer", opId: "p1", op: { kind: "move", items: ["b0"], destination: { collection: "b", section: "bs", index: 4, intent: "insertAtDestinationIndexPath" } } });
  assert.equal(arrays(replica.view).get("cs"), drawn);
  assert.deepEqual(replica.view.itemIDs("bs"), ["b1", "b2", "b3", "b4", "b0"]);
  assert.deepEqual(replica.view.itemIDs("as"), ["a1", "a2", "a3", "a0", "a4"]);
});
