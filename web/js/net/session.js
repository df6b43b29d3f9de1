// One board's session with the room: the connection, the replica and everything the protocol
// says about them. It joins (hello → welcome), resumes after a drop from the last seq it applied
// (R10, resume.js) and resends what the room has not acknowledged, follows boards sent in parts
// (R14, snapshot-parts.js), applies committed operations in seq order (asking for a sync when a seq
// is missing: committed-stream.js), and hands what it hears of the other members to `members`
// (members.js), of undo and redo to `undoRequests` (undo-requests.js), of the activity feed to
// `activity` (activity-requests.js). Every message goes out through protocol.js.
//
// It draws nothing: it tells its owner what changed through `handlers` (all optional; the
// Members handlers too: members, drags, cursor, left, log):
//   connection({state, reason, wasOpen})  the socket opened, dropped or closed
//   welcome(welcome)                       joined (again); the board is installed
//   changed({now})                         the board shown changed; `now` asks for an immediate render
//   rejected(envelope, outcome)            the room refused one of our operations (it went back)
//   applied(committed)                     a committed operation was applied to the board, in seq order
//   refusedMessage(error, envelope)        the room refused one of our operations as a message (an
//                                          `error`, not an ack: a field over a limit); it went back
//   granted(dragGranted), proposal(proposal)   answers to our own drag (for the drag controller)
//   editAnswer(editGranted | editRefused)  the answer to our editBegin (R12)
//   edits(editEnded?)                      someone began or stopped editing a card (from Members)
//   undoable({undo, redo})                 what our Undo and Redo can do now (R13)
//   undone(direction, committed)           our undo or redo committed ("undo" or "redo")
//   undoRefused(direction, outcome)        our undo or redo was refused; outcome.message says why
//   loading(null | {assembler, begun})     a board arriving in parts: begun, progress, or done
//   answered({opId, outcome})              every answer to one of our opIds (an ack, or an error naming
//                                          it), after it was applied (Move to… waits on one)
//   refusedForGood({code, reason, envelopes})  the room will never take our pending work (4003, or
//                                          now a viewer): it was dropped and forgotten; read-only now
//   people(list | null), roleChanged({role, keys})  the board's people (admins; net/people.js) and
//                                          this member's new role, in force at once (issue 45)
// A `store` (offline-store.js) keeps the identity and pending operations in the browser (issue 44).
import { Connection } from "./connection.js";
import { Members } from "./members.js";
import { People } from "./people.js";
import { roleMay, roleMayDo } from "../model/roles.js";
import { Replica } from "../model/replica.js";
import { PartsTransfer } from "./snapshot-parts.js";
import { build, LIMITS } from "./protocol.js";
import { ActivityRequests } from "./activity-requests.js";
import { UndoRequests } from "./undo-requests.js";
import { Resume } from "./resume.js";
import { CommittedStream } from "./committed-stream.js";
import { readCapabilities } from "./capabilities.js";

export class BoardSession {
  /**
   * @param {object} options {url, board, key, name, connect?}; `connect(options)` makes the
   *   connection (a Connection by default; tests pass one that records what it was sent)
   * @param {object} handlers what the owner is told (see above)
   */
  constructor({ url, board, key, name, store = null, connect = (options) => new Connection(options) }, handlers = {}) {
    this.connect = connect;
    this.resume = new Resume(store);
    this.refused = null; // {code, reason} once the room refused our work for good
    this.url = url;
    this.boardId = board;
    this.key = key;
    this.name = name;
    this.handlers = handlers;
    this.replica = null;
    // Members mentioned but not known yet (a big board's welcome lists only some) are fetched.
    this.members = new Members({ ...handlers, need: (ids) => this.#askForMembers(ids) });
    // Issue 45: the board's people, for admins; `joinError` is why the last hello was refused.
    this.people = new People({ send: (message) => this.#send(message), changed: (list) => this.#peopleChanged(list) });
    this.joinError = null;
    this.capabilities = {};
    this.state = "connecting";
    this.parts = new PartsTransfer((name, ...args) => this.#emit(name, ...args)); // R14
    this.stream = new CommittedStream({
      replica: () => this.replica,
      emit: (name, ...args) => this.#emit(name, ...args),
      send: (message) => this.#send(message),
      reload: () => this.#reloadFromSnapshot(),
    });
    this.sessionCounter = 0;
    this.opCounter = 0;
    this.prefix = Math.random().toString(36).slice(2, 8);
    this.undoable = { undo: false, redo: false };
    this.keys = null; // welcome.keys: what this member may put in share links
    this.undoRequests = new UndoRequests((message) => this.#send(message));
    this.activity = new ActivityRequests((message) => this.#send(message), () => `activity-${++this.opCounter}`);
  }

  /** Joins; with `restored` (a stored record), as that client, its operations resent after the welcome. */
  start(restored = null) {
    this.resume.restored = restored;
    this.conn = this.connect({
      url: this.url,
      board: this.boardId,
      key: this.key,
      name: this.name,
      helloFields: () => this.resume.helloFields(this.replica), // R10
      beforeHello: async () => {
        this.capabilities = (await readCapabilities()) ?? this.capabilities;
      },
    });
    this.conn.addEventListener("message", (e) => this.#receive(e.detail));
    this.conn.addEventListener("state", (e) => this.#connectionState(e.detail));
    this.conn.start();
  }

  #emit(name, ...args) {
    this.handlers[name]?.(...args);
  }

  // MARK: State

  /** The board as shown: confirmed plus our pending operations. */
  get board() {
    return this.replica?.view;
  }

  get clientId() {
    return this.replica?.clientId;
  }

  /** This connection as a member (from the last welcome). */
  get me() {
    return this.members.me;
  }

  /** Whether this member may change the board (admins and editors, R17). */
  get canEdit() {
    return !this.refused && roleMay(this.me?.role, "edit");
  }

  /** Whether this member may comment on cards (admins, editors and commenters). */
  get canComment() {
    return !this.refused && roleMay(this.me?.role, "comment");
  }

  /** Whether this member may undo and redo its own changes (everyone but viewers). */
  get canUndo() {
    return !this.refused && roleMay(this.me?.role, "undo");
  }

  get joined() {
    return !!this.conn?.joined;
  }

  /** Our operations not acknowledged yet (a stored record's, until its welcome). */
  get #pending() {
    return (this.replica || this.resume.restored)?.pending || [];
  }

  get pendingCount() {
    return this.#pending.length;
  }

  /** Whether closing the page now would lose changes (they could not be kept in storage). */
  get unkept() {
    return this.pendingCount > 0 && !this.resume.kept;
  }

  /** The room will never take our pending work: drop it, forget it, and stop editing. */
  #refuseForGood(code, reason) {
    const envelopes = [...this.#pending];
    this.refused = { code, reason };
    if (this.replica) {
      this.replica.pending = [];
      this.replica.rebase();
    }
    this.resume.forget();
    this.#emit("refusedForGood", { code, reason, envelopes });
    this.#emit("changed", { now: false });
  }

  get retryAt() {
    return this.conn?.retryAt;
  }

  nextOpId() {
    this.opCounter += 1;
    return `op-${this.prefix}-${this.opCounter}`;
  }

  nextDragSession() {
    this.sessionCounter += 1;
    return `d${this.sessionCounter}-${this.prefix}`;
  }

  // MARK: Sending

  #send(message) {
    return this.conn?.send(message) ?? false;
  }

  /** Asks the room for members by id (at most a page at a time). */
  #askForMembers(ids) {
    for (let start = 0; start < ids.length; start += LIMITS.memberListPage) {
      this.#send(build.listMembers({ ref: `members-${++this.opCounter}`, ids: ids.slice(start, start + LIMITS.memberListPage) }));
    }
  }

  /** Submits an operation: applied here at once, sent now or resent after the next welcome. */
  submit(op, { session, label } = {}) {
    const opId = this.#applyLocal(op, label);
    this.#send(build.submit({ ref: opId, opId, base: this.replica.confirmedSeq, op, session }));
    this.#emit("changed", { now: false });
    return opId;
  }

  /** A new operation of ours, applied here at once and kept (pending until its ack); its opId. */
  #applyLocal(op, label) {
    const opId = this.nextOpId();
    this.replica.submitLocal(op, opId, label);
    this.resume.persist(this.replica);
    return opId;
  }

  beginDrag(session, items, external) {
    this.#send(build.dragBegin({ ref: session, session, items, external }));
  }

  addToDrag(session, items) {
    this.#send(build.dragAdd({ ref: session, session, items }));
  }

  hover(session, target, copy) {
    this.#send(build.dropUpdate({ session, target, copy }));
  }

  /** Drops a drag as `op` (its move or copy): applied here at once, sequenced by the room. */
  drop(session, op, { copy, label }) {
    const opId = this.#applyLocal(op, label);
    this.#send(build.drop({ ref: opId, session, opId, base: this.replica.confirmedSeq, destination: op.destination, copy }));
    return opId;
  }

  /** Drops a drag on another board of the server (R6): the rooms move the items there. */
  dropOnBoard(session, { board, key, destination }) {
    const opId = this.nextOpId();
    this.#send(build.drop({ ref: opId, session, opId, base: 0, destination, board, key }));
    return opId;
  }

  endDrag(session) {
    this.#send(build.dragEnd({ session }));
  }

  /** Takes or refreshes the edit lease on an item (R12); answered through `editAnswer`. */
  editBegin(item) {
    return this.#send(build.editBegin({ ref: `edit-${++this.opCounter}`, item }));
  }

  /** Gives the edit lease on an item back without saving. */
  editEnd(item) {
    return this.#send(build.editEnd({ item }));
  }

  /**
   * Asks the room to undo (or redo) this client's newest operation (R13). Nothing changes here
   * before the ack: the room computes the reverse against the board as it is now. Returns the
   * opId; sent again with the same opId after a reconnect until it is answered.
   */
  undo(direction = "undo") {
    if (!this.replica) return null;
    const opId = this.nextOpId();
    this.undoRequests.ask(direction, opId, this.replica.confirmedSeq);
    return opId;
  }

  redo() {
    return this.undo("redo");
  }

  /** Asks for a page of the activity feed (issue 43, newest first); `answer(page)` gets the `activityPage`, or `{error}`. */
  activityPage({ before, item, limit }, answer) {
    this.activity.page({ before, item, limit }, answer);
  }

  /** Hears each new activity entry as it happens, until the returned function is called. */
  watchActivity(listener) {
    return this.activity.watch(listener);
  }

  /** This member's pointer; `checklist` ({item, checklist, entry, index?}) while it drags a checklist item. */
  cursor(x, y, collection, checklist) {
    this.#send(build.cursor({ x, y, collection, checklist }));
  }

  presence(state) {
    this.#send(build.presence({ state }));
  }

  // MARK: Connection

  #connectionState({ state, reason, code }) {
    const wasOpen = this.state === "open";
    this.state = state;
    if (state !== "open") this.parts.stop();
    if (state === "reconnecting" && wasOpen) this.members.disconnected();
    if (state !== "open") this.people.disconnected();
    this.#emit("connection", { state, reason, code, wasOpen });
    // 4003: the key opens no role (links rotated) or the board is gone; 1008 closed for good: rotated while joined.
    // A link that never worked here is only the connection's banner; one this page or browser used is a refusal.
    if (state === "closed" && [4003, 4004, 1008].includes(code) && (this.replica || this.resume.restored)) this.#refuseForGood(code, reason);
  }

  // MARK: Receiving

  #receive(message) {
    this.#handle(message);
    this.resume.persist(this.replica);
  }

  #handle(message) {
    // R14: while a board arrives in parts, everything else waits for it, in order. A welcome is
    // the first message of a new socket: whatever the old one was loading is gone.
    if (message.type === "welcome") this.parts.stop();
    if (this.parts.holds(message) || this.parts.begins(message)) return;
    if (this.members.receive(message) || this.activity.receive(message) || this.people.receive(message)) return;
    switch (message.type) {
      case "snapshotPart": return this.#snapshotPart(message);
      case "welcome": return this.#welcome(message);
      case "ack": return this.#ack(message);
      case "op": return this.stream.apply([message]);
      case "synced":
        if (message.snapshot) this.replica.reset(message.snapshot.board, message.snapshot.seq);
        return this.stream.apply(message.ops || []);
      case "dragGranted": return this.#emit("granted", message);
      case "editGranted":
      case "editRefused": return this.#emit("editAnswer", message);
      case "undoable":
        this.undoable = { undo: message.undo, redo: message.redo };
        return this.#emit("undoable", this.undoable);
      case "proposal": return this.#emit("proposal", message);
      case "pong":
        if (this.replica && message.head > this.replica.confirmedSeq) this.stream.requestSync();
        return;
      case "error": return this.#error(message);
      case "roleChanged": return this.#roleChanged(message);
    }
  }

  #snapshotPart(part) {
    const done = this.parts.add(part, this.conn.lastMessageSize || 0);
    if (done?.failed) {
      console.warn(`corkboard: ${done.failed.message}; loading the board again`);
      this.#reloadFromSnapshot();
      return;
    }
    if (!done) return;
    const { announcement, waiting, snapshot } = done;
    if (announcement.type === "welcome") {
      this.#welcome({ ...announcement, snapshot });
    } else {
      this.#receive({ ...announcement, snapshotParts: undefined, snapshot });
    }
    for (const message of waiting) this.#receive(message);
  }

  #welcome(w) {
    this.joinError = null;
    this.resume.welcomed(w);
    this.keys = w.keys || null;
    this.undoable = w.undoable || { undo: false, redo: false };
    this.members.welcome(w);
    // A new connection hears new activity again only when asked (the old one's wish went with it).
    this.activity.rejoined();
    if (!this.replica) {
      this.replica = new Replica(w.member.clientId, w.snapshot.board, w.snapshot.seq);
      // Operations kept from an earlier page of this client are pending again, to be resent.
      this.resume.adopt(this.replica, w.snapshot.seq);
      this.replica.rebase();
      this.resume.persist(this.replica, true);
    } else {
      if (w.snapshot) {
        this.replica.reset(w.snapshot.board, w.snapshot.seq);
        this.resume.needsSnapshot = false;
      }
      this.stream.apply(w.ops || [], { quiet: true });
    }
    // Rights lost while away (the link now opens the board for viewing or commenting): what the role
    // may no longer do cannot go, so nothing pending goes (it was made in one order).
    if (this.replica.pending.some((p) => !roleMayDo(w.member.role, p.op))) this.#refuseForGood(0, w.member.role === "viewer" ? "read-only" : "forbidden");
    // R10: resend what the room has not acknowledged; opIds make it safe.
    for (const envelope of this.replica.pending) {
      const op = { ...envelope.op };
      delete op.session;
      this.#send(build.submit({ ref: envelope.opId, opId: envelope.opId, base: this.replica.confirmedSeq, op }));
    }
    // R13: an undo or redo not answered yet is asked again under its opId (answered once).
    this.undoRequests.askAgain(this.replica.confirmedSeq);
    this.#emit("log", { event: "welcome", seq: this.replica.confirmedSeq, resumed: !!w.ops });
    this.#emit("welcome", w);
    this.#emit("undoable", this.undoable);
  }

  #reloadFromSnapshot() {
    // The replica no longer matches the room: join again without lastSeq to get a snapshot.
    this.resume.needsSnapshot = true;
    this.conn.reconnectNow();
  }

  #ack(message) {
    this.#applyAck(message);
    this.#emit("answered", message);
  }

  #applyAck(message) {
    const outcome = message.outcome;
    const undo = this.undoRequests.answered(message.opId);
    if (undo) {
      if (outcome.kind === "committed") {
        this.stream.apply([outcome]);
        this.#emit("undone", undo.direction, outcome);
      } else {
        this.#emit("log", { event: `${undo.direction}-refused`, opId: message.opId, code: outcome.code });
        this.#emit("undoRefused", undo.direction, outcome);
      }
      return;
    }
    if (outcome.kind === "committed") {
      if (message.board && message.board !== this.boardId) {
        this.replica.reject(message.opId);
        this.#emit("changed", { now: false });
        return;
      }
      this.stream.apply([outcome]);
      return;
    }
    const envelope = this.replica.reject(message.opId);
    this.#emit("log", { event: "rejected", opId: message.opId, code: outcome.code });
    this.#emit("rejected", envelope, outcome);
    this.#emit("changed", { now: false });
  }

  /** The admins' list of people changed; rotated links come with their new keys (for Share). */
  #peopleChanged(list) {
    if (list?.keys) this.keys = { ...this.keys, ...list.keys };
    this.#emit("people", list);
  }

  /** An admin changed this person's role (issue 45): in force at once, the page shows only its controls. */
  #roleChanged(message) {
    const before = this.members.me?.role;
    this.keys = message.keys || null;
    if (this.members.me) this.members.me.role = message.role;
    if (!roleMay(message.role, "manageLinks")) this.people.clear();
    this.#emit("roleChanged", message, before);
    this.#emit("changed", { now: false });
  }

  #error(message) {
    if (this.activity.refused(message) || this.people.refused(message)) return;
    // The hello was refused (an invite used up, expired or disabled, a removed person…): the close follows.
    if (message.ref === "hello" && !this.conn?.joined) this.joinError = message;
    this.#applyError(message);
    if (message.ref) this.#emit("answered", { opId: message.ref, outcome: { kind: "rejected", code: message.code, message: message.message } });
  }

  #applyError(message) {
    const undo = message.ref && this.undoRequests.answered(message.ref);
    if (undo) {
      this.#emit("undoRefused", undo.direction, { kind: "rejected", code: message.code, message: `Could not ${undo.direction}: ${message.message}` });
      return;
    }
    if (message.ref && this.replica?.isPending(message.ref)) {
      const envelope = this.replica.reject(message.ref);
      this.#emit("refusedMessage", message, envelope);
      this.#emit("changed", { now: false });
      return;
    }
    if (message.code === "unknown-session") return; // the drag already ended on the server
    if (!this.replica && message.field === "resumeToken") this.resume.tokenRefused();
    console.warn(`corkboard: server error ${message.code}: ${message.message}`);
  }
}
