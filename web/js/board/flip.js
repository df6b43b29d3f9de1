// FLIP animations of the cards whose place changed: where the cards in view stood before a render
// (First), where they stand after it (Last), and each moved card animated from the one to the
// other (Invert, Play).

import { isShown } from "./search.js";

/**
 * The cards in view (with a margin) and where they are: only these are animated, so a render
 * measures what the screen shows, not what the board holds. (Not an IntersectionObserver, nor
 * content-visibility: tracking thousands of cards made every frame that moved one cost more.)
 */
export function cardsOnScreen(lists) {
  const found = [];
  const margin = 200;
  const bottom = innerHeight + margin;
  const right = innerWidth + margin;
  for (const list of lists) {
    const r = list.getBoundingClientRect();
    if (r.bottom < -margin || r.top > bottom || r.right < -margin || r.left > right) continue;
    for (let node = list.firstElementChild; node; node = node.nextElementSibling) {
      if (!node.dataset.item || !isShown(node)) continue;
      const rect = node.getBoundingClientRect();
      if (rect.bottom < -margin) continue;
      if (rect.top > bottom) break; // the rest of the list is further down
      found.push([node.dataset.item, rect]);
    }
  }
  return found;
}

/** Animates each card of `cards` (id → element) from where it stood (`before`: [id, rect]) to where it stands. */
export function flip(cards, before) {
  for (const [id, old] of before) {
    const node = cards.get(id);
    if (!node || !isShown(node) || !node.isConnected) continue;
    const now = node.getBoundingClientRect();
    const dx = old.left - now.left;
    const dy = old.top - now.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
    node.animate(
      [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0, 0)" }],
      { duration: 220, easing: "cubic-bezier(.2,.8,.2,1)" },
    );
  }
}
