// Every message the page sends (CorkboardProtocol's ClientMessage), field by field with the limits
// of MessageValidation: `validateClientMessage` checks one, and `build` makes each, leaving out
// optional fields that are undefined, null or false and throwing a ProtocolError when the result
// breaks a limit (a bug in the page: the server would refuse it with `invalid-field`).

import { LIMITS, PRESENCE_STATES, PROTOCOL_VERSION } from "./protocol-limits.js";
import {
  CLEARED, ProtocolError, arrayOf, boolean, boundedArrayOf, compose, count, integerIn, messageCheck, oneOf, opt, string,
} from "./field-checks.js";
import { checklistDrag, coordinate, destinationOf, dragTargetOf, index, itemList, memberColor, name, opId, token } from "./value-checks.js";
import { clientOperation } from "./operations.js";
import { PEOPLE_CLIENT_FIELDS, PEOPLE_HELLO_FIELDS, peopleBuilders } from "./people-protocol.js";

// MARK: Checks

const clientRef = opt(token);
const clientTarget = dragTargetOf(index, token);

/** The fields of every client message (ClientMessage), with the limits of MessageValidation. */
const CLIENT_FIELDS = {
  hello: {
    ref: clientRef,
    protocol: oneOf([PROTOCOL_VERSION]),
    board: token,
    key: opt(token),
    name,
    clientId: opt(token),
    lastSeq: opt(count),
    resumeToken: opt(token),
    history: opt(token),
    color: opt(memberColor),
    ...PEOPLE_HELLO_FIELDS,
  },
  submit: { ref: clientRef, opId, base: count, op: clientOperation, session: opt(token) },
  dragBegin: {
    ref: clientRef,
    session: token,
    items: itemList,
    external: opt(boundedArrayOf(arrayOf(string), LIMITS.maxExternalItems, "type lists")),
  },
  dragAdd: { ref: clientRef, session: token, items: itemList },
  dropUpdate: { ref: clientRef, session: token, target: clientTarget, copy: opt(boolean), key: opt(token) },
  drop: {
    ref: clientRef,
    session: token,
    opId,
    base: count,
    destination: destinationOf(index, string),
    copy: opt(boolean),
    board: opt(token),
    key: opt(token),
  },
  dragEnd: { ref: clientRef, session: token },
  cursor: { x: coordinate, y: coordinate, collection: opt(string), checklist: opt(checklistDrag) },
  presence: { state: oneOf(PRESENCE_STATES) },
  sync: { ref: clientRef, lastSeq: count },
  ping: { ref: clientRef },
  listMembers: {
    ref: clientRef,
    ids: opt(boundedArrayOf(token, LIMITS.memberListPage, "member ids")),
    after: opt(token),
    limit: opt(integerIn(1, LIMITS.memberListPage)),
  },
  editBegin: { ref: clientRef, item: token },
  editEnd: { ref: clientRef, item: token },
  undo: { ref: clientRef, opId, base: count },
  redo: { ref: clientRef, opId, base: count },
  activity: {
    ref: clientRef,
    before: opt(integerIn(1, Number.MAX_SAFE_INTEGER)),
    item: opt(token),
    limit: opt(integerIn(1, LIMITS.activityPage)),
    live: opt(boolean),
  },
  ...PEOPLE_CLIENT_FIELDS,
};

const checkClientMessage = messageCheck(CLIENT_FIELDS, "client");

/** Checks a client message against the document; returns it or throws a ProtocolError. */
export function validateClientMessage(message) {
  checkClientMessage(message);
  if (message.type === "dragBegin" && message.items.length === 0 && !message.external?.length) {
    throw new ProtocolError("A drag needs at least one item or external item.", "items");
  }
  if (message.type === "dragAdd" && message.items.length === 0) throw new ProtocolError("dragAdd needs at least one item.", "items");
  if (message.type === "listMembers") {
    if (message.ids && message.after) throw new ProtocolError("Ask for members by ids or for a page after a member, not both.", "after");
    if (message.ids && message.ids.length === 0) throw new ProtocolError("Ask for 1 to 200 members at a time.", "ids");
  }
  return message;
}

// MARK: Building

/** The message with optional fields left out when undefined, null or false, checked. */
function composeMessage(type, fields) {
  return validateClientMessage(compose("type", type, fields));
}

/** Builds every message the page sends; each returns a checked message object. */
export const build = Object.freeze({
  /** Joins a board; `clientId`, `resumeToken`, `lastSeq` and `history` resume (R10). */
  hello: ({ ref, board, key, name, clientId, lastSeq, resumeToken, history, color, invite, device }) =>
    composeMessage("hello", { ref, protocol: PROTOCOL_VERSION, board, name, clientId, resumeToken, lastSeq, history, key, color, invite, device }),
  /** Submits one board operation. */
  submit: ({ ref, opId, base, op, session }) => composeMessage("submit", { ref, opId, base, op, session }),
  /** Starts a drag of board items and/or content from outside (one type list per item). */
  dragBegin: ({ ref, session, items, external }) => composeMessage("dragBegin", { ref, session, items, external: external?.length ? external : undefined }),
  /** Adds items to a live drag. */
  dragAdd: ({ ref, session, items }) => composeMessage("dragAdd", { ref, session, items }),
  /** Reports where a live drag hovers. */
  dropUpdate: ({ ref, session, target, copy, key }) => composeMessage("dropUpdate", { ref, session, target, copy, key }),
  /** Drops a live drag at a destination, on this board or on `board`. */
  drop: ({ ref, session, opId, base, destination, copy, board, key }) =>
    composeMessage("drop", { ref, session, opId, base, destination, copy, board, key }),
  /** Ends a live drag without a drop. */
  dragEnd: ({ ref, session }) => composeMessage("dragEnd", { ref, session }),
  /** Moves this member's pointer. */
  cursor: ({ x, y, collection, checklist }) => composeMessage("cursor", { x, y, collection, checklist }),
  /** Changes this member's presence state. */
  presence: ({ state }) => composeMessage("presence", { state }),
  /** Asks for the operations after `lastSeq`. */
  sync: ({ ref, lastSeq }) => composeMessage("sync", { ref, lastSeq }),
  /** Asks for a pong with the head. */
  ping: ({ ref }) => composeMessage("ping", { ref }),
  /** Asks for members by id, or for a page of members after `after`. */
  listMembers: ({ ref, ids, after, limit }) => composeMessage("listMembers", { ref, ids, after, limit }),
  /** Takes or refreshes the edit lease on an item (R12). */
  editBegin: ({ ref, item }) => composeMessage("editBegin", { ref, item }),
  /** Gives an edit lease back without saving. */
  editEnd: ({ ref, item }) => composeMessage("editEnd", { ref, item }),
  /** Reverses this client's newest operation (R13); answered by an ack under `opId`. */
  undo: ({ ref, opId, base }) => composeMessage("undo", { ref, opId, base }),
  /** Makes this client's newest undone operation again (R13). */
  redo: ({ ref, opId, base }) => composeMessage("redo", { ref, opId, base }),
  /** Asks for a page of the activity feed (newest first, before seq `before`, about card `item`); `live` starts or stops new entries. */
  activity: ({ ref, before, item, limit, live }) =>
    composeMessage("activity", { ref, before, item, limit, live: live === false ? CLEARED : live }),
  ...peopleBuilders(composeMessage),
});
