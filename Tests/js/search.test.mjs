// Search and filter (issue 43) without a browser: search-text.js's folding (case and accents),
// queries of several words, what a card's text holds (title, text, description, label names,
// assignees, comments, a group's cards; never an image or a card's JSON keys), the label, assignee
// and due predicates at a fixed "now", the per-card text kept until the card changes, and the
// filter in the address (search-bar.js's pure helpers).
import assert from "node:assert/strict";
import { test } from "node:test";
import { Board } from "../../web/js/model/model.js";
import { newCardRepresentations } from "../../web/js/model/card-content.js";
import { addressWithFilter, filterFromAddress } from "../../web/js/pages/search-bar.js";
import {
  SearchTexts, WEEK_MS, cardPredicate, dueMatches, foldText, isActive, normalFilter, queryWords, searchParts, searchText,
} from "../../web/js/model/search-text.js";

const NOW = Date.UTC(2026, 11, 7, 12, 0, 0);
const HOUR = 3600e3;

const card = (id, title, text = "", details) => {
  const item = { id, representations: newCardRepresentations({ title, text }) };
  if (details) item.details = details;
  return item;
};

/** A board of one collection holding `items`, with two labels. */
const boardOf = (items) => new Board(structuredClone({
  labels: [{ id: "l-urgent", name: "Urgent", color: "red" }, { id: "l-cafe", name: "Café", color: "green" }],
  collections: [{ id: "c", title: "C", layout: "list", accepts: [], sections: [{ id: "s", title: "", items }] }],
}));

const textOf = (board, id) => {
  const names = new Map(board.labels.map((l) => [l.id, l.name]));
  return searchText(searchParts(board.item(id), (l) => names.get(l) || ""));
};

/** The ids of `board`'s cards that pass `filter` at NOW. */
const passing = (board, filter) => {
  const texts = new SearchTexts();
  const names = new Map(board.labels.map((l) => [l.id, l.name]));
  const predicate = cardPredicate(normalFilter(filter), NOW);
  return [...board.items.values()].filter(({ parent }) => !parent).map(({ item }) => item)
    .filter((item) => predicate(item, () => texts.textOf(item, (l) => names.get(l) || ""))).map((item) => item.id);
};

test("folding ignores case and accents, and keeps letters that are not accented forms", () => {
  assert.equal(foldText("Crème BRÛLÉE"), "creme brulee");
  assert.equal(foldText("ÅNGSTRÖM naïve façade"), "angstrom naive facade");
  assert.equal(foldText("Straße Øre"), "straße øre", "ß and ø are letters of their own, not accented ones");
  assert.equal(foldText("e\u0301"), "e", "a decomposed accent goes too");
  assert.deepEqual(queryWords("  Café   au\tLAIT "), ["cafe", "au", "lait"]);
  assert.deepEqual(queryWords(""), []);
  assert.equal(isActive(normalFilter({ q: "   " })), false, "blank words filter nothing");
  assert.equal(isActive(normalFilter({ due: "someday" })), false, "an unknown due filter is none");
  assert.equal(isActive(normalFilter({ label: "l-urgent" })), true);
});

test("a query's words must all be found, each as a substring, in any part of the card", () => {
  const board = boardOf([
    card("a", "Old Mill Wheel", "by the river"),
    card("b", "Café Noir", "", { description: "Bring **tweezers**", assignees: ["Zoë Quinn"] }),
    card("c", "Plain", "", { labels: ["l-urgent"], comments: [{ id: "m1", author: "x", name: "X", at: 0, text: "Seen a heron here" }] }),
    card("d", "Nothing here"),
  ]);
  assert.deepEqual(passing(board, { q: "mill" }), ["a"]);
  assert.deepEqual(passing(board, { q: "RIVER wheel" }), ["a"], "several words, in any order");
  assert.deepEqual(passing(board, { q: "river tweezers" }), [], "every word must match the same card");
  assert.deepEqual(passing(board, { q: "cafe" }), ["b"], "accents ignored in the card");
  assert.deepEqual(passing(board, { q: "CAFÉ" }), ["b"], "and in the query");
  assert.deepEqual(passing(board, { q: "tweez" }), ["b"], "the description, as a substring");
  assert.deepEqual(passing(board, { q: "zoe" }), ["b"], "assignee names");
  assert.deepEqual(passing(board, { q: "urgent" }), ["c"], "label names");
  assert.deepEqual(passing(board, { q: "heron" }), ["c"], "comment texts");
  assert.deepEqual(passing(board, { q: "here" }), ["c", "d"]);
  assert.deepEqual(passing(board, {}), ["a", "b", "c", "d"], "no filter passes every card");
  assert.deepEqual(passing(board, { q: "name" }), [], "a card's JSON keys are not its text");
});

test("a card's text leaves images out, reads notes and links, and holds a group's cards", () => {
  const board = boardOf([
    { id: "img", representations: [{ type: "public.image.png", value: "data:image/png;base64,QUJD" }, { type: "public.plain-text", value: "Sunset" }] },
    { id: "url", representations: [{ type: "public.url", value: "https://example.com/Ärger" }] },
    { id: "g", representations: [], children: [card("g1", "Inner Treasure")] },
  ]);
  assert.equal(textOf(board, "img"), "sunset");
  assert.deepEqual(passing(board, { q: "base64" }), [], "an image's data is not searched");
  assert.deepEqual(passing(board, { q: "arger" }), ["url"]);
  assert.deepEqual(passing(board, { q: "treasure" }), ["g"], "a group passes by the cards inside it");
});

test("label, assignee and due filters, alone and with words", () => {
  const board = boardOf([
    card("late", "Late one", "", { due: NOW - HOUR, labels: ["l-urgent"], assignees: ["Ada"] }),
    card("done-late", "Done late", "", { due: NOW - HOUR, done: true, assignees: ["Ada", "Bob"] }),
    card("soon", "Soon", "", { due: NOW + 2 * 24 * HOUR, labels: ["l-cafe", "l-urgent"] }),
    card("edge", "Week edge", "", { due: NOW + WEEK_MS }),
    card("undated", "No date", "", { assignees: ["Bob"] }),
    card("bare", "Bare"),
  ]);
  assert.deepEqual(passing(board, { label: "l-urgent" }), ["late", "soon"]);
  assert.deepEqual(passing(board, { label: "l-missing" }), []);
  assert.deepEqual(passing(board, { assignee: "Bob" }), ["done-late", "undated"]);
  assert.deepEqual(passing(board, { assignee: "bob" }), [], "a person is named exactly");
  assert.deepEqual(passing(board, { due: "overdue" }), ["late"], "a done card is not overdue");
  assert.deepEqual(passing(board, { due: "week" }), ["soon"], "the next seven days, not the eighth");
  assert.deepEqual(passing(board, { due: "none" }), ["undated", "bare"]);
  assert.deepEqual(passing(board, { label: "l-urgent", due: "week" }), ["soon"], "parts combine");
  assert.deepEqual(passing(board, { label: "l-urgent", q: "late" }), ["late"]);
  assert.deepEqual(passing(board, { assignee: "Ada", q: "done" }), ["done-late"]);
  // The predicate's edges at NOW itself.
  const at = (due, done = false) => ({ due, done });
  assert.equal(dueMatches(at(NOW), "overdue", NOW), false);
  assert.equal(dueMatches(at(NOW), "week", NOW), true);
  assert.equal(dueMatches(at(NOW + WEEK_MS - 1), "week", NOW), true);
  assert.equal(dueMatches(at(null), "week", NOW), false);
  assert.equal(dueMatches(at(NOW - 1, true), "none", NOW), false);
  assert.equal(dueMatches(at(null), "", NOW), true);
});

test("each card's text is kept until the card changes, and a label's new name is found", () => {
  const board = boardOf([card("a", "Alpha"), card("b", "Beta", "", { labels: ["l-urgent"] })]);
  const texts = new SearchTexts();
  const names = () => new Map(board.labels.map((l) => [l.id, l.name]));
  const first = texts.textOf(board.item("a"), () => "");
  assert.equal(first, "alpha\nalpha", "the card's name, then its plain-text summary");
  // A change elsewhere (the board replaces every item object) keeps the text: same string object back.
  board.apply({ kind: "updateCard", item: "b", done: true }, "c1", "o1");
  const again = texts.textOf(board.item("a"), () => "");
  assert.equal(again, first);
  assert.ok(Object.is(again, first), "not folded again");
  board.apply({ kind: "updateItem", item: "a", representations: newCardRepresentations({ title: "Alpine" }) }, "c1", "o2");
  assert.equal(texts.textOf(board.item("a"), () => ""), "alpine\nalpine", "a changed card is read again");
  assert.match(texts.textOf(board.item("b"), (id) => names().get(id) || ""), /urgent/);
  board.apply({ kind: "setLabel", label: { id: "l-urgent", name: "Später", color: "red" } }, "c1", "o3");
  assert.match(texts.textOf(board.item("b"), (id) => names().get(id) || ""), /spater/, "a renamed label is searched by its new name");
  board.apply({ kind: "addComment", item: "a", text: "Ça va" }, "c1", "o4");
  assert.match(texts.textOf(board.item("a"), () => ""), /ca va/, "a new comment is searched");
  // At one board version the text kept is given without reading the card again; a new version reads it.
  const v1 = {};
  const before = texts.textOf(board.item("a"), () => "", v1);
  const edited = structuredClone(board.item("a"));
  edited.representations = newCardRepresentations({ title: "Omega" });
  assert.equal(texts.textOf(edited, () => "", v1), before, "the same version: the kept text");
  assert.equal(texts.textOf(edited, () => "", {}), "omega\nomega\nca va", "a new version: read again");
  assert.equal(texts.size, 2);
  texts.prune(new Set(["b"]));
  assert.equal(texts.size, 1, "texts of cards that left go");
});

test("a huge text is read up to a bound, so one card cannot stall a keystroke", () => {
  const item = { id: "big", representations: [{ type: "public.plain-text", value: "x".repeat(60000) + "needle" }] };
  assert.equal(searchParts(item)[0].length, 20000);
  assert.deepEqual(passing(boardOf([item]), { q: "needle" }), []);
  assert.deepEqual(passing(boardOf([item]), { q: "xxx" }), ["big"]);
});

test("the filter lives in the address beside its other parameters", () => {
  const start = "http://h/?board=demo&key=k1&card=demo-gc1";
  const filter = normalFilter({ q: "Café noir", label: "l-urgent", due: "week" });
  const address = addressWithFilter(start, filter);
  const params = new URL(address).searchParams;
  assert.equal(params.get("key"), "k1");
  assert.equal(params.get("card"), "demo-gc1");
  assert.equal(params.get("q"), "Café noir");
  assert.equal(params.has("assignee"), false, "an empty part is left out");
  assert.deepEqual(filterFromAddress(address), { q: "Café noir", label: "l-urgent", assignee: "", due: "week", unchecked: "" });
  const withUnchecked = addressWithFilter(start, normalFilter({ unchecked: true }));
  assert.equal(new URL(withUnchecked).searchParams.get("unchecked"), "1");
  assert.equal(filterFromAddress(withUnchecked).unchecked, "1", "a reload keeps \"Has unchecked items\"");
  assert.equal(filterFromAddress("http://h/?board=demo&unchecked=yes").unchecked, "", "only 1 turns it on");
  assert.equal(addressWithFilter(address, normalFilter()), "http://h/?board=demo&key=k1&card=demo-gc1", "clearing takes every part out");
  assert.deepEqual(filterFromAddress("http://h/?board=demo&due=tomorrow&q="), normalFilter(), "an unknown due is none");
});

test("checklist names and items are searched, and \"Has unchecked items\" keeps cards with work left", () => {
  const lists = (items) => ({ checklists: [{ id: "k1", name: "Packing list", items }] });
  const board = boardOf([
    card("open", "Trip", "", lists([{ id: "i1", text: "Headlamp", done: true }, { id: "i2", text: "Rope" }])),
    card("done", "Hike", "", lists([{ id: "i3", text: "Map", done: true }])),
    card("none", "Plain"),
    card("empty", "Empty list", "", { checklists: [{ id: "k2", name: "Later" }] }),
  ]);
  assert.deepEqual(passing(board, { q: "headlamp" }), ["open"], "an item's text is found");
  assert.deepEqual(passing(board, { q: "packing" }), ["open", "done"], "a checklist's name is found");
  assert.ok(textOf(board, "done").includes("map"));
  assert.deepEqual(passing(board, { unchecked: true }), ["open"], "only a card with an unchecked item passes");
  assert.deepEqual(passing(board, { unchecked: "1", q: "hike" }), [], "both parts must pass");
  assert.equal(isActive(normalFilter({ unchecked: true })), true);
  assert.equal(isActive(normalFilter({ unchecked: false })), false);
});
