// The board's Trash (R15) in the browser, mirroring CorkboardModel's Trash.swift and
// Board+ApplyTrash.swift: deletes put what they remove in it (placeholders never), `restore` takes
// an entry out. Entries, oldest first:
//   {id, name, clientId, at, cards:[{origin:{collection,section,group?,index,after?,before?}, elements:[item…]}]}
//   or section:{collection, index, section}, or collection:{index, collection}.
// Evictions (count, bytes, age) are decided by the server's model and arrive in a committed
// operation's `effect.evicted`; the replica drops those entries (replica.js).

/** The id a delete gives its entry: `<clientId>:<opId>`, then `:2`, `:3` … within one batch. */
export function trashID(trash, clientId, opId) {
  const base = `${clientId}:${opId}`;
  let id = base;
  for (let n = 2; trash.some((e) => e.id === id); n++) id = `${base}:${n}`;
  return id;
}

/** Item trees without placeholders, inside groups too. */
export function withoutPlaceholders(items) {
  return items
    .filter((item) => !item.placeholder)
    .map((item) => {
      const copy = structuredClone(item);
      if (copy.children) copy.children = withoutPlaceholders(copy.children);
      return copy;
    });
}

/**
 * Runs of neighbours among `ids` (roots only), as Board.runs(of:) does: lists in the order first
 * met, runs by index, each with its first index and R3 anchors. `locate(id)` gives the board's
 * location record {item, list, parent, section, collection}.
 */
export function runsOf(ids, locate) {
  const order = [];
  const byList = new Map();
  for (const id of ids) {
    const loc = locate(id);
    if (!loc) continue;
    const index = loc.list.indexOf(loc.item);
    if (!byList.has(loc.list)) {
      order.push(loc);
      byList.set(loc.list, []);
    }
    byList.get(loc.list).push({ index, item: loc.item });
  }
  const runs = [];
  for (const loc of order) {
    const entries = byList.get(loc.list).sort((a, b) => a.index - b.index);
    let start = 0;
    while (start < entries.length) {
      let end = start;
      while (end + 1 < entries.length && entries[end + 1].index === entries[end].index + 1) end++;
      const first = entries[start].index;
      const last = entries[end].index;
      const origin = { collection: loc.collection.id, section: loc.section.id };
      if (loc.parent) origin.group = loc.parent.id;
      origin.index = first;
      if (first > 0) origin.after = loc.list[first - 1].id;
      if (last + 1 < loc.list.length) origin.before = loc.list[last + 1].id;
      runs.push({ origin, elements: entries.slice(start, end + 1).map((e) => e.item) });
      start = end + 1;
    }
  }
  return runs;
}

/** The number of cards an entry holds (group children included). */
export function entryCardCount(entry) {
  const count = (items) => items.reduce((n, item) => n + 1 + count(item.children || []), 0);
  if (entry.cards) return entry.cards.reduce((n, run) => n + count(run.elements), 0);
  if (entry.section) return count(entry.section.section.items || []);
  return (entry.collection?.collection.sections || []).reduce((n, s) => n + count(s.items || []), 0);
}

/** Puts what a delete removed in the board's Trash, as an entry of `content` (cards, section or collection). */
export function putInTrash(board, content, op, clientId, opId) {
  board.trash.push({ id: trashID(board.trash, clientId, opId), name: op.name ?? "Someone", clientId, at: op.at ?? 0, ...content });
}
