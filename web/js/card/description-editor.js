// The Description part of the card view: the description rendered from markdown (safely: see
// model/markdown.js and ui/rich-text.js), and, on "Edit description" or a click on it, a textbox
// named "Description" in its place.
//
// Nobody's text is silently overwritten or lost, as in the card editor (R12):
// - editing takes the card's edit lease (`editBegin`, refreshed while typing; everyone else sees
//   "NAME is editing" and cannot edit it meanwhile); Cancel or Escape gives it back (`editEnd`), a
//   save ends it;
// - the save names the `descriptionVersion` the edit began on: if someone saved another
//   description since, the room refuses it `conflict` and the textbox comes back with what was
//   typed and the reason.
import { el, on } from "../ui/dom.js";
import { renderTree } from "../ui/rich-text.js";
import { parseMarkdown } from "../model/markdown.js";
import { CARD_LIMITS, detailsOf } from "../model/card-details.js";

/** How often typing refreshes the edit lease (the room ends a lease quiet for 60 s). */
const LEASE_REFRESH_MS = 20000;

export class DescriptionEditor {
  /**
   * @param {object} deps
   *   session  {board, canEdit, members, editBegin(item), editEnd(item)}
   *   edits    BoardEdits (updateCard)
   *   notice(text)  shows a sentence in the card view ("" clears it)
   *   announce(text)
   */
  constructor({ session, edits, notice, announce }) {
    this.session = session;
    this.edits = edits;
    this.notice = notice;
    this.announce = announce;
    this.itemId = null;
    this.editing = null; // {version, start, leasedAt, refused}
    this.shownText = null;
    this.drafts = new Map(); // opId → {itemId, text}, until the room commits or refuses it
    this.heading = el("h3", { className: "card-view-heading", text: "Description", attrs: { id: "card-view-description" } });
    this.editButton = el("button", { className: "bar-button", text: "Edit description", props: { type: "button" } });
    this.holder = el("span", { className: "card-view-holder", props: { hidden: true } });
    this.rendered = el("div", "card-view-description markdown");
    this.textbox = el("textarea", {
      className: "card-view-textbox",
      attrs: { "aria-label": "Description", rows: "10", placeholder: "Markdown: # heading, - list, **bold**, *italic*, `code`, [link](https://…)" },
    });
    this.save = el("button", { className: "primary", text: "Save", attrs: { "aria-keyshortcuts": "Control+Enter" }, props: { type: "button" } });
    this.cancel = el("button", { text: "Cancel", props: { type: "button" } });
    this.form = el("div", { className: "card-view-editing", props: { hidden: true } }, this.textbox, el("div", "dialog-actions", this.save, this.cancel));
    this.element = el("section", { className: "card-view-section", attrs: { "aria-labelledby": "card-view-description" } },
      el("div", "card-view-section-header", this.heading, this.holder, this.editButton), this.rendered, this.form);
    on(this.editButton, "click", () => this.begin());
    on(this.rendered, "click", (event) => {
      if (!event.target.closest("a")) this.begin();
    });
    on(this.save, "click", () => this.#save());
    on(this.cancel, "click", () => this.end({ focus: true }));
    on(this.textbox, "input", () => this.#typed());
    on(this.textbox, "keydown", (event) => {
      if (event.key === "Escape") {
        // Escape leaves the textbox, not the card.
        event.preventDefault();
        event.stopPropagation();
        this.end({ focus: true });
      } else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        this.#save();
      }
    });
  }

  get isEditing() {
    return !!this.editing;
  }

  /** Shows the card `itemId` (the view opened on it, or it changed). */
  show(item) {
    if (item.id !== this.itemId) {
      if (this.editing) this.end();
      this.itemId = item.id;
      this.shownText = null;
    }
    const canEdit = this.session.canEdit;
    const holder = this.session.members.editorOf(item.id);
    this.editButton.hidden = !canEdit || !!this.editing;
    this.editButton.disabled = !!holder;
    this.holder.textContent = holder ? `${holder.name} is editing` : "";
    this.holder.hidden = !holder;
    const text = detailsOf(item).description;
    if (text !== this.shownText) {
      this.shownText = text;
      this.rendered.replaceChildren(text ? renderTree(parseMarkdown(text), { baseLevel: 4 }) : el("p", "card-view-empty", canEdit ? "No description yet. Edit it to add one." : "No description."));
    }
    this.rendered.hidden = !!this.editing;
    this.rendered.classList.toggle("editable", canEdit && !holder);
  }

  /** Switches to the textbox, taking the edit lease; `values` restores a refused save. */
  begin({ text, notice } = {}) {
    const item = this.session.board?.item(this.itemId);
    if (!item || !this.session.canEdit) return false;
    const holder = this.session.members.editorOf(item.id);
    if (holder && !this.editing) {
      this.notice(`${holder.name} is editing this card; wait until they save, then try again.`);
      return false;
    }
    const d = detailsOf(item);
    if (!this.editing) {
      this.editing = { version: d.descriptionVersion, start: d.description, leasedAt: 0, refused: false };
      this.#lease();
    }
    this.textbox.value = text ?? d.description;
    this.form.hidden = false;
    this.rendered.hidden = true;
    this.editButton.hidden = true;
    if (notice) this.notice(notice);
    this.textbox.focus();
    return true;
  }

  /** Leaves the textbox without saving, giving the lease back. */
  end({ focus = false } = {}) {
    const e = this.editing;
    if (!e) return;
    this.editing = null;
    if (!e.refused) this.session.editEnd(this.itemId);
    this.form.hidden = true;
    this.rendered.hidden = false;
    this.editButton.hidden = !this.session.canEdit;
    if (focus) this.editButton.focus();
  }

  #save() {
    const e = this.editing;
    if (!e) return;
    const text = this.textbox.value;
    if (text === e.start) return this.end({ focus: true });
    if (new TextEncoder().encode(text).length > CARD_LIMITS.descriptionBytes) {
      this.notice(`A description holds at most ${CARD_LIMITS.descriptionBytes / 1024} KiB; shorten it first.`);
      return;
    }
    const opId = this.edits.updateCard(this.itemId, { description: { text, version: e.version } });
    this.drafts.set(opId, { itemId: this.itemId, text });
    // The save ends the lease at the room.
    this.editing = null;
    this.form.hidden = true;
    this.rendered.hidden = false;
    this.editButton.hidden = false;
    this.notice("");
    this.announce("Saved the description.");
    this.editButton.focus();
  }

  #lease() {
    this.editing.leasedAt = Date.now();
    this.session.editBegin(this.itemId);
  }

  #typed() {
    const e = this.editing;
    if (e && !e.refused && Date.now() - e.leasedAt >= LEASE_REFRESH_MS) this.#lease();
  }

  /** After a reconnect the room has ended our lease: an open textbox takes it again. */
  rejoined() {
    if (this.editing && this.session.board?.item(this.itemId)) this.#lease();
  }

  /** The room's answer to our editBegin. */
  editAnswer(message) {
    const e = this.editing;
    if (!e || message.item !== this.itemId) return;
    if (message.type === "editGranted") {
      e.refused = false;
      return;
    }
    e.refused = true;
    if (this.textbox.value === e.start) {
      this.end();
      this.notice(message.message);
      return;
    }
    this.notice(`${message.message} Your text stays here until you cancel.`);
  }

  /** Our lease went quiet: others may take it now; the next keystroke asks for it again. */
  leaseEnded(ended) {
    if (!this.editing || ended.reason !== "expired") return;
    this.editing.leasedAt = 0;
    this.notice("You paused for a while, so others may edit this card now. Save still works unless someone changes the description first.");
  }

  /** A committed operation: ours leaves the drafts; someone else's new description shows while we type. */
  applied(committed, who) {
    if (committed.clientId === this.session.clientId) {
      this.drafts.delete(committed.opId);
      return;
    }
    if (this.editing && committed.op.kind === "updateCard" && committed.op.item === this.itemId && committed.op.description) {
      this.notice(`${who} changed the description while you were editing it. Saving now will be refused; copy your text, Cancel, and edit theirs.`);
    }
  }

  /** A refused save comes back in the textbox with the reason; returns whether it was one of ours. */
  rejected(opId, sentence) {
    const draft = this.drafts.get(opId);
    if (!draft) return false;
    this.drafts.delete(opId);
    if (draft.itemId !== this.itemId || !this.session.board?.item(draft.itemId)) return false;
    this.begin({ text: draft.text, notice: sentence });
    return true;
  }
}
