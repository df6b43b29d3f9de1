// The browser's copy of a board, mirroring CorkboardModel's ClientReplica:
// - `confirmed` is the board at `confirmedSeq`, built only from committed operations in seq order
//   (the `op` stream for other members' operations, the `ack` for our own);
// - `pending` are our operations not yet seen committed, in submission order; `view` is
//   `confirmed` with the pending operations that still apply re-applied on top (rebase);
// - out-of-order commits wait in `waiting` until the gap is filled (the caller asks for a sync).
import { Board } from "./model.js";

export class StreamError extends Error {}

export class Replica {
  constructor(clientId, boardJSON, seq) {
    this.clientId = clientId;
    this.confirmed = Board.fromJSON(boardJSON);
    this.confirmedSeq = seq;
    /** @type {{opId:string, base:number, op:object, label?:string}[]} */
    this.pending = [];
    this.waiting = new Map();
    this.view = this.confirmed;
    this.failed = new Set();
  }

  /** Records a local operation, applies it optimistically and returns its envelope. */
  submitLocal(op, opId, label) {
    const envelope = { opId, base: this.confirmedSeq, op, label };
    this.pending.push(envelope);
    this.rebase();
    return envelope;
  }

  /**
   * Takes a committed operation (from `op`, an `ack`, `welcome.ops` or `synced.ops`).
   * Returns the list of operations applied (possibly several when it filled a gap), and throws
   * StreamError when one does not apply (the replica diverged: reload from a snapshot).
   */
  receiveCommitted(committed) {
    if (committed.seq <= this.confirmedSeq) {
      this.#dropPending(committed.clientId, committed.opId);
      return [];
    }
    this.waiting.set(committed.seq, committed);
    const applied = [];
    while (this.waiting.has(this.confirmedSeq + 1)) {
      const next = this.waiting.get(this.confirmedSeq + 1);
      this.waiting.delete(next.seq);
      try {
        this.confirmed.apply(next.op, next.clientId, next.opId);
        this.confirmed.evict(next.effect?.evicted);
      } catch (error) {
        throw new StreamError(`Committed seq ${next.seq} does not apply here (${error.message}); reload the board.`);
      }
      this.confirmedSeq = next.seq;
      this.#dropPending(next.clientId, next.opId);
      applied.push(next);
    }
    if (applied.length) this.rebase();
    return applied;
  }

  /** Whether commits are waiting behind a gap. */
  get hasGap() {
    return this.waiting.size > 0;
  }

  #dropPending(clientId, opId) {
    if (clientId !== this.clientId) return;
    const index = this.pending.findIndex((p) => p.opId === opId);
    if (index >= 0) this.pending.splice(index, 1);
  }

  /** Drops a pending operation the server rejected; returns it. */
  reject(opId) {
    const index = this.pending.findIndex((p) => p.opId === opId);
    if (index < 0) return undefined;
    const [envelope] = this.pending.splice(index, 1);
    this.rebase();
    return envelope;
  }

  isPending(opId) {
    return this.pending.some((p) => p.opId === opId);
  }

  /** Installs a snapshot (resume without the log), keeping pending operations for resending. */
  reset(boardJSON, seq) {
    this.confirmed = Board.fromJSON(boardJSON);
    this.confirmedSeq = seq;
    this.waiting.clear();
    this.rebase();
  }

  rebase() {
    this.failed = new Set();
    if (this.pending.length === 0) {
      this.view = this.confirmed;
      return;
    }
    const board = this.confirmed.clone();
    for (const envelope of this.pending) {
      try {
        board.apply(envelope.op, this.clientId, envelope.opId);
      } catch {
        this.failed.add(envelope.opId);
      }
    }
    this.view = board;
  }
}
