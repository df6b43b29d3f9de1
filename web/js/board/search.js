// The board seen through a filter (issue 43): cards that do not pass it get the class
// `filtered-out` (CSS hides them) and each collection's header says "3 of 40". Nothing is rendered
// again for it: a keystroke only toggles classes, and each card's folded text is kept until the
// card changes (model/search-text.js). Hidden cards stay in their lists, so every index a drag or
// a keyboard move computes is still the board's own index (drop-target.js skips them,
// keyboard.js steps over them).
import { el } from "../ui/dom.js";
import { SearchTexts, cardPredicate, isActive, normalFilter } from "../model/search-text.js";

/** The class of a card the filter hides. */
export const FILTERED_OUT = "filtered-out";

/** Whether a card's element is in view: neither hidden (a lifted card) nor filtered out. */
export function isShown(node) {
  return !!node && !node.hidden && !node.classList.contains(FILTERED_OUT);
}

export class BoardFilter {
  #texts = new SearchTexts();
  #filter = normalFilter();
  #active = false;
  #labels = null; // the board's labels array the names below were read from
  #labelNames = new Map();
  #pass = null; // {predicate, labelName} of the current filter and board, for one render or keystroke
  #version = {}; // a new object whenever the board's collections or labels are new (it changed)
  #versionOf = { collections: null, labels: null };

  /**
   * @param {object} deps
   *   view        the BoardView (its card elements and collection entries)
   *   board()     the board shown
   *   isEditing(id) whether a card is open in its editor (it stays in view until the editor closes)
   */
  constructor({ view, board, isEditing }) {
    Object.assign(this, { view, board, isEditing });
  }

  get filter() {
    return this.#filter;
  }

  get active() {
    return this.#active;
  }

  /** Sets the filter and shows the board through it at once (classes and counts only). */
  set(filter) {
    this.#filter = normalFilter(filter);
    this.#active = isActive(this.#filter);
    this.apply();
  }

  /** Shows every card of the board through the filter, without rendering anything again. */
  apply() {
    const board = this.board();
    if (!board) return;
    this.beginRender(board);
    for (const [id, node] of this.view.cards) {
      const item = board.item(id);
      if (item) this.decorateCard(node, item);
    }
    for (const collection of board.collections) {
      const entry = this.view.collectionEntry(collection.id);
      if (entry) this.decorateCollection(entry, collection);
    }
    this.#pass = null;
  }

  /** Reads the filter's predicate and the board's label names once for a render of `board`. */
  beginRender(board, now = Date.now()) {
    if (board.labels !== this.#labels) {
      this.#labels = board.labels;
      this.#labelNames = new Map(board.labels.map((l) => [l.id, l.name]));
    }
    const labelName = (id) => this.#labelNames.get(id) || "";
    // The board replaces its collections (and its labels) on every change: while they are the same
    // objects, a card's text read before still holds.
    if (board.collections !== this.#versionOf.collections || board.labels !== this.#versionOf.labels) {
      this.#versionOf = { collections: board.collections, labels: board.labels };
      this.#version = {};
    }
    this.#pass = { predicate: cardPredicate(this.#filter, now), labelName };
    // Texts of cards that left the board go once they are more than the cards still on it.
    if (this.#texts.size > 2 * board.items.size + 64) this.#texts.prune(new Set(board.items.keys()));
  }

  /** Shows or hides one card (placeholders and cards being edited always stay in view). */
  decorateCard(node, item) {
    const pass = this.#pass;
    let shown = true;
    if (this.#active && pass && !item.placeholder && !this.isEditing(item.id)) {
      shown = pass.predicate(item, () => this.#texts.textOf(item, pass.labelName, this.#version));
    }
    if (node.classList.contains(FILTERED_OUT) === shown) node.classList.toggle(FILTERED_OUT, !shown);
  }

  /** "3 of 40" in a collection's header while the filter is on: its cards in view of all of them. */
  decorateCollection(entry, collection) {
    let count = entry.filterCount;
    if (!count) {
      count = el("span", { className: "collection-filter-count", props: { hidden: true } });
      entry.accepts.after(count);
      entry.filterCount = count;
    }
    count.hidden = !this.#active;
    if (!this.#active) return;
    let total = 0;
    let shown = 0;
    for (const section of collection.sections) {
      for (const item of section.items) {
        total++;
        if (!this.view.cards.get(item.id)?.classList.contains(FILTERED_OUT)) shown++;
      }
    }
    const text = `${shown} of ${total}`;
    if (count.textContent !== text) count.textContent = text;
    count.title = `${shown} of the ${total} cards in this collection match the filter`;
  }

  /** How many of the board's cards are in view, of how many: {shown, total}. */
  counts() {
    let total = 0;
    let shown = 0;
    for (const node of this.view.cards.values()) {
      total++;
      if (!node.classList.contains(FILTERED_OUT)) shown++;
    }
    return { shown, total };
  }
}
