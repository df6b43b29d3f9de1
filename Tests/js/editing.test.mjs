// Editing without a browser: the operations protocol.js builds, what a card says and how an edit
// changes it (card-content.js), the sentences people read (words.js), the edits a session sends
// (board-edits.js) and the colour each person keeps (members.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { operation, ProtocolError } from "../../web/js/protocol.js";

const AT = "insertAtDestinationIndexPath";
const FOUND = { collection: "demo-found", section: "demo-found" };
/** Ids and type identifiers people must never read. */
const MACHINE_WORDS = /demo-|corkboard\.card|public\.|c-[0-9a-f]{8}|\b10\d\d\b|\b40\d\d\b/;

test("operation builders leave out absent fields and refuse what the server would refuse", () => {
  assert.deepEqual(operation.delete({ items: ["a", "b"] }), { kind: "delete", items: ["a", "b"] });
  assert.deepEqual(operation.createSection({ collection: "c", id: "s", title: "", index: 0 }), { kind: "createSection", collection: "c", id: "s", title: "", index: 0 });
  assert.deepEqual(operation.insertPlaceholder({ destination: { ...FOUND, index: 0, intent: AT } }),
    { kind: "insertPlaceholder", destination: { ...FOUND, index: 0, intent: AT }, representations: [], createdAt: 0 });
  const refused = [
    [() => operation.delete({ items: [""] }), "op.items.0"],
    [() => operation.moveCollection({ collection: "c", index: -1 }), "op.index"],
    [() => operation.insert({ items: [{ representations: [{ type: "t" }] }], destination: { ...FOUND, index: 0, intent: AT } }), "op.items.0.representations.0.value"],
  ];
  for (const [make, field] of refused) {
    assert.throws(make, (error) => error instanceof ProtocolError && error.field === field, field);
  }
});

