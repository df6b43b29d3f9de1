// Auto-scroll's arithmetic (web/js/drag/edge-scroll.js): speed proportional to the depth into the
// edge zone and bounded, time-based steps that never jump on a late frame, and a paged board that
// turns one collection per dwell at its edge.
import assert from "node:assert/strict";
import { test } from "node:test";
import { approach, edgeSpeed, EdgeDwell, scrollStep } from "../../web/js/drag/edge-scroll.js";

test("the speed grows with the depth into the edge zone, signed by the edge, bounded by the maximum", () => {
  // A 400 px scroller from 0 to 400, a 40 px zone, 500 px/s at most.
  assert.equal(edgeSpeed(200, 0, 400, 40, 500), 0, "the middle does not scroll");
  assert.equal(edgeSpeed(40, 0, 400, 40, 500), 0, "the zone's inner border does not scroll");
  assert.equal(edgeSpeed(30, 0, 400, 40, 500), -125, "a quarter deep: a quarter of the speed, towards the start");
  assert.equal(edgeSpeed(380, 0, 400, 40, 500), 250, "half deep: half the speed, towards the end");
  assert.equal(edgeSpeed(400, 0, 400, 40, 500), 500, "at the edge: the maximum");
  assert.equal(edgeSpeed(-60, 0, 400, 40, 500), -500, "beyond the edge: still the maximum, never more");
  assert.equal(edgeSpeed(460, 0, 400, 40, 500), 500);
  const speeds = [39, 30, 20, 10, 0].map((p) => -edgeSpeed(p, 0, 400, 40, 500));
  assert.deepEqual([...speeds].sort((a, b) => a - b), speeds, "deeper is never slower");
  // A small scroller: the zones shrink to a third each, so they never overlap.
  assert.equal(edgeSpeed(45, 0, 90, 40, 500), 0, "the middle third of a 90 px scroller");
  assert.ok(edgeSpeed(5, 0, 90, 40, 500) < 0 && edgeSpeed(85, 0, 90, 40, 500) > 0);
  assert.equal(edgeSpeed(0, 0, 0, 40, 500), 0, "an empty scroller does not scroll");
});

test("a frame scrolls speed × elapsed time, a late frame no more than the cap, the first frame nothing", () => {
  assert.equal(scrollStep(600, 16, 50), 9.6);
  assert.equal(scrollStep(-600, 32, 50), -19.2);
  assert.equal(scrollStep(600, 2000, 50), 30, "a frame two seconds late scrolls as one 50 ms frame");
  assert.equal(scrollStep(600, 0, 50), 0, "the first frame (no elapsed time)");
  assert.equal(scrollStep(600, NaN, 50), 0);
  // A second at the maximum speed in 60 Hz frames scrolls about the speed, never a collection per frame.
  let total = 0;
  for (let t = 0; t < 1000; t += 1000 / 60) total += scrollStep(edgeSpeed(400, 0, 400), 1000 / 60);
  assert.ok(Math.abs(total - 600) < 15, `${total}`);
});

test("approach heads for a target at a bounded speed and stops on it", () => {
  assert.equal(approach(0, 372, 1200, 16), 19.2);
  assert.equal(approach(372, 0, 1200, 16), 372 - 19.2);
  assert.equal(approach(370, 372, 1200, 16), 372, "never past the target");
  let x = 0;
  let frames = 0;
  while (x !== 372 && frames < 1000) {
    x = approach(x, 372, 1200, 1000 / 60);
    frames += 1;
  }
  assert.ok(frames >= 18 && frames <= 20, `a 372 px turn takes about 310 ms: ${frames} frames`);
});

test("a paged scroller turns once per dwell at the edge, and starts the dwell again on leaving it", () => {
  const dwell = new EdgeDwell(500);
  assert.equal(dwell.update(0, 1), 0, "the edge is reached");
  assert.equal(dwell.update(300, 1), 0, "not yet");
  assert.equal(dwell.update(499, 1), 0);
  assert.equal(dwell.update(500, 1), 1, "a whole dwell: turn right");
  assert.equal(dwell.update(516, 1), 0, "one turn at a time, however long it takes");
  assert.equal(dwell.update(900, 1), 0);
  dwell.turned(900);
  assert.equal(dwell.update(1000, 1), 0, "after the turn, another whole dwell");
  assert.equal(dwell.update(1399, 1), 0);
  assert.equal(dwell.update(1400, 1), 1);
  dwell.turned(1500);
  assert.equal(dwell.update(1700, 0), 0, "the finger leaves the edge");
  assert.equal(dwell.update(1800, 1), 0, "and comes back: the dwell starts again");
  assert.equal(dwell.update(2250, 1), 0);
  assert.equal(dwell.update(2300, 1), 1);
  dwell.turned(2300);
  assert.equal(dwell.update(2400, -1), 0, "the other edge starts its own dwell");
  assert.equal(dwell.update(2899, -1), 0);
  assert.equal(dwell.update(2900, -1), -1, "turn left");
  // Over ten seconds at an edge with 310 ms turns, the turns are at least a dwell apart.
  const steady = new EdgeDwell(500);
  const turns = [];
  let turning = null;
  for (let t = 0; t <= 10000; t += 16) {
    if (steady.update(t, 1)) {
      turns.push(t);
      turning = t;
    }
    if (turning !== null && t - turning >= 310) {
      steady.turned(t);
      turning = null;
    }
  }
  assert.ok(turns.length >= 10 && turns.length <= 13, `${turns.length} turns`);
  turns.slice(1).forEach((t, i) => assert.ok(t - turns[i] >= 800, `turns ${turns[i]} and ${t} are a dwell and a turn apart`));
});
