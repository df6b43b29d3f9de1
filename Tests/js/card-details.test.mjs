// A card's details (issue 41) without a browser: updateCard in model.js as docs/card-spec's contract
// says (all or nothing, versions, set semantics, details carried by moves, deletes, copies and
// inserts), its checks and composer in protocol.js, the badge state and the board's people in
// card-details.js, and the sentences of its refusals in words.js.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Board, Rejection } from "../../web/js/model/model.js";
import { Replica } from "../../web/js/model/replica.js";
import { boardPeople, compactDetails, detailsOf, dueState, initials, DUE_SOON_MS } from "../../web/js/model/card-details.js";
import { operation, validateServerMessage, ProtocolError } from "../../web/js/net/protocol.js";
import { rejectionInWords } from "../../web/js/model/words.js";
import { welcomeExample } from "./fake-session.mjs";

const AT = "insertAtDestinationIndexPath";
const plain = (value) => JSON.parse(JSON.stringify(value));
const demo = () => Board.fromJSON(welcomeExample.snapshot.board);
const apply = (board, op, client = "c1", opId = "o1") => board.apply(op, client, opId);
const rejects = (board, op, code, field) => {
  const before = plain(board.toJSON());
  assert.throws(() => apply(board, op), (e) => e instanceof Rejection && e.code === code && (field === undefined || e.field === field), `${op.kind} → ${code}`);
  assert.deepEqual(plain(board.toJSON()), before, "a refused updateCard changes nothing");
};

test("updateCard sets each part, counts versions and leaves defaults out of the item", () => {
  const board = demo();
  assert.equal(board.item("demo-gc1").details, undefined, "no details while all are defaults");
  const effect = apply(board, { kind: "updateCard", item: "demo-gc1", description: { text: "## Plan\n- **soon**", version: 0 } });
  assert.deepEqual(plain(effect), { changes: [{ item: "demo-gc1", from: board.position("demo-gc1"), to: board.position("demo-gc1") }] });
  assert.deepEqual(board.item("demo-gc1").details, { description: "## Plan\n- **soon**", descriptionVersion: 1 });
  apply(board, { kind: "updateCard", item: "demo-gc1", dates: { due: 1765000000000, start: 1764900000000, version: 0 }, done: true, assign: ["Ada", "Bob"] });
  assert.deepEqual(board.item("demo-gc1").details, {
    description: "## Plan\n- **soon**", descriptionVersion: 1, due: 1765000000000, start: 1764900000000, datesVersion: 1, done: true, assignees: ["Ada", "Bob"],
  });
  // A date left out clears it; done false clears the flag; unassigning everyone empties the list.
  apply(board, { kind: "updateCard", item: "demo-gc1", dates: { due: 1765000000000, version: 1 }, done: false, unassign: ["Ada", "Bob"] });
  assert.deepEqual(board.item("demo-gc1").details, { description: "## Plan\n- **soon**", descriptionVersion: 1, due: 1765000000000, datesVersion: 2 });
  // The item's own content version (R12) is not the details' business.
  assert.equal(board.item("demo-gc1").version, undefined);
  // An empty description at version 2 still counts its version.
  apply(board, { kind: "updateCard", item: "demo-gc1", description: { text: "" } });
  assert.deepEqual(board.item("demo-gc1").details, { descriptionVersion: 2, due: 1765000000000, datesVersion: 2 });
});

test("assignees keep their order, are never doubled, and concurrent assigns both stay", () => {
  const board = demo();
  apply(board, { kind: "updateCard", item: "demo-gc2", assign: ["Bob", "Ada"] });
  apply(board, { kind: "updateCard", item: "demo-gc2", assign: ["Ada", "Cy"] }, "c2", "o2");
  assert.deepEqual(board.item("demo-gc2").details.assignees, ["Bob", "Ada", "Cy"]);
  // Two replicas assign different people at once: after both commits everyone is there, in seq order.
  const a = new Replica("ca", welcomeExample.snapshot.board, 0);
  a.submitLocal({ kind: "updateCard", item: "demo-gc3", assign: ["Ada"] }, "oa", "A");
  assert.deepEqual(a.view.item("demo-gc3").details.assignees, ["Ada"]);
  a.receiveCommitted({ seq: 1, opId: "ob", clientId: "cb", op: { kind: "updateCard", item: "demo-gc3", assign: ["Bob"] } });
  assert.deepEqual(a.view.item("demo-gc3").details.assignees, ["Bob", "Ada"], "ours rebased on theirs");
  a.receiveCommitted({ seq: 2, opId: "oa", clientId: "ca", op: { kind: "updateCard", item: "demo-gc3", assign: ["Ada"] } });
  assert.deepEqual(a.confirmed.item("demo-gc3").details.assignees, ["Bob", "Ada"]);
  assert.equal(a.pending.length, 0);
});

test("updateCard is refused whole: gone, placeholder, nothing to change, start after due, stale versions, too many people", () => {
  const board = demo();
  apply(board, { kind: "updateCard", item: "demo-gc1", description: { text: "one" }, dates: { due: 2000, version: 0 } });
  rejects(board, { kind: "updateCard", item: "demo-nowhere", done: true }, "gone");
  rejects(board, { kind: "updateCard", item: "demo-gc1" }, "invalid");
  rejects(board, { kind: "updateCard", item: "demo-gc1", done: true, dates: { due: 1000, start: 2000 } }, "invalid", "dates");
  // A description made on version 0 after it reached 1: conflict, and done is not set either.
  rejects(board, { kind: "updateCard", item: "demo-gc1", done: true, description: { text: "two", version: 0 } }, "conflict", "description");
  rejects(board, { kind: "updateCard", item: "demo-gc1", assign: ["Ada"], dates: { due: 3000, version: 0 } }, "conflict", "dates");
  apply(board, { kind: "updateCard", item: "demo-gc1", assign: Array.from({ length: 20 }, (_, n) => `P${n}`) });
  rejects(board, { kind: "updateCard", item: "demo-gc1", assign: ["One too many"] }, "invalid", "assign");
  // Swapping one person for another at the limit is fine.
  apply(board, { kind: "updateCard", item: "demo-gc1", assign: ["New"], unassign: ["P0"] });
  assert.equal(board.item("demo-gc1").details.assignees.at(-1), "New");
  const placeholder = demo();
  apply(placeholder, { kind: "insertPlaceholder", destination: { collection: "demo-found", section: "demo-found", index: 0, intent: AT }, representations: [] }, "c1", "p1");
  rejects(placeholder, { kind: "updateCard", item: "c1:p1:0", done: true }, "invalid", "item");
});

test("details go where the card goes: moves, deletes and their undo, copies, inserts", () => {
  const board = demo();
  const details = { description: "Bring a torch", descriptionVersion: 1, done: true, assignees: ["Ada"] };
  apply(board, { kind: "updateCard", item: "demo-gc1", description: { text: "Bring a torch" }, done: true, assign: ["Ada"] });
  apply(board, { kind: "move", items: ["demo-gc1"], destination: { collection: "demo-found", section: "demo-found", index: 0, intent: AT } }, "c1", "o2");
  assert.deepEqual(board.item("demo-gc1").details, details, "a move carries them");
  const copied = apply(board, { kind: "copy", items: ["demo-gc1"], destination: { collection: "demo-found", section: "demo-found", index: 0, intent: AT } }, "c1", "o3");
  assert.deepEqual(board.item(copied.changes[0].item).details, details, "a copy copies them");
  const deleted = apply(board, { kind: "delete", items: ["demo-gc1"] }, "c1", "o4");
  assert.deepEqual(deleted.removed[0].details, details, "a delete takes them");
  // Undo of the delete (or a move in from another board) inserts the item with them.
  const [removed] = deleted.removed;
  apply(board, { kind: "insert", items: [{ id: removed.id, representations: removed.representations, details: removed.details }], destination: { collection: "demo-caches", section: "demo-to-find", index: 0, intent: AT } }, "system", "o5");
  assert.deepEqual(board.item("demo-gc1").details, details, "undo brings them back");
  // An insert's details are kept in their wire form (defaults left out).
  apply(board, { kind: "insert", items: [{ id: "x1", representations: [{ type: "corkboard.card", value: "{\"name\":\"X\"}" }], details: { done: false, assignees: [] } }], destination: { collection: "demo-caches", section: "demo-to-find", index: 0, intent: AT } }, "c1", "o6");
  assert.equal(board.item("x1").details, undefined);
});

test("protocol.js: details on items validate, updateCard is composed and checked against the card limits", () => {
  const item = { id: "i1", representations: [], details: { description: "x", descriptionVersion: 3, due: 1765000000000, start: 1764900000000, datesVersion: 1, done: true, assignees: ["Ada", "Bob"] } };
  const op = (o) => ({ type: "op", seq: 1, opId: "o", clientId: "c", op: o, effect: { changes: [], skipped: [], removed: [item] } });
  assert.doesNotThrow(() => validateServerMessage(op({ kind: "updateCard", item: "i1", description: { text: "…", version: 3 }, dates: { due: 1, start: 0, version: 1 }, done: true, assign: ["Ada"], unassign: ["Bob"] })));
  assert.throws(() => validateServerMessage(op({ kind: "updateCard", item: "i1", done: "yes" })), (e) => e.field === "op.done");
  const bad = { ...item, details: { ...item.details, assignees: "Ada" } };
  assert.throws(() => validateServerMessage({ ...op({ kind: "delete", items: ["i1"] }), effect: { changes: [], skipped: [], removed: [bad] } }), (e) => e.field === "effect.removed.0.details.assignees");

  assert.deepEqual(operation.updateCard({ item: "i1", done: false }), { kind: "updateCard", item: "i1", done: false }, "done: false is kept");
  assert.deepEqual(operation.updateCard({ item: "i1", description: { text: "# Hi", version: 0 }, assign: ["Ada"], unassign: [] }),
    { kind: "updateCard", item: "i1", description: { text: "# Hi", version: 0 }, assign: ["Ada"] });
  assert.deepEqual(operation.updateCard({ item: "i1", dates: { version: 2 } }), { kind: "updateCard", item: "i1", dates: { version: 2 } }, "clearing both dates");
  const refused = [
    [{ item: "i1" }, "op"],
    [{ item: "i1", assign: ["Ada"], unassign: ["Ada"] }, "op.unassign"],
    [{ item: "i1", dates: { due: -1, version: 0 } }, "op.dates.due"],
    [{ item: "i1", dates: { due: 253402300800000, version: 0 } }, "op.dates.due"],
    [{ item: "i1", dates: { due: 1.5, version: 0 } }, "op.dates.due"],
    [{ item: "i1", assign: ["  "] }, "op.assign.0"],
    [{ item: "i1", assign: ["x".repeat(101)] }, "op.assign.0"],
    [{ item: "i1", unassign: Array.from({ length: 21 }, (_, n) => `P${n}`) }, "op.unassign"],
    [{ item: "i1", description: { text: "é".repeat(32769) } }, "op.description.text"],
  ];
  for (const [fields, field] of refused) {
    assert.throws(() => operation.updateCard(fields), (e) => e instanceof ProtocolError && e.field === field, field);
  }
  // At the limits exactly: accepted.
  assert.doesNotThrow(() => operation.updateCard({ item: "i1", description: { text: "é".repeat(32768) }, assign: ["x".repeat(100)], dates: { due: 253402300799999, start: 0, version: 0 } }));
});

test("the badge state, initials, and the board's people", () => {
  const now = 1765000000000;
  const d = (fields) => detailsOf({ details: fields });
  assert.equal(dueState(d({}), now), null);
  assert.equal(dueState(d({ due: now - 1 }), now), "overdue");
  assert.equal(dueState(d({ due: now + DUE_SOON_MS }), now), "soon");
  assert.equal(dueState(d({ due: now + DUE_SOON_MS + 1 }), now), "later");
  assert.equal(dueState(d({ due: now - 1, done: true }), now), "done");
  assert.equal(dueState(d({ done: true }), now), "done");
  assert.equal(initials("Ada Lovelace"), "AL");
  assert.equal(initials("bob"), "B");
  assert.equal(initials("Grace Brewster Murray Hopper"), "GH");
  assert.equal(initials("  "), "?");
  assert.deepEqual(compactDetails(detailsOf({})), undefined);
  const board = demo();
  apply(board, { kind: "updateCard", item: "demo-gc1", assign: ["Zed", "Ada"] });
  apply(board, { kind: "updateCard", item: "demo-gc2", assign: ["Bob"] }, "c1", "o2");
  assert.deepEqual(boardPeople(board, ["Grace", "Ada", " "]), ["Grace", "Ada", "Bob", "Zed"], "members first, then everyone assigned, each once");
});

test("refusals of updateCard say what happened and keep the text", () => {
  const board = demo();
  const envelope = (op) => ({ opId: "o", label: "Old Mill Wheel", op: { kind: "updateCard", item: "demo-gc1", ...op } });
  assert.equal(rejectionInWords({ code: "conflict", message: "…", field: "description" }, { envelope: envelope({ description: { text: "x", version: 0 } }), board }),
    "Your changes to “Old Mill Wheel” could not be saved: someone changed the description while you were editing it. Your text is kept: look at theirs and save again.");
  assert.equal(rejectionInWords({ code: "conflict", message: "…", field: "dates" }, { envelope: envelope({ dates: { version: 0 } }), board }),
    "Your changes to “Old Mill Wheel” could not be saved: someone changed its dates meanwhile; look at them and set yours again.");
  assert.equal(rejectionInWords({ code: "invalid", message: "…", field: "dates" }, { envelope: envelope({ dates: { due: 1, start: 2 } }), board }),
    "Your changes to “Old Mill Wheel” could not be saved: its start date would come after its due date; nothing changed.");
});

test("labels: the board's set (setLabel, deleteLabel) and cards carrying them (addLabels, removeLabels, insert)", () => {
  const board = demo();
  const urgent = { id: "l-urgent", name: "Urgent", color: "red" };
  apply(board, { kind: "setLabel", label: urgent });
  apply(board, { kind: "setLabel", label: { id: "l-first", name: "", color: "gray" }, index: 0 }, "c1", "o2");
  assert.deepEqual(board.toJSON().labels.map((l) => l.id), ["l-first", "l-urgent"]);
  apply(board, { kind: "setLabel", label: { ...urgent, name: "Now", color: "orange" }, index: 0 }, "c1", "o3");
  assert.deepEqual(board.labels[1], { id: "l-urgent", name: "Now", color: "orange" }, "a known label changes in its place");
  rejects(board, { kind: "setLabel", label: { id: "l-long", name: "x".repeat(51), color: "red" } }, "invalid", "label.name");
  rejects(board, { kind: "updateCard", item: "demo-gc1", addLabels: ["l-nowhere"] }, "not-found", "addLabels");
  rejects(board, { kind: "updateCard", item: "demo-gc1", addLabels: ["l-urgent"], removeLabels: ["l-urgent"] }, "invalid", "removeLabels");
  apply(board, { kind: "updateCard", item: "demo-gc1", addLabels: ["l-urgent", "l-first"], done: true }, "c1", "o4");
  apply(board, { kind: "updateCard", item: "demo-gc2", addLabels: ["l-urgent"] }, "c1", "o5");
  apply(board, { kind: "updateCard", item: "demo-gc1", removeLabels: ["l-first"] }, "c1", "o6");
  assert.deepEqual(board.item("demo-gc1").details, { done: true, labels: ["l-urgent"] });
  apply(board, { kind: "deleteLabel", label: "l-urgent" }, "c1", "o7");
  assert.deepEqual(board.item("demo-gc1").details, { done: true }, "taken off every card");
  assert.equal(board.item("demo-gc2").details, undefined);
  rejects(board, { kind: "deleteLabel", label: "l-urgent" }, "not-found", "label");
  // Cards from another board bring their labels' definitions; a label with no definition is dropped.
  apply(board, {
    kind: "insert",
    items: [{ id: "x2", representations: [{ type: "corkboard.card", value: "{\"name\":\"X\"}" }], details: { labels: ["l-moved", "l-lost"] } }],
    destination: { collection: "demo-caches", section: "demo-to-find", index: 0, intent: AT },
    labels: [{ id: "l-moved", name: "Moved", color: "sky" }],
  }, "system", "o8");
  assert.deepEqual(board.item("x2").details, { labels: ["l-moved"] });
  assert.deepEqual(board.labels.map((l) => l.id), ["l-first", "l-moved"]);
  for (let n = board.labels.length; n < 50; n++) apply(board, { kind: "setLabel", label: { id: `l${n}`, name: "", color: "blue" } }, "c1", `p${n}`);
  rejects(board, { kind: "setLabel", label: { id: "l-51", name: "", color: "blue" } }, "invalid", "label");

  assert.deepEqual(operation.setLabel({ label: urgent }), { kind: "setLabel", label: urgent });
  assert.deepEqual(operation.updateCard({ item: "i1", addLabels: ["l1"], removeLabels: [] }), { kind: "updateCard", item: "i1", addLabels: ["l1"] });
  assert.throws(() => operation.setLabel({ label: { ...urgent, color: "teal" } }), (e) => e.field === "op.label.color");
  assert.throws(() => operation.setLabel({ label: { ...urgent, name: "x".repeat(51) } }), (e) => e.field === "op.label.name");
  assert.throws(() => operation.updateCard({ item: "i1", addLabels: Array.from({ length: 51 }, (_, n) => `l${n}`) }), (e) => e.field === "op.addLabels");
  assert.throws(() => operation.deleteLabel({ label: "" }), (e) => e.field === "op.label");
});

test("comments: appended under the operation's id, edited on their version and deleted by their author only", () => {
  const board = demo();
  apply(board, { kind: "addComment", item: "demo-gc1", text: "Found it **behind** the wheel.", name: "Ada", at: 1765000000000 }, "ca", "o1");
  apply(board, { kind: "addComment", item: "demo-gc1", text: "Me too.", name: "Bob", at: 1765000000500 }, "cb", "o1");
  const first = { id: "ca:o1", author: "ca", name: "Ada", at: 1765000000000, text: "Found it **behind** the wheel." };
  assert.deepEqual(board.item("demo-gc1").details.comments, [first, { id: "cb:o1", author: "cb", name: "Bob", at: 1765000000500, text: "Me too." }]);
  rejects(board, { kind: "addComment", item: "demo-gc1", text: "  " }, "invalid", "text");
  rejects(board, { kind: "addComment", item: "demo-gc1", text: "x".repeat(16385) }, "invalid", "text");
  rejects(board, { kind: "addComment", item: "demo-nowhere", text: "x" }, "gone", "item");
  rejects(board, { kind: "editComment", item: "demo-gc1", comment: "ca:o1", text: "Not mine" }, "not-owner", "comment");
  rejects(board, { kind: "deleteComment", item: "demo-gc1", comment: "ca:o9" }, "not-found", "comment");
  assert.throws(() => board.apply({ kind: "editComment", item: "demo-gc1", comment: "ca:o1", text: "Later", version: 1 }, "ca", "o2"), (e) => e.code === "conflict");
  board.apply({ kind: "editComment", item: "demo-gc1", comment: "ca:o1", text: "Behind the wheel.", version: 0 }, "ca", "o2");
  assert.deepEqual(board.item("demo-gc1").details.comments[0], { ...first, text: "Behind the wheel.", version: 1 });
  const edited = board.item("demo-gc1").details.comments[0];
  board.apply({ kind: "deleteComment", item: "demo-gc1", comment: "ca:o1" }, "ca", "o3");
  assert.deepEqual(board.item("demo-gc1").details.comments.map((c) => c.id), ["cb:o1"]);
  // Undo puts it back at its place; only its author's undo may, and only once.
  assert.throws(() => board.apply({ kind: "addComment", item: "demo-gc1", text: "", restore: edited, index: 0 }, "cb", "o4"), (e) => e.code === "not-owner");
  board.apply({ kind: "addComment", item: "demo-gc1", text: "", restore: edited, index: 0 }, "ca", "o4");
  assert.deepEqual(board.item("demo-gc1").details.comments, [edited, board.item("demo-gc1").details.comments[1]]);
  assert.throws(() => board.apply({ kind: "addComment", item: "demo-gc1", text: "", restore: edited, index: 0 }, "ca", "o5"), (e) => e.code === "duplicate-id");

  assert.deepEqual(operation.addComment({ item: "demo-gc1", text: "Hi" }), { kind: "addComment", item: "demo-gc1", text: "Hi" });
  assert.throws(() => operation.addComment({ item: "demo-gc1", text: " \n " }), (e) => e.field === "op.text");
  assert.throws(() => operation.editComment({ item: "demo-gc1", comment: "ca:o1", text: "é".repeat(8193) }), (e) => e.field === "op.text");
  assert.doesNotThrow(() => operation.deleteComment({ item: "demo-gc1", comment: `c-${"0".repeat(32)}:${"o".repeat(128)}` }), "a comment id may be longer than a token");
});
