// The live board: one connection, one replica, the page, and every way of dragging (pointer,
// keyboard, from outside) going through one drag model that speaks the protocol:
// dragBegin → dropUpdate* → drop | dragEnd, with the room's proposals shown as they come.
import { Connection } from "./connection.js";
import { Replica, StreamError } from "./replica.js";
import { BoardView, itemLabel } from "./board-view.js";
import { RemoteLayer } from "./remote.js";
import { installPointerDrag } from "./drag.js";
import { installKeyboard } from "./keyboard.js";
import { installExternalDrop } from "./external-drop.js";
import { derivedID } from "./model.js";
import { SnapshotAssembler } from "./snapshot-parts.js";

const INTO = "insertIntoDestinationIndexPath";
const AT = "insertAtDestinationIndexPath";

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function sameTarget(a, b) {
  return !!a && !!b && a.collection === b.collection && a.section === b.section && a.index === b.index && a.intent === b.intent && (a.board || null) === (b.board || null);
}

export class BoardClient {
  constructor({ board, key, name, root, onWelcome }) {
    this.boardId = board;
    this.key = key;
    this.name = name;
    this.root = root;
    this.onWelcome = onWelcome;
    this.replica = null;
    this.me = null;
    this.members = new Map(); // member id → member
    this.remoteDrags = new Map(); // "member/session" → DragState
    this.drag = null; // the local drag in progress
    this.selection = [];
    this.sessionCounter = 0;
    this.opCounter = 0;
    this.opPrefix = Math.random().toString(36).slice(2, 8);
    this.renderQueued = false;
    this.syncTimer = null;
    this.capabilities = {};
    this.events = []; // a short log of notable events, for tests and debugging
    this.#buildPage();
    this.view = new BoardView(this.boardEl, {
      ownerColor: (clientId) => this.#colorOfClient(clientId),
      isSelected: (id) => this.selection.includes(id),
    });
    this.remote = new RemoteLayer(this.view);
  }

  start() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    this.conn = new Connection({
      url: `${scheme}//${location.host}/ws`,
      board: this.boardId,
      key: this.key,
      name: this.name,
      // R10: resume as the same client (with the token from its welcome) from the last seq applied,
      // in the history that seq counts in; the room answers a changed history with a snapshot.
      helloFields: () =>
        this.replica
          ? this.needsSnapshot
            ? { clientId: this.replica.clientId, resumeToken: this.resumeToken }
            : { clientId: this.replica.clientId, resumeToken: this.resumeToken, lastSeq: this.replica.confirmedSeq, history: this.history }
          : {},
    });
    this.conn.beforeHello = () => this.#readCapabilities();
    this.conn.addEventListener("message", (e) => this.#receive(e.detail));
    this.conn.addEventListener("state", (e) => this.#connectionState(e.detail));
    this.conn.start();
    installPointerDrag(this);
    installKeyboard(this);
    installExternalDrop(this);
    addEventListener("resize", () => this.scheduleRender());
    document.addEventListener("visibilitychange", () => this.send({ type: "presence", state: document.hidden ? "away" : "active" }));
  }

  /** Before each hello: reads /healthz for the server's capabilities (such as uploads). */
  async #readCapabilities() {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 2000);
    try {
      const response = await fetch("/healthz", { cache: "no-store", signal: controller.signal });
      if (!response.ok) return;
      const health = await response.json();
      this.capabilities = health || {};
    } finally {
      clearTimeout(timer);
    }
  }

  // MARK: Page

  #buildPage() {
    this.root.replaceChildren();
    document.body.classList.add("board-page");
    const bar = el("header", "topbar");
    const home = el("a", "home", "Corkboard");
    home.href = "./";
    this.titleEl = el("h1", "board-title", this.boardId);
    this.roleEl = el("span", "role-badge");
    this.membersEl = el("ul", "members");
    this.membersEl.setAttribute("aria-label", "People on this board");
    this.statusEl = el("span", "connection");
    this.statusEl.setAttribute("role", "status");
    this.statusEl.dataset.state = "connecting";
    this.statusEl.append(el("span", "dot"), el("span", "connection-text", "Connecting…"));
    const help = el("details", "help");
    help.append(el("summary", "", "Keys"));
    help.append(el("p", "", "Tab to a card. Space lifts it; arrow keys move it (up and down within a collection, left and right between collections); Space drops; Escape cancels. Shift+Space or Shift/Ctrl/⌘-click selects several cards to drag together. Hold Alt to copy."));
    bar.append(home, this.titleEl, this.roleEl, this.membersEl, this.statusEl, help);
    this.banner = el("div", "banner");
    this.banner.hidden = true;
    this.banner.setAttribute("role", "alert");
    // R14: shown while a large board arrives in parts.
    this.loadingEl = el("div", "board-loading");
    this.loadingEl.hidden = true;
    this.loadingBar = el("progress", "board-loading-bar");
    this.loadingBar.max = 100;
    this.loadingBar.value = 0;
    this.loadingBar.setAttribute("aria-label", "Loading the board");
    this.loadingText = el("span", "board-loading-text", "Loading the board…");
    this.loadingEl.append(this.loadingBar, this.loadingText);
    this.boardEl = el("main", "board");
    this.boardEl.setAttribute("aria-label", "Board");
    this.boardEl.setAttribute("aria-busy", "true");
    this.cursorLayer = el("div", "cursor-layer");
    this.cursorLayer.setAttribute("aria-hidden", "true");
    this.boardEl.append(this.cursorLayer);
    this.live = el("div", "sr-only");
    this.live.id = "live";
    this.live.setAttribute("aria-live", "assertive");
    this.live.setAttribute("aria-atomic", "true");
    this.toasts = el("div", "toasts");
    this.toasts.setAttribute("role", "status");
    this.toasts.setAttribute("aria-live", "polite");
    this.root.append(bar, this.banner, this.loadingEl, this.boardEl, this.live, this.toasts);
  }

  /** Keeps the last few hundred notable events (lifts, drops, applied ops) for tests and debugging. */
  log(event) {
    this.events.push(event);
    if (this.events.length > 500) this.events.splice(0, this.events.length - 500);
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

  #connectionState({ state, reason }) {
    this.wasOpen = this.statusEl.dataset.state === "open";
    this.statusEl.dataset.state = state;
    const text = this.statusEl.querySelector(".connection-text");
    clearInterval(this.bannerTimer);
    if (state !== "open") this.#stopLoading();
    if (state === "open") {
      text.textContent = "Live";
      this.banner.hidden = true;
    } else if (state === "reconnecting") {
      text.textContent = "Reconnecting…";
      if (this.wasOpen) {
        // The room ended our drag when the connection dropped; a drag begun offline stays local.
        if (this.drag) this.cancelDrag(this.drag, "The connection dropped; the drag was cancelled.");
        this.remoteDrags.clear();
      }
      this.banner.hidden = false;
      const update = () => {
        const seconds = Math.max(0, Math.ceil((this.conn.retryAt - Date.now()) / 1000));
        const pending = this.replica?.pending.length || 0;
        this.banner.textContent = `Connection lost (${reason}). Reconnecting${seconds ? ` in ${seconds} s` : "…"}` + (pending ? ` — ${pending} change${pending > 1 ? "s" : ""} will be sent when it is back.` : ".");
      };
      update();
      this.bannerTimer = setInterval(update, 500);
      this.scheduleRender();
    } else if (state === "closed") {
      text.textContent = "Offline";
      this.banner.hidden = false;
      this.banner.textContent = reason || "Disconnected.";
      this.boardEl.setAttribute("aria-busy", "false");
    } else {
      text.textContent = "Connecting…";
    }
  }

  #renderMembers() {
    const nodes = [...this.members.values()].map((m) => {
      const li = el("li", "member", m.name);
      li.style.setProperty("--peer-color", m.color);
      li.dataset.member = m.id;
      if (m.id === this.me?.id) li.classList.add("me");
      li.title = `${m.name}${m.id === this.me?.id ? " (you)" : ""}, ${m.role}${m.presence && m.presence !== "active" ? `, ${m.presence}` : ""}`;
      if (m.presence && m.presence !== "active") li.classList.add(m.presence);
      return li;
    });
    this.membersEl.replaceChildren(...nodes);
  }

  #colorOfClient(clientId) {
    for (const m of this.members.values()) if (m.clientId === clientId) return m.color;
    return null;
  }

  memberOf(id) {
    return this.members.get(id);
  }

  // MARK: Rendering

  get board() {
    return this.replica?.view;
  }

  scheduleRender() {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      this.renderNow();
    });
  }

  renderNow() {
    if (!this.replica) return;
    const board = this.replica.view;
    const remoteLifted = new Map();
    for (const drag of this.remoteDrags.values()) {
      const m = this.members.get(drag.member);
      if (!m) continue;
      for (const id of drag.items) remoteLifted.set(id, { color: m.color, name: m.name });
    }
    const drag = this.drag;
    let dragState = null;
    if (drag) {
      dragState = {
        items: drag.items,
        target: drag.target,
        proposal: this.effectiveProposal(drag),
        showGap: !!drag.target,
        hideSources: drag.items.length > 0 && !drag.native,
        keyboard: drag.keyboard,
        gapSize: drag.gapSize,
        gapLabel: drag.keyboard ? drag.label : "",
      };
    }
    this.view.render(board, dragState, remoteLifted);
    this.remote.draw(board, this.remoteDrags, (id) => this.members.get(id));
    this.#markIntoTarget(drag);
    if (drag?.onRender) drag.onRender(dragState);
    document.body.classList.toggle("dragging", !!drag);
    const op = dragState?.proposal?.operation;
    document.body.classList.toggle("drop-forbidden", !!drag && (op === "forbidden" || op === "cancel" || !drag.target));
    document.body.classList.toggle("drop-copy", op === "copy");
  }

  #markIntoTarget(drag) {
    this.intoNode?.classList.remove("into-target", "into-forbidden");
    this.intoNode = null;
    if (drag?.target?.intent !== INTO) return;
    const node = this.view.cardElement(drag.target.targetItem);
    if (!node) return;
    const op = this.effectiveProposal(drag)?.operation;
    node.classList.add("into-target");
    node.classList.toggle("into-forbidden", op === "forbidden" || op === "cancel");
    this.intoNode = node;
  }

  // MARK: Sending

  send(message) {
    return this.conn?.send(message) ?? false;
  }

  nextOpId() {
    this.opCounter += 1;
    return `op-${this.opPrefix}-${this.opCounter}`;
  }

  get canEdit() {
    return this.me?.role === "editor";
  }

  /** Submits an operation: applied here at once, sent now or after the next welcome. */
  submit(op, { session, label } = {}) {
    const opId = this.nextOpId();
    this.replica.submitLocal(op, opId, label);
    const message = { type: "submit", ref: opId, opId, base: this.replica.confirmedSeq, op };
    if (session) message.session = session;
    this.send(message);
    this.scheduleRender();
    return opId;
  }

  // MARK: Drags (local)

  /**
   * Starts a drag of board items and/or external content (one type list per external item).
   * Returns the drag, or null when nothing can be dragged.
   */
  beginDrag(items, { keyboard = false, external = [], label, native = false } = {}) {
    if (!this.replica || this.drag) return null;
    const board = this.board;
    items = items.filter((id) => board.item(id) && !board.item(id).placeholder);
    if (items.length === 0 && external.length === 0) return null;
    this.sessionCounter += 1;
    const drag = {
      session: `d${this.sessionCounter}-${this.opPrefix}`,
      items,
      external,
      keyboard,
      native,
      copy: false,
      target: null,
      sentTarget: null,
      serverProposal: null,
      label: label || (items.length ? itemLabel(board.item(items[0])) : "content"),
    };
    this.drag = drag;
    const message = { type: "dragBegin", ref: drag.session, session: drag.session, items };
    if (external.length) message.external = external;
    this.send(message);
    this.log({ event: "lift", items: [...items] });
    this.scheduleRender();
    return drag;
  }

  /** Adds items to the live drag (dragAdd), in order. */
  addToDrag(drag, ids) {
    const board = this.board;
    const fresh = ids.filter((id) => !drag.items.includes(id) && board.item(id) && !board.item(id).placeholder);
    if (!fresh.length) return;
    drag.items.push(...fresh);
    this.send({ type: "dragAdd", ref: drag.session, session: drag.session, items: fresh });
    drag.sentTarget = null;
    this.updateTarget(drag, drag.target, drag.copy);
    this.announce(`Added ${itemLabel(board.item(fresh[0]))}. Dragging ${drag.items.length} cards.`);
  }

  /** The wire target for a drag target (index in the full list for drop-into). */
  #wireTarget(target) {
    return { collection: target.collection, section: target.section, index: target.intent === INTO ? target.fullIndex : target.index, intent: target.intent };
  }

  /** Moves the drag's hover; sends dropUpdate when the target or copy flag changed. */
  updateTarget(drag, target, copy = false) {
    drag.target = target;
    drag.copy = copy;
    if (target) {
      const wire = this.#wireTarget(target);
      const key = JSON.stringify([wire, copy]);
      if (key !== drag.sentKey) {
        drag.sentKey = key;
        drag.sentTarget = wire;
        drag.serverProposal = null;
        const message = { type: "dropUpdate", session: drag.session, target: wire };
        if (copy) message.copy = true;
        this.send(message);
      }
    }
    this.scheduleRender();
  }

  /** The room's proposal for the current target when it has answered, else the local one. */
  effectiveProposal(drag) {
    if (!drag?.target) return null;
    if (drag.serverProposal && sameTarget(drag.serverProposalTarget, this.#wireTarget(drag.target))) return drag.serverProposal;
    const board = this.board;
    return board.proposal(drag.items, drag.external, this.#wireTarget(drag.target), drag.copy, this.canEdit);
  }

  /** The destination of a drop at the drag's target (R3 anchors). */
  destinationOf(drag) {
    const t = drag.target;
    if (t.intent === INTO) return { collection: t.collection, section: t.section, index: 0, intent: INTO, target: t.targetItem };
    const d = { collection: t.collection, section: t.section, index: t.index, intent: AT };
    if (t.after) d.after = t.after;
    if (t.before) d.before = t.before;
    return d;
  }

  /**
   * Drops the drag at its target: applied here at once, sequenced by the room. Returns
   * {ok: true, items} or {ok: false, reason} (the drag is then cancelled).
   */
  drop(drag) {
    if (this.drag !== drag) return { ok: false, reason: "The drag already ended." };
    const proposal = this.effectiveProposal(drag);
    if (!drag.target || !proposal || proposal.operation === "forbidden" || proposal.operation === "cancel") {
      const reason = proposal?.reason || "Not dropped: the pointer was not over a collection.";
      this.cancelDrag(drag);
      return { ok: false, reason };
    }
    const destination = this.destinationOf(drag);
    const copy = proposal.operation === "copy";
    const opId = this.nextOpId();
    const op = { kind: copy ? "copy" : "move", items: [...drag.items], destination };
    this.replica.submitLocal(op, opId, drag.label);
    const message = { type: "drop", ref: opId, session: drag.session, opId, base: this.replica.confirmedSeq, destination };
    if (copy) message.copy = true;
    this.send(message);
    this.drag = null;
    if (drag.items.length > 1 || this.selection.includes(drag.items[0])) this.selection = [];
    this.log({ event: "drop", opId, items: [...drag.items], destination });
    this.renderNow();
    const items = copy ? drag.items.map((_, n) => derivedID(this.replica.clientId, opId, n)) : drag.items;
    return { ok: true, items, copy, opId };
  }

  /** Ends the drag without dropping. */
  cancelDrag(drag, message) {
    if (this.drag !== drag) return;
    this.send({ type: "dragEnd", session: drag.session });
    this.drag = null;
    this.log({ event: "cancel", items: [...drag.items] });
    if (message) this.toast(message);
    this.renderNow();
  }

  /** Finishes an external drag with operations submitted under its session (placeholders). */
  endExternalDrag(drag) {
    if (this.drag === drag) this.drag = null;
    this.scheduleRender();
  }

  /** The items a drag starting on `id` takes: the selection when `id` is in it, else `id`. */
  dragItemsFor(id) {
    if (this.selection.includes(id) && this.selection.length > 1) return [...this.selection];
    return [id];
  }

  toggleSelection(id) {
    const board = this.board;
    if (!board?.item(id) || board.item(id).placeholder) return;
    const at = this.selection.indexOf(id);
    if (at >= 0) this.selection.splice(at, 1);
    else this.selection.push(id);
    this.announce(`${at >= 0 ? "Deselected" : "Selected"} ${itemLabel(board.item(id))}. ${this.selection.length} selected.`);
    this.scheduleRender();
  }

  clearSelection() {
    if (!this.selection.length) return;
    this.selection = [];
    this.scheduleRender();
  }

  /** "Position 3 of 7 in Favorites" for a drag target. */
  describeTarget(drag) {
    const t = drag.target;
    if (!t) return "Not over a collection.";
    const board = this.board;
    const collection = board.collectionById.get(t.collection);
    const section = board.sections.get(t.section)?.section;
    const where = section?.title || collection?.title || "this collection";
    const proposal = this.effectiveProposal(drag);
    let text;
    if (t.intent === INTO) {
      text = `Into ${itemLabel(board.item(t.targetItem))} in ${where}.`;
    } else {
      const moving = new Set(drag.items);
      const count = (board.itemIDs(t.section) || []).filter((id) => !moving.has(id)).length + 1;
      text = `Position ${t.index + 1} of ${count} in ${where}.`;
    }
    if (proposal?.operation === "forbidden" || proposal?.operation === "cancel") text += ` Cannot drop here: ${proposal.reason || "not allowed"}`;
    else if (proposal?.operation === "copy") text += " Drops a copy.";
    return text;
  }

  // MARK: Receiving

  #receive(message) {
    // R14: while a board arrives in parts, everything else waits for it, in order. A welcome is
    // the first message of a new socket: whatever the old one was loading is gone.
    if (message.type === "welcome") this.#stopLoading();
    if (this.loading && message.type !== "snapshotPart" && !message.snapshotParts) {
      this.loading.waiting.push(message);
      return;
    }
    if ((message.type === "welcome" || message.type === "synced") && message.snapshotParts && !message.snapshot) {
      return this.#beginLoad(message);
    }
    switch (message.type) {
      case "snapshotPart": return this.#snapshotPart(message);
      case "welcome": return this.#welcome(message);
      case "ack": return this.#ack(message);
      case "op": return this.#committed([message]);
      case "synced":
        if (message.snapshot) this.replica.reset(message.snapshot.board, message.snapshot.seq);
        return this.#committed(message.ops || []);
      case "dragGranted": return this.#granted(message);
      case "proposal":
        if (this.drag?.session === message.session) {
          this.drag.serverProposal = message.proposal;
          this.drag.serverProposalTarget = message.target;
          this.scheduleRender();
          if (this.drag.keyboard && sameTarget(message.target, this.drag.sentTarget)) this.drag.onProposal?.(message.proposal);
        }
        return;
      case "dragStarted":
        this.remoteDrags.set(`${message.member}/${message.session}`, message);
        this.log({ event: "remote-lift", member: message.member, items: message.items });
        return this.scheduleRender();
      case "dragItems": {
        const drag = this.remoteDrags.get(`${message.member}/${message.session}`);
        if (drag) drag.items = message.items;
        return this.scheduleRender();
      }
      case "dragHover": {
        const drag = this.remoteDrags.get(`${message.member}/${message.session}`);
        if (drag) {
          drag.target = message.target;
          drag.proposal = message.proposal;
        }
        return this.scheduleRender();
      }
      case "dragEnded":
        this.remoteDrags.delete(`${message.member}/${message.session}`);
        return this.scheduleRender();
      case "memberJoined":
        this.members.set(message.id, message);
        this.#renderMembers();
        return this.scheduleRender();
      case "memberLeft":
        this.members.delete(message.member);
        for (const [key, drag] of this.remoteDrags) if (drag.member === message.member) this.remoteDrags.delete(key);
        this.remote.forget(message.member);
        this.#renderMembers();
        return this.scheduleRender();
      case "cursor": {
        const m = this.members.get(message.member);
        if (m) this.remote.cursor(this.cursorLayer, m, message.x, message.y);
        return;
      }
      case "presence": {
        const m = this.members.get(message.member);
        if (m) m.presence = message.state;
        return this.#renderMembers();
      }
      case "pong":
        if (this.replica && message.head > this.replica.confirmedSeq) this.#requestSync();
        return;
      case "error": return this.#error(message);
      default:
        console.warn(`corkboard: ignoring unknown message type ${message.type}`);
    }
  }

  /** A welcome or synced announced its board in parts: assemble them, showing progress. */
  #beginLoad(message) {
    const descriptor = message.snapshotParts;
    this.loading = {
      assembler: new SnapshotAssembler(descriptor),
      announcement: message,
      // A synced replacing a transfer in progress keeps what was waiting for it.
      waiting: this.loading?.waiting || [],
    };
    this.log({ event: "snapshot-parts", seq: descriptor.seq, parts: descriptor.parts, bytes: descriptor.bytes });
    this.boardEl.setAttribute("aria-busy", "true");
    this.loadingEl.hidden = false;
    this.#showProgress();
  }

  #stopLoading() {
    this.loading = null;
    this.loadingEl.hidden = true;
  }

  #showProgress() {
    const a = this.loading.assembler;
    const percent = Math.floor(a.fraction * 100);
    this.loadingBar.value = percent;
    const mib = (n) => (n / 1048576).toFixed(1);
    this.loadingText.textContent = `Loading the board… ${percent}% (${mib(a.bytesReceived)} of ${mib(a.descriptor.bytes)} MiB)`;
  }

  #snapshotPart(part) {
    if (!this.loading) return; // a part of a transfer this page no longer follows
    const a = this.loading.assembler;
    try {
      a.add(part, this.conn.lastMessageSize || 0);
    } catch (error) {
      console.warn(`corkboard: ${error.message}; loading the board again`);
      this.#stopLoading();
      this.#reloadFromSnapshot();
      return;
    }
    this.log({ event: "snapshot-part", part: part.part, parts: a.descriptor.parts, fraction: a.fraction });
    this.#showProgress();
    if (!a.complete) return;
    const { announcement, waiting } = this.loading;
    this.#stopLoading();
    const snapshot = { version: 1, seq: a.descriptor.seq, board: a.board() };
    if (announcement.type === "welcome") {
      this.#welcome({ ...announcement, snapshot });
    } else {
      this.#receive({ ...announcement, snapshotParts: undefined, snapshot });
    }
    for (const message of waiting) this.#receive(message);
  }

  #welcome(w) {
    this.me = w.member;
    this.resumeToken = w.resumeToken;
    this.history = w.history;
    this.members = new Map(w.members.map((m) => [m.id, m]));
    this.remoteDrags = new Map(w.drags.filter((d) => d.member !== w.member.id).map((d) => [`${d.member}/${d.session}`, d]));
    this.titleEl.textContent = w.board.title || w.board.id;
    document.title = `${w.board.title || w.board.id} · Corkboard`;
    this.roleEl.textContent = w.member.role === "viewer" ? "View only" : "";
    this.roleEl.hidden = w.member.role !== "viewer";
    if (!this.replica) {
      this.replica = new Replica(w.member.clientId, w.snapshot.board, w.snapshot.seq);
    } else {
      if (w.snapshot) {
        this.replica.reset(w.snapshot.board, w.snapshot.seq);
        this.needsSnapshot = false;
      }
      this.#committed(w.ops || [], { quiet: true });
      // R10: resend what the room has not acknowledged; opIds make it safe.
      for (const envelope of this.replica.pending) {
        const op = { ...envelope.op };
        delete op.session;
        this.send({ type: "submit", ref: envelope.opId, opId: envelope.opId, base: this.replica.confirmedSeq, op });
      }
    }
    this.boardEl.setAttribute("aria-busy", "false");
    this.#renderMembers();
    this.log({ event: "welcome", seq: this.replica.confirmedSeq, resumed: !!w.ops });
    this.onWelcome?.({ title: w.board.title, role: w.member.role });
    this.renderNow();
  }

  #committed(list, { quiet = false } = {}) {
    if (!this.replica) return;
    let placeholders = false;
    try {
      for (const committed of list) {
        for (const applied of this.replica.receiveCommitted(committed)) {
          const item = applied.op.item || applied.effect?.changes?.[0]?.item;
          this.log({ event: "applied", seq: applied.seq, kind: applied.op.kind, item, clientId: applied.clientId });
          if (applied.op.kind === "insertPlaceholder") placeholders = true;
        }
      }
    } catch (error) {
      if (!(error instanceof StreamError)) throw error;
      console.warn(`corkboard: ${error.message}`);
      this.#reloadFromSnapshot();
      return;
    }
    if (this.replica.hasGap) this.#requestSync();
    // A placeholder is shown at once, even when its content follows in the same instant.
    if (placeholders && !quiet) this.renderNow();
    else if (!quiet) this.scheduleRender();
  }

  #requestSync() {
    if (this.syncTimer) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = null;
      if (this.replica) this.send({ type: "sync", ref: "sync", lastSeq: this.replica.confirmedSeq });
    }, 300);
  }

  #reloadFromSnapshot() {
    // The replica no longer matches the room: join again without lastSeq to get a snapshot.
    this.needsSnapshot = true;
    this.conn.reconnectNow();
  }

  #ack(message) {
    const outcome = message.outcome;
    if (outcome.kind === "committed") {
      if (message.board && message.board !== this.boardId) {
        this.replica.reject(message.opId);
        this.scheduleRender();
        return;
      }
      this.#committed([outcome]);
      return;
    }
    const envelope = this.replica.reject(message.opId);
    this.log({ event: "rejected", opId: message.opId, code: outcome.code });
    const what = envelope?.label ? `“${envelope.label}”` : "The change";
    this.toast(`${what} could not be placed: ${outcome.message}`, "error");
    this.announce(`${what} went back: ${outcome.message}`);
    this.scheduleRender();
  }

  #granted(message) {
    const drag = this.drag;
    if (!drag || drag.session !== message.session || !message.refused.length) return;
    const refused = new Set(message.refused.map((r) => r.item));
    drag.items = drag.items.filter((id) => !refused.has(id));
    this.toast(message.refused[0].message, "error");
    if (drag.items.length === 0 && drag.external.length === 0) {
      this.drag = null;
      drag.onRefused?.(message.refused[0].message);
      this.announce(`Cannot lift: ${message.refused[0].message}`);
    }
    this.scheduleRender();
  }

  #error(message) {
    if (message.ref && this.replica?.isPending(message.ref)) {
      this.replica.reject(message.ref);
      this.toast(`The drop could not be placed: ${message.message}`, "error");
      this.scheduleRender();
      return;
    }
    if (message.code === "unknown-session") return; // the drag already ended on the server
    console.warn(`corkboard: server error ${message.code}: ${message.message}`);
  }

  /** Sends this member's pointer, in board content coordinates (throttled by the caller). */
  sendCursor(clientX, clientY) {
    const r = this.boardEl.getBoundingClientRect();
    const x = clientX - r.left + this.boardEl.scrollLeft;
    const y = clientY - r.top + this.boardEl.scrollTop;
    const collection = document.elementFromPoint(clientX, clientY)?.closest?.(".collection")?.dataset.collection;
    const message = { type: "cursor", x: Math.round(x), y: Math.round(y) };
    if (collection) message.collection = collection;
    this.send(message);
  }
}
