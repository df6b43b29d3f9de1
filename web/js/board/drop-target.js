// Hit testing: the drop target under a point of the page, found the way the board is drawn (the
// section under the point, else the collection's nearest, and the first card in view the point is
// before, found by halving), counted the way the room counts (without the dragged cards).

import { elementAt } from "../ui/dom.js";
import { isShown } from "./search.js";

/**
 * The drop target under a client point for a drag of `items`, on the board drawn in `root` whose
 * cards are `cards` (id → element):
 * {collection, section, index (in the section without the dragged items), intent, after?, before?,
 * intoCandidate} or null when the point is over no collection. `intoCandidate` is the card whose
 * middle is under the point (for a drop into it), else null.
 */
export function dropTargetAt(root, cards, x, y, items, board) {
  const hit = elementAt(x, y);
  if (!hit) return null;
  const collectionNode = hit.closest(".collection");
  if (!collectionNode || !root.contains(collectionNode)) return null;
  let list = hit.closest(".section")?.querySelector(".items");
  if (!list) {
    // Over a collection's header or padding: the nearest section by vertical distance.
    let best = null;
    for (const candidate of collectionNode.querySelectorAll(".items")) {
      const r = candidate.getBoundingClientRect();
      const d = y < r.top ? r.top - y : y > r.bottom ? y - r.bottom : 0;
      if (!best || d < best.d) best = { d, list: candidate };
    }
    list = best?.list;
  }
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
