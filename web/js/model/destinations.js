// Where an operation finds what it names and where it puts it (CorkboardModel's
// Board+Destinations): a collection or section by id, the live items of a list, a destination
// resolved (R4, R7) and the index a drop lands at (R3), and items unlinked and linked. Each takes
// the board an operation is applied to (a clone: an operation that throws changes nothing).

import { Rejection, clamp } from "./board-basics.js";

/** A collection of the board: `not-found` without it. */
export function collectionNamed(board, id) {
  const c = board.collectionById.get(id);
  if (!c) throw new Rejection("not-found", `Collection ${id} does not exist.`);
  return c;
}

/** A section of the board with its collection ({section, collection}): `not-found` without it. */
export function sectionNamed(board, id) {
  const s = board.sections.get(id);
  if (!s) throw new Rejection("not-found", `Section ${id} does not exist.`);
  return s;
}

/** R4/R7: resolves a destination to {into: item} or {section, collection} plus its accepts. */
export function resolve(board, d) {
  if (d.intent === "insertIntoDestinationIndexPath") {
    if (!d.target) throw new Rejection("invalid", "A drop into an item must name the target item.");
    const loc = board.items.get(d.target);
    if (!loc) throw new Rejection("destination-gone", `The item you dropped into (${d.target}) was deleted; nothing moved.`);
    if (loc.item.placeholder) throw new Rejection("forbidden", `${d.target} is a placeholder, which cannot receive a drop.`);
    return { into: loc.item, accepts: loc.collection.accepts };
  }
  const s = board.sections.get(d.section);
  if (!s || s.collection.id !== d.collection) {
    if (!board.collectionById.has(d.collection)) throw new Rejection("destination-gone", `Collection ${d.collection} was deleted before the drop arrived; nothing moved.`);
    if (!s) throw new Rejection("destination-gone", `Section ${d.section} was deleted before the drop arrived; nothing moved.`);
    throw new Rejection("invalid", `Section ${d.section} is not in collection ${d.collection}.`);
  }
  return { section: s.section, collection: s.collection, accepts: s.collection.accepts };
}

/** R3: where a drop lands in a section already emptied of the moving items. */
function anchoredIndex(d, section, moving) {
  const usable = (anchor) => {
    if (!anchor || moving.has(anchor)) return -1;
    return section.items.findIndex((i) => i.id === anchor);
  };
  const after = usable(d.after);
  if (after >= 0) return after + 1;
  const before = usable(d.before);
  if (before >= 0) return before;
  return clamp(d.index, section.items.length);
}

/** Links `items` where a resolved destination puts them; their positions. */
export function link(board, items, resolved, d, moving) {
  if (resolved.into) {
    const target = resolved.into;
    if (!target.children) target.children = [];
    const start = target.children.length;
    target.children.push(...items);
    const loc = board.items.get(target.id);
    return items.map((_, k) => ({ collection: loc.collection.id, section: loc.section.id, group: target.id, index: start + k }));
  }
  const index = anchoredIndex(d, resolved.section, moving);
  resolved.section.items.splice(index, 0, ...items);
  return items.map((_, k) => ({ collection: resolved.collection.id, section: resolved.section.id, index: index + k }));
}

/** The named items still on the board and those skipped (gone); `gone` when none is left. */
export function liveItems(board, ids, verb) {
  if (!ids || ids.length === 0) throw new Rejection("invalid", `The ${verb} names no items.`);
  if (new Set(ids).size !== ids.length) throw new Rejection("invalid", `The ${verb} names an item twice.`);
  const live = [];
  const skipped = [];
  for (const id of ids) (board.items.has(id) ? live : skipped).push(id);
  if (live.length === 0) throw new Rejection("gone", `Every item in the ${verb} was deleted before it arrived; nothing changed.`, ids[0]);
  return { live, skipped };
}

/** Unlinks an item from its list; a group left without children dissolves into a plain item. */
export function detach(board, id) {
  const loc = board.items.get(id);
  loc.list.splice(loc.list.indexOf(loc.item), 1);
  if (loc.parent && loc.parent.children.length === 0) delete loc.parent.children;
  return loc.item;
}


/** The effect of an item changed where it stands. */
export function unmoved(board, id) {
  const p = board.position(id);
  return { changes: [{ item: id, from: p, to: p }] };
}
