// The board's Trash, opened (issue 43, R15): what was deleted, by whom and when, newest first, with
// "Restore" on each entry and "Empty trash" for editors (after a question). Anyone who can edit
// restores anything, not only its deleter: the room puts it back where it was (R3 anchors; the end
// of its collection when that place is gone) and refuses a second restore. The list follows the
// board live while it is open. It also says each delete in a toast: "Deleted “X” — Undo" for the
// person who deleted (Undo restores exactly that entry), "Ada deleted “X”" with "Show in Trash"
// for everyone else. Viewers see the list and change nothing.
import { el, on } from "../ui/dom.js";
import { confirmDialog, showDialog } from "../ui/dialog.js";
import { itemLabel } from "../model/card-content.js";
import { relativeTime } from "../model/activity-feed.js";
import { named } from "../model/words.js";
import { operation } from "../net/protocol.js";

/** How long the deleter's "Undo" stays (the issue's 8 s). */
const UNDO_TOAST_MS = 8000;

/** How many items a list of item trees holds, children included. */
const countItems = (items) => items.reduce((n, item) => n + 1 + countItems(item.children || []), 0);

const cards = (n) => `${n} card${n === 1 ? "" : "s"}`;

/** What an entry holds, in words: "“Old Mill Wheel”", "“A” and 2 more", "the section “Later” (3 cards)". */
export function entryInWords(entry) {
  if (entry.section) {
    const n = countItems(entry.section.section.items || []);
    return `the section ${named(entry.section.section.title || "untitled")} (${cards(n)})`;
  }
  if (entry.collection) {
    const n = (entry.collection.collection.sections || []).reduce((sum, s) => sum + countItems(s.items || []), 0);
    return `the collection ${named(entry.collection.collection.title || "untitled")} (${cards(n)})`;
  }
  const items = (entry.cards || []).flatMap((run) => run.elements);
  if (!items.length) return "nothing";
  const first = named(itemLabel(items[0]));
  return items.length === 1 ? first : `${first} and ${items.length - 1} more`;
}

export class TrashPanel {
  /**
   * @param {object} deps
   *   session  BoardSession (board, canEdit, clientId, submit)
   *   page     {toast(text, kind, options), announce(text)}
   */
  constructor({ session, page }) {
    this.session = session;
    this.page = page;
    this.list = null;
  }

  get isOpen() {
    return !!this.list?.isConnected;
  }

  /** Opens the panel (once). */
  async open() {
    if (!this.session.board || this.isOpen) return;
    this.list = el("ol", { className: "trash-list", attrs: { "aria-label": "Deleted, newest first" } });
    this.empty = el("p", "trash-hint", "The Trash is empty.");
    this.emptyButton = el("button", { className: "bar-button danger", text: "Empty trash", props: { type: "button" } });
    on(this.emptyButton, "click", () => this.#emptyTrash());
    on(this.list, "click", (event) => {
      const button = event.target.closest("button[data-entry]");
      if (button) this.restore(button.dataset.entry);
    });
    const help = el("p", "trash-hint", "Deleted cards, sections and collections stay here for 30 days (500 at most); anyone who can edit can restore them.");
    this.key = "";
    this.render();
    const shown = showDialog({ title: "Trash", body: [help, this.list, this.empty, this.emptyButton], confirm: "Close", cancel: null });
    this.list.closest("dialog")?.classList.add("trash-dialog");
    await shown;
    this.list = null;
  }

  /** After each render: the list as the board has it now. */
  render() {
    if (!this.list) return;
    const board = this.session.board;
    const entries = [...(board?.trash || [])].reverse();
    const canEdit = this.session.canEdit;
    const now = Date.now();
    const key = JSON.stringify([entries.map((e) => e.id), canEdit, Math.floor(now / 30000)]);
    if (key === this.key) return;
    this.key = key;
    const focused = this.list.contains(document.activeElement) ? document.activeElement.dataset.entry : null;
    this.list.replaceChildren(...entries.map((entry, n) => {
      const what = el("span", { className: "trash-what", text: entryInWords(entry), attrs: { id: `trash-entry-${n}` } });
      const about = el("span", "trash-about", `Deleted by ${entry.name || "someone"} · ${relativeTime(entry.at, now)}`);
      const row = el("li", "trash-entry", el("span", "trash-text", what, about));
      if (canEdit) {
        row.append(el("button", {
          className: "bar-button", text: "Restore", props: { type: "button" },
          attrs: { "data-entry": entry.id, "aria-describedby": what.id },
        }));
      }
      return row;
    }));
    this.empty.hidden = entries.length > 0;
    this.emptyButton.hidden = !canEdit || entries.length === 0;
    if (focused) this.list.querySelector(`button[data-entry="${CSS.escape(focused)}"]`)?.focus();
  }

  /** Restores one entry (anyone who can edit). */
  restore(entryId) {
    const entry = this.session.board?.trash?.find((e) => e.id === entryId);
    if (!entry || !this.session.canEdit) return;
    const words = entryInWords(entry);
    this.session.submit(operation.restore({ entry: entryId }), { label: words });
    this.page.announce(`Restored ${words}.`);
  }

  async #emptyTrash() {
    const count = this.session.board?.trash?.length || 0;
    if (!count || !this.session.canEdit) return;
    const sure = await confirmDialog({
      title: "Empty the Trash?",
      message: `The ${count === 1 ? "entry" : `${count} entries`} in the Trash will be gone for good, for everyone on the board.`,
      confirm: "Empty trash",
    });
    if (!sure) return;
    this.session.submit(operation.emptyTrash(), { label: "the Trash" });
    this.page.announce("Emptied the Trash.");
  }

  /** A committed operation: a delete is said in a toast (with Undo for its deleter). */
  applied(committed) {
    const kind = committed.op?.kind;
    if (!["delete", "deleteSection", "deleteCollection", "batch"].includes(kind)) return;
    const base = `${committed.clientId}:${committed.opId}`;
    const entries = (this.session.board?.trash || []).filter((e) => e.id === base || e.id.startsWith(`${base}:`));
    if (!entries.length) return;
    const words = entries.length === 1 ? entryInWords(entries[0]) : `${entryInWords(entries[0])} and ${entries.length - 1} more`;
    if (committed.clientId === this.session.clientId) {
      this.page.toast(`Deleted ${words}`, "info", {
        ms: UNDO_TOAST_MS,
        action: { text: "Undo", run: () => entries.forEach((e) => this.restore(e.id)) },
      });
    } else {
      this.page.toast(`${entries[0].name || "Someone"} deleted ${words}`, "info", {
        action: { text: "Show in Trash", run: () => this.open() },
      });
    }
  }
}
