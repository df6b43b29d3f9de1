// Dropping into a card (R7) takes a deliberate gesture, never a pause alone: when a drag passes over
// the middle of a card, a "Drop into" label appears on the card's right side; only holding the
// pointer on that label for `dwellMs` makes the drop go inside the card. Resting over the card's
// middle does nothing more than show the label: released there, the drag lands beside the card.
//
// The label is an overlay above the ghost (not a child of the card, which the board view redraws),
// placed from the card's rectangle every frame and hit-tested by its rectangle (pointer capture
// sends the pointer's events elsewhere).
import { el } from "../ui/dom.js";

export class IntoZone {
  /** `cardElement(id)` finds a card's element; `dwellMs` is how long the pointer holds on the label. */
  constructor({ cardElement, dwellMs }) {
    Object.assign(this, { cardElement, dwellMs });
    this.item = null; // the card whose label shows
    this.since = null; // when the pointer came onto the label
    this.label = el("div", { className: "into-zone", text: "Drop into", attrs: { "aria-hidden": "true" } });
    this.label.style.setProperty("--into-dwell", `${dwellMs}ms`);
  }

  /**
   * Follows the pointer at (x, y) at time `now`, `candidate` being the card whose middle it is over
   * (board-view's intoCandidate) or null. Returns {into: id} once the label was held for the dwell,
   * {hold: id} while the pointer is on the card's middle band (the gap keeps its place, so the
   * card stays under the pointer), or null.
   */
  update(x, y, now, candidate) {
    if (this.item && !this.cardElement(this.item)?.isConnected) this.clear();
    const zone = this.item ? this.#place() : null;
    if (zone && inside(zone.label, x, y)) {
      this.since ??= now;
      const ready = now - this.since >= this.dwellMs;
      this.label.classList.add("armed");
      this.label.classList.toggle("ready", ready);
      this.label.textContent = ready ? "Release to drop into" : "Drop into";
      return ready ? { into: this.item } : { hold: this.item };
    }
    this.since = null;
    this.label.classList.remove("armed", "ready");
    this.label.textContent = "Drop into";
    if (candidate && candidate !== this.item) {
      this.item = candidate;
      document.body.append(this.label);
      this.#place();
      return { hold: candidate };
    }
    if (zone && x >= zone.card.left && x <= zone.card.right && y >= zone.label.top && y <= zone.label.bottom) return { hold: this.item };
    if (candidate) return { hold: candidate };
    if (zone && !inside(zone.card, x, y)) this.clear();
    return null;
  }

  /** Hides the label. */
  clear() {
    this.item = null;
    this.since = null;
    this.label.remove();
    this.label.classList.remove("armed", "ready");
  }

  /** Puts the label on the right of its card's middle band (clear of the middle the candidate needs); its and the card's rectangles. */
  #place() {
    const card = this.cardElement(this.item)?.getBoundingClientRect();
    if (!card) return null;
    const width = Math.max(28, Math.min(card.width * 0.28, 120));
    const height = Math.min(card.height, Math.max(36, card.height * 0.4)); // room for a finger
    const label = { left: card.right - width - 2, right: card.right - 2, top: card.top + (card.height - height) / 2, bottom: card.top + (card.height + height) / 2 };
    Object.assign(this.label.style, { left: `${label.left}px`, top: `${label.top}px`, width: `${width}px`, height: `${height}px` });
    return { card, label };
  }
}

function inside(r, x, y) {
  return x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
}
