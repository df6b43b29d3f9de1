// A card's checklists (issue 41, docs/PROTOCOL.md "checklist"): the port of CorkboardModel's
// Checklist.swift, ChecklistChange.swift and Board+ApplyChecklist.swift. A card's details carry
//   checklists: [{id, name, items?: [{id, text, done?}]}]
// and one `checklist` operation changes one checklist or one of its items, by id, so that
// concurrent changes converge. Pure: no DOM, so node tests load it.

import { characterCount } from "./card-details.js";

/** The bounds of docs/PROTOCOL.md's checklist limits. */
export const CHECKLIST_LIMITS = Object.freeze({ checklists: 20, items: 500, textCharacters: 512, idBytes: 64 });

/** The actions of a `checklist` operation; the last five name an item (`entry`). */
export const CHECKLIST_ACTIONS = Object.freeze(["add", "rename", "delete", "addItem", "check", "renameItem", "deleteItem", "moveItem"]);

const isItemAction = (action) => !["add", "rename", "delete"].includes(action);
const utf8Length = (text) => new TextEncoder().encode(text).length;
const present = (v) => v !== undefined && v !== null;

function textProblem(text, field, what) {
  if (typeof text !== "string" || !text.trim()) return { field, message: `A ${what} cannot be blank; write what it is.` };
  if (characterCount(text) > CHECKLIST_LIMITS.textCharacters) {
    return { field, message: `A ${what} has at most ${CHECKLIST_LIMITS.textCharacters} characters; shorten it.` };
  }
  return null;
}

function idProblem(id, field) {
  if (typeof id === "string" && id.length > 0 && utf8Length(id) <= CHECKLIST_LIMITS.idBytes) return null;
  return { field, message: `An id has 1 to ${CHECKLIST_LIMITS.idBytes} bytes of UTF-8; choose another.` };
}

/** What is wrong with a card's checklists as a whole ({field, message}) or null (CardDetails.checklistsProblem). */
export function checklistsProblem(lists, field) {
  const entries = lists.flatMap((l) => l.items || []);
  if (lists.length > CHECKLIST_LIMITS.checklists || new Set(lists.map((l) => l.id)).size !== lists.length) {
    return { field, message: `A card holds at most ${CHECKLIST_LIMITS.checklists} checklists, each with its own id.` };
  }
  if (entries.length > CHECKLIST_LIMITS.items || new Set(entries.map((e) => e.id)).size !== entries.length) {
    return { field, message: `A card holds at most ${CHECKLIST_LIMITS.items} checklist items, each with its own id.` };
  }
  for (const list of lists) {
    const problem = idProblem(list.id, field) || textProblem(list.name, field, "checklist's name");
    if (problem) return problem;
    for (const entry of list.items || []) {
      const bad = idProblem(entry.id, field) || textProblem(entry.text, field, "checklist item");
      if (bad) return bad;
    }
  }
  return null;
}

/** What is wrong with a `checklist` operation on its own ({field, message}) or null (ChecklistChange.problem). */
export function checklistChangeProblem(op) {
  if (!CHECKLIST_ACTIONS.includes(op.action)) return { field: "action", message: `action is one of ${CHECKLIST_ACTIONS.join(", ")}.` };
  const id = idProblem(op.checklist, "checklist");
  if (id) return id;
  if (isItemAction(op.action)) {
    if (!present(op.entry)) return { field: "entry", message: `${op.action} names the checklist item: entry.` };
    const bad = idProblem(op.entry, "entry");
    if (bad) return bad;
  } else if (present(op.entry)) {
    return { field: "entry", message: `${op.action} acts on a whole checklist; leave out entry.` };
  }
  if (present(op.index) && op.index < 0) return { field: "index", message: `An index counts from 0; ${op.index} is below that.` };
  if (present(op.restore) && op.action !== "add") return { field: "restore", message: "Only add brings a checklist back with its items." };
  if (present(op.restore)) {
    const problem = checklistsProblem([{ id: op.checklist, name: op.name ?? "-", items: op.restore }], "restore");
    if (problem) return problem;
  }
  switch (op.action) {
    case "add":
    case "rename":
      if (!present(op.name)) return { field: "name", message: `${op.action} names the checklist: name.` };
      return textProblem(op.name, "name", "checklist's name");
    case "addItem":
    case "renameItem":
      if (!present(op.text)) return { field: "text", message: `${op.action} gives the item's text: text.` };
      return textProblem(op.text, "text", "checklist item");
    case "check":
      return present(op.done) ? null : { field: "done", message: "check says checked or not: done." };
    case "moveItem":
      return present(op.index) ? null : { field: "index", message: "moveItem says where to: index." };
    default:
      return null;
  }
}

const entry = (e) => (e.done ? { id: e.id, text: e.text, done: true } : { id: e.id, text: e.text });

/**
 * Applies a checked `checklist` operation to a card's checklists (a list of {id, name, items});
 * returns the new list, or {refused: {code, message, field}} and changes nothing.
 */
export function applyChecklistChange(lists, op) {
  const refuse = (code, message, field) => ({ refused: { code, message, field } });
  const count = lists.reduce((n, l) => n + (l.items?.length || 0), 0);
  const next = lists.map((l) => ({ ...l, items: [...(l.items || [])] }));
  if (op.action === "add") {
    if (lists.some((l) => l.id === op.checklist)) return refuse("duplicate-id", `The card already has checklist ${op.checklist}.`, "checklist");
    if (lists.length >= CHECKLIST_LIMITS.checklists) {
      return refuse("invalid", `A card holds at most ${CHECKLIST_LIMITS.checklists} checklists; delete one first.`, "checklist");
    }
    const restored = (op.restore || []).map(entry);
    const ids = new Set(lists.flatMap((l) => (l.items || []).map((e) => e.id)));
    const taken = restored.find((e) => ids.has(e.id));
    if (taken) return refuse("duplicate-id", `The card already has checklist item ${taken.id}.`, "restore");
    if (count + restored.length > CHECKLIST_LIMITS.items) {
      return refuse("invalid", `A card holds at most ${CHECKLIST_LIMITS.items} checklist items; delete some first.`, "restore");
    }
    next.splice(Math.min(op.index ?? next.length, next.length), 0, { id: op.checklist, name: op.name ?? "", items: restored });
    return next;
  }
  const at = next.findIndex((l) => l.id === op.checklist);
  if (at < 0) return refuse("not-found", `The card has no checklist ${op.checklist}; it may have been deleted.`, "checklist");
  const list = next[at];
  if (op.action === "rename") {
    if (present(op.from) && op.from !== list.name) return refuse("conflict", `The checklist was renamed to “${list.name}” while you were editing it.`, "from");
    list.name = op.name ?? "";
    return next;
  }
  if (op.action === "delete") {
    next.splice(at, 1);
    return next;
  }
  if (op.action === "addItem") {
    if (lists.some((l) => (l.items || []).some((e) => e.id === op.entry))) return refuse("duplicate-id", `The card already has checklist item ${op.entry}.`, "entry");
    if (count >= CHECKLIST_LIMITS.items) return refuse("invalid", `A card holds at most ${CHECKLIST_LIMITS.items} checklist items; delete some first.`, "entry");
    list.items.splice(Math.min(op.index ?? list.items.length, list.items.length), 0, entry({ id: op.entry, text: op.text ?? "", done: !!op.done }));
    return next;
  }
  const index = list.items.findIndex((e) => e.id === op.entry);
  if (index < 0) return refuse("not-found", `The checklist has no item ${op.entry}; it may have been deleted.`, "entry");
  const item = list.items[index];
  switch (op.action) {
    case "check":
      list.items[index] = entry({ ...item, done: !!op.done });
      break;
    case "renameItem":
      if (present(op.from) && op.from !== item.text) return refuse("conflict", `The checklist item was changed to “${item.text}” while you were editing it.`, "from");
      list.items[index] = entry({ ...item, text: op.text ?? "" });
      break;
    case "deleteItem":
      list.items.splice(index, 1);
      break;
    case "moveItem":
      list.items.splice(index, 1);
      list.items.splice(Math.min(op.index, list.items.length), 0, item);
      break;
  }
  return next;
}

/** Checklists as the wire carries them: `items` left out while empty. */
export const compactChecklists = (lists) => lists.map((l) => (l.items?.length ? { id: l.id, name: l.name, items: l.items.map(entry) } : { id: l.id, name: l.name }));

/** How many checklist items of a card are done, and how many there are ("2/5" on the card). */
export function checklistProgress(details) {
  let done = 0;
  let total = 0;
  for (const list of details?.checklists || []) {
    for (const e of list.items || []) {
      total += 1;
      if (e.done) done += 1;
    }
  }
  return { done, total };
}
