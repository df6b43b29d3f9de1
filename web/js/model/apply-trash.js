// Restore and empty the Trash (R15, CorkboardModel's Board+ApplyTrash): an entry put back where it
// was (its anchors, else its collection's end), once; cards whose labels the board no longer has
// come back without them.

import { compactDetails } from "./card-details.js";
import { Rejection } from "./board-basics.js";
import { sectionNamed } from "./destinations.js";
import { applyInsert } from "./apply-insert.js";
import { applyCreateCollection, applyCreateSection } from "./apply-structure.js";

/** Puts a Trash entry back where it was (its anchors, else its collection's end), once. */
export function applyRestore(board, op, clientId, opId) {
  const index = board.trash.findIndex((e) => e.id === op.entry);
  if (index < 0) throw new Rejection("gone", `That Trash entry (${op.entry}) was already restored, emptied or fell out of the Trash; nothing changed.`);
  const entry = board.trash[index];
  const changes = [];
  const known = new Set(board.labels.map((l) => l.id));
  const keepLabels = (item) => {
    const copy = structuredClone(item);
    if (copy.details?.labels) {
      copy.details.labels = copy.details.labels.filter((id) => known.has(id));
      copy.details = compactDetails(copy.details);
      if (!copy.details) delete copy.details;
    }
    if (copy.children) copy.children = copy.children.map(keepLabels);
    return copy;
  };
  const putBack = (items, sectionId, collectionId) => {
    const { section } = sectionNamed(board, sectionId);
    for (const item of items) {
      if (board.items.has(item.id)) continue;
      section.items.push(keepLabels(item));
      changes.push({ item: item.id, to: { collection: collectionId, section: sectionId, index: section.items.length - 1 } });
    }
    board.reindex();
  };
  if (entry.cards) {
    for (const run of entry.cards) {
      const trees = run.elements.filter((t) => !board.items.has(t.id));
      if (trees.length === 0) continue;
      const e = applyInsert(board, { items: trees, destination: restoreDestination(board, run.origin) }, clientId, opId);
      changes.push(...e.changes);
      board.reindex();
    }
  } else if (entry.section) {
    const { collection, index: at, section } = entry.section;
    if (!board.collectionById.has(collection)) throw new Rejection("gone", "The section's collection was deleted since; restore the collection from the Trash first.");
    applyCreateSection(board, { collection, id: section.id, title: section.title, index: at });
    board.reindex();
    putBack(section.items, section.id, collection);
  } else {
    const { collection, index: at } = entry.collection;
    const { sections, ...rest } = collection;
    applyCreateCollection(board, { ...rest, index: at, sections: sections.map((s) => ({ id: s.id, title: s.title })) });
    board.reindex();
    for (const s of sections) putBack(s.items, s.id, collection.id);
  }
  board.trash.splice(board.trash.indexOf(entry), 1);
  return { changes };
}

/** Where a run of restored cards goes: its group or R3 anchors, else its collection's last section's end. */
function restoreDestination(board, origin) {
  if (origin.group) {
    const loc = board.items.get(origin.group);
    if (loc && !loc.item.placeholder) return { collection: loc.collection.id, section: loc.section.id, index: 0, intent: "insertIntoDestinationIndexPath", target: origin.group };
  } else {
    const s = board.sections.get(origin.section);
    if (s && s.collection.id === origin.collection) return { ...origin, intent: "insertAtDestinationIndexPath" };
  }
  const c = board.collectionById.get(origin.collection);
  const last = c?.sections[c.sections.length - 1];
  if (!last) throw new Rejection("gone", "The cards' collection was deleted since; restore the collection from the Trash first, then the cards.");
  return { collection: c.id, section: last.id, index: last.items.length, intent: "insertAtDestinationIndexPath" };
}

export function applyEmptyTrash(board) {
  const evicted = board.trash.map((e) => e.id);
  board.trash = [];
  return evicted.length ? { evicted } : {};
}
