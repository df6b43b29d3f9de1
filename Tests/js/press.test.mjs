// The press that card and collection drags share (web/js/drag/press.js): a mouse lifts past its
// slop, a touch lifts after resting and is abandoned when it moves first, letting go abandons it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Press } from "../../web/js/drag/press.js";

const pointer = (type, x, y, pointerId = 1) => ({ pointerId, pointerType: type, clientX: x, clientY: y });

function tracked() {
  const lifts = [];
  const press = new Press({ mouseSlop: 5, touchSlop: 8, longPressMs: 20, lift: (p, x, y) => lifts.push({ p, x, y }) });
  return { press, lifts };
}

test("a mouse press lifts once it moves past the slop, carrying its fields", () => {
  const { press, lifts } = tracked();
  press.start(pointer("mouse", 10, 10), { card: "c1" });
  assert.equal(press.move(pointer("mouse", 13, 13)), true);
  assert.equal(lifts.length, 0, "within the slop");
  assert.equal(press.move(pointer("mouse", 10, 10, 2)), false, "another pointer is not the press's");
  assert.equal(press.move(pointer("mouse", 20, 10)), true);
  assert.equal(lifts.length, 1);
  assert.deepEqual([lifts[0].p.card, lifts[0].p.x, lifts[0].x, lifts[0].y], ["c1", 10, 20, 10]);
  assert.equal(press.current, null, "a lifted press is over");
});

test("a touch lifts after resting, at its start; moving first or letting go abandons it", async () => {
  const { press, lifts } = tracked();
  press.start(pointer("touch", 30, 40), { node: "n" });
  assert.equal(press.move(pointer("touch", 50, 40)), true);
  assert.equal(press.current, null, "the finger scrolls");
  press.start(pointer("touch", 30, 40), { node: "n" });
  press.end(pointer("touch", 30, 40));
  press.start(pointer("mouse", 30, 40), { node: "m" });
  press.end(pointer("mouse", 30, 40, 2));
  assert.notEqual(press.current, null, "another pointer's pointerup leaves the press");
  press.end(pointer("mouse", 30, 40));
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(lifts.length, 0);
  press.start(pointer("touch", 30, 40), { node: "t" });
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.deepEqual(lifts.map(({ p, x, y }) => [p.node, x, y]), [["t", 30, 40]]);
});
