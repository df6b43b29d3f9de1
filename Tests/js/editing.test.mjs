// Editing without a browser: the operations protocol.js builds, what a card says and how an edit
// changes it (card-content.js), the sentences people read (words.js), the edits a session sends
// (board-edits.js) and the colour each person keeps (members.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { operation, ProtocolError } from "../../web/js/net/protocol.js";
import { editedRepresentations, newCardRepresentations, readContent, itemLabel } from "../../web/js/model/card-content.js";
import {
  acceptsInWords, connectionLostInWords, dragRefusalInWords, dropRefusalInWords, messageRefusalInWords, rejectionInWords, typeInWords,
} from "../../web/js/model/words.js";
import { BoardEdits } from "../../web/js/edit/board-edits.js";
import { countCards } from "../../web/js/edit/structure-editor.js";
import { joined, welcomeExample } from "./fake-session.mjs";

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

test("a new card is its JSON and a text summary; an edit keeps every other field", () => {
  const reps = newCardRepresentations({ title: "Bridge", text: "Under the third arch." });
  assert.deepEqual(reps, [
    { type: "corkboard.card", value: JSON.stringify({ name: "Bridge", summary: "Under the third arch." }) },
    { type: "public.plain-text", value: "Bridge: Under the third arch." },
  ]);
  assert.deepEqual(newCardRepresentations({ title: "Bridge" })[1], { type: "public.plain-text", value: "Bridge" });

  const board = welcomeExample.snapshot.board;
  const gc1 = board.collections[0].sections[0].items[0];
  assert.deepEqual(readContent(gc1), { kind: "card", title: "Old Mill Wheel", text: "Behind the waterwheel, magnetic.", editable: true });
  const edited = editedRepresentations(gc1, { title: "Old Mill", text: "" });
  const card = JSON.parse(edited[0].value);
  assert.equal(card.name, "Old Mill");
  assert.equal(card.summary, undefined);
  assert.equal(card.latitude, 47.3769, "the coordinates stay");
  assert.deepEqual(edited[1], { type: "public.plain-text", value: "Old Mill" });

  const note = board.collections[2].sections[0].items[0];
  assert.equal(readContent(note).kind, "note");
  assert.deepEqual(editedRepresentations(note, { title: "", text: "Links only" }), [{ type: "public.plain-text", value: "Links only" }]);
  const link = { id: "x", representations: [{ type: "public.url", value: "https://example.com/" }] };
  assert.deepEqual(editedRepresentations(link, { title: "", text: "Example" }), [...link.representations, { type: "public.plain-text", value: "Example" }]);
  assert.deepEqual(editedRepresentations({ ...link, representations: [...link.representations, { type: "public.plain-text", value: "Old" }] }, { title: "", text: "" }), link.representations);
  assert.equal(readContent({ id: "p", representations: [], placeholder: { owner: "c", createdAt: 0 } }).editable, false);
  assert.equal(itemLabel({ id: "demo-x", representations: [] }), "Untitled card", "never the id");
});

test("what a collection takes, in words", () => {
  assert.equal(acceptsInWords([]), "Takes anything");
  assert.equal(acceptsInWords(["corkboard.card"]), "Takes cards");
  assert.equal(acceptsInWords(["public.plain-text", "public.url", "public.image"]), "Takes text, links and images");
  assert.equal(typeInWords("public.image.png"), "images");
  assert.equal(typeInWords("com.example.thing"), "other items");
});

test("refusals name cards and collections as people see them and say what to do", () => {
  const { session } = joined();
  const board = session.board;
  const members = session.members;
  const move = (label, destination) => ({ opId: "o", label, op: { kind: "move", items: ["demo-gc1"], destination } });
  const cases = [
    [{ code: "forbidden", message: "The destination accepts only corkboard.card." }, move("Drop text here", { ...FOUND, index: 0, intent: AT }),
      "“Drop text here” could not be placed: “Found” takes only cards."],
    [{ code: "destination-gone", message: "Section demo-x was deleted before the drop arrived; nothing moved." }, move("Old Mill Wheel", { collection: "demo-found", section: "demo-x", index: 0, intent: AT }),
      "“Old Mill Wheel” could not be placed: the collection or section it was going to was deleted meanwhile; nothing moved."],
    [{ code: "locked", message: "demo-gc1 is being dragged by Ada; wait for them to drop it and try again.", item: "demo-gc1" }, { opId: "o", label: "2 cards", op: { kind: "delete", items: ["demo-gc1", "demo-gc2"] } },
      "2 cards could not be deleted: Ada is moving “Old Mill Wheel”; try again once they drop it."],
    [{ code: "too-large", message: "The board would pass its limit of 67108864 bytes." }, { opId: "o", label: "Bridge", op: { kind: "insert" } },
      "“Bridge” could not be added: the board is full (it may hold 64 MiB); delete or move cards first."],
    [{ code: "not-found", message: "Collection demo-x does not exist." }, { opId: "o", label: "Ideas", op: { kind: "renameCollection" } },
      "“Ideas” could not be renamed: it was deleted meanwhile."],
  ];
  for (const [outcome, envelope, expected] of cases) {
    const sentence = rejectionInWords(outcome, { envelope, board, members, maxBoardBytes: 67108864 });
    assert.equal(sentence, expected);
    assert.doesNotMatch(sentence, MACHINE_WORDS);
  }
  for (const code of ["gone", "cycle", "invalid", "read-only", "not-owner", "duplicate-id", "store-failed", "conflict", "mystery"]) {
    assert.doesNotMatch(rejectionInWords({ code, message: "demo-gc1 public.url c-0123456789abcdef" }, { board, members }), MACHINE_WORDS, code);
  }
  // A drag refused because another holds the card names the card and the holder.
  assert.equal(dragRefusalInWords({ item: "demo-gc1", code: "locked", message: "demo-gc1 is being dragged by Ada; wait." }, { board, members }),
    "“Old Mill Wheel” is being moved by Ada; wait for them to drop it.");
  // A hover where the collection does not take the cards.
  assert.equal(dropRefusalInWords({ operation: "forbidden", intent: AT }, { board, items: ["demo-note1"], target: { ...FOUND, index: 0, intent: AT } }), "“Found” takes only cards.");
  assert.equal(dropRefusalInWords({ operation: "forbidden", intent: AT }, { board, items: ["demo-gc1"], target: { ...FOUND, index: 0, intent: AT }, canEdit: false }),
    "You can only view this board; ask for the edit link to make changes.");
  for (const code of [1001, 1006, 1008, 1011, 4100]) assert.doesNotMatch(connectionLostInWords(code), MACHINE_WORDS);
  assert.match(connectionLostInWords(1008, "too many failed joins to this board from your address; try again in 9 s"), /wrong or outdated key/);
  assert.match(connectionLostInWords(1008, "connections from your address keep passing their rate limit; try again in 9 s"), /too fast/);
  assert.equal(messageRefusalInWords({ code: "invalid-field", message: "\"op.representations.0.value\" must be at most 65536 bytes." }, { envelope: { label: "Bridge", op: { kind: "updateItem" } } }),
    "Your changes to “Bridge” could not be saved: the server does not take it as it is (a title or text may be too long); shorten it and try again.");
});

test("a new card is one insert anchored after the last card its author saw (R3)", () => {
  const { session, conn } = joined();
  const edits = new BoardEdits(session);
  const { opId, item } = edits.addCard("demo-found", { title: "Bridge", text: "" });
  const [submit] = conn.take("submit");
  assert.equal(submit.opId, opId);
  assert.deepEqual(submit.op.destination, { ...FOUND, index: 2, after: "demo-gc10", intent: AT });
  assert.equal(submit.op.items[0].id, undefined, "the board derives the id");
  assert.equal(item, `${session.clientId}:${opId}:0`);
  assert.deepEqual(session.board.itemIDs("demo-found"), ["demo-gc9", "demo-gc10", item], "shown at once");
  // Someone moves a card to the front of Found before the insert is sequenced: the anchor still
  // puts the new card after Tram Depot.
  conn.receive({ type: "op", seq: 1, opId: "x", clientId: "c-other", op: { kind: "move", items: ["demo-gc1"], destination: { ...FOUND, index: 2, intent: AT } }, effect: { changes: [], skipped: [], removed: [] } });
  assert.deepEqual(session.board.itemIDs("demo-found"), ["demo-gc9", "demo-gc10", item, "demo-gc1"]);
});

test("an edit the room refuses as a message goes back, and its owner hears which edit", () => {
  const { session, conn, told } = joined();
  const edits = new BoardEdits(session);
  const representations = [{ type: "public.plain-text", value: "x".repeat(10) }];
  const opId = edits.update("demo-note1", representations);
  assert.deepEqual(session.board.item("demo-note1").representations, representations, "shown at once");
  conn.receive({ type: "error", ref: opId, code: "invalid-field", field: "op.representations.0.value", message: "too long" });
  assert.equal(session.pendingCount, 0);
  assert.equal(session.board.item("demo-note1").representations[0].value, "Drop text, links and images here from other apps.");
  assert.equal(told.rejected[0].envelope.opId, opId);
  assert.equal(told.rejected[0].envelope.op.kind, "updateItem");
});

test("several cards are deleted in one operation; structure edits are one operation each", () => {
  const { session, conn } = joined();
  const edits = new BoardEdits(session);
  edits.delete(["demo-gc1", "demo-gc2", "demo-gc3"]);
  const deletes = conn.take("submit");
  assert.equal(deletes.length, 1);
  assert.deepEqual(deletes[0].op, { kind: "delete", items: ["demo-gc1", "demo-gc2", "demo-gc3"] });
  assert.equal(session.replica.pending[0].label, "3 cards");

  const { collection, section } = edits.createCollection({ title: "Ideas", layout: "list", accepts: ["public.plain-text"] });
  const created = conn.take("submit").map((m) => m.op);
  assert.deepEqual(created, [
    { kind: "createCollection", id: collection, title: "Ideas", layout: "list", accepts: ["public.plain-text"], index: 3, sections: [{ id: section, title: "Ideas" }] },
  ], "a collection and its section are one operation, so one Undo takes both away");
  assert.equal(session.board.collections.at(-1).title, "Ideas");
  edits.renameCollection(collection, "Later");
  edits.moveCollection(collection, 0);
  edits.setAccepts("demo-found", []);
  edits.setLayout("demo-found", "list");
  edits.renameBoard("Summer caches");
  const id = edits.createSection("demo-caches", "This weekend");
  edits.renameSection(id, "Next weekend");
  edits.moveSection(id, 0);
  assert.deepEqual(conn.take("submit").map((m) => m.op.kind), ["renameCollection", "moveCollection", "setAccepts", "setLayout", "renameBoard", "createSection", "renameSection", "moveSection"]);
  assert.equal(session.board.collectionById.get("demo-found").layout, "list");
  assert.equal(session.board.title, "Summer caches");
  assert.deepEqual(session.board.collections.map((c) => c.title), ["Later", "Geocaches", "Found", "Inbox"]);
  assert.deepEqual(session.board.collectionById.get("demo-caches").sections.map((s) => s.title), ["Next weekend", "To find"]);
  assert.equal(countCards(session.board.collectionById.get("demo-caches").sections), 5);
  edits.deleteSection("demo-to-find");
  edits.deleteCollection("demo-found");
  assert.deepEqual(conn.take("submit").map((m) => m.op), [{ kind: "deleteSection", section: "demo-to-find" }, { kind: "deleteCollection", collection: "demo-found" }]);
});

test("a person keeps one colour for the visit: after a reconnect, and when more than ten join", () => {
  const { session, conn } = joined();
  const colour = (id) => session.members.byId.get(id)?.color;
  const ada = colour("m1");
  const grace = session.me.color;
  const member = (n, clientId, name = `P${n}`) => ({ id: `m${n}`, name, color: PALETTE[(n - 1) % 10], role: "editor", clientId });
  // Ada's connection drops and she resumes as m3, whom the room gives the third colour.
  conn.receive({ type: "membersChanged", count: 2, left: ["m1"], joined: [member(3, welcomeExample.members[0].clientId, "Ada")] });
  assert.equal(colour("m3"), ada, "Ada keeps her colour");
  for (let n = 4; n <= 14; n++) conn.receive({ type: "membersChanged", count: n - 1, left: [], joined: [member(n, `c-${String(n).padStart(32, "0")}`)] });
  const colours = [...session.members.byId.values()].map((m) => m.color);
  assert.equal(new Set(colours).size, colours.length, "no two people share a colour");
  assert.equal(session.me.color, grace);
});

const PALETTE = ["#d9480f", "#1971c2", "#2f9e44", "#ae3ec9", "#e8590c", "#0c8599", "#c2255c", "#5c940d", "#6741d9", "#f08c00"];
