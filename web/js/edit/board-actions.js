// The board's own actions in the top bar: Undo and Redo (R13: the room undoes this person's own
// operations, never anyone else's; the buttons follow the room's `undoable`; commenters undo their
// comments), Share (the links this member's role may hand out, R17: an admin all four, an editor
// edit, comment and view, a commenter comment and view, a viewer view; each with Copy, built from
// the address the page was loaded from), Rename (the board's title), Labels (the board's labels:
// labels-dialog.js) and Export (JSON, CSV, Markdown: export-menu.js). Viewers and commenters get
// Labels to look at them, and Export.
//
// Keys: Ctrl/⌘+Z undoes, Shift+Ctrl/⌘+Z and Ctrl+Y redo, except while typing in a field (the
// field's own undo) or with a dialog open.
import { ActivityList } from "../board/activity-list.js";
import { el, on } from "../ui/dom.js";
import { showDialog } from "../ui/dialog.js";
import { INPUT_LIMITS } from "../model/card-content.js";
import { named } from "../model/words.js";
import { LabelsDialog } from "./labels-dialog.js";
import { ExportMenu } from "./export-menu.js";
import { sharedRoles } from "../model/roles.js";

/**
 * What a key press asks for: "undo", "redo" or null. `mac` says whether ⌘ is the command key.
 * Ctrl/⌘+Z undoes; Shift+Ctrl/⌘+Z and Ctrl+Y (⌘+Y on a Mac too) redo.
 */
export function undoShortcut(event, mac = false) {
  const command = mac ? event.metaKey : event.ctrlKey;
  if (!command || event.altKey) return null;
  const key = event.key?.toLowerCase();
  if (key === "z") return event.shiftKey ? "redo" : "undo";
  if (key === "y" && !event.shiftKey) return "redo";
  return null;
}

/**
 * The links a member may share (R17): {admin?, edit?, comment?, view}, those of its own role and
 * every lower one (`sharedRoles`), as welcome.keys hands them out. `address` is the page's address
 * (location.href); `keys` is welcome.keys. The edit link is for admins and editors: with the edit
 * key, or without a key on a board open to anyone (no `keys.edit` then). Other query parameters (a
 * name) are left out.
 */
export function shareLinks(address, boardId, keys, role) {
  const base = new URL(address);
  const link = (key) => {
    const url = new URL(base.pathname, base.origin);
    url.searchParams.set("board", boardId);
    if (key) url.searchParams.set("key", key);
    return url.href;
  };
  const links = {};
  const shared = sharedRoles(role);
  if (shared.includes("admin") && keys?.admin) links.admin = link(keys.admin);
  if (shared.includes("editor")) links.edit = link(keys?.edit);
  if (shared.includes("commenter") && keys?.comment) links.comment = link(keys.comment);
  if (keys?.view) links.view = link(keys.view);
  return links;
}

/** The sentence of an undo or redo the room refused (its message is already one). */
export function undoRefusalInWords(direction, outcome) {
  if (outcome.message) return outcome.message;
  return direction === "redo" ? "Could not redo; nothing changed." : "Could not undo; nothing changed.";
}

export class BoardActions {
  /**
   * @param {object} deps
   *   session  BoardSession (undoable, keys, canEdit, undo(), redo(), boardId, board)
   *   edits    BoardEdits (renameBoard)
   *   page     BoardPage (titleEl, actionsEl, toast, announce, boardTitle())
   *   busy()   whether a drag is live (Undo waits for the drop)
   */
  constructor({ session, edits, page, busy = () => false }) {
    Object.assign(this, { session, edits, page, busy });
    const button = (text, label, onClick, keys) => {
      const node = el("button", { className: "bar-button", text, attrs: { "aria-label": label, "aria-keyshortcuts": keys }, props: { type: "button", title: label } });
      on(node, "click", onClick);
      return node;
    };
    const mac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || "");
    this.mac = mac;
    this.undoButton = button("↶ Undo", "Undo", () => this.perform("undo"), mac ? "Meta+Z" : "Control+Z");
    this.redoButton = button("↷ Redo", "Redo", () => this.perform("redo"), mac ? "Shift+Meta+Z" : "Shift+Control+Z Control+Y");
    this.renameButton = button("Rename", "Rename", () => this.rename());
    this.renameButton.title = "Rename the board";
    this.shareButton = button("Share", "Share", () => this.share());
    this.labels = new LabelsDialog({ session, edits, page });
    this.labelsButton = button("Labels", "Labels", () => this.labels.open());
    this.labelsButton.title = "The board's labels";
    this.exportMenu = new ExportMenu({ session, page });
    this.activityButton = button("Activity", "Activity", () => this.activity());
    this.activityButton.title = "What happened on the board";
    page.actionsEl.append(this.undoButton, this.redoButton, this.renameButton, this.labelsButton, this.activityButton, this.shareButton, this.exportMenu.button);
    on(document, "keydown", (event) => this.#key(event));
    this.show();
  }

  /** Shows what this member may do (after a welcome) and what Undo and Redo can do now. */
  show() {
    const canEdit = this.session.canEdit;
    // Commenters undo their comments (R17); only who may change the board renames it.
    const canUndo = this.session.canUndo ?? canEdit;
    for (const node of [this.undoButton, this.redoButton]) node.hidden = !canUndo;
    this.renameButton.hidden = !canEdit;
    // With the share links off (issue 45) a non-admin has no link to hand out: `keys` is {view: ""}.
    this.shareButton.hidden = !Object.values(this.session.keys || {}).some(Boolean);
    this.labelsButton.hidden = !this.session.board;
    this.activityButton.hidden = !this.session.board;
    this.exportMenu.show();
    const { undo, redo } = this.session.undoable;
    this.undoButton.disabled = !canUndo || !undo;
    this.redoButton.disabled = !canUndo || !redo;
  }

  /** A refused operation: a label change shows its reason in the open Labels dialog; returns whether it did. */
  rejected(envelope, sentence) {
    return this.labels.rejected(envelope, sentence);
  }

  /** After each render: an open Labels dialog shows the board's labels as they are now. */
  afterRender() {
    this.labels.refresh();
  }

  #key(event) {
    const wanted = undoShortcut(event, this.mac);
    if (!wanted || event.defaultPrevented) return;
    // Typing in a field: the field's own undo. A dialog open: not the board's.
    if (event.target.closest?.("input, textarea, select, [contenteditable], dialog")) return;
    if (document.querySelector("dialog[open]")) return;
    event.preventDefault();
    this.perform(wanted);
  }

  /** Asks the room to undo or redo this person's newest operation. */
  perform(direction) {
    if (!(this.session.canUndo ?? this.session.canEdit)) return;
    if (this.busy()) {
      this.page.toast(`Drop or cancel the drag first, then ${direction}.`, "info");
      return;
    }
    if (!this.session.undoable[direction]) {
      this.page.announce(direction === "undo" ? "Nothing of yours to undo." : "Nothing to redo.");
      return;
    }
    this.session.undo(direction);
  }

  /** The board's "Activity" dialog (issue 43): every entry newest first, new ones live while it is open. */
  async activity() {
    if (!this.session.board || document.querySelector("dialog.activity-dialog")) return;
    const list = new ActivityList({ session: this.session, label: "Board activity" });
    list.start();
    const shown = showDialog({ title: "Activity", body: [list.element], confirm: "Close", cancel: null });
    list.element.closest("dialog")?.classList.add("activity-dialog");
    await shown;
    list.stop();
  }

  /** Renames the board in a dialog. */
  async rename() {
    if (!this.session.canEdit) return;
    const current = this.page.boardTitle();
    const input = el("input", { attrs: { "aria-label": "Board title", autocomplete: "off" }, props: { value: current, maxLength: INPUT_LIMITS.title, required: true } });
    const title = await showDialog({ title: "Rename the board", body: [input], confirm: "Rename", collect: () => input.value.trim() });
    if (!title || title === current) return;
    this.edits.renameBoard(title);
    this.page.announce(`Renamed the board to ${named(title)}.`);
  }

  /** The Share dialog: the links this member's role may hand out (admin, edit, comment, view), each with Copy. */
  async share() {
    const links = shareLinks(location.href, this.session.boardId, this.session.keys, this.session.me?.role);
    const row = (label, hint, url) => {
      const field = el("input", { className: "share-link", attrs: { "aria-label": label, readonly: true }, props: { value: url } });
      const copy = el("button", { className: "copy-link", text: "Copy", attrs: { "aria-label": `Copy ${label.toLowerCase()}` }, props: { type: "button" } });
      const status = el("span", { className: "copy-status", attrs: { role: "status" } });
      on(field, "focus", () => field.select());
      on(copy, "click", async () => {
        field.select();
        let copied = false;
        try {
          await navigator.clipboard.writeText(url);
          copied = true;
        } catch {
          copied = document.execCommand?.("copy") || false;
        }
        status.textContent = copied ? "Copied" : "Select the link and copy it (Ctrl+C)";
      });
      return el("div", "share-row", el("label", "share-label", label), el("p", "hint", hint), el("div", "share-line", field, copy, status));
    };
    const body = [];
    if (links.admin) body.push(row("Admin link", "Anyone with this link can change the board and hand out every link, this one too. Keep it to yourself.", links.admin));
    if (links.edit) body.push(row("Edit link", "Anyone with this link can change the board.", links.edit));
    if (links.comment) body.push(row("Comment link", "Anyone with this link sees the board live and can comment on cards, but cannot change them.", links.comment));
    if (links.view) body.push(row("View link", "Anyone with this link sees the board live but cannot change it.", links.view));
    await showDialog({ title: `Share ${named(this.page.boardTitle())}`, body, confirm: "Done", cancel: null });
  }
}
