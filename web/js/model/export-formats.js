// The board written out for "Export" (issue 43), as text: JSON in the `corkboard export` archive
// format (BoardArchive.swift, read back by `corkboard import`), CSV with one row per card for
// spreadsheets, and Markdown headings and task lists for people. Pure: no DOM, no clock, no
// randomness (the caller passes the date and the archive's keys), so node tests load it.

import { cardLabels, detailsOf, labelTitle } from "./card-details.js";
import { IMAGE_TYPE, itemLabel, readContent, representation, URL_TYPE } from "./card-content.js";
import { civilDay } from "./civil-date.js";

/** The archive's format tag and version, as BoardArchive.swift writes and reads them. */
export const ARCHIVE_FORMAT = "corkboard.board";
export const ARCHIVE_VERSION = 1;
/** The snapshot version inside an archive (Snapshot.currentVersion). */
export const SNAPSHOT_VERSION = 1;

/** The CSV header: the columns of every row, in order. */
export const CSV_COLUMNS = Object.freeze(["Collection", "Section", "Title", "Text", "Labels", "Due", "Assignees", "Checklist", "Comments", "Done", "Description"]);

/** The export formats: what the menu offers, the file's extension and its MIME type. */
export const EXPORT_FORMATS = Object.freeze([
  Object.freeze({ id: "json", label: "JSON (for corkboard import)", extension: "corkboard.json", type: "application/json" }),
  Object.freeze({ id: "csv", label: "CSV (spreadsheet)", extension: "csv", type: "text/csv;charset=utf-8" }),
  Object.freeze({ id: "markdown", label: "Markdown", extension: "md", type: "text/markdown;charset=utf-8" }),
]);

const two = (n) => String(n).padStart(2, "0");

/**
 * Milliseconds since 1970 as ISO 8601 in UTC, as Date.toISOString writes it
 * ("2026-12-07T09:30:00.000Z"); "" for no date. The day comes from civil-date.js, so the module
 * needs no Date.
 */
export function isoUTC(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "";
  const dayMs = 86400000;
  let rest = ms - Math.floor(ms / dayMs) * dayMs;
  const { year, month, day } = civilDay(ms);
  const hours = Math.floor(rest / 3600000);
  rest -= hours * 3600000;
  const minutes = Math.floor(rest / 60000);
  rest -= minutes * 60000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  return `${String(year).padStart(4, "0")}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.${String(millis).padStart(3, "0")}Z`;
}

/**
 * The download's name: the board's title as lowercase words joined by "-" (letters and digits of
 * any script kept, the rest dropped), the day and the extension: "trip-plan-2026-12-07.csv".
 * `day` is "YYYY-MM-DD"; a title with no letter or digit gives "board".
 */
export function exportFilename(title, day, extension) {
  const words = String(title ?? "").normalize("NFC").toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  let slug = "";
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if ([...next].length > 60) break;
    slug = next;
  }
  return `${slug || "board"}-${day}.${extension}`;
}

/**
 * The board as a `corkboard export` archive: {format, version, board: BoardRecord, snapshot}.
 * `board` is the board's JSON at `seq` (the page's confirmed board: pending edits are left out),
 * `record` is {id, title, keys: {edit, view, isOpen}, createdAt (seconds)}. The template is
 * "empty": an imported board starts from the snapshot, so it is never read.
 */
export function boardArchive(board, seq, record) {
  return {
    format: ARCHIVE_FORMAT,
    version: ARCHIVE_VERSION,
    board: { id: record.id, title: record.title, keys: record.keys, template: "empty", createdAt: record.createdAt },
    snapshot: { version: SNAPSHOT_VERSION, seq, board },
  };
}

/** The archive as the text of a file: JSON indented by two spaces, ending with a newline. */
export function archiveText(board, seq, record) {
  return JSON.stringify(boardArchive(board, seq, record), null, 2) + "\n";
}

/**
 * What one item says as a row: {title, text} — a card's name and summary, a note's text (its
 * title the first line), a link's address with its caption, "Image" with its caption.
 */
function itemText(item) {
  const content = readContent(item);
  if (content.kind === "card") return { title: content.title, text: content.text };
  if (content.kind === "link") return { title: representation(item, URL_TYPE) || itemLabel(item), text: content.text };
  if (content.kind === "image" && representation(item, IMAGE_TYPE) !== undefined) return { title: "Image", text: content.text };
  if (content.kind === "note") {
    const line = content.text.split(/\r?\n/)[0].trim();
    return { title: [...line].length > 80 ? [...line].slice(0, 79).join("") + "…" : line, text: content.text };
  }
  return { title: itemLabel(item), text: "" };
}

/**
 * Every card of the board in order, with where it stands: [{collection, section, item, depth}].
 * A group's members follow it one level deeper; the group itself is listed only when it says
 * something (a group without representations is only a frame). Placeholders are left out.
 */
export function boardCards(board) {
  const cards = [];
  for (const collection of board.collections || []) {
    for (const section of collection.sections || []) {
      const visit = (items, depth) => {
        for (const item of items || []) {
          if (item.placeholder) continue;
          const frame = item.children && !(item.representations || []).length;
          if (!frame) cards.push({ collection, section, item, depth });
          if (item.children) visit(item.children, frame ? depth : depth + 1);
        }
      };
      visit(section.items, 0);
    }
  }
  return cards;
}

/** What a row or list entry says of a card: title, text, labels, due, assignees, done, description, comments. */
function cardFacts(board, item) {
  const details = detailsOf(item);
  return {
    ...itemText(item),
    labels: cardLabels(board.labels, details).map(labelTitle),
    due: isoUTC(details.due),
    assignees: details.assignees,
    done: details.done,
    description: details.description,
    comments: details.comments.length,
  };
}

/** Characters that make a spreadsheet read a cell as a formula (OWASP's CSV injection list). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV field (RFC 4180): text starting with =, +, -, @, a tab or a carriage return gets a
 * leading apostrophe so no spreadsheet runs it as a formula; a field holding a comma, a quote or
 * a line break is quoted, its quotes doubled. Numbers are written as they are.
 */
export function csvField(value) {
  if (typeof value === "number") return String(value);
  let text = String(value ?? "");
  if (FORMULA_START.test(text)) text = "'" + text;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The board as CSV: a byte order mark (so Excel reads UTF-8), the header, then one row per card
 * in board order, lines ending CRLF. Labels and assignees are joined by "; ", the due date is ISO
 * 8601 UTC, Checklist lists every checklist item as "[x] text" or "[ ] text" joined by "; ", Done
 * is "yes" or "".
 */
export function boardCSV(board) {
  const rows = [CSV_COLUMNS];
  for (const { collection, section, item } of boardCards(board)) {
    const card = cardFacts(board, item);
    rows.push([collection.title, section.title, card.title, card.text, card.labels.join("; "), card.due, card.assignees.join("; "), checklistCell(item), card.comments, card.done ? "yes" : "", card.description]);
  }
  return "\uFEFF" + rows.map((row) => row.map(csvField).join(",") + "\r\n").join("");
}

/** A card's checklist items for the CSV's Checklist column. */
const checklistCell = (item) =>
  detailsOf(item).checklists.flatMap((list) => (list.items || []).map((e) => `${e.done ? "[x]" : "[ ]"} ${e.text}`)).join("; ");

/** Markdown's own characters in a line of text, escaped so a title shows as it is typed. */
export function markdownEscape(text) {
  return String(text ?? "")
    .replace(/[\\`*_[\]<>#|~]/g, (c) => "\\" + c)
    .replace(/\r?\n/g, " ");
}

/**
 * The board as Markdown: the title as `#`, each collection as `##`, each titled section as `###`,
 * each card a task item (`- [x]` when done) with its title in bold, its text, labels, due date
 * (ISO 8601 UTC), assignees and comment count, its description (markdown already) indented
 * under it as a paragraph of the item, then its checklists as nested task lists. A group's
 * members are nested under it.
 */
export function boardMarkdown(board, title) {
  const lines = [`# ${markdownEscape(title || "Board")}`, ""];
  for (const collection of board.collections || []) {
    lines.push(`## ${markdownEscape(collection.title) || "Untitled collection"}`, "");
    for (const section of collection.sections || []) {
      if (section.title) lines.push(`### ${markdownEscape(section.title)}`, "");
      const cards = boardCards({ collections: [{ ...collection, sections: [section] }] });
      if (!cards.length) lines.push("_No cards._", "");
      for (const { item, depth } of cards) {
        const card = cardFacts(board, item);
        const indent = "  ".repeat(depth);
        const facts = [];
        if (card.labels.length) facts.push(`labels: ${card.labels.map(markdownEscape).join(", ")}`);
        if (card.due) facts.push(`due ${card.due}`);
        if (card.assignees.length) facts.push(`assigned to ${card.assignees.map(markdownEscape).join(", ")}`);
        if (card.comments) facts.push(`${card.comments} comment${card.comments === 1 ? "" : "s"}`);
        let line = `${indent}- [${card.done ? "x" : " "}] **${markdownEscape(card.title) || "Untitled card"}**`;
        if (card.text && card.text !== card.title) line += ` — ${markdownEscape(card.text)}`;
        if (facts.length) line += ` (${facts.join("; ")})`;
        lines.push(line);
        if (card.description) {
          // A blank line, then the text indented to the item's content: a paragraph of the item.
          lines.push("");
          for (const text of card.description.replace(/\r\n?/g, "\n").split("\n")) lines.push(text ? `${indent}  ${text}` : "");
          lines.push("");
        }
        for (const list of detailsOf(item).checklists) {
          lines.push(`${indent}  - ${markdownEscape(list.name)}`);
          for (const e of list.items || []) lines.push(`${indent}    - [${e.done ? "x" : " "}] ${markdownEscape(e.text)}`);
        }
      }
      if (cards.length) lines.push("");
    }
  }
  return lines.join("\n").replace(/\n{3,}/g, "\n\n").replace(/\n+$/, "") + "\n";
}
