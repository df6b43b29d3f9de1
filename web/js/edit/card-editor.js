// Typing cards: the composer at the end of a section ("Add card", or N) and the editor in place of a
// card (double-click, Enter, or its menu). A title and an optional text; Enter saves (Shift+Enter
// starts a new line in the text), Escape cancels. The composer stays open for the next card.
//
// Nobody's text is silently overwritten or lost (R12):
// - opening the editor takes the card's edit lease (`editBegin`, refreshed while typing); everyone
//   else sees "NAME is editing" on the card and cannot edit it meanwhile; Cancel gives it back
//   (`editEnd`), a save ends it;
// - the save names the card's version from the lease: if the card changed since, the room refuses
//   it `conflict` and the editor reopens with what was typed and the reason;
// - a change of the card by someone else while editing (possible once a lease lapsed) shows in the
//   editor, naming them, and Save then says it replaces their version; a card deleted meanwhile
//   turns the editor into a composer in its section, keeping the text.
import { el, on } from "../ui/dom.js";
import { INPUT_LIMITS, editedRepresentations, itemLabel, readContent, sameRepresentations } from "../model/card-content.js";
import { acceptsTypes } from "../model/model.js";
import { named } from "../model/words.js";

/** How often typing refreshes the edit lease (the room ends a lease quiet for 60 s). */
const LEASE_REFRESH_MS = 20000;

/** The types of a new card, to know where one may be added. */
const NEW_CARD_TYPES = ["corkboard.card", "public.plain-text"];

export class CardEditor {
  /**
   * @param {object} deps
   *   edits    BoardEdits
   *   session  {board, clientId, canEdit, members, editBegin(item), editEnd(item)}
   *   view     BoardView (card and section elements)
   *   hooks    {render(), renderNow(), announce(text), toast(text, kind)}
   */
  constructor({ edits, session, view, hooks }) {
    Object.assign(this, { edits, session, view, hooks });
    this.composer = null; // {form, fields, sectionId}
    this.editor = null; // {form, fields, itemId, sectionId, base, mode: "edit" | "add", foreign}
    this.drafts = new Map(); // opId → what was typed, until the room commits it
  }

  /** Whether a card may be added to a collection (it takes cards or text). */
  static takesCards(collection) {
    return acceptsTypes(collection.accepts, NEW_CARD_TYPES);
  }

  isEditing(itemId) {
    return this.editor?.mode === "edit" && this.editor.itemId === itemId;
  }

  /** The card open in the editor, or null. */
  editingId() {
    return this.editor?.mode === "edit" ? this.editor.itemId : null;
  }

  // MARK: From the view

  /** Keeps the "Add card" button, the composer and an orphaned editor in a section's footer. */
  decorateSection(entry, section, collection) {
    const canAdd = this.session.canEdit && CardEditor.takesCards(collection);
    let button = entry.footer.querySelector(".add-card");
    if (canAdd && !button) {
      button = el("button", { className: "add-card", text: "+ Add card", attrs: { "aria-label": "Add card", "aria-keyshortcuts": "N" }, props: { type: "button" } });
      on(button, "click", () => this.openComposer(section.id));
      entry.footer.prepend(button);
    } else if (!canAdd && button) {
      button.remove();
    }
    if (this.composer?.sectionId === section.id && this.composer.form.parentNode !== entry.footer) entry.footer.append(this.composer.form);
    if (button) button.hidden = this.composer?.sectionId === section.id;
    if (this.editor?.mode === "add" && this.editor.sectionId === section.id && this.editor.form.parentNode !== entry.footer) {
      entry.footer.append(this.editor.form);
    }
  }

  /** After each render: follows the card being edited, and notices when its section is gone. */
  afterRender(board) {
    if (this.composer && !board.sections.has(this.composer.sectionId)) {
      this.hooks.toast("The section you were adding a card to was deleted meanwhile.", "error");
      this.#closeComposer(false);
    }
    const e = this.editor;
    if (e?.mode === "edit") {
      const node = this.view.cardElement(e.itemId);
      if (node && e.form.parentNode !== node) node.append(e.form);
    }
  }

  /** A committed operation: someone else changing or deleting the card being edited shows at once. */
  applied(committed) {
    const mine = committed.clientId === this.session.clientId;
    if (mine) this.drafts.delete(committed.opId);
    const e = this.editor;
    if (!e || mine || e.mode !== "edit") return;
    const who = this.session.members.nameOfClient(committed.clientId) || "Someone";
    const gone = committed.effect.changes.some((c) => c.item === e.itemId && !c.to);
    if (gone) {
      // The card went: keep the text as a new card where it stood.
      e.mode = "add";
      e.form.setAttribute("aria-label", "New card");
      this.#notice(e, `${who} deleted this card while you were editing it. Save adds your text as a new card; Cancel drops it.`);
      this.hooks.render();
      return;
    }
    if (committed.op.kind === "updateItem" && committed.op.item === e.itemId) {
      const now = readContent(this.session.board.item(e.itemId));
      e.foreign = who;
      // Save now deliberately replaces their version (the notice says so).
      e.version = this.session.board.item(e.itemId)?.version || 0;
      this.#notice(e, `${who} changed this card while you were editing it; it now reads ${named(now.title || now.text || "(empty)")}. Save replaces their version with yours; Cancel keeps theirs.`);
      e.fields.save.textContent = "Save mine anyway";
    }
  }

  /** A refused operation: when it was typed here, the text comes back with the reason. */
  rejected(opId, sentence) {
    const draft = this.drafts.get(opId);
    if (!draft) return false;
    this.drafts.delete(opId);
    const board = this.session.board;
    if (draft.mode === "edit" && board.item(draft.itemId)) {
      this.edit(draft.itemId, { values: draft, notice: sentence });
    } else if (board.sections.has(draft.sectionId)) {
      this.openComposer(draft.sectionId, { values: draft, notice: sentence });
    } else {
      return false;
    }
    return true;
  }

  // MARK: Composer

  /** Opens the composer at the end of a section (it moves there with what it holds). */
  openComposer(sectionId, { values, notice } = {}) {
    const board = this.session.board;
    const entry = board?.sections.get(sectionId);
    if (!this.session.canEdit || !entry || !CardEditor.takesCards(entry.collection)) return false;
    if (!this.composer) {
      const { form, fields } = this.#form("add", "card");
      this.composer = { form, fields, sectionId };
    }
    const c = this.composer;
    c.sectionId = sectionId;
    c.form.setAttribute("aria-label", `New card in ${entry.section.title || entry.collection.title || "this section"}`);
    if (values) {
      c.fields.title.value = values.title || "";
      c.fields.text.value = values.text || "";
    }
    this.#notice(c, notice || "");
    this.hooks.renderNow();
    c.fields.title.focus();
    c.form.scrollIntoView({ block: "nearest", inline: "nearest" });
    return true;
  }

  #closeComposer(focusButton = true) {
    const c = this.composer;
    if (!c) return;
    this.composer = null;
    c.form.remove();
    this.hooks.renderNow();
    if (focusButton) this.view.sectionEntry(c.sectionId)?.footer.querySelector(".add-card")?.focus();
  }

  #saveComposer() {
    const c = this.composer;
    const title = c.fields.title.value.trim();
    const text = c.fields.text.value.trim();
    if (!title) {
      this.#notice(c, "Type a title for the card first.");
      c.fields.title.focus();
      return;
    }
    const added = this.edits.addCard(c.sectionId, { title, text });
    if (!added) return;
    this.drafts.set(added.opId, { mode: "add", sectionId: c.sectionId, title, text });
    const entry = this.session.board.sections.get(c.sectionId);
    this.hooks.announce(`Added ${named(title)} to ${entry?.section.title || entry?.collection.title || "the section"}.`);
    c.fields.title.value = "";
    c.fields.text.value = "";
    this.#notice(c, "");
    this.hooks.renderNow();
    c.fields.title.focus();
  }

  // MARK: Editor

  /**
   * Opens the editor in place of a card. `values` and `notice` restore a refused save. Returns
   * false when the card cannot be edited here (a placeholder, a group of cards, a viewer).
   */
  edit(itemId, { values, notice } = {}) {
    const board = this.session.board;
    const item = board?.item(itemId);
    const content = readContent(item);
    const node = this.view.cards.get(itemId);
    if (!this.session.canEdit || !content.editable || !node) return false;
    // R12: one editor at a time.
    const holder = this.session.members.editorOf(itemId);
    if (holder) {
      this.hooks.toast(`${holder.name} is editing ${named(itemLabel(item))}; wait until they save, then try again.`, "error");
      return false;
    }
    if (this.editor) {
      if (this.editor.itemId === itemId && this.editor.mode === "edit") {
        this.editor.fields.title.focus();
        return true;
      }
      if (this.#changed(this.editor)) {
        this.hooks.toast(`Save or cancel your changes to ${named(this.editor.label)} first.`, "error");
        this.editor.fields[this.editor.kind === "card" ? "title" : "text"].focus();
        return false;
      }
      this.#closeEditor(false);
    }
    const { form, fields } = this.#form("edit", content.kind);
    fields.title.value = values?.title ?? content.title;
    fields.text.value = values?.text ?? content.text;
    const e = {
      form,
      fields,
      itemId,
      kind: content.kind,
      label: itemLabel(item),
      sectionId: board.position(itemId).section,
      // The version the edit is made on (R12): the lease's, the board's until it answers.
      version: item.version || 0,
      start: { title: fields.title.value, text: fields.text.value },
      mode: "edit",
      foreign: null,
    };
    this.editor = e;
    this.#notice(e, notice || "");
    this.#leaseBegan(e);
    this.hooks.renderNow();
    node.append(form);
    (content.kind === "card" ? fields.title : fields.text).focus();
    return true;
  }

  #changed(e) {
    return e.fields.title.value !== e.start?.title || e.fields.text.value !== e.start?.text;
  }

  #closeEditor(focusCard = true, { saved = false } = {}) {
    const e = this.editor;
    if (!e) return;
    this.editor = null;
    e.form.remove();
    // A save ends the lease at the room when it commits; anything else gives it back now.
    if (!saved) this.#giveBack(e);
    this.hooks.renderNow();
    if (focusCard) this.view.cardElement(e.itemId)?.focus();
  }

  #saveEditor() {
    const e = this.editor;
    const board = this.session.board;
    const title = e.fields.title.value.trim();
    const text = e.fields.text.value.trim();
    if (e.kind === "card" && !title) {
      this.#notice(e, "A card needs a title.");
      e.fields.title.focus();
      return;
    }
    if (e.mode === "add") {
      // Its card was deleted meanwhile: the text becomes a new card in the same section.
      if (!board.sections.has(e.sectionId)) return this.#notice(e, "Its section was deleted too; copy your text elsewhere.");
      const added = this.edits.addCard(e.sectionId, { title: title || text.slice(0, INPUT_LIMITS.cardTitle), text: title ? text : "" });
      if (added) this.drafts.set(added.opId, { mode: "add", sectionId: e.sectionId, title, text });
      this.#closeEditor(false);
      this.hooks.announce(`Added ${named(title || text)} as a new card.`);
      return;
    }
    const item = board.item(e.itemId);
    const representations = editedRepresentations(item, { title, text });
    if (sameRepresentations(representations, item.representations)) {
      this.#closeEditor();
      return;
    }
    const opId = this.edits.update(e.itemId, representations, e.version);
    this.drafts.set(opId, { mode: "edit", itemId: e.itemId, sectionId: e.sectionId, title, text });
    this.#closeEditor(true, { saved: true });
    this.hooks.announce(`Saved ${named(itemLabel(board.item(e.itemId)))}.`);
  }

  // MARK: Edit leases (R12)

  #leaseBegan(e) {
    e.leasedAt = Date.now();
    this.session.editBegin(e.itemId);
  }

  /** After a reconnect the room has ended our lease (disconnected): an open editor takes it again. */
  rejoined() {
    const e = this.editor;
    if (e?.mode === "edit" && this.session.board?.item(e.itemId)) this.#leaseBegan(e);
  }

  /** Typing keeps the lease: refreshed at most every 20 s. */
  #typed() {
    const e = this.editor;
    if (e?.mode !== "edit" || e.refused || Date.now() - e.leasedAt < LEASE_REFRESH_MS) return;
    this.#leaseBegan(e);
  }

  #giveBack(e) {
    if (e.mode === "edit" && !e.refused) this.session.editEnd(e.itemId);
  }

  /** The room's answer to our editBegin: the version to save on, or who edits it instead. */
  editAnswer(message) {
    const e = this.editor;
    if (!e || e.mode !== "edit" || e.itemId !== message.item) return;
    if (message.type === "editGranted") {
      e.version = message.version;
      e.refused = false;
      return;
    }
    e.refused = true;
    if (!this.#changed(e)) {
      // Nothing typed yet: nothing to keep.
      this.#closeEditor();
      this.hooks.toast(message.message, "error");
      return;
    }
    this.#notice(e, `${message.message} Your text stays here until you cancel.`);
  }

  /** Our own lease ended without a save or cancel: it went quiet, or the card left the board. */
  leaseEnded(ended) {
    const e = this.editor;
    if (!e || e.mode !== "edit" || e.itemId !== ended.item || ended.member !== this.session.members.me?.id) return;
    if (ended.reason === "expired") {
      this.#notice(e, "You paused for a while, so others may edit this card now. Save still works unless someone changes it first.");
      e.leasedAt = 0;
    }
  }

  // MARK: The form

  #notice(target, text) {
    target.fields.notice.textContent = text;
    target.fields.notice.hidden = !text;
  }

  /** The form of the composer ("add") or the editor ("edit") for content of `kind`. */
  #form(mode, kind) {
    const withTitle = kind === "card";
    const title = el("input", {
      className: "card-editor-title",
      attrs: { "aria-label": "Title", placeholder: "Title", autocomplete: "off", enterkeyhint: "done" },
      props: { maxLength: INPUT_LIMITS.cardTitle, hidden: !withTitle },
    });
    const text = el("textarea", {
      className: "card-editor-text",
      attrs: { "aria-label": withTitle ? "Text" : "Caption", placeholder: withTitle ? "Text (optional)" : "Text", rows: "2" },
      props: { maxLength: INPUT_LIMITS.cardText },
    });
    const notice = el("p", { className: "card-editor-notice", attrs: { role: "status" }, props: { hidden: true } });
    const save = el("button", { className: "primary", text: "Save", props: { type: "submit" } });
    const cancel = el("button", { text: "Cancel", props: { type: "button" } });
    const form = el("form", { className: "card-editor", attrs: { "aria-label": mode === "add" ? "New card" : "Edit card" } },
      title, text, notice, el("div", "card-editor-actions", save, cancel));
    const fields = { title, text, notice, save };
    const owner = () => (this.composer?.form === form ? "composer" : "editor");
    const submit = () => (owner() === "composer" ? this.#saveComposer() : this.#saveEditor());
    const close = () => (owner() === "composer" ? this.#closeComposer() : this.#closeEditor());
    on(form, "submit", (event) => {
      event.preventDefault();
      submit();
    });
    on(cancel, "click", close);
    on(form, "keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        close();
      } else if (event.key === "Enter" && !event.shiftKey && !event.isComposing && event.target !== cancel) {
        event.preventDefault();
        event.stopPropagation();
        submit();
      }
    });
    on(form, "input", () => this.#typed());
    // Presses inside the form are typing, not drags.
    on(form, "pointerdown", (event) => event.stopPropagation());
    on(form, "dblclick", (event) => event.stopPropagation());
    return { form, fields };
  }
}
