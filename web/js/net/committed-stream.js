// The committed stream as the page follows it (R10): operations the room committed, applied to
// the replica in seq order, each logged and announced as it applies; a missing seq asks the room
// for the operations after the last one applied (a `sync`, at most one per wait), and an operation
// that does not apply means the replica no longer matches the room: `reload` joins again for a
// snapshot.

import { StreamError } from "../model/replica.js";
import { build } from "./protocol.js";

/** How long a gap waits for its missing seqs before a `sync` asks for them. */
const SYNC_DELAY_MS = 300;

export class CommittedStream {
  /**
   * @param {object} session {replica() (null before the first welcome), emit(name, ...args),
   *   send(message), reload()}
   */
  constructor({ replica, emit, send, reload }) {
    Object.assign(this, { replica, emit, send, reload });
    this.syncTimer = null;
  }

  /** Applies committed operations (an `op`, an ack's outcome, a welcome's or synced's `ops`); `quiet` leaves `changed` to the caller. */
  apply(list, { quiet = false } = {}) {
    const replica = this.replica();
    if (!replica) return;
    let placeholders = false;
    try {
      for (const committed of list) {
        for (const applied of replica.receiveCommitted(committed)) {
          const item = applied.op.item || applied.effect?.changes?.[0]?.item;
          this.emit("log", { event: "applied", seq: applied.seq, kind: applied.op.kind, item, clientId: applied.clientId });
          this.emit("applied", applied);
          if (applied.op.kind === "insertPlaceholder") placeholders = true;
        }
      }
    } catch (error) {
      if (!(error instanceof StreamError)) throw error;
      console.warn(`corkboard: ${error.message}`);
      this.reload();
      return;
    }
    if (replica.hasGap) this.requestSync();
    // A placeholder is shown at once, even when its content follows in the same instant.
    if (!quiet) this.emit("changed", { now: placeholders });
  }

  /** Asks for the operations after the last seq applied, unless a request already waits. */
  requestSync() {
    if (this.syncTimer) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = null;
      const replica = this.replica();
      if (replica) this.send(build.sync({ ref: "sync", lastSeq: replica.confirmedSeq }));
    }, SYNC_DELAY_MS);
  }
}
