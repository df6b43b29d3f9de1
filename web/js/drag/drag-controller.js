// The drag model: the one local drag in progress, whichever way it is made (pointer, keyboard,
// content from outside), as the protocol sees it: dragBegin → dropUpdate* → drop | dragEnd, with
// the room's proposals shown as they come (and the local model's guess until then).
//
// Input modules use only this narrow interface:
//   state                          the drag in progress, or null
//   canLift()                      whether this member may lift cards (viewers may not)
//   begin(items, options) → drag   starts a drag (null when nothing can be dragged)
//   add(drag, ids)                 more items join the drag (itemsForAddingTo)
//   hover(drag, target, copy)      the drag hovers over `target` (or nothing); returns the proposal
//   drop(drag, how) → result       drops it (see drop)
//   cancel(drag, message)          ends it without a drop
//   describe(drag)                 "Position 3 of 7 in Found." for announcements
//   refusalOf(drag, proposal)      why it cannot drop there, in words for people
// A drag is a plain object the input module may hang its own hooks on: onRender(state) after each
// render, onRefused(reason) when the room refused every item, onProposal(proposal) when the room
// answered the keyboard's latest hover, and gapSize / label for the view.
import { itemLabel } from "../model/card-content.js";
import { derivedID } from "../model/model.js";
import { operation } from "../net/protocol.js";
import { dragRefusalInWords, dropRefusalInWords } from "../model/words.js";

const INTO = "insertIntoDestinationIndexPath";
const AT = "insertAtDestinationIndexPath";

/** The wire target of a drag target (for drop-into, the index of the item in the full list). */
export function wireTarget(target) {
  return { collection: target.collection, section: target.section, index: target.intent === INTO ? target.fullIndex : target.index, intent: target.intent };
}

/** The destination of a drop at a target (R3: the anchors the sender saw; R7: the item dropped into). */
export function destinationFor(target) {
  if (target.intent === INTO) return { collection: target.collection, section: target.section, index: 0, intent: INTO, target: target.targetItem };
  const d = { collection: target.collection, section: target.section, index: target.index, intent: AT };
  if (target.after) d.after = target.after;
  if (target.before) d.before = target.before;
  return d;
}

function sameTarget(a, b) {
  return !!a && !!b && a.collection === b.collection && a.section === b.section && a.index === b.index && a.intent === b.intent && (a.board || null) === (b.board || null);
}

const refuses = (proposal) => proposal?.operation === "forbidden" || proposal?.operation === "cancel";

export class DragController {
  #drag = null;

  /**
   * @param {object} deps
   *   session    the BoardSession (board, canEdit, replica, clientId, drag messages and submit)
   *   selection  the Selection, forgotten after a drop of it
   *   hooks      {render(), renderNow(), log(event), toast(text, kind), announce(text)}
   */
  constructor({ session, selection, hooks }) {
    Object.assign(this, { session, selection, hooks });
  }

  /** The drag in progress, or null. */
  get state() {
    return this.#drag;
  }

  /** Whether this member may lift cards: viewers and commenters see the board but cannot lift anything (R17). */
  canLift() {
    return this.session.canEdit;
  }

  /** Why this member cannot lift cards, in words. */
  liftRefusal() {
    return this.session.canComment ? "You can comment on this board's cards but not move them." : "You can only view this board.";
  }

  /** Why the drag cannot drop where it is (under `proposal`), in words for people. */
  refusalOf(drag, proposal = this.proposalOf(drag)) {
    return dropRefusalInWords(proposal, { board: this.session.board, items: drag.items, external: drag.external, target: drag.target, canEdit: this.session.canEdit });
  }

  /**
   * Starts a drag of board items and/or external content (one type list per external item).
   * Placeholders and vanished items are left out. Returns the drag, or null when nothing can be
   * dragged or a drag is already in progress.
   */
  begin(items, { keyboard = false, external = [], label, native = false } = {}) {
    const session = this.session;
    if (!session.replica || this.#drag || !this.canLift()) return null;
    const board = session.board;
    items = items.filter((id) => board.item(id) && !board.item(id).placeholder);
    if (items.length === 0 && external.length === 0) return null;
    const drag = {
      session: session.nextDragSession(),
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
    this.#drag = drag;
    session.beginDrag(drag.session, items, external);
    this.hooks.log({ event: "lift", items: [...items] });
    this.hooks.render();
    return drag;
  }

  /** Adds items to the live drag (dragAdd), in order. */
  add(drag, ids) {
    const board = this.session.board;
    const fresh = ids.filter((id) => !drag.items.includes(id) && board.item(id) && !board.item(id).placeholder);
    if (!fresh.length) return;
    drag.items.push(...fresh);
    this.session.addToDrag(drag.session, fresh);
    drag.sentTarget = null;
    this.hover(drag, drag.target, drag.copy);
    this.hooks.announce(`Added ${itemLabel(board.item(fresh[0]))}. Dragging ${drag.items.length} cards.`);
  }

  /**
   * Moves the drag's hover to `target` (null: over nothing); sends dropUpdate when the target or
   * the copy flag changed. Returns the proposal there (the room's once it answered).
   */
  hover(drag, target, copy = false) {
    drag.target = target;
    drag.copy = copy;
    if (target) {
      const wire = wireTarget(target);
      const key = JSON.stringify([wire, copy]);
      if (key !== drag.sentKey) {
        drag.sentKey = key;
        drag.sentTarget = wire;
        drag.serverProposal = null;
        this.session.hover(drag.session, wire, copy);
      }
    }
    this.hooks.render();
    return this.proposalOf(drag);
  }

  /** The room's proposal for the drag's target when it has answered, else the local model's. */
  proposalOf(drag) {
    if (!drag?.target) return null;
    const wire = wireTarget(drag.target);
    if (drag.serverProposal && sameTarget(drag.serverProposalTarget, wire)) return drag.serverProposal;
    return this.session.board.proposal(drag.items, drag.external, wire, drag.copy, this.session.canEdit);
  }

  /**
   * Drops the drag, one of three ways:
   *   drop(drag)                                the items land at the drag's target, moved or
   *                                             copied as the proposal says: applied here at once,
   *                                             sequenced by the room. {ok: true, items, copy, opId},
   *                                             or {ok: false, reason} (the drag is then cancelled).
   *   drop(drag, {operations})                  content from outside: the operations (inserts,
   *                                             placeholders) are submitted in order, the last one
   *                                             finishing the drag. Each is {op, label}, or a
   *                                             function of the opIds submitted before it that
   *                                             returns one. {ok: true, opIds}
   *   drop(drag, {board, key, destination})     on another board of the server (R6): the rooms
   *                                             move the items there. {ok: true, opId}
   */
  drop(drag, how = {}) {
    if (how.operations) return this.#dropOperations(drag, how.operations);
    if (how.board) return this.#dropOnBoard(drag, how);
    if (this.#drag !== drag) return { ok: false, reason: "The drag already ended." };
    const proposal = this.proposalOf(drag);
    if (!drag.target || !proposal || refuses(proposal)) {
      const reason = this.refusalOf(drag, proposal);
      this.cancel(drag);
      return { ok: false, reason };
    }
    const destination = destinationFor(drag.target);
    const copy = proposal.operation === "copy";
    const op = operation[copy ? "copy" : "move"]({ items: [...drag.items], destination });
    const opId = this.session.drop(drag.session, op, { copy, label: drag.label });
    this.#drag = null;
    this.selection.dropped(drag.items);
    this.hooks.log({ event: "drop", opId, items: [...drag.items], destination });
    this.hooks.renderNow();
    const items = copy ? drag.items.map((_, n) => derivedID(this.session.clientId, opId, n)) : drag.items;
    return { ok: true, items, copy, opId };
  }

  #dropOperations(drag, operations) {
    const opIds = [];
    operations.forEach((entry, n) => {
      const { op, label } = typeof entry === "function" ? entry(opIds) : entry;
      opIds.push(this.session.submit(op, { session: n === operations.length - 1 ? drag.session : undefined, label }));
    });
    if (this.#drag === drag) this.#drag = null;
    this.hooks.renderNow();
    return { ok: true, opIds };
  }

  #dropOnBoard(drag, { board, key, destination }) {
    const opId = this.session.dropOnBoard(drag.session, { board, key, destination });
    this.#drag = null;
    this.hooks.render();
    return { ok: true, opId };
  }

  /** Ends the drag without dropping (dragEnd), with an optional message for the user (a refusal unless `kind` says otherwise). */
  cancel(drag, message, kind = "error") {
    if (this.#drag !== drag) return;
    this.session.endDrag(drag.session);
    this.#drag = null;
    this.hooks.log({ event: "cancel", items: [...drag.items] });
    if (message) this.hooks.toast(message, kind);
    this.hooks.renderNow();
  }

  /** "Position 3 of 7 in Favorites" for the drag's target, with what a drop there would do. */
  describe(drag) {
    const t = drag.target;
    if (!t) return "Not over a collection.";
    const board = this.session.board;
    const collection = board.collectionById.get(t.collection);
    const section = board.sections.get(t.section)?.section;
    const where = section?.title || collection?.title || "this collection";
    const proposal = this.proposalOf(drag);
    let text;
    if (t.intent === INTO) {
      text = `Into ${itemLabel(board.item(t.targetItem))} in ${where}.`;
    } else {
      const moving = new Set(drag.items);
      const count = (board.itemIDs(t.section) || []).filter((id) => !moving.has(id)).length + 1;
      text = `Position ${t.index + 1} of ${count} in ${where}.`;
    }
    if (refuses(proposal)) text += ` Cannot drop here: ${this.refusalOf(drag, proposal)}`;
    else if (proposal?.operation === "copy") text += " Drops a copy.";
    return text;
  }

  // MARK: The room's answers (from the session)

  /** dragGranted: items another drag holds leave ours; with none left the drag ends. */
  granted(message) {
    const drag = this.#drag;
    if (!drag || drag.session !== message.session || !message.refused.length) return;
    const refused = new Set(message.refused.map((r) => r.item));
    const reason = dragRefusalInWords(message.refused[0], { board: this.session.board, members: this.session.members });
    drag.items = drag.items.filter((id) => !refused.has(id));
    this.hooks.toast(reason, "error");
    if (drag.items.length === 0 && drag.external.length === 0) {
      this.#drag = null;
      drag.onRefused?.(reason);
      this.hooks.announce(`Cannot lift: ${reason}`);
    }
    this.hooks.render();
  }

  /** proposal: the room's answer to our latest hover. */
  proposed(message) {
    const drag = this.#drag;
    if (drag?.session !== message.session) return;
    drag.serverProposal = message.proposal;
    drag.serverProposalTarget = message.target;
    this.hooks.render();
    if (drag.keyboard && sameTarget(message.target, drag.sentTarget)) drag.onProposal?.(message.proposal);
  }

  /** The connection dropped: the room ended our drag with it. */
  connectionLost() {
    if (this.#drag) this.cancel(this.#drag, "The connection dropped, so the drag was cancelled; try again once it is back.", "info");
  }
}
