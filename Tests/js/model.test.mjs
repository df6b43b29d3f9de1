// web/js/model/model.js against the Swift model: Tests/golden/model-vectors.json holds seeded random
// operation sequences over the demo board as the Swift Sequencer decided them (generated and kept
// honest by Tests/CorkboardServerTests/GoldenVectorTests.swift). Replaying them here must give the
// same board after every committed operation, the same effect, and the same rejection code for
// every refused one, with the board unchanged.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Board, Rejection } from "../../web/js/model/model.js";
import { Replica } from "../../web/js/model/replica.js";
import { expand, vectors } from "./golden-vectors.mjs";

/** Plain JSON: undefined fields dropped, as on the wire; the Trash (R15) as its entries' ids, as
 * the vectors' compact boards carry it (trash.test.mjs covers the entries' content). */
const plain = (value) => {
  const json = JSON.parse(JSON.stringify(value));
  if (json && typeof json === "object" && json.trash) {
    if (json.trash.length) json.trash = json.trash.map((entry) => entry.id);
    else delete json.trash;
  }
  return json;
};

/** An effect with every list present, as the Swift model encodes it. */
const effectOf = (e) => plain({ changes: e.changes || [], skipped: e.skipped || [], removed: e.removed || [] });

test("the vectors cover every operation kind, commits and rejections", () => {
  const steps = vectors.sequences.flatMap((s) => s.steps);
  const committed = steps.filter((s) => s.committed);
  const kinds = new Set(committed.map((s) => s.committed.op.kind));
  for (const kind of ["move", "copy", "insert", "insertPlaceholder", "commitPlaceholder", "deletePlaceholder", "delete", "moveOut",
    "updateItem", "createCollection", "renameCollection", "deleteCollection", "moveCollection", "setAccepts", "createSection",
    "renameSection", "deleteSection", "moveSection", "setLayout", "renameBoard", "batch",
    "updateCard", "setLabel", "deleteLabel", "addComment", "editComment", "deleteComment", "checklist", "restore", "emptyTrash"]) {
    assert.ok(kinds.has(kind), `no committed ${kind} in the vectors`);
  }
  // R12 and R13: items carry versions, batches come whole, and a group emptied by a move dissolves.
  const boards = committed.map((s) => JSON.stringify(s.board));
  assert.ok(boards.some((b) => b.includes('"version":')), "no item with a version in the vectors");
  assert.ok(committed.some((s) => s.board.title !== undefined), "no renamed board in the vectors");
  assert.ok(boards.some((b) => b.includes('"checklists":')), "no card with checklists in the vectors");
  const actions = new Set(committed.filter((s) => s.committed.op.kind === "checklist").map((s) => s.committed.op.action));
  for (const action of ["add", "rename", "delete", "addItem", "check", "renameItem", "deleteItem", "moveItem"]) {
    assert.ok(actions.has(action), `no committed checklist ${action} in the vectors`);
  }
  assert.ok(steps.some((s) => s.rejected?.op.kind === "batch"), "no batch refused whole in the vectors");
  const codes = new Set(steps.filter((s) => s.rejected).map((s) => s.code));
  for (const code of ["gone", "destination-gone", "forbidden", "cycle", "invalid", "not-owner", "duplicate-id", "not-found", "conflict"]) {
    assert.ok(codes.has(code), `no ${code} rejection in the vectors`);
  }
});

for (const sequence of vectors.sequences) {
  test(`model.js replays sequence ${sequence.seed} as the Swift model did`, () => {
    const board = Board.fromJSON(expand(sequence.initial));
    sequence.steps.forEach((step, n) => {
      const where = `sequence ${sequence.seed}, step ${n}`;
      if (step.committed) {
        const { op, clientId, opId } = step.committed;
        let effect;
        assert.doesNotThrow(() => (effect = board.apply(op, clientId, opId)), `${where}: ${op.kind} was committed by the Swift model`);
        assert.deepEqual(effectOf(effect), step.committed.effect, `${where}: the effect of ${op.kind}`);
        assert.deepEqual(plain(board.toJSON()), expand(step.board), `${where}: the board after ${op.kind}`);
      } else {
        const { op, clientId, opId } = step.rejected;
        const before = plain(board.toJSON());
        assert.throws(() => board.apply(op, clientId, opId), (error) => error instanceof Rejection && error.code === step.code,
          `${where}: ${op.kind} was rejected ${step.code} by the Swift model`);
        assert.deepEqual(plain(board.toJSON()), before, `${where}: a rejected ${op.kind} changed the board`);
      }
    });
  });
}

test("a replica fed the committed operations of every sequence ends on the Swift model's board", () => {
  for (const sequence of vectors.sequences) {
    const replica = new Replica("observer", expand(sequence.initial), 0);
    const committed = sequence.steps.filter((s) => s.committed);
    // Out of order on purpose: the replica holds back what follows a gap.
    const shuffled = committed.map((s) => s.committed).reverse();
    for (const op of shuffled) replica.receiveCommitted(op);
    assert.equal(replica.confirmedSeq, committed.length);
    if (committed.length) assert.deepEqual(plain(replica.view.toJSON()), expand(committed.at(-1).board), `sequence ${sequence.seed}`);
  }
});
