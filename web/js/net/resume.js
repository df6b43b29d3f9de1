// How a session joins again as the same client (R10) and keeps what it must not lose (issue 44):
// the resume token and history of its last welcome, the stored record a reopened page resumes
// until its welcome, and the identity and pending operations written to the offline store
// (offline-store.js) each time the pending ones change.

export class Resume {
  /** @param {object|null} store an OfflineStore, or null to keep nothing */
  constructor(store) {
    this.store = store;
    this.restored = null; // the stored record this page resumes, until its welcome
    this.resumeToken = undefined;
    this.history = undefined;
    this.needsSnapshot = false; // the replica no longer matches the room: join again for a snapshot
    this.savedIds = undefined;
  }

  /**
   * The hello's resume fields: the same client (with the token from its welcome) from the last seq
   * applied, in the history that seq counts in (the room answers a changed history with a
   * snapshot); without a replica, the stored client; else none.
   */
  helloFields(replica) {
    if (replica) {
      return this.needsSnapshot
        ? { clientId: replica.clientId, resumeToken: this.resumeToken }
        : { clientId: replica.clientId, resumeToken: this.resumeToken, lastSeq: replica.confirmedSeq, history: this.history };
    }
    return this.restored?.clientId ? { clientId: this.restored.clientId, resumeToken: this.restored.resumeToken } : {};
  }

  /** A welcome: its token and history are the ones to resume with next. */
  welcomed({ resumeToken, history }) {
    this.resumeToken = resumeToken;
    this.history = history;
  }

  /** The first welcome's new replica: the stored operations are pending again (to be resent) on seq `base`. */
  adopt(replica, base) {
    for (const { opId, op, label } of this.restored?.pending || []) replica.pending.push({ opId, base, op, label });
    this.restored = null;
  }

  /** The stored resume token is not this server's: join as a new client, the operations still resent. */
  tokenRefused() {
    if (this.restored) this.restored = { pending: this.restored.pending };
  }

  /** Keeps the identity and the pending operations in the store when the pending ones changed. */
  persist(replica, force = false) {
    if (!this.store || !replica || !this.resumeToken) return;
    const ids = replica.pending.map((p) => p.opId).join(" ");
    if (!force && ids === this.savedIds) return;
    this.savedIds = ids;
    const { clientId, confirmedSeq: lastSeq, pending } = replica;
    this.store.save({ clientId, resumeToken: this.resumeToken, history: this.history, lastSeq, pending });
  }

  /** Whether the store keeps what is pending (closing the page would not lose it). */
  get kept() {
    return !!this.store?.kept;
  }

  /** Forgets the stored record and the one being resumed: the room refused their work for good. */
  forget() {
    this.restored = null;
    this.store?.forget();
    this.savedIds = "";
  }
}
