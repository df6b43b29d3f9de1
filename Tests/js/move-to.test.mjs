// "Move to…" without a browser: the place a collection, section and 1-based position name, as the
// same drag target a drop there has (model/move-target.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { Board } from "../../web/js/model/model.js";
import { collectionIndex, moveTarget, placesIn, refusedBy, remainingIn, startingChoice } from "../../web/js/model/move-target.js";

const AT = "insertAtDestinationIndexPath";
const card = (id, type = "public.plain-text") => ({ id, representations: [{ type, value: id }] });

function board() {
  return new Board({
    collections: [
      { id: "todo", title: "To do", layout: "list", accepts: [], sections: [
        { id: "now", title: "Now", items: [card("a"), card("b"), { id: "g", representations: [], children: [card("g1")] }] },
        { id: "later", title: "Later", items: [] },
      ] },
      { id: "links", title: "Links", layout: "list", accepts: ["public.url"], sections: [{ id: "links", title: "", items: [card("u", "public.url")] }] },
      { id: "bare", title: "Bare", layout: "list", accepts: [], sections: [] },
    ],
  });
}

test("a position is 1-based among the cards the section keeps, with the anchors either side", () => {
  const b = board();
  assert.deepEqual(remainingIn(b, "now", ["a"]), ["b", "g"]);
  assert.equal(placesIn(b, "now", ["a"]), 3);
  assert.equal(placesIn(b, "later", ["a"]), 1);
  assert.deepEqual(moveTarget(b, ["a"], { collection: "todo", section: "now", position: 1 }),
    { collection: "todo", section: "now", index: 0, intent: AT, before: "b" });
  assert.deepEqual(moveTarget(b, ["a"], { collection: "todo", section: "now", position: 2 }),
    { collection: "todo", section: "now", index: 1, intent: AT, after: "b", before: "g" });
  // The end: no position, 0, or past the end.
  for (const position of [undefined, 0, 3, 99]) {
    assert.deepEqual(moveTarget(b, ["a"], { collection: "todo", section: "now", position }),
      { collection: "todo", section: "now", index: 2, intent: AT, after: "g" }, `position ${position}`);
  }
  assert.deepEqual(moveTarget(b, ["a", "b"], { collection: "todo", section: "later", position: 1 }),
    { collection: "todo", section: "later", index: 0, intent: AT });
});

test("a section that is not in the collection named is no target", () => {
  const b = board();
  assert.equal(moveTarget(b, ["a"], { collection: "links", section: "now", position: 1 }), null);
  assert.equal(moveTarget(b, ["a"], { collection: "todo", section: "gone", position: 1 }), null);
});

test("the dialog starts where the first card is (a card in a group: its group's place), at the end", () => {
  const b = board();
  assert.deepEqual(startingChoice(b, ["b"]), { collection: "todo", section: "now", position: 3 });
  assert.deepEqual(startingChoice(b, ["g1"]), { collection: "todo", section: "now", position: 4 });
  assert.deepEqual(startingChoice(b, ["gone", "u"]), { collection: "links", section: "links", position: 1 });
  assert.deepEqual(startingChoice(b, ["gone"]), { collection: "todo", section: "now", position: 4 });
  assert.equal(startingChoice(new Board({ collections: [] }), ["a"]), null);
});

test("a collection's position is clamped to the board", () => {
  const b = board();
  assert.equal(collectionIndex(b, "links", 1), 0);
  assert.equal(collectionIndex(b, "links", 3), 2);
  assert.equal(collectionIndex(b, "links", 9), 2);
  assert.equal(collectionIndex(b, "links", undefined), 2);
  assert.equal(collectionIndex(b, "nope", 1), null);
});

test("a collection of another board that does not take a card names it", () => {
  const b = board();
  const links = b.collectionById.get("links");
  assert.equal(refusedBy(b, ["u"], links), null);
  assert.equal(refusedBy(b, ["u", "a"], links)?.id, "a");
  assert.equal(refusedBy(b, ["a"], b.collectionById.get("todo")), null);
});
