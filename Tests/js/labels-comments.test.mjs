// Labels and comments on cards (issue 41) without a browser: @mentions (model/mentions.js), the
// labels a card shows and how many cards carry one (card-details.js), what a card's face says of
// them (board/card-face.js's words and key) and the sentences of their refusals (words.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { Board } from "../../web/js/model/model.js";
import { mentionSegments, mentionsIn } from "../../web/js/model/mentions.js";
import { cardLabels, commentsInWords, labelTitle, labelUsage } from "../../web/js/model/card-details.js";
import { detailsInWords, faceKey } from "../../web/js/board/card-face.js";
import { messageRefusalInWords, rejectionInWords } from "../../web/js/model/words.js";
import { welcomeExample } from "./fake-session.mjs";

const PEOPLE = ["Ada", "Bob", "Grace", "Grace Hopper"];

test("a mention is @ and one of the board's names, whole, the longest that fits", () => {
  assert.deepEqual(mentionSegments("@Ada looks good", PEOPLE), [{ text: "@Ada", mention: "Ada" }, { text: " looks good" }]);
  assert.deepEqual(mentionSegments("ask @grace hopper, then @Grace.", PEOPLE), [
    { text: "ask " }, { text: "@grace hopper", mention: "Grace Hopper" }, { text: ", then " }, { text: "@Grace", mention: "Grace" }, { text: "." },
  ]);
  // Not a mention: a longer word, an address, a doubled @, someone not on the board.
  for (const text of ["@Adam is here", "write to ada@example.com", "@@Ada", "@Eve and @ alone", "Bob@Ada"]) {
    assert.deepEqual(mentionSegments(text, PEOPLE), [{ text }], text);
  }
  assert.deepEqual(mentionSegments("(@Bob)", PEOPLE), [{ text: "(" }, { text: "@Bob", mention: "Bob" }, { text: ")" }]);
  assert.deepEqual(mentionSegments("", PEOPLE), []);
  assert.deepEqual(mentionSegments("@Ada", ["", "  ", "Ada"]), [{ text: "@Ada", mention: "Ada" }], "blank names mention nobody");
  assert.deepEqual(mentionsIn("@Bob, @Ada and @bob again", PEOPLE), ["Bob", "Ada"]);
});

test("a card's labels follow the board's order and definitions; usage counts the cards carrying one", () => {
  const labels = [{ id: "l1", name: "Urgent", color: "red" }, { id: "l2", name: "", color: "sky" }, { id: "l3", name: "Later", color: "green" }];
  assert.deepEqual(cardLabels(labels, { labels: ["l3", "gone", "l1"] }).map((l) => l.id), ["l1", "l3"]);
  assert.deepEqual(cardLabels(labels, undefined), []);
  assert.equal(labelTitle(labels[0]), "Urgent");
  assert.equal(labelTitle(labels[1]), "Sky label", "a label without a name is called by its colour");
  const board = Board.fromJSON(welcomeExample.snapshot.board);
  board.apply({ kind: "setLabel", label: labels[0] }, "c1", "o1");
  board.apply({ kind: "setLabel", label: labels[2] }, "c1", "o2");
  board.apply({ kind: "updateCard", item: "demo-gc1", addLabels: ["l1", "l3"] }, "c1", "o3");
  board.apply({ kind: "updateCard", item: "demo-gc2", addLabels: ["l1"] }, "c2", "o1");
  assert.equal(labelUsage(board, "l1"), 2);
  assert.equal(labelUsage(board, "l3"), 1);
  board.apply({ kind: "deleteLabel", label: "l1" }, "c1", "o4");
  assert.equal(labelUsage(board, "l1"), 0);
  assert.equal(commentsInWords(1), "1 comment");
  assert.equal(commentsInWords(3), "3 comments");
});

test("a card's face says its labels and comments, and changes when a label is renamed", () => {
  const now = Date.UTC(2026, 11, 7, 12);
  const labels = [{ id: "l1", name: "Urgent", color: "red" }, { id: "l2", name: "Later", color: "sky" }];
  const comment = (n) => ({ id: `c:${n}`, author: "c", name: "Bob", at: now, text: `note ${n}` });
  const item = { id: "x", representations: [], details: { labels: ["l2", "l1"], comments: [comment(1), comment(2), comment(3)] } };
  assert.equal(detailsInWords(item, { now, labels }), "labels Urgent and Later, 3 comments");
  assert.equal(detailsInWords({ ...item, details: { labels: ["l2"], comments: [comment(1)] } }, { now, labels }), "label Later, 1 comment");
  assert.equal(detailsInWords({ ...item, details: { labels: ["gone"] } }, { now, labels }), "", "a label the board lacks says nothing");
  const before = faceKey(item, { now, labels });
  assert.notEqual(faceKey(item, { now, labels: [{ ...labels[0], name: "Now" }, labels[1]] }), before, "a rename redraws the face");
  assert.notEqual(faceKey(item, { now, labels: [{ ...labels[0], color: "green" }, labels[1]] }), before, "so does a new colour");
  assert.notEqual(faceKey({ ...item, details: { ...item.details, comments: [comment(1)] } }, { now, labels }), before, "and a comment count");
  assert.equal(faceKey(item, { now, labels: [...labels, { id: "l9", name: "Other", color: "gray" }] }), before, "a label it does not carry does not");
});

test("refused label and comment changes say what happened and what to do", () => {
  const words = (code, op, field) => rejectionInWords({ code, field }, { envelope: { op, label: "Old Mill Wheel" } });
  assert.equal(words("not-owner", { kind: "editComment", item: "x" }, "comment"),
    "Your comment on “Old Mill Wheel” could not be changed: only the person who wrote a comment can change or delete it.");
  assert.equal(words("conflict", { kind: "editComment", item: "x" }, "version"),
    "Your comment on “Old Mill Wheel” could not be changed: it was changed elsewhere (in another tab?) since you began editing it. Your text is kept: look at the comment and save again.");
  assert.equal(words("invalid", { kind: "addComment", item: "x" }, "item"),
    "Your comment on “Old Mill Wheel” could not be added: a card holds at most 500 comments; delete some first.");
  assert.equal(words("not-owner", { kind: "deleteComment", item: "x" }, "comment"),
    "Your comment on “Old Mill Wheel” could not be deleted: only the person who wrote a comment can change or delete it.");
  assert.equal(words("not-found", { kind: "updateCard", item: "x", addLabels: ["l1"] }, "addLabels"),
    "Your changes to “Old Mill Wheel” could not be saved: that label was deleted from the board meanwhile.");
  const label = (code, field) => rejectionInWords({ code, field }, { envelope: { op: { kind: "setLabel" }, label: "Urgent" } });
  assert.equal(label("invalid", "label.name"), "The label “Urgent” could not be saved: a label's name has at most 50 characters; shorten it.");
  assert.equal(label("invalid", "label"), "The label “Urgent” could not be saved: a board has at most 50 labels; delete one first.");
  assert.equal(rejectionInWords({ code: "not-found" }, { envelope: { op: { kind: "deleteLabel" }, label: "Urgent" } }),
    "The label “Urgent” could not be deleted: it was deleted meanwhile.");
  assert.equal(messageRefusalInWords({ code: "invalid-field" }, { envelope: { op: { kind: "addComment" }, label: "Old Mill Wheel" } }),
    "Your comment on “Old Mill Wheel” could not be added: the server does not take it as it is (a comment holds at most 16 KiB); shorten it and try again.");
  // Other refusals keep their sentences.
  assert.equal(rejectionInWords({ code: "not-owner" }, { envelope: { op: { kind: "commitPlaceholder" }, label: "photo" } }),
    "“photo” could not be added: only the person who added it can finish it.");
});
