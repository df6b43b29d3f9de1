// Undo and redo asked of the room (R13): each is sent under its own opId, answered once (an ack,
// or an error naming it), and asked again under the same opId after a reconnect until then.
// Nothing changes on the page before the answer: the room computes the reverse against the board
// as it is when the request arrives.

import { build } from "./protocol.js";

export class UndoRequests {
  /** @param {(message: object) => boolean} send sends a message; false when it could not go */
  constructor(send) {
    this.send = send;
    this.open = new Map(); // opId → {direction, opId} of requests not answered yet
  }

  /** How many requests wait for their answer. */
  get size() {
    return this.open.size;
  }

  /** Asks for an undo or redo ("undo" or "redo") under `opId`, made on seq `base`. */
  ask(direction, opId, base) {
    this.open.set(opId, { direction, opId });
    this.#send(direction, opId, base);
  }

  /** After a welcome: every request not answered yet, asked again under its opId. */
  askAgain(base) {
    for (const { direction, opId } of this.open.values()) this.#send(direction, opId, base);
  }

  /** The request `opId` answers ({direction, opId}), no longer open; undefined when it is none. */
  answered(opId) {
    const request = this.open.get(opId);
    this.open.delete(opId);
    return request;
  }

  #send(direction, opId, base) {
    const message = { ref: opId, opId, base };
    this.send(direction === "redo" ? build.redo(message) : build.undo(message));
  }
}
