// "Export" in the top bar (issue 43): a menu of three formats, for editors and viewers alike —
// JSON that `corkboard import` reads, CSV for spreadsheets, Markdown for people — each written
// from the board as the room confirmed it (export-formats.js) and saved as a file named after the
// board and today's date ("trip-plan-2026-12-07.csv").
//
// The JSON never carries the board's share keys, not even an editor's: the archive needs keys, so
// it gets fresh random ones that no link knows (`corkboard boards` prints the imported board's
// links). Its createdAt is the time of the export, and its template "empty" (never read: the
// board starts from the snapshot).
import { el, on } from "../ui/dom.js";
import { openMenu } from "../ui/menu.js";
import { downloadText } from "../ui/download.js";
import { toLocalInput } from "../ui/local-time.js";
import { archiveText, boardCSV, boardMarkdown, EXPORT_FORMATS, exportFilename } from "../model/export-formats.js";

/** A fresh secret as RandomToken.make writes one: `prefix` and 16 random bytes in lowercase hex. */
function randomToken(prefix) {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return prefix + [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export class ExportMenu {
  /**
   * @param {object} deps
   *   session  BoardSession (boardId, replica: confirmed board and seq, pending operations)
   *   page     BoardPage (boardTitle(), announce, toast)
   */
  constructor({ session, page }) {
    Object.assign(this, { session, page });
    this.button = el("button", {
      className: "bar-button export-button",
      text: "Export",
      attrs: { "aria-label": "Export", "aria-haspopup": "menu", "aria-expanded": "false" },
      props: { type: "button", title: "Download the board as JSON, CSV or Markdown" },
    });
    on(this.button, "click", () => this.open());
  }

  /** Shows the button once there is a board to export. */
  show() {
    this.button.hidden = !this.session.replica;
  }

  /** The menu of formats under the button. */
  open() {
    if (!this.session.replica) return;
    const items = EXPORT_FORMATS.map((format) => ({ label: format.label, action: () => this.save(format.id) }));
    openMenu(this.button, items, { label: "Export the board as" });
  }

  /** The file of one format ("json", "csv" or "markdown"): {filename, text, type}. */
  file(formatId, now = Date.now()) {
    const format = EXPORT_FORMATS.find((f) => f.id === formatId);
    const { confirmed, confirmedSeq } = this.session.replica;
    const board = confirmed.toJSON();
    const title = this.page.boardTitle();
    const filename = exportFilename(title, toLocalInput(now).slice(0, 10), format.extension);
    let text;
    if (format.id === "json") {
      const keys = { edit: randomToken("e-"), view: randomToken("v-"), isOpen: false };
      text = archiveText(board, confirmedSeq, { id: this.session.boardId, title, keys, createdAt: Math.floor(now / 1000) });
    } else if (format.id === "csv") {
      text = boardCSV(board);
    } else {
      text = boardMarkdown(board, title);
    }
    return { filename, text, type: format.type };
  }

  /** Downloads the board in one format and says so (and that unsent changes are not in it). */
  save(formatId) {
    const { filename, text, type } = this.file(formatId);
    downloadText(filename, text, type);
    const pending = this.session.replica.pending.length;
    const left = pending ? ` ${pending} change${pending > 1 ? "s" : ""} not yet saved ${pending > 1 ? "are" : "is"} not in it.` : "";
    this.page.announce(`Exported the board as ${filename}.${left}`);
    if (left) this.page.toast(`Exported ${filename}.${left}`, "info");
  }
}
