// The words and numbers of docs/PROTOCOL.md (`corkboard.v1`): the version, the Limits table
// (CorkboardProtocol's ProtocolLimits) and every closed list the document names — message types,
// operation kinds, error and rejection codes, and the values of each enumerated field.

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

export const CLIENT_TYPES = Object.freeze(["hello", "submit", "dragBegin", "dragAdd", "dropUpdate", "drop", "dragEnd", "cursor", "presence", "sync", "ping", "listMembers", "editBegin", "editEnd", "undo", "redo", "activity",
  // People and invites (issue 45): the admin's requests.
  "listPeople", "createInvite", "updateInvite", "setRole", "removePerson", "setLinks", "rotateLinks"]);
export const SERVER_TYPES = Object.freeze([
  "welcome", "ack", "op", "dragGranted", "proposal", "dragStarted", "dragItems", "dragHover", "dragEnded",
  "membersChanged", "memberList", "cursor", "presence", "synced", "pong", "error", "snapshotPart",
  "editGranted", "editRefused", "editStarted", "editEnded", "undoable", "redirect", "activity", "activityPage",
  "people", "roleChanged",
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
  // People and invites (issue 45): an admin's request refused, and a hello refused for its invite, device or key.
  "forbidden", "unknown-person", "unknown-invite", "last-admin",
  "invite-unknown", "invite-expired", "invite-used", "invite-revoked", "removed", "links-off",
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
