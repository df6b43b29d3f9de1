// The card's detail view (issue 41): a modal dialog named after the card, opened by a click on a
// card's title, Enter on a focused card or its menu's "Open card", and by `&card=ID` in the
// address (which it keeps while open, so a reload or a shared link opens it again). It shows:
// - the Description (description-editor.js: rendered markdown, edited under the edit lease);
// - the "Due date" and an optional "Start date", datetime-local inputs in the browser's time zone
//   (the wire carries UTC milliseconds);
// - "Done";
// - "Assign": the board's people (the members here, the others the room knows: who joined before or
//   did something, and everyone assigned on any card of the board), each a checkbox;
// - "Labels": the board's labels, each a checkbox (label-picker.js);
// - "Files": what is attached, "Attach file", the cover (attachments.js);
// - "Checklists": named checklists of items to check, reordered by drag or keyboard (checklists.js);
// - "Comments": the card's thread and a textbox to add to it (comment-thread.js);
// - "Activity": what people did to the card, newest first, live while open (activity-list.js).
// Every change is an `updateCard` (a checklist's a `checklist`) through BoardEdits, applied at once and sequenced by the room;
// what peers change shows live, and a card deleted meanwhile closes the view with a notice.
// Escape or "Close" closes it. On a phone (phone.css) it is a full-screen sheet. Viewers see it all
// and change nothing.
import { el, on } from "../ui/dom.js";
import { fromLocalInput, toLocalInput } from "../ui/local-time.js";
import { CARD_LIMITS, boardPeople, detailsOf } from "../model/card-details.js";
import { itemLabel } from "../model/card-content.js";
import { named } from "../model/words.js";
import { DescriptionEditor } from "./description-editor.js";
import { LabelPicker } from "./label-picker.js";
import { CommentThread } from "./comment-thread.js";
import { AttachmentList } from "./attachments.js";
import { ChecklistEditor } from "./checklists.js";
import { ActivityList } from "../board/activity-list.js";

/** How long after a click on a title a double-click may still come (that edits in place instead). */
const DOUBLE_CLICK_MS = 250;

export class CardView {
  /**
   * @param {object} deps
   *   session  BoardSession (board, canEdit, clientId, members, editBegin, editEnd)
   *   edits    BoardEdits (updateCard)
   *   view     BoardView (cardElement, to give focus back)
   *   hooks    {toast(text, kind), announce(text), cardInAddress(id | null), busy()}
   *   upload   {board, key, capabilities()} for "Attach file"
   */
  constructor({ session, edits, view, hooks, upload }) {
    this.session = session;
    this.edits = edits;
    this.view = view;
    this.hooks = hooks;
    this.itemId = null;
    this.returnFocus = null;
    this.peopleKey = "";
    this.title = el("h2", { className: "card-view-title", attrs: { id: "card-view-title", tabindex: "-1" } });
    this.closeButton = el("button", { className: "card-view-close", text: "Close", props: { type: "button" } });
    this.status = el("p", { className: "card-view-notice", attrs: { role: "status" }, props: { hidden: true } });
    this.description = new DescriptionEditor({ session, edits, notice: (text) => this.notice(text), announce: hooks.announce });
    this.due = el("input", { attrs: { type: "datetime-local", id: "card-view-due" } });
    this.start = el("input", { attrs: { type: "datetime-local", id: "card-view-start" } });
    this.clearDates = el("button", { className: "bar-button", text: "Clear dates", props: { type: "button" } });
    this.done = el("input", { attrs: { type: "checkbox", id: "card-view-done" } });
    this.people = el("div", "card-view-people");
    const field = (label, input) => el("div", "card-view-field", el("label", { text: label, attrs: { for: input.id } }), input);
    const dates = el("section", { className: "card-view-section", attrs: { "aria-labelledby": "card-view-dates" } },
      el("h3", { className: "card-view-heading", text: "Dates", attrs: { id: "card-view-dates" } }),
      el("div", "card-view-dates", field("Due date", this.due), field("Start date", this.start), this.clearDates),
      el("label", "card-view-done", this.done, "Done"));
    this.assign = el("fieldset", "card-view-assign", el("legend", { className: "card-view-heading", text: "Assign" }), this.people);
    this.labels = new LabelPicker({ change: (parts, sentence) => this.#submit(parts, sentence) });
    this.comments = new CommentThread({ session, edits, announce: hooks.announce });
    this.files = new AttachmentList({ upload, change: (parts, sentence) => this.#submit(parts, sentence), notice: (text) => this.notice(text) });
    this.checklists = new ChecklistEditor({ session, edits, notice: (text) => this.notice(text), announce: hooks.announce, share: hooks.checklistDrag });
    this.activity = null; // the open card's ActivityList
    this.activityBody = el("div", "card-view-activity-body");
    const activity = el("section", { className: "card-view-section card-view-activity", attrs: { "aria-labelledby": "card-view-activity" } },
      el("h3", { className: "card-view-heading", text: "Activity", attrs: { id: "card-view-activity" } }), this.activityBody);
    this.dialog = el("dialog", { className: "dialog card-view", attrs: { "aria-labelledby": "card-view-title" } },
      el("div", "card-view-header", this.title, this.closeButton),
      this.status,
      el("div", "card-view-body", this.description.element, el("div", "card-view-side", this.labels.element, dates, this.assign), this.checklists.element, this.files.element, this.comments.element, activity));
    on(this.closeButton, "click", () => this.close());
    // Escape: the dialog's cancel, made ours (focus goes back to the card, the address forgets it).
    on(this.dialog, "cancel", (event) => {
      event.preventDefault();
      this.close();
    });
    on(this.due, "change", () => this.#datesChanged());
    on(this.start, "change", () => this.#datesChanged());
    on(this.clearDates, "click", () => {
      this.due.value = "";
      this.start.value = "";
      this.#datesChanged();
    });
    on(this.done, "change", () => this.#submit({ done: this.done.checked }, this.done.checked ? "Marked done." : "Marked not done."));
    on(this.people, "change", (event) => this.#assignChanged(event.target));
  }

  get isOpen() {
    return this.itemId !== null;
  }

  // MARK: Opening from the board

  /** Clicks on a card's title and Enter on a focused card open it (for viewers too). */
  install(root) {
    let pending = 0;
    on(root, "click", (event) => {
      const title = event.target.closest(".card-title");
      const card = title?.closest(".card");
      if (!card || card.classList.contains("editing") || event.shiftKey || event.ctrlKey || event.metaKey || event.altKey || this.hooks.busy()) return;
      clearTimeout(pending);
      if (event.detail > 1) return;
      pending = setTimeout(() => this.open(card.dataset.item), DOUBLE_CLICK_MS);
    });
    on(root, "dblclick", () => clearTimeout(pending));
    on(root, "keydown", (event) => {
      const card = event.target.closest?.(".card");
      if (!card || event.target !== card || card.classList.contains("child-card") || event.defaultPrevented) return;
      if (event.key !== "Enter" || event.shiftKey || event.ctrlKey || event.metaKey || event.altKey || this.hooks.busy()) return;
      if (this.open(card.dataset.item)) event.preventDefault();
    });
  }

  /** Opens the view on a card; false when there is no such card (or only a placeholder). */
  open(itemId, { fromAddress = false } = {}) {
    const item = this.session.board?.item(itemId);
    if (!item || item.placeholder) {
      if (fromAddress) {
        this.hooks.toast("The card in this link is no longer on the board.", "error");
        this.hooks.cardInAddress(null);
      }
      return false;
    }
    if (this.itemId !== itemId) {
      this.close({ restoreFocus: false });
      this.checklists.reset();
    }
    this.itemId = itemId;
    this.returnFocus = this.view.cardElement(itemId) || document.activeElement;
    this.notice("");
    this.peopleKey = "";
    if (!this.dialog.isConnected) document.body.append(this.dialog);
    this.#refresh(item);
    if (!this.activity) {
      this.activity = new ActivityList({ session: this.session, item: itemId, label: "Card activity" });
      this.activityBody.replaceChildren(this.activity.element);
      this.activity.start();
    }
    if (!this.dialog.open) this.dialog.showModal();
    this.title.focus();
    this.hooks.cardInAddress(itemId);
    return true;
  }

  /** Closes the view; focus goes back to the card. */
  close({ restoreFocus = true } = {}) {
    if (this.itemId === null) return;
    this.description.end();
    this.activity?.stop();
    this.activity = null;
    this.itemId = null;
    if (this.dialog.open) this.dialog.close();
    this.dialog.remove();
    this.hooks.cardInAddress(null);
    if (restoreFocus && this.returnFocus?.isConnected) this.returnFocus.focus({ preventScroll: true });
  }

  notice(text) {
    this.status.textContent = text;
    this.status.hidden = !text;
  }

  // MARK: Live

  /** After each render: the open card as the board has it now. */
  afterRender(board) {
    if (this.itemId === null) return;
    const item = board.item(this.itemId);
    if (item) return this.#refresh(item);
    // Gone without an operation saying so (the board was loaded again after a reconnect).
    const sentence = `${named(this.title.textContent)} is no longer on the board, so its card closed.`;
    this.close();
    this.hooks.toast(sentence, "info");
    this.hooks.announce(sentence);
  }

  /** A committed operation: a deletion of the open card closes it, saying who. */
  applied(committed) {
    if (this.itemId === null) return;
    const who = this.session.members.nameOfClient(committed.clientId) || "Someone";
    this.description.applied(committed, who);
    this.comments.applied(committed);
    const gone = committed.effect.changes.some((c) => c.item === this.itemId && !c.to);
    if (gone) {
      const label = named(this.title.textContent);
      this.close();
      const sentence = committed.clientId === this.session.clientId
        ? `${label} was deleted, so its card closed.`
        : `${who} deleted ${label}, so its card closed.`;
      this.hooks.toast(sentence, "info");
      this.hooks.announce(sentence);
    }
  }

  /** A refused operation of ours on the open card: its reason shows here; returns whether it did. */
  rejected(envelope, sentence) {
    if (this.description.rejected(envelope?.opId, sentence)) return true;
    if (this.itemId !== null && this.comments.rejected(envelope, sentence)) return true;
    if (this.itemId === null || !["updateCard", "checklist"].includes(envelope?.op?.kind) || envelope.op.item !== this.itemId) return false;
    this.notice(sentence);
    return true;
  }

  /** A peer's pointer: the checklist item it drags (or null), shown lifted with its gap in the open card. */
  peerChecklistDrag(member, drag) {
    this.checklists.peerDrag(member, drag);
  }

  editAnswer(message) {
    if (this.itemId !== null) this.description.editAnswer(message);
  }

  rejoined() {
    if (this.itemId !== null) this.description.rejoined();
  }

  /** Our own lease ended without a save or cancel (it went quiet). */
  leaseEnded(ended) {
    if (this.itemId !== null && ended.item === this.itemId && ended.member === this.session.members.me?.id) this.description.leaseEnded(ended);
  }

  #refresh(item) {
    const d = detailsOf(item);
    const canEdit = this.session.canEdit;
    const label = itemLabel(item);
    if (this.title.textContent !== label) this.title.textContent = label;
    this.description.show(item);
    // What someone is typing or choosing is left alone.
    for (const [input, value] of [[this.due, d.due], [this.start, d.start]]) {
      const shown = toLocalInput(value);
      if (document.activeElement !== input && input.value !== shown) input.value = shown;
      input.disabled = !canEdit;
    }
    this.clearDates.hidden = !canEdit || (d.due === null && d.start === null);
    this.done.checked = d.done;
    this.done.disabled = !canEdit;
    const people = this.#people();
    this.#showPeople(people, d.assignees, canEdit);
    this.labels.show(this.session.board.labels, d.labels, canEdit);
    this.files.show(d.attachments, d.cover, canEdit);
    this.checklists.show(item, canEdit);
    // A mention names one of the board's people or someone who commented here.
    this.comments.show(item, [...new Set([...people, ...d.comments.map((c) => c.name)])]);
  }

  /** The board's people (members here, the others the room knows, everyone assigned), read again only when the board or the members changed. */
  #people() {
    const names = this.session.members.peopleNames();
    const board = this.session.board;
    if (this.peopleOf?.items !== board.items || this.peopleOf.names !== names.join("\n")) {
      this.peopleOf = { items: board.items, names: names.join("\n"), people: boardPeople(board, names) };
    }
    return this.peopleOf.people;
  }

  #showPeople(people, assigned, canEdit) {
    const key = JSON.stringify([people, assigned, canEdit]);
    if (key === this.peopleKey) return;
    this.peopleKey = key;
    const focused = document.activeElement?.closest?.(".card-view-people") ? document.activeElement.value : null;
    const rows = people.map((name, n) => {
      const box = el("input", { attrs: { type: "checkbox", id: `card-view-person-${n}` }, props: { value: name, checked: assigned.includes(name), disabled: !canEdit } });
      return el("label", { className: "card-view-person", attrs: { for: box.id } }, box, name);
    });
    this.people.replaceChildren(...(rows.length ? rows : [el("p", "card-view-empty", "Nobody has joined with a name yet.")]));
    if (focused !== null) [...this.people.querySelectorAll("input")].find((b) => b.value === focused)?.focus();
  }

  // MARK: Changes

  #submit(parts, sentence) {
    if (this.itemId === null || !this.session.canEdit || !this.session.board?.item(this.itemId)) return;
    this.notice("");
    this.edits.updateCard(this.itemId, parts);
    if (sentence) this.hooks.announce(sentence);
  }

  #datesChanged() {
    const item = this.session.board?.item(this.itemId);
    if (!item) return;
    const due = fromLocalInput(this.due.value);
    const start = fromLocalInput(this.start.value);
    if (Number.isNaN(due) || Number.isNaN(start) || due > CARD_LIMITS.maxDate || start > CARD_LIMITS.maxDate || due < 0 || start < 0) {
      this.notice("That is not a date the board can keep; pick another.");
      return;
    }
    if (due !== null && start !== null && start > due) {
      this.notice("The start date must come before the due date.");
      return;
    }
    const d = detailsOf(item);
    if (due === d.due && start === d.start) return;
    // A date left out clears it.
    const dates = { version: d.datesVersion };
    if (due !== null) dates.due = due;
    if (start !== null) dates.start = start;
    this.#submit({ dates }, due === null && start === null ? "Dates cleared." : "Dates set.");
  }

  #assignChanged(box) {
    if (box?.type !== "checkbox") return;
    const item = this.session.board?.item(this.itemId);
    if (!item) return;
    const name = box.value;
    if (box.checked && detailsOf(item).assignees.length >= CARD_LIMITS.assignees) {
      box.checked = false;
      this.notice(`A card can have at most ${CARD_LIMITS.assignees} people assigned.`);
      return;
    }
    this.#submit(box.checked ? { assign: [name] } : { unassign: [name] }, box.checked ? `Assigned ${name}.` : `Unassigned ${name}.`);
  }
}
