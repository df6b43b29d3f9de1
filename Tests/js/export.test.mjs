// Export (issue 43) without a browser: the archive `corkboard import` reads, the CSV (RFC 4180
// quoting, the formula guard, unicode, the BOM), the Markdown and the file's name
// (web/js/model/export-formats.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  archiveText, boardArchive, boardCards, boardCSV, boardMarkdown, CSV_COLUMNS, csvField, exportFilename, isoUTC, markdownEscape,
} from "../../web/js/model/export-formats.js";

const card = (id, name, summary, details) => ({
  id,
  representations: [{ type: "corkboard.card", value: JSON.stringify({ name, summary }) }, { type: "public.plain-text", value: `${name}: ${summary}` }],
  ...(details ? { details } : {}),
});

const DUE = Date.UTC(2026, 11, 24, 18, 30, 5, 120);

function sampleBoard() {
  return {
    title: "Trip plan",
    labels: [{ id: "l1", name: "Urgent", color: "red" }, { id: "l2", name: "", color: "blue" }, { id: "l3", name: "Later", color: "green" }],
    collections: [
      {
        id: "c1", title: "To do", layout: "list", accepts: [],
        sections: [
          {
            id: "s1", title: "Tickets, \"cheap\"", items: [
              card("a", "Book train", "Paris, then Lyon", { labels: ["l3", "l1"], due: DUE, assignees: ["Ada", "Bob"], comments: [{ id: "x", author: "c", name: "Ada", at: 1, text: "hi" }], description: "Line one\n\n- a list", checklists: [{ id: "k1", name: "Go", items: [{ id: "e1", text: "Tickets", done: true }, { id: "e2", text: "Seat" }] }] }),
              card("b", "=HYPERLINK(\"http://evil\")", "+1 -2", { done: true }),
              { id: "n", representations: [{ type: "public.plain-text", value: "Café ☕ 旅行\nsecond line" }] },
              { id: "g", representations: [], children: [card("g1", "Inside", "")] },
              { id: "p", representations: [], placeholder: { owner: "c-1", createdAt: 0 } },
            ],
          },
          { id: "s2", title: "", items: [] },
        ],
      },
      { id: "c2", title: "Links", layout: "grid", accepts: [], sections: [{ id: "s3", title: "Web", items: [{ id: "u", representations: [{ type: "public.url", value: "https://example.com/a,b" }, { type: "public.plain-text", value: "@home" }] }] }] },
    ],
  };
}

/** A CSV text read back by RFC 4180 (quoted fields, doubled quotes, CRLF records). */
function parseCSV(text) {
  const rows = [];
  let row = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), (i += 1);
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") row.push(field), (field = "");
    else if (c === "\r" && text[i + 1] === "\n") row.push(field), rows.push(row), (row = []), (field = ""), (i += 1);
    else field += c;
  }
  assert.equal(field, "", "the text ends with CRLF");
  return rows;
}

test("ISO 8601 UTC dates agree with Date.toISOString, also before 1970 and in leap years", () => {
  for (const ms of [0, DUE, Date.UTC(2024, 1, 29, 23, 59, 59, 999), Date.UTC(2000, 2, 1), Date.UTC(1969, 11, 31, 12), 253402300799999]) {
    assert.equal(isoUTC(ms), new Date(ms).toISOString(), `at ${ms}`);
  }
  assert.equal(isoUTC(null), "");
  assert.equal(isoUTC(undefined), "");
});

test("a CSV field is quoted for commas, quotes and line breaks, and a formula start gets an apostrophe", () => {
  assert.equal(csvField("plain"), "plain");
  assert.equal(csvField("a,b"), '"a,b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField("one\ntwo"), '"one\ntwo"');
  assert.equal(csvField("one\r\ntwo"), '"one\r\ntwo"');
  for (const start of ["=", "+", "-", "@", "\t", "\r"]) assert.equal(csvField(`${start}1`).replace(/^"/, "")[0], "'", `guarded ${JSON.stringify(start)}`);
  assert.equal(csvField("=SUM(A1,A2)"), "\"'=SUM(A1,A2)\"");
  assert.equal(csvField("a=b"), "a=b", "only a leading character counts");
  assert.equal(csvField(3), "3");
  assert.equal(csvField(""), "");
  assert.equal(csvField(undefined), "");
});

test("the CSV has a BOM, the header and one row per card in board order, with labels and assignees joined", () => {
  const text = boardCSV(sampleBoard());
  assert.ok(text.startsWith("\uFEFF"), "a UTF-8 byte order mark for Excel");
  assert.ok(text.endsWith("\r\n"));
  const rows = parseCSV(text.slice(1));
  assert.deepEqual(rows[0], [...CSV_COLUMNS]);
  assert.deepEqual(rows[0].slice(0, 9), ["Collection", "Section", "Title", "Text", "Labels", "Due", "Assignees", "Checklist", "Comments"]);
  const body = rows.slice(1);
  assert.deepEqual(body.map((r) => [r[0], r[1], r[2]]), [
    ["To do", 'Tickets, "cheap"', "Book train"],
    ["To do", 'Tickets, "cheap"', "'=HYPERLINK(\"http://evil\")"],
    ["To do", 'Tickets, "cheap"', "Café ☕ 旅行"],
    ["To do", 'Tickets, "cheap"', "Inside"],
    ["Links", "Web", "https://example.com/a,b"],
  ]);
  const [train, formula, note, , link] = body;
  // Labels in the board's order, an unnamed one by its colour; assignees as the card lists them.
  assert.equal(train[4], "Urgent; Later");
  assert.equal(train[5], "2026-12-24T18:30:05.120Z");
  assert.equal(train[6], "Ada; Bob");
  assert.equal(train[7], "[x] Tickets; [ ] Seat", "every checklist item, checked or not");
  assert.equal(train[8], "1");
  assert.equal(train[9], "");
  assert.equal(train[10], "Line one\n\n- a list");
  assert.equal(formula[3], "'+1 -2");
  assert.equal(formula[9], "yes");
  assert.equal(formula[8], "0");
  assert.equal(note[3], "Café ☕ 旅行\nsecond line", "unicode and line breaks kept inside quotes");
  assert.equal(link[3], "'@home");
  assert.ok(body.every((r) => r.length === CSV_COLUMNS.length));
  assert.ok(!text.includes("placeholder") && body.every((r) => r[2] !== "Loading…"), "placeholders are left out");
});

test("an empty board gives the header alone in CSV and its headings in Markdown", () => {
  const empty = { collections: [] };
  assert.equal(boardCSV(empty), "\uFEFF" + CSV_COLUMNS.join(",") + "\r\n");
  assert.equal(boardMarkdown(empty, "Nothing yet"), "# Nothing yet\n");
  const oneSection = { collections: [{ id: "c", title: "Board", layout: "list", accepts: [], sections: [{ id: "s", title: "", items: [] }] }] };
  assert.equal(boardMarkdown(oneSection, "Empty"), "# Empty\n\n## Board\n\n_No cards._\n");
  assert.deepEqual(boardCards(oneSection), []);
});

test("the Markdown has the collections as ##, titled sections as ###, cards as task items with their details", () => {
  const text = boardMarkdown(sampleBoard(), "Trip plan");
  const lines = text.split("\n");
  assert.equal(lines[0], "# Trip plan");
  assert.deepEqual(lines.filter((l) => l.startsWith("##")), ["## To do", '### Tickets, "cheap"', "## Links", "### Web"]);
  assert.ok(lines.includes("- [ ] **Book train** — Paris, then Lyon (labels: Urgent, Later; due 2026-12-24T18:30:05.120Z; assigned to Ada, Bob; 1 comment)"), text);
  assert.ok(lines.includes('- [x] **=HYPERLINK("http://evil")** — +1 -2'), text);
  // The description is indented under its card, a paragraph of the item.
  const at = lines.findIndex((l) => l.includes("**Book train**"));
  assert.deepEqual(lines.slice(at + 1, at + 5), ["", "  Line one", "", "  - a list"]);
  // Its checklists follow, nested task lists.
  assert.deepEqual(lines.slice(at + 6, at + 9), ["  - Go", "    - [x] Tickets", "    - [ ] Seat"], text);
  // A group's members nest under it; a frame without content is not an item.
  assert.ok(lines.includes("- [ ] **Inside**"), text);
  assert.ok(lines.includes("- [ ] **https://example.com/a,b** — @home"), text);
  assert.ok(!text.includes("Loading"));
  assert.equal(markdownEscape("*bold* [x] #1 <b>"), "\\*bold\\* \\[x\\] \\#1 \\<b\\>");
});

test("a group with content lists its members one level deeper", () => {
  const board = { collections: [{ id: "c", title: "C", layout: "list", accepts: [], sections: [{ id: "s", title: "S", items: [{ ...card("g", "Group card", ""), children: [card("k", "Kid", "")] }] }] }] };
  assert.deepEqual(boardCards(board).map((c) => [c.item.id, c.depth]), [["g", 0], ["k", 1]]);
  assert.ok(boardMarkdown(board, "B").includes("- [ ] **Group card**\n  - [ ] **Kid**"));
});

test("the archive has the shape `corkboard export` writes, with the keys it is given", () => {
  const board = sampleBoard();
  const keys = { edit: "e-00", view: "v-00", isOpen: false };
  const archive = boardArchive(board, 42, { id: "trip", title: "Trip plan", keys, createdAt: 1800000000 });
  assert.deepEqual(Object.keys(archive), ["format", "version", "board", "snapshot"]);
  assert.equal(archive.format, "corkboard.board");
  assert.equal(archive.version, 1);
  assert.deepEqual(archive.board, { id: "trip", title: "Trip plan", keys, template: "empty", createdAt: 1800000000 });
  assert.deepEqual(archive.snapshot, { version: 1, seq: 42, board });
  const text = archiveText(board, 42, { id: "trip", title: "Trip plan", keys, createdAt: 1800000000 });
  assert.deepEqual(JSON.parse(text), archive);
  assert.ok(text.endsWith("}\n"));
});

test("the file's name is the title's words, the day and the extension", () => {
  assert.equal(exportFilename("Trip plan", "2026-12-07", "csv"), "trip-plan-2026-12-07.csv");
  assert.equal(exportFilename("  Q3 / Roadmap: *draft*  ", "2026-12-07", "md"), "q3-roadmap-draft-2026-12-07.md");
  assert.equal(exportFilename("Café Überblick", "2026-12-07", "csv"), "café-überblick-2026-12-07.csv");
  assert.equal(exportFilename("旅行 計画", "2026-12-07", "corkboard.json"), "旅行-計画-2026-12-07.corkboard.json");
  assert.equal(exportFilename("../../etc", "2026-12-07", "csv"), "etc-2026-12-07.csv", "no path survives");
  assert.equal(exportFilename("!!!", "2026-12-07", "csv"), "board-2026-12-07.csv");
  assert.equal(exportFilename("", "2026-12-07", "csv"), "board-2026-12-07.csv");
  assert.ok(exportFilename("word ".repeat(40), "2026-12-07", "csv").length <= 60 + "-2026-12-07.csv".length);
});
