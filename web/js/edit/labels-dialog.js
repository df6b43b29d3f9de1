// The board's "Labels" dialog (issue 41), opened from the top bar: every label of the board with
// its colour, name and how many cards carry it. An editor creates a label (a name, which may be
// empty, and one of the protocol's colours), renames one (Enter or leaving the field), recolours
// one and deletes one ("Delete label" asks first and says how many cards lose it; Undo brings it
// back). Each change is one `setLabel` or `deleteLabel`; what others change shows here live.
// Viewers see the labels and change nothing. Labels go on cards in the card view's "Labels".
import { el, on } from "../ui/dom.js";
import { confirmDialog, showDialog } from "../ui/dialog.js";
import { CARD_LIMITS, LABEL_COLORS, characterCount, colorName, labelTitle, labelUsage } from "../model/card-details.js";
import { named } from "../model/words.js";
import { freshId } from "./board-edits.js";

const cardsInWords = (count) => (count === 0 ? "on no card" : `on ${count} card${count === 1 ? "" : "s"}`);

/** A <select> of the protocol's label colours, named `label`, showing `color`. */
function colorSelect(label, color) {
  const select = el("select", { attrs: { "aria-label": label } }, ...LABEL_COLORS.map((c) => el("option", { text: colorName(c), props: { value: c } })));
  select.value = color;
  return select;
}

export class LabelsDialog {
  /**
   * @param {object} deps
   *   session  BoardSession (board, canEdit)
   *   edits    BoardEdits (setLabel, deleteLabel)
   *   page     {announce(text)}
   */
  constructor({ session, edits, page }) {
    Object.assign(this, { session, edits, page });
    this.list = null; // the open dialog's list, else null
  }

  get isOpen() {
    return !!this.list?.isConnected;
  }

  /** Opens the dialog (editors get its controls). */
  async open() {
    if (this.isOpen || !this.session.board) return;
    const canEdit = this.session.canEdit;
    this.rows = new Map(); // label id → {row, chip, name, color, usage, remove}
    this.list = el("ul", { className: "labels-list", attrs: { "aria-label": "The board's labels" } });
    this.empty = el("p", "labels-hint", "The board has no labels yet.");
    this.status = el("p", { className: "comment-notice", attrs: { role: "status" }, props: { hidden: true } });
    const hint = el("p", "labels-hint", canEdit
      ? "Labels go on cards in each card's “Labels”. Renaming or recolouring one changes it on every card."
      : "You can only view this board, so its labels cannot be changed here.");
    const body = canEdit ? [hint, this.#newLabelRow(), this.status, this.list, this.empty] : [hint, this.list, this.empty];
    this.refresh();
    const shown = showDialog({ title: "Labels", body, confirm: "Done", cancel: null });
    this.list.closest("dialog")?.classList.add("labels-dialog");
    await shown;
    this.list = null;
  }

  /** After each render: the board's labels as they are now. */
  refresh() {
    if (!this.list || !this.session.board) return;
    const board = this.session.board;
    const labels = board.labels;
    const canEdit = this.session.canEdit;
    for (const [id, row] of this.rows) {
      if (labels.some((l) => l.id === id)) continue;
      row.row.remove();
      this.rows.delete(id);
    }
    labels.forEach((label, n) => {
      const row = this.rows.get(label.id) || this.#row(label, canEdit);
      const title = labelTitle(label);
      row.chip.className = `label-chip label-${label.color}`;
      row.chip.textContent = title;
      row.usage.textContent = cardsInWords(labelUsage(board, label.id));
      if (row.name && document.activeElement !== row.name) {
        if (row.name.value !== label.name) row.name.value = label.name;
        row.name.setAttribute("aria-label", `Name of the label ${title}`);
      }
      if (row.color) {
        if (document.activeElement !== row.color) row.color.value = label.color;
        row.color.setAttribute("aria-label", `Colour of the label ${title}`);
        row.remove.setAttribute("aria-label", `Delete label ${title}`);
      }
      if (this.list.children[n] !== row.row) this.list.insertBefore(row.row, this.list.children[n] || null);
    });
    this.empty.hidden = labels.length > 0;
  }

  /** A refused label change of ours while the dialog is open shows in it; returns whether it did. */
  rejected(envelope, sentence) {
    if (!this.isOpen || !["setLabel", "deleteLabel"].includes(envelope?.op?.kind)) return false;
    this.notice(sentence);
    return true;
  }

  notice(text) {
    if (!this.status) return;
    this.status.textContent = text;
    this.status.hidden = !text;
  }

  #row(label, canEdit) {
    const chip = el("span", { attrs: { "aria-hidden": canEdit ? "true" : null } });
    const usage = el("span", "labels-hint");
    const row = { chip, usage, row: el("li", { className: "labels-row", data: { label: label.id } }, chip) };
    if (canEdit) {
      row.name = el("input", { attrs: { autocomplete: "off", maxlength: String(CARD_LIMITS.labelNameCharacters * 2) }, props: { value: label.name } });
      row.color = colorSelect("Colour", label.color);
      row.remove = el("button", { className: "danger", text: "Delete label", props: { type: "button" } });
      on(row.name, "keydown", (event) => {
        if (event.key !== "Enter") return;
        event.preventDefault(); // not the dialog's Done
        this.#rename(label.id, row.name.value);
      });
      on(row.name, "change", () => this.#rename(label.id, row.name.value));
      on(row.color, "change", () => this.#set(label.id, { color: row.color.value }, `Recoloured the label to ${colorName(row.color.value).toLowerCase()}.`));
      on(row.remove, "click", () => this.#delete(label.id));
      row.row.append(row.name, row.color, row.remove);
    }
    row.row.append(usage);
    this.rows.set(label.id, row);
    return row;
  }

  #newLabelRow() {
    const name = el("input", { attrs: { "aria-label": "New label name", autocomplete: "off", placeholder: "Name, e.g. Urgent" } });
    // Each new label starts on a colour the board does not use yet.
    const unused = () => {
      const used = new Set(this.session.board.labels.map((l) => l.color));
      return LABEL_COLORS.find((c) => !used.has(c)) || LABEL_COLORS[0];
    };
    const color = colorSelect("New label colour", unused());
    const create = el("button", { className: "primary", text: "Create label", props: { type: "button" } });
    const make = () => {
      if (this.#create(name.value.trim(), color.value)) {
        name.value = "";
        color.value = unused();
        name.focus();
      }
    };
    on(name, "keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      make();
    });
    on(create, "click", make);
    return el("div", "labels-new", name, color, create);
  }

  /** Whether the name fits; says why not. */
  #fits(name) {
    if (characterCount(name) <= CARD_LIMITS.labelNameCharacters) return true;
    this.notice(`A label's name has at most ${CARD_LIMITS.labelNameCharacters} characters; shorten it.`);
    return false;
  }

  #create(name, color) {
    if (!this.session.canEdit || !this.#fits(name)) return false;
    if (this.session.board.labels.length >= CARD_LIMITS.labels) {
      this.notice(`A board has at most ${CARD_LIMITS.labels} labels; delete one before adding another.`);
      return false;
    }
    const label = { id: freshId("label"), name, color };
    this.edits.setLabel(label);
    this.notice("");
    this.page.announce(`Created the label ${named(labelTitle(label))}.`);
    return true;
  }

  #rename(id, value) {
    const name = value.trim();
    const label = this.session.board?.labels.find((l) => l.id === id);
    if (!label || name === label.name || !this.#fits(name)) return;
    this.#set(id, { name }, `Renamed the label to ${named(labelTitle({ ...label, name }))}.`);
  }

  #set(id, change, sentence) {
    const label = this.session.board?.labels.find((l) => l.id === id);
    if (!label || !this.session.canEdit) return;
    this.edits.setLabel({ ...label, ...change });
    this.notice("");
    this.page.announce(sentence);
  }

  async #delete(id) {
    const label = this.session.board?.labels.find((l) => l.id === id);
    if (!label || !this.session.canEdit) return;
    const count = labelUsage(this.session.board, id);
    const title = named(labelTitle(label));
    const message = count
      ? `${count === 1 ? "1 card carries" : `${count} cards carry`} it; deleting the label takes it off ${count === 1 ? "that card" : "them"}. Undo brings it back.`
      : "No card carries it. Undo brings it back.";
    if (!(await confirmDialog({ title: `Delete the label ${title}?`, message, confirm: "Delete label" }))) return;
    if (!this.session.board?.labels.some((l) => l.id === id)) return;
    this.edits.deleteLabel(id);
    this.page.announce(`Deleted the label ${title}.`);
  }
}
