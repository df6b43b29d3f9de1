// What a board page keeps in the browser so that nothing made offline is lost with the tab (issue
// 44): its client id, resume token, history and last confirmed seq, and every operation the room
// has not acknowledged, written the moment it is made. A reload, or the tab reopened later, resumes
// the same client (its undo history, R13) and resends those operations with their original opIds,
// so each applies exactly once (R10).
//
// Storage: localStorage, one record per board, key and slot, named
// `corkboard.offline.1:BOARD:HASH:SLOT` (HASH: the share key's FNV-1a, so the key itself is not in
// the name). Slots are claimed per tab — a Web Lock (released by the browser when the tab goes,
// even when it crashes) or, where Web Locks are missing, a heartbeat in storage — so two tabs on
// one board never share a client id: the second tab takes another slot and joins as another
// client. Bounds (OFFLINE_LIMITS): a record over `recordChars` keeps the identity but not the
// operations (the page then warns before it is closed), at most `slots` tabs per board, and at
// most `records` records in all (those holding no operations are forgotten oldest first).
// Anything unreadable in storage is ignored and overwritten, never trusted.

export const OFFLINE_LIMITS = Object.freeze({ recordChars: 512 * 1024, slots: 4, records: 64 });

const PREFIX = "corkboard.offline.1:";
const VERSION = 1;

/** A short stable name for a share key (FNV-1a, 32 bits, hex). */
export function keyHash(key = "") {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** The storage name of one board, key and slot. */
export function recordName(board, key, slot) {
  return `${PREFIX}${board}:${keyHash(key || "")}:${slot}`;
}

const isText = (v) => typeof v === "string" && v.length > 0 && v.length <= 1024;

/** A stored record checked field by field: the record, or null for anything else. */
export function readRecord(text) {
  let r;
  try {
    r = JSON.parse(text);
  } catch {
    return null;
  }
  if (!r || typeof r !== "object" || r.v !== VERSION || !isText(r.clientId) || !isText(r.resumeToken)) return null;
  if (!Number.isSafeInteger(r.lastSeq) || r.lastSeq < 0 || !Array.isArray(r.pending)) return null;
  if (r.history !== undefined && !isText(r.history)) return null;
  const pending = r.pending.filter((p) => p && isText(p.opId) && p.op && typeof p.op === "object" && typeof p.op.kind === "string");
  if (pending.length !== r.pending.length) return null;
  return {
    clientId: r.clientId,
    resumeToken: r.resumeToken,
    history: r.history,
    lastSeq: r.lastSeq,
    pending: pending.map((p) => ({ opId: p.opId, op: p.op, label: typeof p.label === "string" ? p.label : undefined })),
    savedAt: Number.isFinite(r.savedAt) ? r.savedAt : 0,
  };
}

/** Claims through Web Locks: held until released or until the tab is gone. Null without them. */
export function webLockClaims(locks = globalThis.navigator?.locks) {
  if (!locks?.request) return null;
  return {
    claim: (name) =>
      new Promise((resolve) => {
        locks
          .request(name, { ifAvailable: true }, (lock) => {
            if (!lock) return resolve(null);
            return new Promise((release) => resolve({ release }));
          })
          .catch(() => resolve(null));
      }),
  };
}

/**
 * Claims through storage: `NAME.claim` holds {tab, at}, written every `every` ms; a claim not
 * written for `stale` ms is free (its tab crashed). Released when the page is put away.
 */
export function storageClaims(storage, { now = () => Date.now(), every = 2000, stale = 10000, tab = Math.random().toString(36).slice(2) } = {}) {
  const read = (name) => {
    try {
      const c = JSON.parse(storage.getItem(`${name}.claim`));
      return c && typeof c.tab === "string" && Number.isFinite(c.at) ? c : null;
    } catch {
      return null;
    }
  };
  return {
    claim: async (name) => {
      const held = read(name);
      if (held && held.tab !== tab && now() - held.at < stale) return null;
      const write = () => storage.setItem(`${name}.claim`, JSON.stringify({ tab, at: now() }));
      write();
      const timer = every > 0 ? setInterval(write, every) : 0;
      const away = () => {
        if (read(name)?.tab === tab) storage.removeItem(`${name}.claim`);
      };
      globalThis.addEventListener?.("pagehide", away);
      return {
        release: () => {
          clearInterval(timer);
          globalThis.removeEventListener?.("pagehide", away);
          away();
        },
      };
    },
  };
}

function localStorageOrNull() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // storage turned off for this site
  }
}

export class OfflineStore {
  /**
   * @param {object} options {board, key, storage?, claims?, limits?, now?}; `storage` is a Storage
   *   (localStorage by default), `claims` decides which slot this tab may use
   */
  constructor({ board, key, storage = localStorageOrNull(), claims, limits = OFFLINE_LIMITS, now = () => Date.now() }) {
    this.board = board;
    this.key = key || "";
    this.storage = storage;
    this.claims = claims || (storage && (webLockClaims() || storageClaims(storage)));
    this.limits = limits;
    this.now = now;
    this.slot = null;
    this.hold = null;
    /** Whether everything not acknowledged is in storage now (false: closing the page loses it). */
    this.kept = !!storage;
  }

  #name(slot = this.slot) {
    return recordName(this.board, this.key, slot);
  }

  /** The record in a slot, or null when none or unreadable. */
  read(slot = this.slot) {
    if (!this.storage || slot === null) return null;
    let text = null;
    try {
      text = this.storage.getItem(this.#name(slot));
    } catch {
      return null;
    }
    return text === null ? null : readRecord(text);
  }

  /**
   * Claims a slot for this tab and returns what it holds (null for a new client). A free slot
   * with operations waiting comes first, then the lowest free one; with none free this tab keeps
   * nothing (`kept` false).
   */
  async claim() {
    if (!this.storage || !this.claims) return null;
    const order = [...Array(this.limits.slots).keys()].sort((a, b) => (this.read(b)?.pending.length ? 1 : 0) - (this.read(a)?.pending.length ? 1 : 0));
    for (const slot of order) {
      const hold = await this.claims.claim(this.#name(slot));
      if (!hold) continue;
      this.slot = slot;
      this.hold = hold;
      this.#prune();
      return this.read(slot);
    }
    this.kept = false;
    return null;
  }

  /** Gives the slot back (the page is done with this board). */
  release() {
    this.hold?.release();
    this.hold = null;
    this.slot = null;
  }

  /**
   * Writes {clientId, resumeToken, history, lastSeq, pending} (a drag's `session` left out: it ends
   * with the page); returns whether it was all kept. Over the bound, or when storage is full, the
   * operations are left out (the identity stays).
   */
  save({ clientId, resumeToken, history, lastSeq, pending }) {
    if (!this.storage || this.slot === null || !clientId || !resumeToken) {
      this.kept = false;
      return false;
    }
    const record = { v: VERSION, clientId, resumeToken, history, lastSeq, savedAt: this.now() };
    const full = JSON.stringify({ ...record, pending: pending.map(({ opId, op: { session, ...op }, label }) => ({ opId, op, label })) });
    if (full.length <= this.limits.recordChars && this.#write(full)) return (this.kept = true);
    this.#write(JSON.stringify({ ...record, pending: [] }));
    this.kept = pending.length === 0;
    return this.kept;
  }

  /** Forgets the operations kept for this slot (refused for good), keeping nothing else either. */
  forget() {
    try {
      if (this.slot !== null) this.storage?.removeItem(this.#name());
    } catch {
      // Nothing to forget.
    }
  }

  #write(text) {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        this.storage.setItem(this.#name(), text);
        return true;
      } catch {
        // Storage full: make room from records that hold no operations, then try once more.
        if (attempt === 0 && !this.#prune(0)) return false;
      }
    }
    return false;
  }

  /** Keeps at most `keep` records: those without operations go, oldest first; returns how many went. */
  #prune(keep = this.limits.records) {
    const records = [];
    let count = 0;
    try {
      for (let i = 0; i < this.storage.length; i++) {
        const name = this.storage.key(i);
        if (!name?.startsWith(PREFIX) || name.endsWith(".claim") || name === this.#name()) continue;
        count += 1;
        const record = readRecord(this.storage.getItem(name));
        // Unreadable records go first; records with operations waiting stay.
        if (!record) records.push({ name, savedAt: -1 });
        else if (record.pending.length === 0) records.push({ name, savedAt: record.savedAt });
      }
      records.sort((a, b) => a.savedAt - b.savedAt);
      // This slot's own record counts as kept.
      const over = keep === 0 ? records.length : Math.max(0, count + 1 - keep);
      const gone = records.slice(0, over);
      for (const { name } of gone) this.storage.removeItem(name);
      return gone.length;
    } catch {
      return 0;
    }
  }
}
