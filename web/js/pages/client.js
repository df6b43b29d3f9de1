// The live board page: the glue between the session (connection, replica, members), the drag
// controller (the one local drag, whichever way it is made), the board view, peers' drags and
// cursors, the input modules (pointer, keyboard, content from outside) and the editing modules
// (card editor, card menu, Trash, structure editor, collection drags), which each get only the
// narrow facets they use. It owns rendering: one requestAnimationFrame at a time.
import { BoardSession } from "../net/session.js";
import { Connection } from "../net/connection.js";
import { nameControl, rememberColor, rememberedColor } from "./person.js";
import { OfflineStore } from "../net/offline-store.js";
import { refusedForGoodInWords, unsavedInWords } from "../model/unsaved.js";
import { roleMay } from "../model/roles.js";
import { showUnsaved } from "./unsaved-dialog.js";
import { DragController } from "../drag/drag-controller.js";
import { Selection } from "../drag/selection.js";
import { BoardPage } from "./page.js";
import { SearchBar } from "./search-bar.js";
import { BoardView } from "../board/board-view.js";
import { RemoteLayer } from "../board/remote.js";
import { BoardFilter } from "../board/search.js";
import { installPointerDrag } from "../drag/drag.js";
import { installKeyboard } from "../drag/keyboard.js";
import { installExternalDrop } from "../drag/external-drop.js";
import { BoardEdits } from "../edit/board-edits.js";
import { CardEditor } from "../edit/card-editor.js";
import { installCardActions } from "../edit/card-menu.js";
import { installMoveTo } from "../edit/move-to.js";
import { peekBoard } from "../net/peek.js";
import { rememberedBoards } from "./start.js";
import { StructureEditor } from "../edit/structure-editor.js";
import { CardView } from "../card/card-view.js";
import { installCollectionDrag } from "../drag/collection-drag.js";
import { Trash } from "../edit/trash.js";
import { TrashPanel } from "../edit/trash-panel.js";
import { BoardActions, undoRefusalInWords } from "../edit/board-actions.js";
import { messageRefusalInWords, rejectionInWords } from "../model/words.js";
import { refusalInWords } from "../model/join-words.js";
import { InviteClaim } from "../net/invite-claim.js";
import { accessInWords } from "../model/people.js";
import { inviteShapeProblem } from "../model/invite-link.js";
import { MembersPanel } from "./members-panel.js";
import { el, on } from "../ui/dom.js";

const INTO = "insertIntoDestinationIndexPath";

export class BoardClient {
  #selection;

  constructor({ board, key, invite, name, root, onWelcome }) {
    this.boardId = board;
    this.key = key;
    this.onWelcome = onWelcome;
    // Whether this browser opened the board with this key before: a refusal then means the links
    // were rotated or the board deleted, not a mistyped link.
    this.knownBefore = rememberedBoards().some((b) => b.id === board && (b.key || "") === (key || ""));
    this.renderQueued = false;
    this.openedFromAddress = false; // the card `&card=ID` names opens at the first welcome only
    this.events = []; // a short log of notable events, for tests and debugging
    this.page = new BoardPage(root, board);
    this.boardEl = this.page.boardEl;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    // Issue 44: the identity and every change not acknowledged are kept in this browser.
    this.store = new OfflineStore({ board, key });
    // Issue 45: an invite in the address is claimed with this browser's device key; a person joins by it.
    this.claim = new InviteClaim({ board, key, invite, address: { get: () => location.href, replace: (href) => history.replaceState(history.state, "", href) } });
    // Every hello asks for the colour this person had on this board before (person.js).
    const connect = (options) => new Connection({ ...options, helloFields: () => ({ ...options.helloFields(), color: rememberedColor(board), ...this.claim.helloFields() }) });
    this.session = new BoardSession({ url: `${scheme}//${location.host}/ws`, board, key, name, store: this.store, connect }, this.#sessionHandlers());
    this.yourName = nameControl({ name: () => this.session.name, rename: (newName) => this.#rename(newName) });
    this.page.actionsEl.after(this.yourName.element);
    const hooks = {
      render: () => this.scheduleRender(),
      renderNow: () => this.renderNow(),
      log: (event) => this.log(event),
      toast: (text, kind) => this.page.toast(text, kind),
      announce: (text) => this.page.announce(text),
    };
    this.#selection = new Selection({ board: () => this.board, announce: hooks.announce, changed: hooks.render });
    this.drags = new DragController({ session: this.session, selection: this.#selection, hooks });
    this.edits = new BoardEdits(this.session);
    this.view = new BoardView(this.boardEl, {
      ownerColor: (clientId) => this.session.members.colorOfClient(clientId),
      isSelected: (id) => this.#selection.has(id),
      selectedIds: () => this.#selection.items,
      // Everything a card's decorations read besides the card: who may edit, the card open in the
      // editor, who edits which card (and their colours and names, which placeholders use too).
      decorationKey: () => {
        const members = this.session.members;
        return JSON.stringify([this.session.canEdit, this.editor.editingId(),
          [...members.edits], [...members.byId.values()].map((m) => [m.id, m.name, m.color]), [...members.colors]]);
      },
      isEditing: (id) => this.editor.isEditing(id),
      decorate: {
        collection: (entry, collection) => {
          this.structure.decorateCollection(entry, collection);
          this.filter.decorateCollection(entry, collection);
        },
        section: (entry, section, collection) => {
          this.structure.decorateSection(entry, section, collection);
          this.editor.decorateSection(entry, section, collection);
        },
        card: (node, item) => {
          this.cardActions?.decorate(node, item);
          this.filter.decorateCard(node, item);
          this.#showEditor(node, item);
          // Viewers cannot lift cards, out of the board either.
          if (!this.session.canEdit) node.querySelector(":scope > .drag-out")?.remove();
        },
        end: (node) => this.structure.decorateEnd(node),
      },
    });
    this.remote = new RemoteLayer(this.view);
    // Search and filters (issue 43): above the board, the filter kept in the address.
    this.filter = new BoardFilter({ view: this.view, board: () => this.board, isEditing: (id) => this.editor.isEditing(id) });
    this.search = new SearchBar({ filter: this.filter, board: () => this.board, busy: () => !!this.drags.state });
    this.boardEl.before(this.search.element);
    const editing = { edits: this.edits, session: this.session, view: this.view, hooks };
    this.editor = new CardEditor(editing);
    this.structure = new StructureEditor(editing);
    this.cardView = new CardView({
      session: this.session,
      edits: this.edits,
      view: this.view,
      hooks: {
        toast: hooks.toast, announce: hooks.announce, cardInAddress: (id) => this.#cardInAddress(id), busy: () => !!this.drags.state,
        // A checklist item dragged in the open card goes to peers with this member's pointer (live proposals).
        checklistDrag: (clientX, clientY, drag) => this.session.joined && this.#sendCursor(clientX, clientY, drag),
      },
      upload: this.#upload(),
    });
    const client = this;
    const trashPage = { get board() { return client.board; }, announce: hooks.announce, toast: hooks.toast };
    this.trashPanel = new TrashPanel({ session: this.session, page: this.page });
    this.trash = new Trash({ drags: this.drags, edits: this.edits, selection: this.#selection, page: trashPage, panel: this.trashPanel });
    this.boardEl.after(this.trash.element);
    this.actions = new BoardActions({ session: this.session, edits: this.edits, page: this.page, busy: () => !!this.drags.state });
    this.membersPanel = new MembersPanel({ session: this.session, page: this.page });
    this.page.actionsEl.append(this.membersPanel.button);
  }

  /** Where this page uploads files: the board, its key, the server's advertised limits. */
  #upload() {
    const claim = this.claim;
    // An invited person uploads with this browser's device key (issue 45), a link's member with its key.
    return { board: this.boardId, key: this.key, get device() { return claim.helloFields().device || null; }, capabilities: () => this.session.capabilities };
  }

  /** R12: "NAME is editing" on a card someone else edits, in their colour. */
  #showEditor(node, item) {
    const editor = this.session.members.editorOf(item.id);
    if (!editor && !node.classList.contains("remote-editing")) return; // the common case, at every render of every card
    let badge = node.querySelector(":scope > .edit-badge");
    node.classList.toggle("remote-editing", !!editor);
    if (!editor) {
      badge?.remove();
      return;
    }
    if (!badge) {
      badge = el("span", { className: "edit-badge", attrs: { role: "status" } });
      node.append(badge);
    }
    badge.textContent = `${editor.name} is editing`;
    const color = this.session.members.byId.get(editor.id)?.color;
    if (color) node.style.setProperty("--editor-color", color);
  }

  /** Peers see the new name at once: the page joins again under it, resuming the same client (R10). */
  #rename(name) {
    this.session.name = name;
    const url = new URL(location.href);
    if (url.searchParams.has("name")) {
      url.searchParams.set("name", name);
      history.replaceState(history.state, "", url);
    }
    if (!this.session.conn) return;
    this.session.conn.name = name;
    if (this.session.conn.state !== "closed") this.session.conn.reconnectNow();
    this.page.announce(`You are now ${name} on this board.`);
  }

  /** Keeps the open card in the address (`&card=ID`), so a reload or a link opens it again. */
  #cardInAddress(id) {
    const url = new URL(location.href);
    if ((url.searchParams.get("card") || null) === id) return;
    if (id) url.searchParams.set("card", id);
    else url.searchParams.delete("card");
    history.replaceState(history.state, "", url);
  }

  start() {
    // An invite cut short or mistyped is said at once: there is nothing to ask the server.
    const problem = inviteShapeProblem(this.claim.invite);
    if (problem) return this.page.showConnection({ state: "closed", refusal: problem }, () => ({}));
    // A stored client of this board that no other tab holds resumes; else this tab joins anew.
    this.store.claim().catch(() => null).then((restored) => this.session.start(restored));
    // Only changes that could not be kept in storage would be lost by closing the page.
    on(window, "beforeunload", (event) => {
      if (!this.session.unkept) return;
      event.preventDefault();
      event.returnValue = "";
    });
    // What every input module may use of the page: its board element, view and board, speech.
    const client = this;
    const page = {
      root: this.boardEl,
      view: this.view,
      get board() {
        return client.board;
      },
      announce: (text) => this.page.announce(text),
      toast: (text, kind) => this.page.toast(text, kind),
      renderNow: () => this.renderNow(),
    };
    const selection = this.#selection;
    const canEdit = () => this.session.canEdit;
    installPointerDrag({ page, drags: this.drags, selection, trash: this.trash, cursor: { ready: () => this.session.joined, send: (x, y) => this.#sendCursor(x, y) } });
    installKeyboard({ page, drags: this.drags, selection, trash: this.trash });
    this.moveTo = installMoveTo({ page, drags: this.drags, edits: this.edits, selection, session: this.session, canEdit, here: { id: this.boardId, title: () => this.board?.title || this.boardId }, boards: this.#otherBoards() });
    this.structure.moveTo = (id) => this.moveTo.collection(id);
    this.cardActions = installCardActions({ page, editor: this.editor, edits: this.edits, selection, canEdit, openCard: (id) => this.cardView.open(id), moveTo: (id) => this.moveTo.cards(id) });
    this.cardView.install(this.boardEl);
    // A card's date badge turns amber, then red, as time passes.
    setInterval(() => this.scheduleRender(), 60000);
    installCollectionDrag({ page, edits: this.edits, canEdit });
    installExternalDrop({
      page,
      drags: this.drags,
      selection,
      content: {
        canDrop: () => !!this.session.replica && this.session.canEdit,
        clientId: () => this.session.clientId,
        submit: (op, options) => this.session.submit(op, options),
        log: (event) => this.log(event),
        upload: this.#upload(),
      },
    });
    on(window, "resize", () => this.scheduleRender());
    on(document, "visibilitychange", () => this.session.presence(document.hidden ? "away" : "active"));
  }

  /** Other boards "Move to…" offers: those this browser remembers as editable, read by a short join. */
  #otherBoards() {
    const url = this.session.url;
    return {
      list: () => rememberedBoards().filter((b, n, all) => roleMay(b.role, "edit") && b.id !== this.boardId && all.findIndex((o) => o.id === b.id && roleMay(o.role, "edit")) === n),
      peek: (board, key) => peekBoard({ url, board, key: key || undefined, name: this.session.name }),
    };
  }

  #sessionHandlers() {
    return {
      connection: ({ state, reason, code, wasOpen }) => {
        // The room ended our drag when the connection dropped; a drag begun offline stays local.
        if (state === "reconnecting" && wasOpen) this.drags.connectionLost();
        const refusal = state === "closed" ? this.#accessInWords(code, reason) || refusalInWords({ code, reason, key: this.key || "", knownBefore: this.knownBefore }) : null;
        this.page.showConnection({ state, reason, code, refusal }, () => ({ retryAt: this.session.retryAt, pending: this.session.pendingCount }));
        if (state === "reconnecting") this.scheduleRender();
      },
      welcome: (w) => {
        this.claim.welcomed(w);
        this.page.showBoard(w.board, w.member.role);
        this.page.setBusy(false);
        this.#showRole();
        this.editor.rejoined();
        this.cardView.rejoined();
        this.#showMembers();
        this.onWelcome?.({ title: w.board.title, role: w.member.role });
        rememberColor(this.boardId, this.session.me?.roomColor || w.member.color);
        this.yourName.show(w.member.name);
        this.renderNow();
        // The card a link or a reload names opens once the board is there.
        const card = new URL(location.href).searchParams.get("card");
        if (card && !this.cardView.isOpen && !this.openedFromAddress) this.cardView.open(card, { fromAddress: true });
        this.openedFromAddress = true;
      },
      changed: ({ now }) => (now ? this.renderNow() : this.scheduleRender()),
      rejected: (envelope, outcome) => {
        const sentence = rejectionInWords(outcome, { envelope, board: this.board, members: this.session.members, maxBoardBytes: this.session.capabilities.maxBoardBytes });
        // What was typed comes back in its editor with the sentence; anything else says it in a toast.
        if (!this.#showRefusal(envelope, sentence)) this.page.toast(sentence, "error");
        this.page.announce(sentence);
      },
      applied: (committed) => {
        this.editor.applied(committed);
        this.cardView.applied(committed);
        this.trashPanel.applied(committed);
      },
      editAnswer: (message) => {
        this.editor.editAnswer(message);
        this.cardView.editAnswer(message);
      },
      edits: (ended) => {
        if (ended) {
          this.editor.leaseEnded(ended);
          this.cardView.leaseEnded(ended);
        }
        this.scheduleRender();
      },
      undoable: () => this.actions.show(),
      undone: (direction) => {
        this.page.announce(direction === "undo" ? "Undone." : "Redone.");
        this.scheduleRender();
      },
      undoRefused: (direction, outcome) => {
        const sentence = undoRefusalInWords(direction, outcome);
        this.page.toast(sentence, "error");
        this.page.announce(sentence);
      },
      refusedMessage: (error, envelope) => {
        const sentence = messageRefusalInWords(error, { envelope });
        if (!this.#showRefusal(envelope, sentence)) this.page.toast(sentence, "error");
        this.page.announce(sentence);
      },
      members: () => this.#showMembers(),
      people: () => this.membersPanel.render(),
      roleChanged: ({ role }, before) => {
        if (role === before) return this.#showRole(); // the share links changed, not the role
        this.page.showBoard({ id: this.boardId, title: this.page.boardTitle() }, role);
        this.#showRole();
        this.#showMembers();
        const badge = role === "admin" ? "an admin" : `${role === "editor" ? "an" : "a"} ${role}`;
        this.page.toast(`An admin made you ${badge} on this board.`, "info");
        this.page.announce(`An admin made you ${badge} on this board.`);
      },
      drags: () => this.scheduleRender(),
      cursor: (member, x, y, checklist) => {
        this.remote.cursor(this.page.cursorLayer, member, x, y);
        this.cardView.peerChecklistDrag(member, checklist);
      },
      left: (id) => {
        this.remote.forget(id);
        this.cardView.peerChecklistDrag({ id }, null);
      },
      granted: (message) => this.drags.granted(message),
      proposal: (message) => this.drags.proposed(message),
      answered: (message) => this.moveTo?.answered(message),
      refusedForGood: ({ code, reason, envelopes }) => {
        const sentence = this.#accessInWords(code, reason) || refusedForGoodInWords(code, envelopes.length, reason);
        this.page.showReadOnly(sentence);
        this.trash.show(false);
        this.actions.show();
        this.page.announce(sentence);
        this.scheduleRender();
        if (envelopes.length) showUnsaved({ sentence, text: unsavedInWords(envelopes) });
      },
      loading: (progress) => this.page.showLoading(progress),
      log: (event) => this.log(event),
    };
  }

  /** What this member's role may do, shown (a welcome, or an admin changed the role: issue 45). */
  #showRole() {
    this.trash.show(this.session.canEdit);
    this.actions.show();
    this.membersPanel.render();
    // An admin's panel hears every change to the board's people.
    if (roleMay(this.session.me?.role, "manageLinks") && !this.session.people.list) this.session.people.refresh();
    this.scheduleRender();
  }

  /** Why this person's access ended or did not begin (issue 45), or null; a browser that is nobody here any more forgets it. */
  #accessInWords(code, reason) {
    const { sentence, forget } = accessInWords({ code, reason, joinError: this.session.joinError, key: this.key, isPerson: this.claim.isPerson });
    if (forget) this.claim.forget();
    return sentence;
  }

  /** A refusal shown where it was made (the open card, the Labels dialog, the card editor); false if nowhere. */
  #showRefusal(envelope, sentence) {
    return this.cardView.rejected(envelope, sentence) || this.actions.rejected(envelope, sentence) || this.editor.rejected(envelope?.opId, sentence);
  }

  // MARK: For tests and debugging (window.corkboard)

  get board() {
    return this.session.board;
  }

  get replica() {
    return this.session.replica;
  }

  get me() {
    return this.session.me;
  }

  get capabilities() {
    return this.session.capabilities;
  }

  get drag() {
    return this.drags.state;
  }

  get selection() {
    return this.#selection.items;
  }

  get lastAnnouncement() {
    return this.page.lastAnnouncement;
  }

  /** Keeps the last few hundred notable events (lifts, drops, applied ops) for tests and debugging. */
  log(event) {
    this.events.push(event);
    if (this.events.length > 500) this.events.splice(0, this.events.length - 500);
  }

  // MARK: Rendering

  #showMembers() {
    this.page.showMembers([...this.session.members.byId.values()], this.session.me, this.session.members.count);
    this.membersPanel?.render();
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
    const board = this.session.board;
    if (!board) return;
    const { byId: members, drags: peerDrags } = this.session.members;
    const remoteLifted = new Map();
    for (const drag of peerDrags.values()) {
      const m = members.get(drag.member);
      if (!m) continue;
      for (const id of drag.items) remoteLifted.set(id, { color: m.color, name: m.name });
    }
    const drag = this.drags.state;
    let dragState = null;
    if (drag) {
      dragState = {
        items: drag.items,
        target: drag.target,
        proposal: this.drags.proposalOf(drag),
        showGap: !!drag.target,
        // A copy (Alt) leaves the originals where they are, so they stay in view.
        hideSources: drag.items.length > 0 && !drag.native && this.drags.proposalOf(drag)?.operation !== "copy",
        keyboard: drag.keyboard,
        gapSize: drag.gapSize,
        gapLabel: drag.keyboard ? drag.label : "",
      };
    }
    const memberOf = (id) => members.get(id);
    this.page.showTitle(board.title);
    this.filter.beginRender(board);
    this.view.render(board, dragState, remoteLifted, this.remote.gaps(peerDrags, memberOf));
    this.remote.drawTargets(board, peerDrags, memberOf);
    this.search.refresh();
    this.editor.afterRender(board);
    this.cardView.afterRender(board);
    this.trashPanel.render();
    this.actions.afterRender();
    this.#markIntoTarget(drag, dragState?.proposal);
    if (drag?.onRender) drag.onRender(dragState);
    document.body.classList.toggle("dragging", !!drag);
    const op = dragState?.proposal?.operation;
    document.body.classList.toggle("drop-forbidden", !!drag && !drag.overTrash && (op === "forbidden" || op === "cancel" || !drag.target));
    document.body.classList.toggle("drop-copy", op === "copy");
  }

  /** Outlines the card a drag would drop into (R7), crossed out where it may not. */
  #markIntoTarget(drag, proposal) {
    this.intoNode?.classList.remove("into-target", "into-forbidden");
    this.intoNode = null;
    if (drag?.target?.intent !== INTO) return;
    const node = this.view.cardElement(drag.target.targetItem);
    if (!node) return;
    const op = proposal?.operation;
    node.classList.add("into-target");
    node.classList.toggle("into-forbidden", op === "forbidden" || op === "cancel");
    this.intoNode = node;
  }

  /** Sends this member's pointer, in board content coordinates (throttled by the caller). */
  #sendCursor(clientX, clientY, checklist) {
    const r = this.boardEl.getBoundingClientRect();
    const x = clientX - r.left + this.boardEl.scrollLeft;
    const y = clientY - r.top + this.boardEl.scrollTop;
    const collection = this.view.collectionAt(clientX, clientY)?.dataset.collection;
    this.session.cursor(Math.round(Math.max(-1e6, Math.min(1e6, x))), Math.round(Math.max(-1e6, Math.min(1e6, y))), collection, checklist);
  }
}
