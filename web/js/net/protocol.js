// The wire protocol of docs/PROTOCOL.md (`corkboard.v1`) in one module: every message the page
// sends is built here, every message it receives is checked here, and JSON is written and read
// only here. It mirrors CorkboardProtocol: the field lists follow its Codable types, the limits
// its ProtocolLimits and MessageValidation. Tests/js/protocol.test.mjs checks every json example
// of docs/PROTOCOL.md against this module.
//
// Builders take the fields of a message, leave out optional ones that are undefined, null or
// false, check the result against the document's limits and throw a ProtocolError when it breaks
// one (a bug in the page: the server would refuse it with `invalid-field`). `decode` turns a frame
// into a checked server message or says which field is wrong.

import { CARD_LIMITS, LABEL_COLORS, characterCount, commentTextProblem } from "../model/card-details.js";
import { CHECKLIST_ACTIONS, checklistChangeProblem } from "../model/checklists.js";
import { PEOPLE_CLIENT_TYPES, PEOPLE_ERROR_CODES, PEOPLE_SERVER_TYPES, peopleMessages } from "./people-protocol.js";

export const SUBPROTOCOL = "corkboard.v1";
export const PROTOCOL_VERSION = 1;

/** The Limits table of docs/PROTOCOL.md (CorkboardProtocol's ProtocolLimits). */
export const LIMITS = Object.freeze({
  version: 1,
  maxTokenBytes: 128,
  reservedOpIdCharacter: "@",
  maxNameCharacters: 64,
  welcomeMembers: 32,
  rosterJoins: 32,
  memberListPage: 200,
  activityPage: 100,
  maxItemsPerDrag: 1000,
  maxExternalItems: 100,
  maxIndex: 1000000,
  maxCoordinate: 1000000,
  maxNewSections: 100,
});

export const CLIENT_TYPES = Object.freeze(["hello", "submit", "dragBegin", "dragAdd", "dropUpdate", "drop", "dragEnd", "cursor", "presence", "sync", "ping", "listMembers", "editBegin", "editEnd", "undo", "redo", "activity", ...PEOPLE_CLIENT_TYPES]);
export const SERVER_TYPES = Object.freeze([
  "welcome", "ack", "op", "dragGranted", "proposal", "dragStarted", "dragItems", "dragHover", "dragEnded",
  "membersChanged", "memberList", "cursor", "presence", "synced", "pong", "error", "snapshotPart",
  "editGranted", "editRefused", "editStarted", "editEnded", "undoable", "redirect", "activity", "activityPage",
  ...PEOPLE_SERVER_TYPES,
]);
export const OPERATION_KINDS = Object.freeze([
  "move", "copy", "insert", "insertPlaceholder", "commitPlaceholder", "deletePlaceholder", "delete", "moveOut",
  "updateItem", "createCollection", "renameCollection", "deleteCollection", "moveCollection", "setAccepts",
  "setLayout", "createSection", "renameSection", "deleteSection", "moveSection", "renameBoard", "batch", "updateCard",
  "setLabel", "deleteLabel", "addComment", "editComment", "deleteComment", "checklist", "restore", "emptyTrash",
]);
export const ERROR_CODES = Object.freeze([
  "bad-json", "unknown-type", "missing-field", "invalid-field", "not-joined", "already-joined",
  "unsupported-protocol", "unknown-board", "bad-key", "unknown-session", "rate-limited", "internal",
  ...PEOPLE_ERROR_CODES,
]);
export const REJECT_CODES = Object.freeze([
  "forbidden", "gone", "destination-gone", "cycle", "locked", "invalid", "read-only", "not-owner", "duplicate-id",
  "not-found", "store-failed", "conflict", "too-large",
]);
export const INTENTS = Object.freeze(["unspecified", "insertAtDestinationIndexPath", "insertIntoDestinationIndexPath"]);
export const DROP_OPERATIONS = Object.freeze(["cancel", "forbidden", "move", "copy"]);
export const PRESENCE_STATES = Object.freeze(["active", "idle", "away"]);
export const DRAG_END_REASONS = Object.freeze(["dropped", "cancelled", "expired", "disconnected"]);
export const ROLES = Object.freeze(["admin", "editor", "commenter", "viewer"]);
export const LAYOUTS = Object.freeze(["grid", "list"]);
export const EDIT_END_REASONS = Object.freeze(["saved", "cancelled", "expired", "disconnected", "gone"]);

/** A message that breaks the document: `field` is the dotted path of the offending field. */
export class ProtocolError extends Error {
  constructor(message, field) {
    super(message);
    this.name = "ProtocolError";
    this.field = field;
  }
}

// MARK: Checks
// A check is a function (value, path) that throws a ProtocolError naming the path.

const shown = (path) => `"${path || "message"}"`;

function fail(path, expected, value) {
  const got = value === undefined ? "nothing" : JSON.stringify(value)?.slice(0, 60);
  throw new ProtocolError(`${shown(path)} must be ${expected}, got ${got}.`, path);
}

const join = (path, key) => (path ? `${path}.${key}` : String(key));
const absent = (value) => value === undefined || value === null;

function string(value, path) {
  if (typeof value !== "string") fail(path, "a string", value);
}

function boolean(value, path) {
  if (typeof value !== "boolean") fail(path, "true or false", value);
}

function number(value, path) {
  if (typeof value !== "number" || !Number.isFinite(value)) fail(path, "a number", value);
}

function integer(value, path) {
  if (!Number.isInteger(value)) fail(path, "an integer", value);
}

function count(value, path) {
  if (!Number.isInteger(value) || value < 0) fail(path, "an integer of at least 0", value);
}

const oneOf = (values) => (value, path) => {
  if (!values.includes(value)) fail(path, `one of ${values.join(", ")}`, value);
};

const arrayOf = (check) => (value, path) => {
  if (!Array.isArray(value)) fail(path, "an array", value);
  value.forEach((element, n) => check(element, join(path, n)));
};

/** An object with these fields (each a check; wrap optional ones in `optional`); others are ignored. */
const object = (fields) => (value, path) => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(path, "an object", value);
  for (const [key, check] of Object.entries(fields)) {
    const field = join(path, key);
    if (value[key] === undefined && !check.isOptional) throw new ProtocolError(`The field ${shown(field)} is required.`, field);
    check(value[key], field);
  }
};

/** An optional field: absent or null means left out. */
function opt(check) {
  const wrapped = (value, path) => {
    if (!absent(value)) check(value, path);
  };
  wrapped.isOptional = true;
  return wrapped;
}

/** An array of at most `max` elements, each passing `check`. */
const boundedArrayOf = (check, max, what) => (value, path) => {
  arrayOf(check)(value, path);
  if (value.length > max) fail(path, `at most ${max} ${what}`, value.length);
};

/** For recursive types. */
const lazy = (make) => (value, path) => make()(value, path);

// Limits of client messages (MessageValidation).

const utf8Length = (text) => new TextEncoder().encode(text).length;

function token(value, path) {
  string(value, path);
  if (value.length === 0 || utf8Length(value) > LIMITS.maxTokenBytes) fail(path, `1 to ${LIMITS.maxTokenBytes} bytes long`, value);
}

function opId(value, path) {
  token(value, path);
  if (value.includes(LIMITS.reservedOpIdCharacter)) fail(path, `free of "${LIMITS.reservedOpIdCharacter}" (reserved for drops across boards)`, value);
}

/** An integer from `min` to `max`. */
const integerIn = (min, max) => (value, path) => {
  integer(value, path);
  if (value < min || value > max) fail(path, `an integer from ${min} to ${max}`, value);
};

function index(value, path) {
  if (!Number.isInteger(value) || value < 0 || value > LIMITS.maxIndex) fail(path, `an integer between 0 and ${LIMITS.maxIndex}`, value);
}

const itemList = boundedArrayOf(token, LIMITS.maxItemsPerDrag, "items");


function name(value, path) {
  string(value, path);
  const trimmed = value.trim();
  if (trimmed.length === 0 || characterCount(trimmed) > LIMITS.maxNameCharacters) fail(path, `1 to ${LIMITS.maxNameCharacters} characters after trimming`, value);
}

/** hello.color: a lowercase #rrggbb (the server gives it when it is a free palette colour). */
function memberColor(value, path) {
  string(value, path);
  if (!/^#[0-9a-f]{6}$/.test(value)) fail(path, "a lowercase #rrggbb colour", value);
}

function coordinate(value, path) {
  number(value, path);
  if (Math.abs(value) > LIMITS.maxCoordinate) fail(path, `within ±${LIMITS.maxCoordinate}`, value);
}

// Card details (issue 41): the limits of docs/PROTOCOL.md's card table.

/** A date: whole milliseconds since 1970 UTC, 0 … 253402300799999. */
const date = integerIn(0, CARD_LIMITS.maxDate);

function assignee(value, path) {
  string(value, path);
  if (value.trim().length === 0 || characterCount(value) > CARD_LIMITS.assigneeCharacters) {
    fail(path, `a name of 1 to ${CARD_LIMITS.assigneeCharacters} characters, not blank`, value);
  }
}

function description(value, path) {
  object({ text: string, version: opt(count) })(value, path);
  if (utf8Length(value.text) > CARD_LIMITS.descriptionBytes) fail(join(path, "text"), `at most ${CARD_LIMITS.descriptionBytes} UTF-8 bytes`, `${utf8Length(value.text)} bytes`);
}

const names = boundedArrayOf(assignee, CARD_LIMITS.namesPerList, "names");

function labelName(value, path) {
  string(value, path);
  if (characterCount(value) > CARD_LIMITS.labelNameCharacters) fail(path, `at most ${CARD_LIMITS.labelNameCharacters} characters`, value);
}

/** A label of the board (Label): its id, name (may be empty) and colour. */
const labelOf = (client) => object({ id: client ? token : string, name: client ? labelName : string, color: oneOf(LABEL_COLORS) });
const labelIds = boundedArrayOf(token, CARD_LIMITS.labels, "label ids");

/** A comment's text as a client may send it: 1 to 16,384 UTF-8 bytes, not blank. */
function commentText(value, path) {
  string(value, path);
  const problem = commentTextProblem(value);
  if (problem) fail(path, `not blank and at most ${CARD_LIMITS.commentBytes} UTF-8 bytes`, value.length > 60 ? `${utf8Length(value)} bytes` : value);
}

/** A file attached to a card (Attachment): where it is served, its name, media type and size. */
const attachment = object({ url: string, name: string, type: string, bytes: count });
const attachmentList = boundedArrayOf(attachment, CARD_LIMITS.attachments, "attachments");
const fileUrls = boundedArrayOf(string, CARD_LIMITS.attachments, "file urls");

/** A comment in a card's thread (Comment). */
const comment = object({ id: string, author: string, name: string, at: integer, text: string, version: opt(count) });

/** An item of a checklist (Checklist.Entry). */
const checklistEntry = object({ id: string, text: string, done: opt(boolean) });

/** The checklist item a cursor drags in an open card, and where it would land (ChecklistDrag). */
const checklistDrag = object({ item: string, checklist: string, entry: string, index: opt(count) });

/** A client's checklist change as a whole: the parts its action needs, in bounds (checklists.js). */
function checklistRules(op, path) {
  const problem = checklistChangeProblem(op);
  if (problem) throw new ProtocolError(`${shown(join(path, problem.field))}: ${problem.message}`, join(path, problem.field));
}

/** The fields of an updateCard; `client` adds the limits a submit must keep. */
function updateCardFields(client) {
  return {
    item: string,
    description: opt(client ? description : object({ text: string, version: opt(count) })),
    dates: opt(object({ due: opt(client ? date : integer), start: opt(client ? date : integer), version: opt(count) })),
    done: opt(boolean),
    assign: opt(client ? names : arrayOf(string)),
    unassign: opt(client ? names : arrayOf(string)),
    addLabels: opt(client ? labelIds : arrayOf(string)),
    removeLabels: opt(client ? labelIds : arrayOf(string)),
    attach: opt(client ? attachmentList : arrayOf(attachment)),
    detach: opt(client ? fileUrls : arrayOf(string)),
    cover: opt(string),
  };
}

/** A client's updateCard as a whole: at least one part, no name both assigned and unassigned. */
function updateCardRules(op, path) {
  const parts = ["description", "dates", "done", "assign", "unassign", "addLabels", "removeLabels", "attach", "detach", "cover"].filter((k) => !absent(op[k]));
  if (parts.length === 0) throw new ProtocolError(`${shown(path)} must change something: description, dates, done, assign, unassign, addLabels, removeLabels, attach, detach or cover.`, path);
  const both = (op.assign || []).filter((name) => (op.unassign || []).includes(name));
  if (both.length) fail(join(path, "unassign"), "free of names also in assign", both[0]);
  const label = (op.addLabels || []).filter((id) => (op.removeLabels || []).includes(id));
  if (label.length) fail(join(path, "removeLabels"), "free of labels also in addLabels", label[0]);
  const file = (op.attach || []).filter((a) => (op.detach || []).includes(a.url));
  if (file.length) fail(join(path, "detach"), "free of files also in attach", file[0].url);
}

// MARK: Common types

const representation = object({ type: string, value: string });
const details = object({
  description: opt(string),
  descriptionVersion: opt(count),
  due: opt(integer),
  start: opt(integer),
  datesVersion: opt(count),
  done: opt(boolean),
  assignees: opt(arrayOf(string)),
  labels: opt(arrayOf(string)),
  comments: opt(arrayOf(comment)),
  attachments: opt(arrayOf(attachment)),
  cover: opt(string),
});
const item = object({
  id: string,
  representations: arrayOf(representation),
  children: opt(lazy(() => arrayOf(item))),
  placeholder: opt(object({ owner: string, createdAt: number })),
  version: opt(count),
  details: opt(details),
});
const section = object({ id: string, title: string, items: arrayOf(item) });
const collection = object({ id: string, title: string, layout: oneOf(LAYOUTS), accepts: arrayOf(string), sections: arrayOf(section) });
const board = object({ title: opt(string), labels: opt(arrayOf(labelOf(false))), collections: arrayOf(collection) });
const snapshot = object({ version: oneOf([1]), seq: count, board });
const snapshotParts = object({ seq: count, parts: count, bytes: count });
const position = object({ collection: string, section: string, group: opt(string), index: count });
const member = object({ id: string, name: string, color: string, role: oneOf(ROLES), clientId: string });
const boardInfo = object({ id: string, title: string });
const proposal = object({ operation: oneOf(DROP_OPERATIONS), intent: oneOf(INTENTS), reason: opt(string) });

/** Destination and DragTarget, with the index checked against the limits in client messages. */
const destinationOf = (indexCheck, idCheck) =>
  object({
    collection: string,
    section: string,
    index: indexCheck,
    after: opt(idCheck),
    before: opt(idCheck),
    intent: oneOf(INTENTS),
    target: opt(idCheck),
  });
const dragTargetOf = (indexCheck, boardCheck) =>
  object({ board: opt(boardCheck), collection: string, section: string, index: indexCheck, intent: oneOf(INTENTS) });

const newItem = object({ id: opt(string), representations: arrayOf(representation), children: opt(lazy(() => arrayOf(newItem))), version: opt(count), details: opt(details) });
const newSection = object({ id: string, title: opt(string) });

/** The board operations by kind; `client` adds the limits a client's submit must keep. */
function operationFields(client) {
  const items = client ? itemList : arrayOf(string);
  const at = client ? index : count;
  const destination = destinationOf(at, string);
  const session = opt(client ? token : string);
  return {
    move: { items, destination, session },
    copy: { items, destination },
    insert: {
      items: client ? boundedArrayOf(newItem, LIMITS.maxItemsPerDrag, "items") : arrayOf(newItem),
      destination,
      // Made by the room for cards arriving from another board: the labels they carry.
      labels: opt(arrayOf(labelOf(client))),
    },
    insertPlaceholder: { destination, representations: opt(arrayOf(representation)), createdAt: opt(number) },
    commitPlaceholder: { item: string, representations: arrayOf(representation) },
    deletePlaceholder: { item: string },
    // `name` and `at` (who and when, for the Trash, R15) are the room's.
    delete: client ? { items, session } : { items, session, name: opt(string), at: opt(integer) },
    moveOut: { items, session, name: opt(string), at: opt(integer) },
    updateItem: { item: string, representations: arrayOf(representation), version: opt(count) },
    createCollection: {
      id: string,
      title: opt(string),
      layout: opt(oneOf(LAYOUTS)),
      accepts: opt(arrayOf(string)),
      index: opt(at),
      sections: opt(client ? boundedArrayOf(newSection, LIMITS.maxNewSections, "sections") : arrayOf(newSection)),
    },
    renameCollection: { collection: string, title: string },
    deleteCollection: client ? { collection: string } : { collection: string, name: opt(string), at: opt(integer) },
    moveCollection: { collection: string, index: at },
    setAccepts: { collection: string, accepts: arrayOf(string) },
    setLayout: { collection: string, layout: oneOf(LAYOUTS) },
    createSection: { collection: string, id: string, title: opt(string), index: opt(at) },
    renameSection: { section: string, title: string },
    deleteSection: client ? { section: string } : { section: string, name: opt(string), at: opt(integer) },
    // A Trash entry's id is "<clientId>:<opId>", which may be longer than a token (R15).
    restore: client ? { entry: string } : { entry: string, at: opt(integer) },
    emptyTrash: {},
    moveSection: { section: string, index: at },
    renameBoard: { title: opt(string) },
    updateCard: updateCardFields(client),
    setLabel: { label: labelOf(client), index: opt(at) },
    // A client's addComment has no `restore` or `index` (the room writes them for an undo), and
    // `name` and `at` are the room's too.
    addComment: client
      ? { item: token, text: commentText }
      : { item: string, text: string, name: opt(string), at: opt(integer), restore: opt(comment), index: opt(count) },
    // A comment's id is "<clientId>:<opId>", which may be longer than a token.
    editComment: { item: client ? token : string, comment: string, text: client ? commentText : string, version: opt(count) },
    deleteComment: { item: client ? token : string, comment: string },
    deleteLabel: { label: client ? token : string },
    checklist: {
      item: client ? token : string,
      checklist: string,
      action: oneOf(CHECKLIST_ACTIONS),
      entry: opt(string),
      name: opt(string),
      text: opt(string),
      done: opt(boolean),
      index: opt(count),
      from: opt(string),
      restore: opt(arrayOf(checklistEntry)),
    },
    // Made by the server only (undo and redo); a client's batch is refused.
    ...(client ? {} : { batch: { ops: arrayOf(lazy(() => serverOperation)) } }),
  };
}

/** A tagged union: `kinds` maps each tag to its fields; `rules` adds whole-value checks for some tags. */
const tagged = (tag, kinds, label, rules = {}) => {
  const checks = Object.fromEntries(Object.entries(kinds).map(([kind, fields]) => [kind, object(fields)]));
  return (value, path) => {
    object({ [tag]: string })(value, path);
    const check = checks[value[tag]];
    if (!check) fail(join(path, tag), `a known ${label} (${Object.keys(kinds).join(", ")})`, value[tag]);
    check(value, path);
    rules[value[tag]]?.(value, path);
  };
};

const serverOperation = tagged("kind", operationFields(false), "operation kind");
const clientOperation = tagged("kind", operationFields(true), "operation kind", { updateCard: updateCardRules, checklist: checklistRules });

const effect = object({
  changes: arrayOf(object({ item: string, from: opt(position), to: opt(position) })),
  skipped: arrayOf(string),
  removed: arrayOf(item),
});
const committedFields = { seq: count, opId: string, clientId: string, op: serverOperation, effect };
const committed = object(committedFields);
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

const ref = opt(string);
const editState = object({ item: string, member: string });
const undoable = object({ undo: boolean, redo: boolean });
const activityEntry = object({
  seq: count, at: integer, actor: string, clientId: string, color: string, verb: string, text: string, items: arrayOf(string),
});

const clientRef = opt(token);
/** People, invites and the links row (issue 45): people-protocol.js, made of these checks. */
const PEOPLE = peopleMessages({ object, opt, string, boolean, count, number, oneOf, arrayOf, token, name, roles: ROLES, ref: clientRef });

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
  ...PEOPLE.server,
};

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
    ...PEOPLE.hello,
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
  ...PEOPLE.client,
};

const clientChecks = Object.fromEntries(Object.entries(CLIENT_FIELDS).map(([type, fields]) => [type, object(fields)]));
const serverChecks = Object.fromEntries(Object.entries(SERVER_FIELDS).map(([type, fields]) => [type, object(fields)]));

function check(message, checks, direction) {
  object({ type: string })(message, "");
  const checkType = checks[message.type];
  if (!checkType) throw new ProtocolError(`"${message.type}" is not a ${direction} message type.`, "type");
  checkType(message, "");
  return message;
}

/** Checks a client message against the document; returns it or throws a ProtocolError. */
export function validateClientMessage(message) {
  check(message, clientChecks, "client");
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

/** Checks a server message against the document; returns it or throws a ProtocolError. */
export function validateServerMessage(message) {
  return check(message, serverChecks, "server");
}

// MARK: Building client messages

/** The message with optional fields left out when undefined, null or false. */
function compose(type, fields) {
  const message = { type };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null || value === false) continue;
    message[key] = value;
  }
  return validateClientMessage(message);
}

/** Builds every message the page sends; each returns a checked message object. */
export const build = Object.freeze({
  /** Joins a board; `clientId`, `resumeToken`, `lastSeq` and `history` resume (R10). */
  hello: ({ ref, board, key, name, clientId, lastSeq, resumeToken, history, color, invite, device }) =>
    compose("hello", { ref, protocol: PROTOCOL_VERSION, board, name, clientId, resumeToken, lastSeq, history, key, color, invite, device }),
  /** Submits one board operation. */
  submit: ({ ref, opId, base, op, session }) => compose("submit", { ref, opId, base, op, session }),
  /** Starts a drag of board items and/or content from outside (one type list per item). */
  dragBegin: ({ ref, session, items, external }) => compose("dragBegin", { ref, session, items, external: external?.length ? external : undefined }),
  /** Adds items to a live drag. */
  dragAdd: ({ ref, session, items }) => compose("dragAdd", { ref, session, items }),
  /** Reports where a live drag hovers. */
  dropUpdate: ({ ref, session, target, copy, key }) => compose("dropUpdate", { ref, session, target, copy, key }),
  /** Drops a live drag at a destination, on this board or on `board`. */
  drop: ({ ref, session, opId, base, destination, copy, board, key }) =>
    compose("drop", { ref, session, opId, base, destination, copy, board, key }),
  /** Ends a live drag without a drop. */
  dragEnd: ({ ref, session }) => compose("dragEnd", { ref, session }),
  /** Moves this member's pointer. */
  cursor: ({ x, y, collection, checklist }) => compose("cursor", { x, y, collection, checklist }),
  /** Changes this member's presence state. */
  presence: ({ state }) => compose("presence", { state }),
  /** Asks for the operations after `lastSeq`. */
  sync: ({ ref, lastSeq }) => compose("sync", { ref, lastSeq }),
  /** Asks for a pong with the head. */
  ping: ({ ref }) => compose("ping", { ref }),
  /** Asks for members by id, or for a page of members after `after`. */
  listMembers: ({ ref, ids, after, limit }) => compose("listMembers", { ref, ids, after, limit }),
  /** Takes or refreshes the edit lease on an item (R12). */
  editBegin: ({ ref, item }) => compose("editBegin", { ref, item }),
  /** Gives an edit lease back without saving. */
  editEnd: ({ ref, item }) => compose("editEnd", { ref, item }),
  /** Reverses this client's newest operation (R13); answered by an ack under `opId`. */
  undo: ({ ref, opId, base }) => compose("undo", { ref, opId, base }),
  /** Makes this client's newest undone operation again (R13). */
  redo: ({ ref, opId, base }) => compose("redo", { ref, opId, base }),
  /** Asks for a page of the activity feed (newest first, before seq `before`, about card `item`); `live` starts or stops new entries. */
  activity: ({ ref, before, item, limit, live }) => {
    const message = compose("activity", { ref, before, item, limit, live });
    if (live === false) message.live = false; // compose leaves a plain false out
    return validateClientMessage(message);
  },
  ...PEOPLE.builders(compose),
});

/** A `false` an operation keeps (composeOperation leaves plain `false` out). */
const CLEARED = Symbol("false");

/** An operation with optional fields left out when undefined, null or false, checked as a submit's `op`. */
function composeOperation(kind, fields) {
  const op = { kind };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null || value === false) continue;
    op[key] = value === CLEARED ? false : value;
  }
  clientOperation(op, "op");
  return op;
}

/**
 * Builds the board operations the page submits (docs/PROTOCOL.md, "Board operations"); each
 * returns an operation checked as the `op` of a `submit`, or throws a ProtocolError.
 */
export const operation = Object.freeze({
  move: ({ items, destination, session }) => composeOperation("move", { items, destination, session }),
  copy: ({ items, destination }) => composeOperation("copy", { items, destination }),
  /** New items (NewItems without ids: the board derives them from the opId). */
  insert: ({ items, destination }) => composeOperation("insert", { items, destination }),
  insertPlaceholder: ({ destination, representations = [] }) => composeOperation("insertPlaceholder", { destination, representations, createdAt: 0 }),
  commitPlaceholder: ({ item, representations }) => composeOperation("commitPlaceholder", { item, representations }),
  deletePlaceholder: ({ item }) => composeOperation("deletePlaceholder", { item }),
  /** Deletes items (with their children) in one operation. */
  delete: ({ items }) => composeOperation("delete", { items }),
  /** Replaces an item's content, made on `version` (R12: refused `conflict` when it moved past it). */
  updateItem: ({ item, representations, version }) => composeOperation("updateItem", { item, representations, version }),
  /** A collection, with its first sections in the same operation (one undo). */
  createCollection: ({ id, title, layout, accepts, index, sections }) => composeOperation("createCollection", { id, title, layout, accepts, index, sections }),
  renameCollection: ({ collection, title }) => composeOperation("renameCollection", { collection, title }),
  deleteCollection: ({ collection }) => composeOperation("deleteCollection", { collection }),
  moveCollection: ({ collection, index }) => composeOperation("moveCollection", { collection, index }),
  setAccepts: ({ collection, accepts }) => composeOperation("setAccepts", { collection, accepts }),
  setLayout: ({ collection, layout }) => composeOperation("setLayout", { collection, layout }),
  renameBoard: ({ title }) => composeOperation("renameBoard", { title }),
  createSection: ({ collection, id, title, index }) => composeOperation("createSection", { collection, id, title, index }),
  renameSection: ({ section, title }) => composeOperation("renameSection", { section, title }),
  deleteSection: ({ section }) => composeOperation("deleteSection", { section }),
  moveSection: ({ section, index }) => composeOperation("moveSection", { section, index }),
  /**
   * Changes a card's details (issue 41): any of `description` {text, version}, `dates` {due?,
   * start?, version} (a date left out clears it), `done`, `assign` and `unassign` (names), `addLabels` and `removeLabels`,
   * `attach` (Attachments) and `detach` (their urls), `cover` (an attached image's url, "" for
   * none). `done: false` is kept (it clears the flag); empty lists are left out.
   */
  updateCard: ({ item, description, dates, done, assign, unassign, addLabels, removeLabels, attach, detach, cover }) =>
    composeOperation("updateCard", {
      item,
      description,
      dates,
      done: done === false ? CLEARED : done,
      assign: assign?.length ? assign : undefined,
      unassign: unassign?.length ? unassign : undefined,
      addLabels: addLabels?.length ? addLabels : undefined,
      removeLabels: removeLabels?.length ? removeLabels : undefined,
      attach: attach?.length ? attach : undefined,
      detach: detach?.length ? detach : undefined,
      cover,
    }),
  /** Creates one of the board's labels ({id, name, color}) at `index`, or renames and recolours one. */
  setLabel: ({ label, index }) => composeOperation("setLabel", { label, index }),
  /** Deletes one of the board's labels, taking it off every card. */
  deleteLabel: ({ label }) => composeOperation("deleteLabel", { label }),
  /** Appends a comment (markdown) to a card's thread. */
  addComment: ({ item, text }) => composeOperation("addComment", { item, text }),
  /** The author's new text for their comment, made on its `version`. */
  editComment: ({ item, comment, text, version }) => composeOperation("editComment", { item, comment, text, version }),
  /** The author deletes their comment. */
  deleteComment: ({ item, comment }) => composeOperation("deleteComment", { item, comment }),
  /**
   * One change to a card's checklists (docs/PROTOCOL.md "checklist"): `action` is add, rename or
   * delete (a checklist) or addItem, check, renameItem, deleteItem or moveItem (one item, `entry`).
   * `done: false` is kept (it unchecks).
   */
  checklist: ({ item, checklist, action, entry, name, text, done, index, from }) =>
    composeOperation("checklist", { item, checklist, action, entry, name, text, done: done === false ? CLEARED : done, index, from }),
  /** Puts a Trash entry back where it was (R15). */
  restore: ({ entry }) => composeOperation("restore", { entry }),
  /** Empties the board's Trash for good. */
  emptyTrash: () => composeOperation("emptyTrash", {}),
});

// MARK: JSON

/** The one place a client message becomes JSON: checks it, then writes it. */
export function encode(message) {
  return JSON.stringify(validateClientMessage(message));
}

/**
 * The one place a frame becomes a server message: `{message}` when it is JSON and a valid server
 * message, else `{error}` (a ProtocolError saying what is wrong).
 */
export function decode(text) {
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    return { error: new ProtocolError("The frame is not JSON.", "") };
  }
  try {
    return { message: validateServerMessage(message) };
  } catch (error) {
    if (error instanceof ProtocolError) return { error };
    throw error;
  }
}
