// What every part of the board model shares: the Rejection an operation is refused with, the
// client the server acts as, the ids a board derives for new items, and how an accepts list
// matches types (CorkboardModel's RejectCode, Identifiers and TypeMatching).

export const SYSTEM_CLIENT = "system";

/** A refused operation: `code` is the wire RejectCode, `message` a sentence, `field` the part refused. */
export class Rejection extends Error {
  constructor(code, message, item, field) {
    super(message);
    this.code = code;
    this.item = item;
    this.field = field;
  }
}

/** The id the board gives the n-th new item of an operation: `<clientId>:<opId>:<n>`. */
export function derivedID(clientId, opId, n) {
  return `${clientId}:${opId}:${n}`;
}

/** An accepts entry matches a type when equal to it or a dot-prefix of it. */
export function entryMatches(entry, type) {
  return entry === type || (type.length > entry.length && type.startsWith(entry) && type[entry.length] === ".");
}

/** Whether a type list is accepted (empty accepts takes everything). */
export function acceptsTypes(accepts, types) {
  if (!accepts || accepts.length === 0) return true;
  return types.some((t) => accepts.some((e) => entryMatches(e, t)));
}

/** `i` kept within 0 … n (an index to insert at). */
export const clamp = (i, n) => Math.max(0, Math.min(i, n));

/** Whether a change made on `version` comes too late: the thing it names is at `current` now (R12). */
export const staleVersion = (version, current) => version !== undefined && version !== null && version !== current;
