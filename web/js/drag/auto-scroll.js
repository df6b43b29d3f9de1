// Auto-scroll while dragging a card: near an edge, the collection under the pointer, the board and
// the window scroll, time-based from each animation frame's timestamp (edge-scroll.js holds the
// arithmetic). The board scrolls smoothly on a wide screen; where it snaps one collection per
// screen (a phone, phone.css), it turns one collection per dwell at its edge instead, and its snap
// is off for the drag (a snapping board turns a whole collection at every small scroll).
import { approach, edgeSpeed, EdgeDwell, PAGE_SPEED, scrollStep } from "./edge-scroll.js";

export class AutoScroller {
  /**
   * `board` is the board's scroller (the collections are its children); `collectionAt(x, y)` the
   * collection element at a point (BoardView.collectionAt: no hit test). Without `cards` (a
   * collection's drag) only the board scrolls.
   */
  constructor(board, { cards = true, collectionAt = () => null } = {}) {
    this.board = board;
    this.cards = cards;
    this.collectionAt = collectionAt;
    this.paged = /^x|both/.test(getComputedStyle(board).scrollSnapType || "");
    this.dwell = new EdgeDwell();
    this.page = null; // the scrollLeft a page turn is heading for
    this.last = null; // the last frame's timestamp
    this.carry = new Map(); // scroller → [x, y]: the fractions of a pixel not scrolled yet
    board.classList.add("auto-scrolling");
  }

  /** One animation frame at `now` (its timestamp) with the pointer at (x, y); whether anything scrolled. */
  frame(now, x, y) {
    const elapsed = this.last === null ? 0 : now - this.last;
    this.last = now;
    let moved = false;
    const collection = this.cards ? this.collectionAt(x, y) : null;
    if (collection) moved = this.#glide(collection, collection.getBoundingClientRect(), x, y, elapsed, false) || moved;
    const r = this.board.getBoundingClientRect();
    if (this.paged) moved = this.#turn(now, r, x, elapsed) || moved;
    moved = this.#glide(this.board, r, x, y, elapsed, this.paged) || moved;
    const view = document.scrollingElement;
    if (view && this.cards) moved = this.#glide(view, { left: 0, top: 0, right: innerWidth, bottom: innerHeight }, x, y, elapsed, false) || moved;
    return moved;
  }

  /** Ends the auto-scroll: the board snaps again. */
  stop() {
    this.board.classList.remove("auto-scrolling");
  }

  /** Scrolls `scroller` in proportion to how deep (x, y) is into its edge zones (not sideways when `onlyVertical`). */
  #glide(scroller, r, x, y, elapsed, onlyVertical) {
    const carry = this.carry.get(scroller) || [0, 0];
    const dx = onlyVertical ? 0 : scrollStep(edgeSpeed(x, r.left, r.right), elapsed) + carry[0];
    const dy = scrollStep(edgeSpeed(y, r.top, r.bottom), elapsed) + carry[1];
    const whole = [Math.trunc(dx), Math.trunc(dy)];
    this.carry.set(scroller, [dx - whole[0], dy - whole[1]]);
    if (!whole[0] && !whole[1]) return false;
    const before = [scroller.scrollLeft, scroller.scrollTop];
    scroller.scrollBy(whole[0], whole[1]);
    return scroller.scrollLeft !== before[0] || scroller.scrollTop !== before[1];
  }

  /** A paged board: after a dwell at its left or right edge, heads for the next collection at a bounded speed. */
  #turn(now, r, x, elapsed) {
    const b = this.board;
    const direction = Math.sign(edgeSpeed(x, r.left, r.right));
    const turn = this.dwell.update(now, direction);
    if (turn) this.page = this.#nextPage(turn);
    if (this.page === null) return false;
    const before = b.scrollLeft;
    b.scrollLeft = approach(before, this.page, PAGE_SPEED, elapsed);
    if (Math.abs(b.scrollLeft - this.page) < 1 || (elapsed > 0 && b.scrollLeft === before)) {
      this.page = null;
      this.dwell.turned(now);
    }
    return b.scrollLeft !== before;
  }

  /** The scrollLeft that centres the next collection (or the board's end) in `direction`, or the current one when there is none. */
  #nextPage(direction) {
    const b = this.board;
    const r = b.getBoundingClientRect();
    const max = b.scrollWidth - b.clientWidth;
    const here = b.scrollLeft;
    const centres = [...b.children]
      .filter((c) => c.offsetWidth > 0 && (c.matches(".collection") || c.matches(".board-end")))
      .map((c) => {
        const cr = c.getBoundingClientRect();
        return Math.min(max, Math.max(0, cr.left - r.left + here + cr.width / 2 - b.clientWidth / 2));
      });
    const ahead = centres.filter((p) => (direction > 0 ? p > here + 1 : p < here - 1));
    if (!ahead.length) return here;
    return direction > 0 ? Math.min(...ahead) : Math.max(...ahead);
  }
}

