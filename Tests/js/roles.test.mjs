// R17: the page's mirror of the server's role table (web/js/model/roles.js ↔ Role+Permissions.swift).
import { test } from "node:test";
import assert from "node:assert/strict";
import { OPERATION_KINDS, ROLES } from "../../web/js/net/protocol.js";
import { ROLE_NAMES, actionOf, roleMay, roleMayDo, sharedRoles, roleBadge } from "../../web/js/model/roles.js";

// The decision for every operation kind, as the server's `BoardOperation.roleAction` makes it. A
// kind added to the protocol without a decision here fails this test.
const EXPECTED = {
  move: "edit", copy: "edit", insert: "edit", insertPlaceholder: "edit", commitPlaceholder: "edit",
  deletePlaceholder: "edit", delete: "edit", moveOut: "edit", updateItem: "edit", updateCard: "edit",
  createCollection: "edit", renameCollection: "edit", deleteCollection: "edit", moveCollection: "edit",
  setAccepts: "edit", setLayout: "edit", createSection: "edit", renameSection: "edit", deleteSection: "edit",
  moveSection: "edit", renameBoard: "edit", batch: "edit", setLabel: "edit", deleteLabel: "edit",
  addComment: "comment", editComment: "comment", deleteComment: "comment", restore: "edit", emptyTrash: "edit",
  checklist: "edit",
};

test("R17: every operation kind has a role decision, the same as the server's", () => {
  assert.deepEqual([...OPERATION_KINDS].sort(), Object.keys(EXPECTED).sort(), "a new kind needs a decision in EXPECTED");
  for (const kind of OPERATION_KINDS) assert.equal(actionOf({ kind, ops: [{ kind: "move" }] }), EXPECTED[kind], kind);
  assert.deepEqual([...ROLES], ROLE_NAMES);
});

test("R17: admins and editors do everything, commenters only comment (and undo it), viewers nothing", () => {
  for (const kind of OPERATION_KINDS) {
    const op = { kind };
    assert.equal(roleMayDo("admin", op), true, kind);
    assert.equal(roleMayDo("editor", op), true, kind);
    assert.equal(roleMayDo("commenter", op), EXPECTED[kind] === "comment", kind);
    assert.equal(roleMayDo("viewer", op), false, kind);
  }
  assert.equal(roleMayDo("commenter", { kind: "batch", ops: [{ kind: "addComment" }, { kind: "deleteComment" }] }), true);
  assert.equal(roleMayDo("commenter", { kind: "batch", ops: [{ kind: "addComment" }, { kind: "move" }] }), false);
  assert.deepEqual(["drag", "undo", "manageLinks"].map((a) => ROLE_NAMES.filter((r) => roleMay(r, a))), [
    ["admin", "editor", "viewer"], ["admin", "editor", "commenter"], ["admin"],
  ]);
  assert.equal(roleMay("stranger", "comment"), false, "an unknown role may do nothing");
  assert.deepEqual(sharedRoles("commenter"), ["commenter", "viewer"]);
  assert.deepEqual([roleBadge("viewer"), roleBadge("commenter"), roleBadge("editor")], ["View only", "Can comment", ""]);
});
