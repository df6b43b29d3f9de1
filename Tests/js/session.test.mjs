// The session and the drag controller without a browser: a fake connection records every message
// the page sends (each checked by protocol.js) and delivers server messages (each checked too),
// starting from the welcome example of docs/PROTOCOL.md (the demo board).
import assert from "node:assert/strict";
import { test } from "node:test";
import { joined, welcomeExample } from "./fake-session.mjs";

const ids = (session, section) => session.board.itemIDs(section);
const committedMove = (seq, opId, clientId, items, destination) => ({
  seq, opId, clientId, op: { kind: "move", items, destination }, effect: { changes: [], skipped: [], removed: [] },
});
const FOUND = { collection: "demo-found", section: "demo-found" };

test("the welcome installs the board, the members and the peers' drags", () => {
  const { session } = joined();
  assert.equal(session.me.id, "m2");
  assert.equal(session.canEdit, true);
  assert.deepEqual(ids(session, "demo-found"), ["demo-gc9", "demo-gc10"]);
  assert.deepEqual([...session.members.byId.keys()], ["m1", "m2"]);
  assert.deepEqual([...session.members.drags.keys()], ["m1/d1"]);
});

test("a pointer or keyboard drag speaks the protocol and lands at once", () => {
  const { session, drags, conn } = joined();
  const drag = drags.begin(["demo-gc3"]);
  assert.deepEqual(conn.take(), [{ type: "dragBegin", ref: drag.session, session: drag.session, items: ["demo-gc3"] }]);
  const target = { ...FOUND, index: 1, intent: "insertAtDestinationIndexPath", after: "demo-gc9", before: "demo-gc10" };
  assert.equal(drags.hover(drag, target).operation, "move");
  drags.hover(drag, { ...target });
  assert.deepEqual(conn.take(), [{ type: "dropUpdate", session: drag.session, target: { ...FOUND, index: 1, intent: "insertAtDestinationIndexPath" } }],
    "one dropUpdate per new target");
  conn.receive({ type: "proposal", session: drag.session, target: { ...FOUND, index: 1, intent: "insertAtDestinationIndexPath" }, proposal: { operation: "move", intent: "insertAtDestinationIndexPath" } });
  assert.equal(drags.state.serverProposal.operation, "move");
  const result = drags.drop(drag);
  assert.equal(result.ok, true);
  assert.equal(drags.state, null);
  const [drop] = conn.take();
  assert.deepEqual(drop, { type: "drop", ref: result.opId, session: drag.session, opId: result.opId, base: 0, destination: { ...FOUND, index: 1, intent: "insertAtDestinationIndexPath", after: "demo-gc9", before: "demo-gc10" } });
  assert.deepEqual(ids(session, "demo-found"), ["demo-gc9", "demo-gc3", "demo-gc10"], "the dropper sees the move at once");
  conn.receive({ type: "ack", opId: result.opId, outcome: { kind: "committed", ...committedMove(1, result.opId, session.clientId, ["demo-gc3"], drop.destination) } });
  assert.equal(session.pendingCount, 0);
  assert.deepEqual(ids(session, "demo-found"), ["demo-gc9", "demo-gc3", "demo-gc10"]);
});

test("a drop where the collection does not accept the items is refused locally and cancels the drag", () => {
  const { drags, conn } = joined();
  const drag = drags.begin(["demo-note1"]);
  const proposal = drags.hover(drag, { ...FOUND, index: 0, intent: "insertAtDestinationIndexPath", before: "demo-gc9" });
  assert.equal(proposal.operation, "forbidden");
  const result = drags.drop(drag);
  assert.equal(result.ok, false);
  assert.equal(result.reason, "“Found” takes only cards.", "in people's words: the collection's name and what it takes");
  assert.deepEqual(conn.take().map((m) => m.type), ["dragBegin", "dropUpdate", "dragEnd"]);
});

test("items leased to another drag leave ours; with none left the drag ends", () => {
  const { drags, told } = joined();
  let refusedWith = null;
  const drag = drags.begin(["demo-gc1"]);
  drag.onRefused = (reason) => (refusedWith = reason);
  const message = "demo-gc1 is being dragged by Ada; wait for them to drop it.";
  drags.session.conn.receive({ type: "dragGranted", ref: drag.session, session: drag.session, granted: [], refused: [{ item: "demo-gc1", code: "locked", message }] });
  assert.equal(drags.state, null);
  const words = "“Old Mill Wheel” is being moved by Ada; wait for them to drop it.";
  assert.equal(refusedWith, words, "the room's sentence names the id; the page names the card");
  assert.deepEqual(told.toasts, [words]);
});

test("a rejected drop goes back, and the owner hears why", () => {
  const { session, drags, conn, told } = joined();
  const drag = drags.begin(["demo-gc1"]);
  drags.hover(drag, { ...FOUND, index: 0, intent: "insertAtDestinationIndexPath", before: "demo-gc9" });
  const { opId } = drags.drop(drag);
  assert.equal(ids(session, "demo-found")[0], "demo-gc1");
  conn.receive({ type: "ack", opId, outcome: { kind: "rejected", code: "destination-gone", message: "Section demo-found was deleted before the drop arrived; nothing moved." } });
  assert.deepEqual(ids(session, "demo-found"), ["demo-gc9", "demo-gc10"]);
  assert.equal(told.rejected[0].outcome.code, "destination-gone");
  assert.equal(told.rejected[0].envelope.label, "Old Mill Wheel");
});

test("after a reconnect the session resumes from its seq and resends what was not acknowledged", () => {
  const { session, drags, conn } = joined();
  const drag = drags.begin(["demo-gc2"]);
  drags.hover(drag, { ...FOUND, index: 2, intent: "insertAtDestinationIndexPath", after: "demo-gc10" });
  conn.drop();
  assert.equal(drags.state, null, "the drag ended with the connection");
  assert.equal(session.members.drags.size, 0, "peers' drags ended with it too");
  const opId = session.submit({ kind: "delete", items: ["demo-note1"] }, { label: "note" });
  assert.equal(conn.take("submit").length, 0, "nothing goes out while offline");
  assert.deepEqual(conn.options.helloFields(), { clientId: session.clientId, resumeToken: welcomeExample.resumeToken, lastSeq: 0, history: welcomeExample.history });
  const other = committedMove(1, "op-a", "c-other", ["demo-gc4"], { ...FOUND, index: 0, intent: "insertAtDestinationIndexPath" });
  conn.receive({ ...structuredClone(welcomeExample), snapshot: undefined, ops: [other], head: 1 });
  assert.deepEqual(ids(session, "demo-found"), ["demo-gc4", "demo-gc9", "demo-gc10"]);
  assert.deepEqual(conn.take("submit"), [{ type: "submit", ref: opId, opId, base: 1, op: { kind: "delete", items: ["demo-note1"] } }]);
});

test("operations after a gap wait for a sync", async () => {
  const { session, conn } = joined();
  conn.receive({ type: "op", ...committedMove(2, "op-b", "c-other", ["demo-gc5"], { ...FOUND, index: 0, intent: "insertAtDestinationIndexPath" }) });
  assert.equal(session.replica.confirmedSeq, 0);
  await new Promise((resolve) => setTimeout(resolve, 350));
  assert.deepEqual(conn.take("sync"), [{ type: "sync", ref: "sync", lastSeq: 0 }]);
  conn.receive({ type: "synced", ref: "sync", head: 2, ops: [committedMove(1, "op-a", "c-other", ["demo-gc4"], { ...FOUND, index: 0, intent: "insertAtDestinationIndexPath" })] });
  assert.equal(session.replica.confirmedSeq, 2);
  assert.deepEqual(ids(session, "demo-found"), ["demo-gc5", "demo-gc4", "demo-gc9", "demo-gc10"]);
});

test("a board in parts is assembled, and what arrives meanwhile waits for it", () => {
  const { session, conn, told } = joined();
  const board = welcomeExample.snapshot.board;
  const [caches, found, inbox] = board.collections;
  conn.drop();
  conn.receive({ ...structuredClone(welcomeExample), snapshot: undefined, head: 5, snapshotParts: { seq: 5, parts: 2, bytes: 100 } });
  conn.receive({ type: "op", ...committedMove(6, "op-c", "c-other", ["demo-gc1"], { ...FOUND, index: 0, intent: "insertAtDestinationIndexPath" }) });
  conn.receive({ type: "snapshotPart", seq: 5, part: 0, append: [{ collections: [caches, { ...found, sections: [] }] }] });
  assert.equal(session.replica.confirmedSeq, 0, "nothing installed before the last part");
  conn.receive({ type: "snapshotPart", seq: 5, part: 1, append: [{ collection: "demo-found", sections: found.sections }, { collections: [inbox] }] });
  assert.equal(session.replica.confirmedSeq, 6);
  assert.deepEqual(ids(session, "demo-found"), ["demo-gc1", "demo-gc9", "demo-gc10"]);
  assert.deepEqual(told.events.filter((e) => e.event === "snapshot-part").map((e) => e.part), [0, 1]);
  assert.equal(told.loading.at(-1), null, "the progress bar is gone");
});

test("content from outside becomes placeholders in a row, the last one ending the drag", () => {
  const { session, drags, conn } = joined();
  const drag = drags.begin([], { external: [["public.plain-text"], ["public.url", "public.plain-text"]] });
  assert.deepEqual(conn.take(), [{ type: "dragBegin", ref: drag.session, session: drag.session, items: [], external: [["public.plain-text"], ["public.url", "public.plain-text"]] }]);
  const target = { collection: "demo-inbox", section: "demo-inbox", index: 1, intent: "insertAtDestinationIndexPath", after: "demo-note1" };
  assert.equal(drags.hover(drag, target).operation, "copy");
  conn.take();
  const operations = [0, 1].map((n) => (opIds) => ({
    op: { kind: "insertPlaceholder", destination: { ...target, index: 1 + n, after: n ? `${session.clientId}:${opIds[0]}:0` : "demo-note1" }, representations: [], createdAt: 0 },
    label: "Loading…",
  }));
  const { opIds } = drags.drop(drag, { operations });
  assert.equal(drags.state, null);
  const sent = conn.take("submit");
  assert.deepEqual(sent.map((m) => m.session), [undefined, drag.session]);
  assert.deepEqual(sent.map((m) => m.opId), opIds);
  assert.deepEqual(ids(session, "demo-inbox"), ["demo-note1", ...opIds.map((opId) => `${session.clientId}:${opId}:0`)]);
});

test("a multi-item drag keeps the selection's order and forgets the selection after the drop", () => {
  const { session, drags, selection, conn } = joined();
  selection.toggle("demo-gc5");
  selection.toggle("demo-gc2");
  const drag = drags.begin(selection.itemsFor("demo-gc2"));
  drags.add(drag, ["demo-gc7", "demo-gc5"]);
  assert.deepEqual(drag.items, ["demo-gc5", "demo-gc2", "demo-gc7"]);
  drags.hover(drag, { ...FOUND, index: 0, intent: "insertAtDestinationIndexPath", before: "demo-gc9" });
  drags.drop(drag);
  assert.deepEqual(ids(session, "demo-found"), ["demo-gc5", "demo-gc2", "demo-gc7", "demo-gc9", "demo-gc10"]);
  assert.deepEqual(selection.items, []);
  assert.deepEqual(conn.take().map((m) => m.type), ["dragBegin", "dragAdd", "dropUpdate", "drop"]);
});
