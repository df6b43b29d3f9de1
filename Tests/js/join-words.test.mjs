// Why a board does not open, in words (issue 44): each case its own sentence saying what to do.
import { test } from "node:test";
import assert from "node:assert/strict";
import { refusalInWords, waitOf, busyInWords } from "../../web/js/model/join-words.js";

const KEY = "e-0123456789abcdef0123456789abcdef";

test("every refusal has its own sentence, saying what to do", () => {
  const noKey = refusalInWords({ code: 4003, key: "" });
  const cutShort = refusalInWords({ code: 4003, key: "e-0123" });
  const unknown = refusalInWords({ code: 4003, key: KEY });
  const before = refusalInWords({ code: 4003, key: KEY, knownBefore: true });
  const rotated = refusalInWords({ code: 1008, reason: "this board's share links were replaced; ask its owner for the new link", key: KEY });
  assert.match(noKey, /has no key.*ask the person who shared it for the full link/i);
  assert.match(cutShort, /key in this link is wrong.*Copy the whole link/);
  assert.match(unknown, /does not exist \(or was deleted\).*create a new board/);
  assert.match(before, /no longer works.*before.*rotated.*deleted.*new link/);
  assert.match(rotated, /changed \(rotated\).*new link/);
  assert.equal(new Set([noKey, cutShort, unknown, before, rotated]).size, 5);
});

test("closes a reconnect can mend are not refusals", () => {
  assert.equal(refusalInWords({ code: 1008, reason: "too slow to keep up; reconnect with your last seq to resume", key: KEY }), null);
  assert.equal(refusalInWords({ code: 1006, key: KEY }), null);
  assert.equal(refusalInWords({ code: 1001, key: "" }), null);
});

test("a wait the server asks for is read and counted down in words", () => {
  assert.equal(waitOf("too many failed joins from your address; try again in 42 s"), 42);
  assert.equal(waitOf("too slow"), null);
  assert.equal(busyInWords(12), "The server is busy; trying again in 12 s.");
  assert.match(busyInWords(0), /trying again now/);
});
