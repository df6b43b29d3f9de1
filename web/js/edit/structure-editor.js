// The board's structure, for editors: add a collection (title, grid or list, what it takes), and
// from a collection's ⋯ menu rename it, add a section, choose what it takes, show it as a grid or
// a list, move it left or right or to a chosen place ("Move to…", when `moveTo(id)` is set:
// move-to.js), delete it; from a section's ⋯ menu rename, move or delete it.
// Titles are renamed in place (double-click a title too): Enter saves, Escape cancels. A delete
// that would remove cards asks first and is one operation. Collections also move by dragging
// their header (collection-drag.js). The board itself is renamed from the top bar
// (board-actions.js).
import { el, on } from "../ui/dom.js";
import { openMenu } from "../ui/menu.js";
import { confirmDialog, showDialog } from "../ui/dialog.js";
import { INPUT_LIMITS } from "../model/card-content.js";
import { OFFERED_KINDS, named } from "../model/words.js";

/** How many cards a list of sections holds, cards inside groups included. */
export function countCards(sections) {
  const count = (items) => items.reduce((n, item) => n + 1 + count(item.children || []), 0);
  return sections.reduce((n, s) => n + count(s.items), 0);
}

const cards = (n) => `${n} card${n === 1 ? "" : "s"}`;

/** The "Takes" choice: anything, or only some kinds; returns {node, read() → accepts}. */
export function takesFieldset(accepts = [], name = "takes") {
  const anything = el("input", { props: { type: "radio", name, value: "anything", checked: accepts.length === 0 } });
  const only = el("input", { props: { type: "radio", name, value: "only", checked: accepts.length > 0 } });
  const boxes = OFFERED_KINDS.map((kind) => {
    const box = el("input", { props: { type: "checkbox", value: kind.type, checked: accepts.includes(kind.type) } });
    on(box, "change", () => (only.checked = true));
    return { kind, box, label: el("label", "kind", box, ` ${kind.words}`) };
  });
  const node = el("fieldset", "takes",
    el("legend", "", "Takes"),
    el("label", "", anything, " Anything"),
    el("label", "", only, " Only:"),
    el("div", "kinds", ...boxes.map((b) => b.label)));
  // Kinds this page does not offer stay as they were.
  const others = accepts.filter((type) => !OFFERED_KINDS.some((k) => k.type === type));
  const read = () => {
    if (anything.checked) return [];
    const chosen = boxes.filter((b) => b.box.checked).map((b) => b.kind.type);
    return chosen.length || others.length ? [...chosen, ...others] : [];
  };
  return { node, read };
}

/**
 * Gives a collection's or section's header its actions button ("⋯", named `label`): a click
 * opens the menu, a double click on the title renames.
 */
function addMenuButton(entry, kind, label, { open, rename }) {
  entry.menuButton = el("button", {
    className: `${kind}-menu-button icon-button`,
    text: "⋯",
    attrs: { "aria-label": label, "aria-haspopup": "menu", "aria-expanded": "false" },
    props: { type: "button", title: label },
  });
  on(entry.menuButton, "click", open);
  on(entry.title, "dblclick", rename);
  entry.header.append(entry.menuButton);
}

export class StructureEditor {
  /**
   * @param {object} deps
   *   edits    BoardEdits
   *   session  {board, canEdit}
   *   view     BoardView
   *   hooks    {renderNow(), announce(text), toast(text, kind)}
   */
  constructor({ edits, session, view, hooks }) {
    Object.assign(this, { edits, session, view, hooks });
    /** Opens "Move to…" for a collection (set by the page once it is installed). */
    this.moveTo = null;
  }

  get board() {
    return this.session.board;
  }

  // MARK: Decorators (called by the view on every render)

  decorateCollection(entry, collection) {
    if (!this.session.canEdit) return;
    if (!entry.menuButton) {
      addMenuButton(entry, "collection", "Collection actions", {
        open: () => this.#collectionMenu(entry.node.dataset.collection, entry.menuButton),
        rename: () => this.renameCollection(entry.node.dataset.collection),
      });
    }
    entry.menuButton.setAttribute("aria-describedby", entry.title.id);
  }

  decorateSection(entry) {
    if (!this.session.canEdit || entry.menuButton) return;
    addMenuButton(entry, "section", "Section actions", {
      open: () => this.#sectionMenu(entry.node.dataset.section, entry.menuButton),
      rename: () => this.renameSection(entry.node.dataset.section),
    });
  }

  /** The board's last column: "Add collection" and its form. */
  decorateEnd(node) {
    node.hidden = !this.session.canEdit;
    if (!this.session.canEdit || this.addCollectionButton) return;
    this.addCollectionButton = el("button", { className: "add-collection", text: "+ Add collection", attrs: { "aria-label": "Add collection" }, props: { type: "button" } });
    on(this.addCollectionButton, "click", () => this.openAddCollection());
    node.append(this.addCollectionButton);
  }

  // MARK: Collections

  #collectionMenu(id, anchor) {
    const collections = this.board.collections;
    const at = collections.findIndex((c) => c.id === id);
    if (at < 0) return;
    openMenu(anchor, [
      { label: "Rename", action: () => this.renameCollection(id) },
      { label: "Add section", action: () => this.openAddSection(id) },
      { label: "Choose what it takes", action: () => this.chooseAccepts(id) },
      collections[at].layout === "list"
        ? { label: "Show as a grid", action: () => this.setLayout(id, "grid") }
        : { label: "Show as a list", action: () => this.setLayout(id, "list") },
      { label: "Move left", disabled: at === 0, action: () => this.moveCollection(id, -1) },
      { label: "Move right", disabled: at === collections.length - 1, action: () => this.moveCollection(id, 1) },
      this.moveTo && { label: "Move to…", action: () => this.moveTo(id) },
      { label: "Delete collection", danger: true, action: () => this.deleteCollection(id) },
    ], { label: `Actions for ${named(collections[at].title || "Untitled")}` });
  }

  renameCollection(id) {
    const entry = this.view.collectionEntry(id);
    const collection = this.board.collectionById.get(id);
    if (!entry || !collection) return;
    this.#renameHeader(entry, collection.title, (title) => this.edits.renameCollection(id, title));
  }

  /** Shows a collection's cards side by side ("grid") or one under another ("list"). */
  setLayout(id, layout) {
    const collection = this.board.collectionById.get(id);
    if (!collection || collection.layout === layout) return;
    this.edits.setLayout(id, layout);
    this.hooks.renderNow();
    this.view.collectionEntry(id)?.menuButton?.focus();
    this.hooks.announce(`${named(collection.title || "Untitled")} shows its cards ${layout === "list" ? "as a list" : "side by side"}.`);
  }

  moveCollection(id, delta) {
    const at = this.board.collections.findIndex((c) => c.id === id);
    const to = at + delta;
    if (at < 0 || to < 0 || to >= this.board.collections.length) return;
    this.edits.moveCollection(id, to);
    this.hooks.renderNow();
    this.view.collectionEntry(id)?.menuButton?.focus();
    this.hooks.announce(`Moved ${named(this.board.collectionById.get(id).title)} to position ${to + 1} of ${this.board.collections.length}.`);
  }

  async deleteCollection(id) {
    const collection = this.board.collectionById.get(id);
    if (!collection) return;
    const n = countCards(collection.sections);
    const title = named(collection.title || "Untitled");
    if (n && !(await confirmDialog({ title: `Delete ${title}?`, message: `Its ${cards(n)} will be deleted with it.`, confirm: "Delete collection" }))) return;
    if (!this.board.collectionById.has(id)) return;
    this.edits.deleteCollection(id);
    this.hooks.announce(`Deleted ${title}${n ? ` and its ${cards(n)}` : ""}.`);
  }

  async chooseAccepts(id) {
    const collection = this.board.collectionById.get(id);
    if (!collection) return;
    const takes = takesFieldset(collection.accepts, "accepts");
    const accepts = await showDialog({
      title: `What ${named(collection.title || "Untitled")} takes`,
      body: [takes.node, el("p", "hint", "Cards already in it stay where they are.")],
      confirm: "Save",
      collect: () => takes.read(),
    });
    if (!accepts || !this.board.collectionById.has(id)) return;
    const now = this.board.collectionById.get(id).accepts;
    if (accepts.length === now.length && accepts.every((t, n) => t === now[n])) return;
    this.edits.setAccepts(id, accepts);
  }

  openAddCollection() {
    const node = this.view.end;
    if (node.querySelector(".add-collection-form")) return node.querySelector("input").focus();
    const title = el("input", { attrs: { "aria-label": "Title of the new collection", placeholder: "Title", autocomplete: "off" }, props: { maxLength: INPUT_LIMITS.title, required: true } });
    const grid = el("input", { props: { type: "radio", name: "layout", value: "grid", checked: true } });
    const list = el("input", { props: { type: "radio", name: "layout", value: "list" } });
    const layout = el("fieldset", "layout", el("legend", "", "Shows cards"), el("label", "", grid, " Side by side"), el("label", "", list, " As a list"));
    const takes = takesFieldset([], "new-takes");
    const form = this.#smallForm("add-collection-form", "New collection", [title, layout, takes.node], () => {
      const name = title.value.trim();
      if (!name) return title.focus();
      const { section } = this.edits.createCollection({ title: name, layout: list.checked ? "list" : "grid", accepts: takes.read() });
      close();
      this.hooks.renderNow();
      this.hooks.announce(`Added the collection ${named(name)}.`);
      const added = this.view.sectionEntry(section)?.footer.querySelector(".add-card");
      (added || this.addCollectionButton).focus();
      added?.scrollIntoView({ block: "nearest", inline: "nearest" });
    }, () => {
      close();
      this.addCollectionButton.focus();
    });
    const close = () => {
      form.remove();
      this.addCollectionButton.hidden = false;
    };
    this.addCollectionButton.hidden = true;
    node.append(form);
    title.focus();
    form.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  // MARK: Sections

  #sectionMenu(id, anchor) {
    const entry = this.board.sections.get(id);
    if (!entry) return;
    const at = entry.collection.sections.indexOf(entry.section);
    openMenu(anchor, [
      { label: "Rename", action: () => this.renameSection(id) },
      { label: "Move up", disabled: at === 0, action: () => this.moveSection(id, -1) },
      { label: "Move down", disabled: at === entry.collection.sections.length - 1, action: () => this.moveSection(id, 1) },
      { label: "Delete section", danger: true, action: () => this.deleteSection(id) },
    ], { label: `Actions for ${named(entry.section.title || "Untitled section")}` });
  }

  openAddSection(collectionId) {
    const entry = this.view.collectionEntry(collectionId);
    if (!entry) return;
    const existing = entry.node.querySelector(".add-section-form");
    if (existing) return existing.querySelector("input").focus();
    const title = el("input", { attrs: { "aria-label": "Title of the new section", placeholder: "Section title", autocomplete: "off" }, props: { maxLength: INPUT_LIMITS.title } });
    const form = this.#smallForm("add-section-form", "New section", [title], () => {
      const name = title.value.trim();
      if (!name) return title.focus();
      const id = this.edits.createSection(collectionId, name);
      form.remove();
      this.hooks.renderNow();
      this.hooks.announce(`Added the section ${named(name)}.`);
      (this.view.sectionEntry(id)?.footer.querySelector(".add-card") || entry.menuButton)?.focus();
    }, () => {
      form.remove();
      entry.menuButton?.focus();
    });
    entry.node.append(form);
    title.focus();
    form.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  renameSection(id) {
    const entry = this.view.sectionEntry(id);
    const section = this.board.sections.get(id)?.section;
    if (!entry || !section || entry.header.hidden) return;
    this.#renameHeader(entry, section.title, (title) => this.edits.renameSection(id, title));
  }

  /** Renames a collection's or section's header in place; focus goes back to its actions button. */
  #renameHeader(entry, current, rename) {
    this.#renameInPlace(entry.title, current, (title) => {
      rename(title);
      this.hooks.announce(`Renamed to ${named(title)}.`);
    }, () => entry.menuButton?.focus());
  }

  moveSection(id, delta) {
    const entry = this.board.sections.get(id);
    if (!entry) return;
    const at = entry.collection.sections.indexOf(entry.section);
    const to = at + delta;
    if (to < 0 || to >= entry.collection.sections.length) return;
    this.edits.moveSection(id, to);
    this.hooks.renderNow();
    this.view.sectionEntry(id)?.menuButton?.focus();
    this.hooks.announce(`Moved ${named(entry.section.title || "the section")} to position ${to + 1} of ${entry.collection.sections.length}.`);
  }

  async deleteSection(id) {
    const entry = this.board.sections.get(id);
    if (!entry) return;
    const n = countCards([entry.section]);
    const title = named(entry.section.title || "Untitled section");
    if (n && !(await confirmDialog({ title: `Delete ${title}?`, message: `Its ${cards(n)} will be deleted with it.`, confirm: "Delete section" }))) return;
    if (!this.board.sections.has(id)) return;
    this.edits.deleteSection(id);
    this.hooks.announce(`Deleted ${title}${n ? ` and its ${cards(n)}` : ""}.`);
  }

  // MARK: Forms

  /** A title edited in place of its heading: Enter or leaving saves, Escape cancels. */
  #renameInPlace(heading, current, save, done) {
    if (heading.nextElementSibling?.classList.contains("title-input")) return heading.nextElementSibling.focus();
    const input = el("input", { className: "title-input", attrs: { "aria-label": "New title", autocomplete: "off" }, props: { value: current || "", maxLength: INPUT_LIMITS.title } });
    let finished = false;
    const finish = (keep) => {
      if (finished) return;
      finished = true;
      const title = input.value.trim();
      input.remove();
      heading.hidden = false;
      if (keep && title && title !== current) save(title);
      done?.();
    };
    on(input, "keydown", (event) => {
      if (event.key === "Enter") finish(true);
      else if (event.key === "Escape") finish(false);
      else return;
      event.preventDefault();
      event.stopPropagation();
    });
    on(input, "blur", () => finish(true));
    on(input, "pointerdown", (event) => event.stopPropagation());
    heading.hidden = true;
    heading.after(input);
    input.focus();
    input.select();
  }

  /** A small inline form with Save and Cancel; Escape cancels. */
  #smallForm(className, label, fields, save, cancel) {
    const saveButton = el("button", { className: "primary", text: "Save", props: { type: "submit" } });
    const cancelButton = el("button", { text: "Cancel", props: { type: "button" } });
    const form = el("form", { className: `small-form ${className}`, attrs: { "aria-label": label } }, ...fields, el("div", "small-form-actions", saveButton, cancelButton));
    on(form, "submit", (event) => {
      event.preventDefault();
      save();
    });
    on(cancelButton, "click", cancel);
    on(form, "keydown", (event) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      event.stopPropagation();
      cancel();
    });
    on(form, "pointerdown", (event) => event.stopPropagation());
    return form;
  }
}
