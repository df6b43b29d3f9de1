// The activity feed's entries as the page keeps them (issue 43): pages and live entries merged
// newest first, each seq once; a card's view keeps only its own; "2 min ago".
import assert from "node:assert/strict";
import { test } from "node:test";
import { ActivityEntries, relativeTime } from "../../web/js/model/activity-feed.js";

const entry = (seq, items = ["c1"]) => ({ seq, at: 0, actor: "Ada", clientId: "a", color: "#000", verb: "moved", text: `t${seq}`, items });

test("pages go back in time and live entries go on top, each seq once", () => {
  const feed = new ActivityEntries();
  assert.equal(feed.oldestSeq, undefined);
  assert.ok(feed.addPage({ entries: [entry(9), entry(8)], more: true }));
  assert.equal(feed.more, true);
  assert.equal(feed.oldestSeq, 8);
  assert.ok(feed.addLive(entry(10)));
  assert.equal(feed.addLive(entry(10)), false, "an entry heard twice is kept once");
  assert.ok(feed.addPage({ entries: [entry(7)], more: false }));
  assert.equal(feed.more, false);
  assert.deepEqual(feed.entries.map((e) => e.seq), [10, 9, 8, 7]);
});

test("a card's view keeps only the entries about its card", () => {
  const feed = new ActivityEntries("c2");
  assert.equal(feed.addLive(entry(3, ["c1"])), false);
  assert.ok(feed.addLive(entry(4, ["c1", "c2"])));
  feed.addPage({ entries: [entry(2, ["c3"]), entry(1, ["c2"])], more: false });
  assert.deepEqual(feed.entries.map((e) => e.seq), [4, 1]);
});

test("relative times", () => {
  const now = 10_000_000_000;
  assert.equal(relativeTime(now - 5_000, now), "just now");
  assert.equal(relativeTime(now + 5_000, now), "just now", "a clock a little ahead is not in the future");
  assert.equal(relativeTime(now - 120_000, now), "2 min ago");
  assert.equal(relativeTime(now - 3 * 3_600_000, now), "3 h ago");
  assert.equal(relativeTime(now - 24 * 3_600_000, now), "yesterday");
  assert.equal(relativeTime(now - 5 * 86_400_000, now), "5 days ago");
  assert.equal(relativeTime(now - 65 * 86_400_000, now), "2 months ago");
  assert.equal(relativeTime(now - 800 * 86_400_000, now), "2 years ago");
});
