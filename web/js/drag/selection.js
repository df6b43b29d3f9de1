// The cards selected to be dragged together (Shift/Ctrl/⌘-click, Shift+Space), in the order they
// were selected: a drag that starts on a selected card takes the whole selection, in that order
// (itemsForBeginning).
import { itemLabel } from "../model/card-content.js";

export class Selection {
  /**
   * @param {object} hooks {board() → the board shown, announce(text), changed()}
   */
  constructor(hooks) {
    this.hooks = hooks;
    /** @type {string[]} item ids in selection order */
    this.items = [];
  }

  has(id) {
    return this.items.includes(id);
  }

  /** The items a drag starting on `id` takes: the selection when `id` is in it, else `id`. */
  itemsFor(id) {
    if (this.has(id) && this.items.length > 1) return [...this.items];
    return [id];
  }

  /** Adds or removes a card (not a placeholder) and says so. */
  toggle(id) {
    const board = this.hooks.board();
    if (!board?.item(id) || board.item(id).placeholder) return;
    const at = this.items.indexOf(id);
    if (at >= 0) this.items.splice(at, 1);
    else this.items.push(id);
    this.hooks.announce(`${at >= 0 ? "Deselected" : "Selected"} ${itemLabel(board.item(id))}. ${this.items.length} selected.`);
    this.hooks.changed();
  }

  clear() {
    if (!this.items.length) return;
    this.items = [];
    this.hooks.changed();
  }

  /** Forgets the selection after a drop of it, without a render of its own (the drop renders). */
  dropped(items) {
    if (items.length > 1 || this.has(items[0])) this.items = [];
  }
}
