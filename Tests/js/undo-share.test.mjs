// R12 and R13 in the page's session, without a browser: edit leases seen and answered, undo and
// redo asked of the room (nothing applied before the ack), resent after a reconnect, refusals in a
// sentence; the keys and share links of the top bar.
import assert from "node:assert/strict";
import { test } from "node:test";
import { joined, welcomeExample } from "./fake-session.mjs";
import { shareLinks, undoShortcut, undoRefusalInWords } from "../../web/js/edit/board-actions.js";
import { rejectionInWords } from "../../web/js/model/words.js";

const TO_FIND = { collection: "demo-caches", section: "demo-to-find" };

test("R12: who edits which card follows welcome.edits, editStarted and editEnded; our own lease is not a peer's", () => {
  const { session, conn } = joined();
  // The welcome example: Ada (m1) edits Sandstone Arch.
  assert.deepEqual(session.members.editorOf("demo-gc9"), { id: "m1", name: "Ada" });
  conn.receive({ type: "editStarted", item: "demo-gc3", member: "m1" });
  assert.equal(session.members.editorOf("demo-gc3").name, "Ada");
  conn.receive({ type: "editEnded", item: "demo-gc3", member: "m1", reason: "saved" });
  assert.equal(session.members.editorOf("demo-gc3"), null);
  conn.receive({ type: "editStarted", item: "demo-gc4", member: "m2" });
  assert.equal(session.members.editorOf("demo-gc4"), null, "Grace's own lease does not lock her out");
  // A refused lock names the editor, not a drag.
  const sentence = rejectionInWords(
    { code: "locked", message: "Ada is editing “Sandstone Arch”; wait until they save, then try again.", item: "demo-gc9" },
    { envelope: { op: { kind: "delete", items: ["demo-gc9"] }, label: "Sandstone Arch" }, board: session.board, members: session.members });
  assert.equal(sentence, "“Sandstone Arch” could not be deleted: Ada is editing “Sandstone Arch”; try again once they save.");
});

test("R12: a lease is asked for and given back; a save names the version it was made on", () => {
  const { session, conn } = joined();
  session.editBegin("demo-gc3");
  session.editEnd("demo-gc3");
  const sent = conn.take();
  assert.deepEqual(sent.map((m) => [m.type, m.item]), [["editBegin", "demo-gc3"], ["editEnd", "demo-gc3"]]);
  const answers = [];
  session.handlers.editAnswer = (m) => answers.push(m.type);
  conn.receive({ type: "editGranted", ref: sent[0].ref, item: "demo-gc3", version: 2 });
  conn.receive({ type: "editRefused", item: "demo-gc9", code: "locked", member: "m1", message: "Ada is editing “Sandstone Arch”; wait until they save, then try again." });
  assert.deepEqual(answers, ["editGranted", "editRefused"]);
  const conflict = rejectionInWords({ code: "conflict", field: "version", message: "…" }, { envelope: { op: { kind: "updateItem" }, label: "Granite Owl" } });
  assert.equal(conflict, "Your changes to “Granite Owl” could not be saved: the card changed while you were editing it. Your text is kept: look at the new version and save again.");
});

test("R13: undo asks the room, applies only the committed reverse, and follows undoable", () => {
  const { session, conn } = joined();
  const told = { undoable: [], undone: [], refused: [] };
  Object.assign(session.handlers, {
    undoable: (state) => told.undoable.push({ ...state }),
    undone: (direction, committed) => told.undone.push([direction, committed.seq]),
    undoRefused: (direction, outcome) => told.refused.push(undoRefusalInWords(direction, outcome)),
  });
  assert.deepEqual(session.undoable, { undo: false, redo: false });
  conn.receive({ type: "undoable", undo: true, redo: false });
  assert.deepEqual(told.undoable, [{ undo: true, redo: false }]);
  const before = session.board.itemIDs("demo-to-find");
  const opId = session.undo();
  assert.deepEqual(conn.take(), [{ type: "undo", ref: opId, opId, base: 0 }]);
  assert.deepEqual(session.board.itemIDs("demo-to-find"), before, "nothing changes before the ack");
  // Resent under the same opId after a reconnect until answered.
  conn.drop();
  conn.receive({ ...structuredClone(welcomeExample), snapshot: undefined, ops: [], undoable: { undo: true, redo: false } });
  assert.deepEqual(conn.take("undo"), [{ type: "undo", ref: opId, opId, base: 0 }]);
  const op = { kind: "move", items: ["demo-gc9"], destination: { ...TO_FIND, index: 0, intent: "insertAtDestinationIndexPath" } };
  conn.receive({ type: "ack", ref: opId, opId, outcome: { kind: "committed", seq: 1, opId, clientId: session.clientId, op, effect: { changes: [], skipped: [], removed: [] } } });
  assert.equal(session.board.itemIDs("demo-to-find")[0], "demo-gc9");
  assert.deepEqual(told.undone, [["undo", 1]]);
  conn.receive({ type: "undoable", undo: false, redo: true });
  const redo = session.redo();
  assert.equal(conn.take()[0].type, "redo");
  const message = "Could not redo moving “Sandstone Arch”: it was deleted since. Nothing changed.";
  conn.receive({ type: "ack", opId: redo, outcome: { kind: "rejected", code: "gone", message } });
  assert.deepEqual(told.refused, [message]);
  assert.equal(session.undoRequests.size, 0);
});

test("keys: Ctrl/⌘+Z undoes, Shift+Ctrl/⌘+Z and Ctrl+Y redo; nothing else does", () => {
  const key = (key, mods = {}) => ({ key, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods });
  assert.equal(undoShortcut(key("z", { ctrlKey: true })), "undo");
  assert.equal(undoShortcut(key("Z", { ctrlKey: true, shiftKey: true })), "redo");
  assert.equal(undoShortcut(key("y", { ctrlKey: true })), "redo");
  assert.equal(undoShortcut(key("z", { metaKey: true }), true), "undo");
  assert.equal(undoShortcut(key("z", { metaKey: true, shiftKey: true }), true), "redo");
  assert.equal(undoShortcut(key("z", { metaKey: true })), null, "⌘ is not the command key off a Mac");
  assert.equal(undoShortcut(key("z")), null);
  assert.equal(undoShortcut(key("z", { ctrlKey: true, altKey: true })), null);
});

test("share links come from the page's address: the edit and comment links for editors, the view link for everyone", () => {
  const keys = welcomeExample.keys;
  const links = shareLinks("https://cork.example:8443/app/?board=demo&key=e-x&name=Ada#top", "demo", keys, "editor");
  assert.deepEqual(links, {
    edit: `https://cork.example:8443/app/?board=demo&key=${keys.edit}`,
    comment: `https://cork.example:8443/app/?board=demo&key=${keys.comment}`,
    view: `https://cork.example:8443/app/?board=demo&key=${keys.view}`,
  });
  assert.deepEqual(shareLinks("http://127.0.0.1:8080/?board=demo&key=v", "demo", { view: "v-1" }, "viewer"), { view: "http://127.0.0.1:8080/?board=demo&key=v-1" });
  assert.deepEqual(shareLinks("http://h/?board=open", "open", { view: "v-2" }, "editor"), { edit: "http://h/?board=open", view: "http://h/?board=open&key=v-2" }, "an open board's edit link needs no key");
});

test("R17: the Share dialog offers the links a role may hand out: admin all four, editor three, commenter two, viewer one", () => {
  const keys = { admin: "a-1", edit: "e-1", comment: "c-1", view: "v-1" };
  const at = (key) => `http://h/?board=b&key=${key}`;
  const names = (role) => Object.keys(shareLinks("http://h/?board=b&key=x", "b", keys, role));
  assert.deepEqual(names("admin"), ["admin", "edit", "comment", "view"]);
  assert.deepEqual(names("editor"), ["edit", "comment", "view"]);
  assert.deepEqual(names("commenter"), ["comment", "view"]);
  assert.deepEqual(names("viewer"), ["view"]);
  assert.equal(shareLinks("http://h/", "b", keys, "commenter").comment, at("c-1"));
  // The room hands a role only its keys; a key it did not send is never made up.
  assert.deepEqual(shareLinks("http://h/", "b", { view: "v-1", comment: "c-1" }, "commenter"), { comment: at("c-1"), view: at("v-1") });
  assert.deepEqual(Object.keys(shareLinks("http://h/", "b", { view: "v-1" }, "admin")), ["edit", "view"], "an open board's edit link needs no key");
});
