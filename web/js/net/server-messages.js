// Every message the room sends (CorkboardProtocol's ServerMessage and its Codable types), field
// by field: `validateServerMessage` checks one against docs/PROTOCOL.md.

import { DRAG_END_REASONS, DROP_OPERATIONS, EDIT_END_REASONS, ERROR_CODES, INTENTS, PRESENCE_STATES, REJECT_CODES, ROLES } from "./protocol-limits.js";
import {
  ProtocolError, absent, arrayOf, boolean, count, integer, messageCheck, number, object, oneOf, opt, shown, string, tagged,
} from "./field-checks.js";
import { checklistDrag, collection, dragTargetOf, item, labelOf, section } from "./value-checks.js";
import { committed, committedFields } from "./operations.js";
import { PEOPLE_SERVER_FIELDS } from "./people-protocol.js";

// MARK: The values only the room sends

const board = object({ title: opt(string), labels: opt(arrayOf(labelOf(false))), collections: arrayOf(collection) });
const snapshot = object({ version: oneOf([1]), seq: count, board });
const snapshotParts = object({ seq: count, parts: count, bytes: count });
const member = object({ id: string, name: string, color: string, role: oneOf(ROLES), clientId: string });
const boardInfo = object({ id: string, title: string });
const proposal = object({ operation: oneOf(DROP_OPERATIONS), intent: oneOf(INTENTS), reason: opt(string) });
const outcome = tagged("kind", {
  committed: committedFields,
  rejected: { code: oneOf(REJECT_CODES), message: string, field: opt(string), item: opt(string) },
}, "outcome kind");

const serverTarget = dragTargetOf(count, string);
const dragStateFields = {
  session: string,
  member: string,
  items: arrayOf(string),
  external: arrayOf(arrayOf(string)),
  target: opt(serverTarget),
  proposal: opt(proposal),
};

function snapshotEntry(value, path) {
  object({})(value, path);
  if (!absent(value.collections)) return object({ collections: arrayOf(collection) })(value, path);
  if (!absent(value.collection)) return object({ collection: string, sections: arrayOf(section) })(value, path);
  if (!absent(value.section)) return object({ section: string, items: arrayOf(item) })(value, path);
  if (!absent(value.group)) return object({ group: string, items: arrayOf(item) })(value, path);
  throw new ProtocolError(`${shown(path)} names none of collections, collection, section, group.`, path);
}

const editState = object({ item: string, member: string });
const undoable = object({ undo: boolean, redo: boolean });
const activityEntry = object({
  seq: count, at: integer, actor: string, clientId: string, color: string, verb: string, text: string, items: arrayOf(string),
});

// MARK: Messages

const ref = opt(string);

/** The fields of every server message (the Codable types of ServerMessage). */
const SERVER_FIELDS = {
  welcome: {
    ref,
    protocol: integer,
    board: boardInfo,
    member,
    head: count,
    snapshot: opt(snapshot),
    ops: opt(arrayOf(committed)),
    snapshotParts: opt(snapshotParts),
    members: arrayOf(member),
    memberCount: count,
    drags: arrayOf(object(dragStateFields)),
    tickMilliseconds: integer,
    resumeToken: string,
    history: string,
    edits: arrayOf(editState),
    undoable,
    keys: object({ view: string, edit: opt(string), comment: opt(string), admin: opt(string) }),
    names: opt(arrayOf(string)),
  },
  ack: { ref, opId: string, board: opt(string), outcome },
  op: committedFields,
  dragGranted: {
    ref,
    session: string,
    granted: arrayOf(string),
    refused: arrayOf(object({ item: string, code: oneOf(REJECT_CODES), message: string })),
  },
  proposal: { ref, session: string, target: serverTarget, proposal },
  dragStarted: dragStateFields,
  dragItems: { session: string, member: string, items: arrayOf(string) },
  dragHover: { session: string, member: string, target: serverTarget, proposal },
  dragEnded: { session: string, member: string, reason: oneOf(DRAG_END_REASONS), seq: opt(count) },
  membersChanged: { count, joined: arrayOf(member), left: arrayOf(string), more: opt(boolean) },
  memberList: { ref, members: arrayOf(member), count, next: opt(string) },
  cursor: { member: string, x: number, y: number, collection: opt(string), checklist: opt(checklistDrag) },
  presence: { member: string, state: oneOf(PRESENCE_STATES) },
  synced: { ref, head: count, snapshot: opt(snapshot), ops: opt(arrayOf(committed)), snapshotParts: opt(snapshotParts) },
  pong: { ref, head: count },
  error: { ref, code: oneOf(ERROR_CODES), message: string, field: opt(string) },
  snapshotPart: { seq: count, part: count, append: arrayOf(snapshotEntry) },
  redirect: { ref, board: string, url: opt(string), reason: string },
  editGranted: { ref, item: string, version: count },
  editRefused: { ref, item: string, code: oneOf(REJECT_CODES), member: opt(string), message: string },
  editStarted: { item: string, member: string },
  editEnded: { item: string, member: string, reason: oneOf(EDIT_END_REASONS) },
  activity: { entry: activityEntry },
  activityPage: { ref, entries: arrayOf(activityEntry), more: boolean },
  undoable: { undo: boolean, redo: boolean },
  ...PEOPLE_SERVER_FIELDS,
};

/** Checks a server message against the document; returns it or throws a ProtocolError. */
export const validateServerMessage = messageCheck(SERVER_FIELDS, "server");
