// The board page around the board itself: the top bar (title, role, members, connection state,
// key help), the banner shown while offline, the progress bar of a board arriving in parts (R14),
// the ARIA live region and the toasts.
import { el } from "./dom.js";

const KEY_HELP =
  "Tab to a card. Space lifts it; arrow keys move it (up and down within a collection, left and right between collections); Space drops; Escape cancels. Shift+Space or Shift/Ctrl/⌘-click selects several cards to drag together. Hold Alt to copy.";

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
    const help = el("details", "help", el("summary", "", "Keys"), el("p", "", KEY_HELP));
    const bar = el("header", "topbar", el("a", { className: "home", text: "Corkboard", props: { href: "./" } }), this.titleEl, this.roleEl, this.membersEl, this.statusEl, help);
    this.banner = el("div", { className: "banner", attrs: { role: "alert" }, props: { hidden: true } });
    this.loadingBar = el("progress", { className: "board-loading-bar", attrs: { "aria-label": "Loading the board" }, props: { max: 100, value: 0 } });
    this.loadingText = el("span", "board-loading-text", "Loading the board…");
    this.loadingEl = el("div", { className: "board-loading", props: { hidden: true } }, this.loadingBar, this.loadingText);
    this.cursorLayer = el("div", { className: "cursor-layer", attrs: { "aria-hidden": "true" } });
    this.boardEl = el("main", { className: "board", attrs: { "aria-label": "Board", "aria-busy": "true" } }, this.cursorLayer);
    this.live = el("div", { className: "sr-only", attrs: { id: "live", "aria-live": "assertive", "aria-atomic": "true" } });
    this.toasts = el("div", { className: "toasts", attrs: { role: "status", "aria-live": "polite" } });
    this.lastAnnouncement = undefined;
    root.append(bar, this.banner, this.loadingEl, this.boardEl, this.live, this.toasts);
  }

  /** Speaks a sentence through the ARIA live region. */
  announce(text) {
    this.live.textContent = "";
    // A fresh text node makes screen readers speak repeated sentences too.
    requestAnimationFrame(() => (this.live.textContent = text));
    this.lastAnnouncement = text;
  }

  toast(text, kind = "info") {
    const node = el("div", `toast ${kind}`, text);
    this.toasts.append(node);
    setTimeout(() => node.classList.add("leaving"), 4500);
    setTimeout(() => node.remove(), 5000);
  }

  /** The board's title and this member's role, from a welcome. */
  showBoard(board, role) {
    this.titleEl.textContent = board.title || board.id;
    document.title = `${board.title || board.id} · Corkboard`;
    this.roleEl.textContent = role === "viewer" ? "View only" : "";
    this.roleEl.hidden = role !== "viewer";
  }

  setBusy(busy) {
    this.boardEl.setAttribute("aria-busy", busy ? "true" : "false");
  }

  /**
   * Shows the connection state; while reconnecting, a banner counting down to the next attempt
   * with the number of changes waiting (`status()` → {retryAt, pending}).
   */
  showConnection({ state, reason }, status) {
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
        const seconds = Math.max(0, Math.ceil((retryAt - Date.now()) / 1000));
        this.banner.textContent = `Connection lost (${reason}). Reconnecting${seconds ? ` in ${seconds} s` : "…"}` + (pending ? ` — ${pending} change${pending > 1 ? "s" : ""} will be sent when it is back.` : ".");
      };
      update();
      this.bannerTimer = setInterval(update, 500);
    } else if (state === "closed") {
      this.statusText.textContent = "Offline";
      this.banner.hidden = false;
      this.banner.textContent = reason || "Disconnected.";
      this.setBusy(false);
    } else {
      this.statusText.textContent = "Connecting…";
    }
  }

  /** The members in join order, this one marked, with role and presence in the tooltip. */
  showMembers(members, me) {
    const nodes = members.map((m) => {
      const li = el("li", { className: "member", text: m.name, style: { "--peer-color": m.color }, data: { member: m.id } });
      if (m.id === me?.id) li.classList.add("me");
      li.title = `${m.name}${m.id === me?.id ? " (you)" : ""}, ${m.role}${m.presence && m.presence !== "active" ? `, ${m.presence}` : ""}`;
      if (m.presence && m.presence !== "active") li.classList.add(m.presence);
      return li;
    });
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
