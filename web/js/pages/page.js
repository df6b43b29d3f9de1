// The board page around the board itself: the top bar (title, the board's actions, role, members,
// connection state, key help), the banner shown while offline, the progress bar of a board arriving in parts (R14),
// the ARIA live region and the toasts.
import { el, on } from "../ui/dom.js";
import { connectionLostInWords } from "../model/words.js";
import { readableTextOn } from "../ui/contrast.js";
import { busyInWords } from "../model/join-words.js";
import { roleBadge, roleMay } from "../model/roles.js";
import { memberLabel } from "../model/people.js";

const KEY_HELP =
  "Ctrl/⌘+Z undoes your last change, Shift+Ctrl/⌘+Z or Ctrl+Y redoes it. Tab to a card. Space lifts it; arrow keys move it (up and down within a collection, left and right between collections); I drops it into the card next to the drop position, making a stack (I again: beside it); Space drops; Delete drops it in the Trash; Escape cancels. Shift+Space or Shift/Ctrl/⌘-click selects several cards to drag together. Hold Alt to copy. Enter opens the card (Escape closes it), F2 edits it in place, Delete deletes it (or the selected cards), N adds a card to its section, M moves it (or the selected cards) to a collection, section and position you choose, on this board or another, Shift+F10 opens its menu. / searches the cards (Escape empties the search).";
const VIEW_HELP =
  "Tab to a card; the arrow keys move between cards. This link shows the board live but does not let you change it.";
const COMMENT_HELP =
  "Tab to a card; the arrow keys move between cards; Enter opens it, where you can comment (Ctrl/⌘+Enter saves). This link lets you comment on cards but not change them. Ctrl/⌘+Z undoes your last comment.";

/** How long a message stays: long enough to read, longer for a refusal (it says what to do). */
const TOAST_MS = { info: 5000, error: 9000 };
const MOST_TOASTS = 4;
/** Members shown by name in the top bar; the rest are counted. */
const MAX_SHOWN_MEMBERS = 12;

export class BoardPage {
  /** Builds the page in `root` for the board `boardId` (its title until the welcome). */
  constructor(root, boardId) {
    root.replaceChildren();
    document.body.classList.add("board-page");
    this.titleEl = el("h1", "board-title", boardId);
    this.roleEl = el("span", "role-badge");
    this.membersEl = el("ul", { className: "members", attrs: { "aria-label": "People on this board" } });
    this.statusText = el("span", "connection-text", "Connecting…");
    this.statusEl = el("span", { className: "connection", attrs: { role: "status" }, data: { state: "connecting" } }, el("span", "dot"), this.statusText);
    this.helpText = el("p", "", KEY_HELP);
    // What a card is and how to move it, for screen readers: every card points here
    // (aria-describedby), since aria-roledescription is not allowed on a list item.
    this.cardHelp = el("p", { className: "sr-only", attrs: { id: "card-help" }, text: "Draggable card." });
    const help = el("details", "help", el("summary", "", "Keys"), this.helpText);
    // Undo, Redo, Rename and Share (board-actions.js) go here.
    this.actionsEl = el("div", { className: "board-actions", attrs: { role: "toolbar", "aria-label": "Board actions" } });
    this.welcomeTitle = boardId;
    const bar = el("header", "topbar", el("a", { className: "home", text: "Corkboard", props: { href: "./" } }), this.titleEl, this.actionsEl, this.roleEl, this.membersEl, this.statusEl, help);
    this.banner = el("div", { className: "banner", attrs: { role: "alert" }, props: { hidden: true } });
    this.loadingBar = el("progress", { className: "board-loading-bar", attrs: { "aria-label": "Loading the board" }, props: { max: 100, value: 0 } });
    this.loadingText = el("span", "board-loading-text", "Loading the board…");
    this.loadingEl = el("div", { className: "board-loading", props: { hidden: true } }, this.loadingBar, this.loadingText);
    this.cursorLayer = el("div", { className: "cursor-layer", attrs: { "aria-hidden": "true" } });
    this.boardEl = el("main", { className: "board", attrs: { "aria-label": "Board", "aria-busy": "true" } }, this.cursorLayer);
    this.live = el("div", { className: "sr-only", attrs: { id: "live", "aria-live": "assertive", "aria-atomic": "true" } });
    this.toasts = el("div", { className: "toasts", attrs: { role: "status", "aria-live": "polite" } });
    this.lastAnnouncement = undefined;
    root.append(bar, this.banner, this.loadingEl, this.boardEl, this.live, this.toasts, this.cardHelp);
  }

  /** Speaks a sentence through the ARIA live region. */
  announce(text) {
    this.live.textContent = "";
    // A fresh text node makes screen readers speak repeated sentences too.
    requestAnimationFrame(() => (this.live.textContent = text));
    this.lastAnnouncement = text;
  }

  /**
   * Shows a message at the bottom of the page. It stays at least five seconds (a refusal nine),
   * longer while the pointer or focus is on it, and its × dismisses it at once. The same sentence
   * again refreshes the one already shown. `action` {text, run()} adds a button that runs it and
   * dismisses the toast; `ms` sets how long it stays.
   */
  toast(text, kind = "info", { action = null, ms = 0 } = {}) {
    const same = [...this.toasts.children].find((n) => n._text === text && !n.classList.contains("leaving"));
    if (same && !action) return same._arm();
    const dismiss = el("button", { className: "toast-dismiss", text: "×", attrs: { "aria-label": "Dismiss" }, props: { type: "button" } });
    const button = action && el("button", { className: "toast-action", text: action.text, props: { type: "button" } });
    const node = el("div", `toast ${kind}`, el("span", "toast-text", text), ...(button ? [button] : []), dismiss);
    node._text = text;
    let timer = 0;
    const leave = () => {
      clearTimeout(timer);
      if (node.classList.contains("leaving")) return;
      node.classList.add("leaving");
      setTimeout(() => node.remove(), 400);
    };
    node._arm = () => {
      clearTimeout(timer);
      timer = setTimeout(leave, ms || TOAST_MS[kind] || TOAST_MS.info);
    };
    on(node, "pointerenter", () => clearTimeout(timer));
    on(node, "pointerleave", node._arm);
    on(node, "focusin", () => clearTimeout(timer));
    on(node, "focusout", node._arm);
    if (button) {
      on(button, "click", () => {
        leave();
        action.run();
      });
    }
    on(dismiss, "click", () => {
      if (node.contains(document.activeElement)) document.activeElement.blur();
      leave();
    });
    this.toasts.append(node);
    while (this.toasts.children.length > MOST_TOASTS) this.toasts.firstElementChild.remove();
    node._arm();
  }

  /** The board's title as shown: its own once renamed, else the welcome's. */
  boardTitle() {
    return this.titleEl.textContent;
  }

  /** Shows the board's title (after a welcome, or a rename anyone made). */
  showTitle(title) {
    const shown = title || this.welcomeTitle;
    if (this.titleEl.textContent === shown) return;
    this.titleEl.textContent = shown;
    document.title = `${shown} · Corkboard`;
  }

  /** The board's title and this member's role, from a welcome. */
  showBoard(board, role) {
    this.welcomeTitle = board.title || board.id;
    this.titleEl.textContent = this.welcomeTitle;
    document.title = `${this.welcomeTitle} · Corkboard`;
    const canEdit = roleMay(role, "edit");
    this.roleEl.textContent = roleBadge(role);
    this.roleEl.hidden = !this.roleEl.textContent;
    document.body.classList.toggle("can-edit", canEdit);
    document.body.classList.toggle("view-only", !canEdit);
    this.helpText.textContent = canEdit ? KEY_HELP : role === "commenter" ? COMMENT_HELP : VIEW_HELP;
    this.cardHelp.textContent = canEdit ? "Draggable card: Space lifts it, the arrow keys move it, Space drops it." : "Card.";
  }

  setBusy(busy) {
    this.boardEl.setAttribute("aria-busy", busy ? "true" : "false");
  }

  /**
   * Shows the connection state; while reconnecting, a banner counting down to the next attempt
   * with the number of changes waiting (`status()` → {retryAt, pending}); when closed for good, the
   * `refusal` saying why and what to do (join-words.js).
   */
  showConnection({ state, reason, code, refusal }, status) {
    this.statusEl.dataset.state = state;
    clearInterval(this.bannerTimer);
    if (state === "open") {
      this.statusText.textContent = "Live";
      this.banner.hidden = true;
    } else if (state === "reconnecting") {
      this.statusText.textContent = "Reconnecting…";
      this.banner.hidden = false;
      const update = () => {
        const { retryAt, pending } = status();
        this.statusText.textContent = pending ? `Offline — ${pending} change${pending > 1 ? "s" : ""} waiting` : "Reconnecting…";
        const seconds = Math.max(0, Math.ceil((retryAt - Date.now()) / 1000));
        const kept = pending ? ` ${pending} change${pending > 1 ? "s" : ""} will be sent when it is back.` : "";
        // 1013: the server answers but refused the connection for now (connection.js, BUSY).
        if (code === 1013) this.banner.textContent = busyInWords(seconds) + kept;
        else this.banner.textContent = `Connection lost: ${connectionLostInWords(code, reason)}. Reconnecting${seconds ? ` in ${seconds} s` : "…"}` + (pending ? ` —${kept}` : " Your changes are kept.");
      };
      update();
      this.bannerTimer = setInterval(update, 500);
    } else if (state === "closed") {
      this.statusText.textContent = "Offline";
      this.banner.hidden = false;
      this.banner.textContent = refusal || "Disconnected; reload the page to join again.";
      this.setBusy(false);
    } else {
      this.statusText.textContent = "Connecting…";
    }
  }

  /** The room refused our work for good: read-only from now on, with a banner saying what to do. */
  showReadOnly(sentence) {
    document.body.classList.remove("can-edit");
    document.body.classList.add("view-only");
    this.roleEl.textContent = "Read only";
    this.roleEl.hidden = false;
    this.helpText.textContent = VIEW_HELP;
    this.banner.textContent = sentence;
    this.banner.hidden = false;
  }

  /**
   * The members in join order, this one marked, with role and presence in the tooltip: at most
   * twelve, then how many more are here (`count`, every member connected).
   */
  showMembers(members, me, count = members.length) {
    const shown = members.length > MAX_SHOWN_MEMBERS ? [me, ...members.filter((m) => m.id !== me?.id)].filter(Boolean).slice(0, MAX_SHOWN_MEMBERS) : members;
    const nodes = shown.map((m) => {
      const label = memberLabel(m); // "Bea (Beatrice)": an invited person's name, and the name they typed when it differs
      const li = el("li", { className: "member", text: label, style: { "--peer-color": m.color, color: readableTextOn(m.color) }, data: { member: m.id } });
      if (m.id === me?.id) li.classList.add("me");
      li.title = `${label}${m.id === me?.id ? " (you)" : ""}, ${m.role}${m.presence && m.presence !== "active" ? `, ${m.presence}` : ""}`;
      if (m.presence && m.presence !== "active") li.classList.add(m.presence);
      return li;
    });
    const others = Math.max(0, count - shown.length);
    if (others > 0) {
      const more = el("li", { className: "member more", text: `+${others}` });
      more.title = `${others} more ${others === 1 ? "person" : "people"} on this board`;
      nodes.push(more);
    }
    this.membersEl.replaceChildren(...nodes);
  }

  /** R14: the progress of a board arriving in parts; null hides it. */
  showLoading(progress) {
    if (!progress) {
      this.loadingEl.hidden = true;
      return;
    }
    const a = progress.assembler;
    if (progress.begun) {
      this.setBusy(true);
      this.loadingEl.hidden = false;
    }
    const percent = Math.floor(a.fraction * 100);
    this.loadingBar.value = percent;
    const mib = (n) => (n / 1048576).toFixed(1);
    this.loadingText.textContent = `Loading the board… ${percent}% (${mib(a.bytesReceived)} of ${mib(a.descriptor.bytes)} MiB)`;
  }
}
