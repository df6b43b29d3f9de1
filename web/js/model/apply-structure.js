// The board's structure (CorkboardModel's Board+ApplyStructure): collections and sections created
// (ids never used twice), moved, and deleted into the Trash (R15) with the items they hold. Renames,
// accepts and layout are one line each, in Board's apply (model.js).

import { Rejection, clamp } from "./board-basics.js";
import { collectionNamed, sectionNamed } from "./destinations.js";
import { putInTrash, withoutPlaceholders } from "./trash.js";

/** The changes of a deleted section: each of its items (with their children) leaves the board. */
const removals = (section, collection) =>
  section.items.map((item, index) => ({ item: item.id, from: { collection: collection.id, section: section.id, index } }));

/** A collection, with its first sections, at `index` (the end without one). */
export function applyCreateCollection(board, op) {
  if (board.collectionById.has(op.id)) throw new Rejection("duplicate-id", `Collection id ${op.id} is already in use.`);
  const seen = new Set();
  for (const s of op.sections || []) {
    if (board.sections.has(s.id) || seen.has(s.id)) throw new Rejection("duplicate-id", `Section id ${s.id} is already in use.`);
    seen.add(s.id);
  }
  const sections = (op.sections || []).map((s) => ({ id: s.id, title: s.title || "", items: [] }));
  const c = { id: op.id, title: op.title || "", layout: op.layout || "grid", accepts: op.accepts || [], sections };
  board.collections.splice(clamp(op.index ?? board.collections.length, board.collections.length), 0, c);
  return {};
}

export function applyDeleteCollection(board, op, clientId, opId) {
  const c = collectionNamed(board, op.collection);
  const index = board.collections.indexOf(c);
  board.collections.splice(index, 1);
  const kept = { ...structuredClone(c), sections: c.sections.map((s) => ({ ...structuredClone(s), items: withoutPlaceholders(s.items) })) };
  putInTrash(board, { collection: { index, collection: kept } }, op, clientId, opId);
  return { changes: c.sections.flatMap((section) => removals(section, c)) };
}

export function applyMoveCollection(board, op) {
  const c = collectionNamed(board, op.collection);
  board.collections.splice(board.collections.indexOf(c), 1);
  board.collections.splice(clamp(op.index, board.collections.length), 0, c);
  return {};
}

/** A section of a collection at `index` (the end without one). */
export function applyCreateSection(board, op) {
  const c = collectionNamed(board, op.collection);
  if (board.sections.has(op.id)) throw new Rejection("duplicate-id", `Section id ${op.id} is already in use.`);
  c.sections.splice(clamp(op.index ?? c.sections.length, c.sections.length), 0, { id: op.id, title: op.title || "", items: [] });
  return {};
}

export function applyDeleteSection(board, op, clientId, opId) {
  const { section, collection } = sectionNamed(board, op.section);
  const index = collection.sections.indexOf(section);
  collection.sections.splice(index, 1);
  const kept = { id: section.id, title: section.title, items: withoutPlaceholders(section.items) };
  putInTrash(board, { section: { collection: collection.id, index, section: kept } }, op, clientId, opId);
  return { changes: removals(section, collection) };
}

export function applyMoveSection(board, op) {
  const { section, collection } = sectionNamed(board, op.section);
  collection.sections.splice(collection.sections.indexOf(section), 1);
  collection.sections.splice(clamp(op.index, collection.sections.length), 0, section);
  return {};
}
