// Where a "Move to…" lands (WCAG 2.5.7's single-pointer alternative to dragging): a collection, a
// section and a 1-based position, turned into the same drag target a drop at that place has
// (index counted without the cards that move, with the anchors either side, R3), and a collection's
// new place among the collections. Pure: the dialog (edit/move-to.js) asks, this answers.

const AT = "insertAtDestinationIndexPath";

/** The cards a section keeps while `items` leave it, by id, in order. */
export function remainingIn(board, sectionId, items = []) {
  const moving = new Set(items);
  return (board.itemIDs(sectionId) || []).filter((id) => !moving.has(id));
}

/** How many places a move of `items` into the section can choose from (1 for an empty section). */
export function placesIn(board, sectionId, items = []) {
  return remainingIn(board, sectionId, items).length + 1;
}

/**
 * The drag target of a move of `items` to `{collection, section, position}` (1-based; missing,
 * 0 or past the end means the end): {collection, section, index, intent, after?, before?}, or null
 * when the section is not in that collection (any more).
 */
export function moveTarget(board, items, { collection, section, position }) {
  const entry = board.sections.get(section);
  if (!entry || entry.collection.id !== collection) return null;
  const remaining = remainingIn(board, section, items);
  const wanted = Number.isInteger(position) && position >= 1 ? position - 1 : remaining.length;
  const index = Math.min(wanted, remaining.length);
  const target = { collection, section, index, intent: AT };
  if (index > 0) target.after = remaining[index - 1];
  if (index < remaining.length) target.before = remaining[index];
  return target;
}

/**
 * Where a move of `items` starts in the dialog: the collection and section of the first of them
 * that is on the board (a card inside a group: its group's), at the end; else the first section.
 */
export function startingChoice(board, items) {
  for (const id of items) {
    let p = board.position(id);
    if (p?.group) p = board.position(p.group) || p;
    if (p) return { collection: p.collection, section: p.section, position: placesIn(board, p.section, items) };
  }
  const collection = board.collections.find((c) => c.sections.length);
  if (!collection) return null;
  const section = collection.sections[0].id;
  return { collection: collection.id, section, position: placesIn(board, section, items) };
}

/** The 0-based index a collection moves to for a 1-based `position` (clamped to the board), or null. */
export function collectionIndex(board, id, position) {
  const count = board.collections.length;
  if (!board.collectionById.has(id) || !count) return null;
  const wanted = Number.isInteger(position) && position >= 1 ? position - 1 : count - 1;
  return Math.min(wanted, count - 1);
}

/**
 * The first of `items` (on `source`) that the collection `collection` of another board would not
 * take, or null when it takes them all (the check a drop's proposal makes, R5).
 */
export function refusedBy(source, items, collection) {
  for (const id of items) {
    const item = source.item(id);
    if (item && !source.matches(collection.accepts, item)) return item;
  }
  return null;
}
