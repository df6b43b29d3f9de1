// The card view's "Labels" group (issue 41): one checkbox per label of the board, in the board's
// order, each named after its label (a label without a name by its colour) with its colour beside
// it. Ticking one sends `updateCard` with `addLabels: [id]`, clearing one `removeLabels: [id]`:
// labels on a card are a set, so two people ticking different labels at once both keep theirs.
// The board's labels are made in the top bar's "Labels" dialog (edit/labels-dialog.js); what
// anyone changes shows here live. Viewers see the boxes and change nothing.
import { el, on } from "../ui/dom.js";
import { labelTitle } from "../model/card-details.js";

export class LabelPicker {
  /**
   * @param {object} deps
   *   change(parts, sentence)  submits an updateCard of the open card (the card view's #submit)
   */
  constructor({ change }) {
    this.change = change;
    this.key = "";
    this.list = el("div", "card-view-label-list");
    this.element = el("fieldset", "card-view-labels", el("legend", { className: "card-view-heading", text: "Labels" }), this.list);
    on(this.list, "change", (event) => this.#toggled(event.target));
  }

  /** Shows the board's `labels` with the ids the card carries ticked. */
  show(labels, carried, canEdit) {
    const key = JSON.stringify([labels, carried, canEdit]);
    if (key === this.key) return;
    this.key = key;
    const focused = this.list.contains(document.activeElement) ? document.activeElement.value : null;
    const rows = labels.map((label, n) => {
      const box = el("input", { attrs: { type: "checkbox", id: `card-view-label-${n}` }, props: { value: label.id, checked: carried.includes(label.id), disabled: !canEdit } });
      box._title = labelTitle(label);
      return el("label", { className: "card-view-label", attrs: { for: box.id } }, box,
        el("span", { className: `label-swatch label-${label.color}`, attrs: { "aria-hidden": "true" } }), labelTitle(label));
    });
    const empty = canEdit ? "The board has no labels yet: make some with “Labels” in the top bar." : "The board has no labels.";
    this.list.replaceChildren(...(rows.length ? rows : [el("p", "card-view-empty", empty)]));
    if (focused !== null) [...this.list.querySelectorAll("input")].find((b) => b.value === focused)?.focus();
  }

  #toggled(box) {
    if (box?.type !== "checkbox") return;
    const id = box.value;
    this.change(box.checked ? { addLabels: [id] } : { removeLabels: [id] }, `${box.checked ? "Added" : "Removed"} the label ${box._title}.`);
  }
}
