// The board operations of docs/PROTOCOL.md ("Board operations"): each kind's fields as the room
// commits them and, with the limits of a client's submit, as the page sends them (BoardOperation,
// ClientOperation); the committed operation with its effect; and `operation`, the builders of
// every operation the page submits.

import { CHECKLIST_ACTIONS, checklistChangeProblem } from "../model/checklists.js";
import { LAYOUTS, LIMITS } from "./protocol-limits.js";
import {
  CLEARED, ProtocolError, absent, arrayOf, boolean, boundedArrayOf, compose, count, fail, integer, join, lazy, number, object,
  oneOf, opt, shown, string, tagged,
} from "./field-checks.js";
import {
  attachment, attachmentList, checklistEntry, comment, commentText, date, description, descriptionValue, destinationOf,
  fileUrls, index, item, itemList, labelIds, labelOf, names, newItem, newSection, position, representation, token,
} from "./value-checks.js";

// MARK: Checks

/** The fields of an updateCard; `client` adds the limits a submit must keep. */
function updateCardFields(client) {
  return {
    item: string,
    description: opt(client ? description : descriptionValue),
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

/** A client's checklist change as a whole: the parts its action needs, in bounds (checklists.js). */
function checklistRules(op, path) {
  const problem = checklistChangeProblem(op);
  if (problem) throw new ProtocolError(`${shown(join(path, problem.field))}: ${problem.message}`, join(path, problem.field));
}

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

const serverOperation = tagged("kind", operationFields(false), "operation kind");
export const clientOperation = tagged("kind", operationFields(true), "operation kind", { updateCard: updateCardRules, checklist: checklistRules });

const effect = object({
  changes: arrayOf(object({ item: string, from: opt(position), to: opt(position) })),
  skipped: arrayOf(string),
  removed: arrayOf(item),
});
export const committedFields = { seq: count, opId: string, clientId: string, op: serverOperation, effect };
export const committed = object(committedFields);

// MARK: Building

/** An operation with optional fields left out when undefined, null or false, checked as a submit's `op`. */
function composeOperation(kind, fields) {
  const op = compose("kind", kind, fields);
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
