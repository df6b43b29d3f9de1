// Hit testing: the drop target under a point of the page, found the way the board is drawn (the
// collection whose box holds the point, the section under the point, else the collection's nearest,
// and the first card in view the point is before, found by halving), counted the way the room
// counts (without the dragged cards).

import { isShown } from "./search.js";

/**
 * The collection element at a client point, inside the board `root`'s visible box, among
 * `collections` (elements), or null. Found from the collections' boxes rather than by a hit test:
 * during a drag the page changes every frame, and on a board of thousands of cards each hit test
 * (document.elementFromPoint, twice through the drag's shield) made the browser bring its whole
 * rendering up to date first, 8–13 ms a call.
 */
export function collectionAt(root, collections, x, y) {
  const inside = (r) => x >= r.left && x < r.right && y >= r.top && y < r.bottom;
  if (!inside(root.getBoundingClientRect())) return null;
  for (const node of collections) if (node.isConnected && inside(node.getBoundingClientRect())) return node;
  return null;
}

/**
 * The drop target at a client point in the collection element `collectionNode` (collectionAt) for
 * a drag of `items`, on a board whose cards are `cards` (id → element):
 * {collection, section, index (in the section without the dragged items), intent, after?, before?,
 * intoCandidate} or null when the point is over no collection. `intoCandidate` is the card whose
 * middle is under the point (for a drop into it), else null.
 */
export function dropTargetAt(collectionNode, cards, x, y, items, board) {
  // The section under the point, else (over a collection's header or padding) the nearest by
  // vertical distance.
  let list = null;
  let best = null;
  for (const section of collectionNode.querySelectorAll(":scope > .sections > .section")) {
    const candidate = section.querySelector(":scope > .items");
    if (!candidate) continue;
    const s = section.getBoundingClientRect();
    if (y >= s.top && y < s.bottom && x >= s.left && x < s.right) {
      list = candidate;
      break;
    }
    const r = candidate.getBoundingClientRect();
    const d = y < r.top ? r.top - y : y > r.bottom ? y - r.bottom : 0;
    if (!best || d < best.d) best = { d, list: candidate };
  }
  list ||= best?.list;
  if (!list) return null;
  const sectionId = list.dataset.section;
  const collectionId = list.dataset.collection;
  const ids = board.itemIDs(sectionId) || [];
  const moving = new Set(items);
  const remaining = ids.filter((id) => !moving.has(id));
  const grid = list.dataset.layout === "grid";
  // The cards in view (a lifted or filtered-out card is skipped: k stays the board's own index),
  // in reading order, so the first one the point is before is found by halving: a hover on a
  // long list measures a handful of cards, not all of them.
  const shown = [];
  for (let k = 0; k < remaining.length; k++) if (isShown(cards.get(remaining[k]))) shown.push(k);
  const rectOf = (j) => cards.get(remaining[shown[j]]).getBoundingClientRect();
  const isBefore = (r) => (grid ? y < r.top || (y <= r.bottom && x < r.left + r.width / 2) : y < r.top + r.height / 2);
  let low = 0;
  let high = shown.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (isBefore(rectOf(mid))) high = mid;
    else low = mid + 1;
  }
  const index = low < shown.length ? shown[low] : remaining.length;
  // Only the card the point is before, or the one just above it, can be under the point.
  let intoCandidate = null;
  for (const j of [low - 1, low]) {
    if (j < 0 || j >= shown.length) continue;
    const r = rectOf(j);
    if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) {
      const cx = (x - r.left) / r.width;
      const cy = (y - r.top) / r.height;
      if (cx > 0.3 && cx < 0.7 && cy > 0.3 && cy < 0.7) intoCandidate = remaining[shown[j]];
    }
  }
  return {
    collection: collectionId,
    section: sectionId,
    index,
    intent: "insertAtDestinationIndexPath",
    after: index > 0 ? remaining[index - 1] : undefined,
    before: index < remaining.length ? remaining[index] : undefined,
    intoCandidate,
  };
}
