// The Trash: a drop target on the board that is not a collection (the seeds' "drop on a view that
// is not the collection"). Any cards dragged onto it — by pointer, or with Delete during a keyboard
// drag — are deleted in one operation that also ends the drag. Pressed, it deletes the selected
// cards; pressed with nothing selected, it opens the Trash panel (trash-panel.js: what was deleted,
// Restore, Empty trash). Everyone sees it; only editors can drop on it.
//
// Peers do not see a drag hovering the Trash yet (the protocol has no target for it): while over
// it, the drag sends no hover, so peers keep seeing its last place until it ends.
import { el, on } from "../ui/dom.js";
import { named } from "../model/words.js";
import { itemsLabel } from "./board-edits.js";

const SVG = "http://www.w3.org/2000/svg";

/** A bin, drawn (emoji fonts are not everywhere). */
function trashIcon() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "trash-icon");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", "M4 7h16M10 11v6M14 11v6M5 7l1 12a2 2 0 0 0 2 2h8a2 2 0 0 0 2-2l1-12M9 7V4h6v3");
  svg.append(path);
  return svg;
}

export class Trash {
  /**
   * @param {object} deps {drags (DragController), edits (BoardEdits), selection, page {board,
   *   announce(text), toast(text, kind)}, panel (TrashPanel)}
   */
  constructor({ drags, edits, selection, page, panel }) {
    Object.assign(this, { drags, edits, selection, page, panel });
    this.canEdit = false;
    this.element = el("button", {
      className: "trash",
      attrs: { "aria-label": "Trash", title: "What was deleted, to restore it; drop cards here to delete them" },
      props: { type: "button", hidden: true },
    }, trashIcon(), el("span", "trash-text", "Trash"));
    on(this.element, "click", () => this.#deleteSelection());
  }

  /** Shows the Trash; `canEdit` makes it a drop target too. */
  show(canEdit) {
    this.element.hidden = false;
    this.canEdit = !!canEdit;
  }

  /** Whether a viewport point is over the Trash (with a little margin for a finger). */
  contains(x, y) {
    if (this.element.hidden || !this.canEdit) return false;
    const r = this.element.getBoundingClientRect();
    return x >= r.left - 8 && x <= r.right + 8 && y >= r.top - 8 && y <= r.bottom + 8;
  }

  /** Lights the Trash up while a drag is over it. */
  hover(over) {
    this.element.classList.toggle("over", !!over);
  }

  /** Deletes the drag's cards in one operation that ends the drag; returns the drop's result. */
  take(drag) {
    this.hover(false);
    if (!drag.items.length) {
      this.drags.cancel(drag, "Only cards on this board can go in the Trash.");
      return { ok: false, reason: "Only cards on this board can go in the Trash." };
    }
    const { op, label } = this.edits.deleteOperation(drag.items);
    const result = this.drags.drop(drag, { operations: [{ op, label }] });
    this.selection.clear();
    this.page.announce(`Deleted ${named(label)}.`);
    return { ...result, label };
  }

  #deleteSelection() {
    const board = this.page.board;
    const ids = this.canEdit ? this.selection.items.filter((id) => board?.item(id) && !board.item(id).placeholder) : [];
    if (!ids.length) {
      this.panel.open();
      return;
    }
    const label = itemsLabel(board, ids);
    this.edits.delete(ids);
    this.selection.clear();
    this.page.announce(`Deleted ${named(label)}.`);
  }
}
