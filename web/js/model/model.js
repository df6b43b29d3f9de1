// The board model in the browser: a port of CorkboardModel's Board.apply (Board+Apply.swift) and
// Board.proposal (Proposal.swift), so the client can apply the committed stream in seq order and
// show its own pending operations optimistically. Boards are small plain-JSON trees:
//   {title?, labels?, collections:[{id,title,layout,accepts,sections:[{id,title,items:[{id,representations,children?,placeholder?,version?,details?}]}]}]}
// (`title` once the board was renamed; an item's `version` once its content changed, R12; a card's
// `details` once it has a description, dates, done, assignees or labels: card-details.js; the
// board's `labels` [{id, name, color}] while it has some).
// Every method that changes the board either succeeds or throws a Rejection and changes nothing
// (operations run on a clone that replaces the board only when they succeed). Each kind of
// operation is applied in the apply-*.js file named after it, as in CorkboardModel.

import { Rejection, acceptsTypes } from "./board-basics.js";
import { collectionNamed, sectionNamed } from "./destinations.js";
import { applyCopy, applyMove } from "./apply-move.js";
import { applyInsert } from "./apply-insert.js";
import { applyCommitPlaceholder, applyDeletePlaceholder, applyInsertPlaceholder } from "./apply-placeholder.js";
import { applyDelete, applyUpdate } from "./apply-delete.js";
import { applyEmptyTrash, applyRestore } from "./apply-trash.js";
import {
  applyCreateCollection, applyCreateSection, applyDeleteCollection, applyDeleteSection, applyMoveCollection, applyMoveSection,
} from "./apply-structure.js";
import { applyChecklist, applyUpdateCard } from "./apply-card.js";
import { applyAddComment, applyDeleteComment, applyEditComment } from "./apply-comments.js";
import { applyDeleteLabel, applySetLabel } from "./apply-labels.js";

export { Rejection, SYSTEM_CLIENT, acceptsTypes, derivedID, entryMatches } from "./board-basics.js";

/**
 * A deep copy of a board's JSON tree (objects, arrays, strings, numbers, booleans, null), sharing
 * its strings: each operation copies the whole board (apply is all or nothing), and on a board of
 * thousands of cards structuredClone, which copies every string too, cost several times more.
 */
function copyTree(value) {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const copy = new Array(value.length);
    for (let k = 0; k < value.length; k++) copy[k] = copyTree(value[k]);
    return copy;
  }
  const copy = {};
  for (const key in value) if (Object.hasOwn(value, key)) copy[key] = copyTree(value[key]);
  return copy;
}

export class Board {
  constructor(json = { collections: [] }) {
    this.title = json.title ?? undefined;
    this.labels = json.labels || [];
    this.collections = json.collections || [];
    this.trash = json.trash || [];
    this.reindex();
  }

  static fromJSON(json) {
    return new Board(structuredClone(json));
  }

  clone() {
    return new Board(copyTree(this.toJSON()));
  }

  toJSON() {
    const json = {};
    if (this.title !== undefined) json.title = this.title;
    if (this.labels.length) json.labels = this.labels;
    json.collections = this.collections;
    if (this.trash.length) json.trash = this.trash;
    return json;
  }

  /** Rebuilds the id → location index (O(n)). */
  reindex() {
    this.items = new Map();
    this.sections = new Map();
    this.collectionById = new Map();
    for (const collection of this.collections) {
      collection.accepts = collection.accepts || [];
      this.collectionById.set(collection.id, collection);
      for (const section of collection.sections) {
        section.items = section.items || [];
        this.sections.set(section.id, { section, collection });
        const visit = (list, parent) => {
          list.forEach((item) => {
            item.representations = item.representations || [];
            this.items.set(item.id, { item, list, parent, section, collection });
            if (item.children) visit(item.children, item);
          });
        };
        visit(section.items, null);
      }
    }
  }

  item(id) {
    return this.items.get(id)?.item;
  }

  /** Where an item stands: {collection, section, group?, index} or undefined. */
  position(id) {
    const loc = this.items.get(id);
    if (!loc) return undefined;
    const p = { collection: loc.collection.id, section: loc.section.id, index: loc.list.indexOf(loc.item) };
    if (loc.parent) p.group = loc.parent.id;
    return p;
  }

  itemIDs(sectionId) {
    return this.sections.get(sectionId)?.section.items.map((i) => i.id);
  }

  isAncestorOrSelf(ancestorId, id) {
    let loc = this.items.get(id);
    while (loc) {
      if (loc.item.id === ancestorId) return true;
      loc = loc.parent ? this.items.get(loc.parent.id) : undefined;
    }
    return false;
  }

  /** Whether the item, or a group without representations through any descendant, matches. */
  matches(accepts, item) {
    if (!accepts || accepts.length === 0) return true;
    if (acceptsTypes(accepts, item.representations.map((r) => r.type))) return true;
    if (item.representations.length > 0 || !item.children) return false;
    return item.children.some((c) => this.matches(accepts, c));
  }

  /** Applies an operation as `clientId`/`opId`; returns the effect or throws a Rejection. */
  apply(op, clientId, opId) {
    const next = this.clone();
    const effect = next.#apply(op, clientId, opId);
    this.title = next.title;
    this.labels = next.labels;
    this.collections = next.collections;
    this.trash = next.trash;
    this.reindex();
    return effect;
  }

  /** Drops the Trash entries a committed operation evicted (`effect.evicted`, R15). */
  evict(ids) {
    if (!ids || ids.length === 0) return;
    const gone = new Set(ids);
    this.trash = this.trash.filter((e) => !gone.has(e.id));
  }

  /** One operation on this board in place (a clone: `apply` keeps it only when it succeeds). */
  #apply(op, clientId, opId) {
    switch (op.kind) {
      case "move": return applyMove(this, op);
      case "copy": return applyCopy(this, op, clientId, opId);
      case "insert": return applyInsert(this, op, clientId, opId);
      case "insertPlaceholder": return applyInsertPlaceholder(this, op, clientId, opId);
      case "commitPlaceholder": return applyCommitPlaceholder(this, op, clientId);
      case "deletePlaceholder": return applyDeletePlaceholder(this, op, clientId);
      case "delete":
      case "moveOut": return applyDelete(this, op, clientId, opId);
      case "updateItem": return applyUpdate(this, op);
      case "updateCard": return applyUpdateCard(this, op);
      case "setLabel": return applySetLabel(this, op);
      case "addComment": return applyAddComment(this, op, clientId, opId);
      case "editComment": return applyEditComment(this, op, clientId);
      case "deleteComment": return applyDeleteComment(this, op, clientId);
      case "checklist": return applyChecklist(this, op);
      case "deleteLabel": return applyDeleteLabel(this, op);
      case "createCollection": return applyCreateCollection(this, op);
      case "renameCollection": collectionNamed(this, op.collection).title = op.title; return {};
      case "deleteCollection": return applyDeleteCollection(this, op, clientId, opId);
      case "moveCollection": return applyMoveCollection(this, op);
      case "setAccepts": collectionNamed(this, op.collection).accepts = op.accepts || []; return {};
      case "setLayout": collectionNamed(this, op.collection).layout = op.layout; return {};
      case "renameBoard": this.title = op.title; return {};
      case "batch": return this.#batch(op, clientId, opId);
      case "createSection": return applyCreateSection(this, op);
      case "renameSection": sectionNamed(this, op.section).section.title = op.title; return {};
      case "deleteSection": return applyDeleteSection(this, op, clientId, opId);
      case "restore": return applyRestore(this, op, clientId, opId);
      case "emptyTrash": return applyEmptyTrash(this);
      case "moveSection": return applyMoveSection(this, op);
      default:
        throw new Rejection("invalid", `Unknown operation kind ${op.kind}.`);
    }
  }

  /** R13: the parts in order as one operation, all or none (the caller applies on a clone). */
  #batch(op, clientId, opId) {
    if (!op.ops || op.ops.length === 0) throw new Rejection("invalid", "The batch holds no operations.");
    if (op.ops.some((part) => part.kind === "batch" || part.kind === "moveOut")) throw new Rejection("invalid", "A batch may not hold a batch or a moveOut.");
    const effect = { changes: [], skipped: [], removed: [] };
    for (const part of op.ops) {
      const e = this.#apply(part, clientId, opId);
      this.reindex();
      effect.changes.push(...(e.changes || []));
      effect.skipped.push(...(e.skipped || []));
      effect.removed.push(...(e.removed || []));
      if (e.evicted) effect.evicted = [...(effect.evicted || []), ...e.evicted];
    }
    return effect;
  }

  /**
   * What a drop would do (Board.proposal): {operation: cancel|forbidden|move|copy, intent, reason?}.
   * `target.index` is the index in the section's full list (for insertIntoDestinationIndexPath, the item there).
   */
  proposal(items, foreignTypes, target, copyRequested = false, canEdit = true) {
    let intent = target.intent;
    const s = this.sections.get(target.section);
    if (!s || s.collection.id !== target.collection) return { operation: "cancel", intent, reason: "The destination no longer exists." };
    const local = items.filter((id) => this.items.has(id)).map((id) => this.item(id));
    if (local.length === 0 && foreignTypes.length === 0) return { operation: "cancel", intent, reason: "None of the dragged items is left." };
    if (!canEdit) return { operation: "forbidden", intent, reason: "You can only view this board." };
    const copying = copyRequested || foreignTypes.length > 0;
    if (intent === "insertIntoDestinationIndexPath") {
      const into = s.section.items[target.index];
      if (into) {
        if (into.placeholder) return { operation: "forbidden", intent, reason: "A placeholder cannot receive a drop." };
        if (!copying && local.some((item) => this.isAncestorOrSelf(item.id, into.id))) {
          return { operation: "forbidden", intent, reason: "An item cannot be dropped into itself." };
        }
      } else {
        intent = "insertAtDestinationIndexPath";
      }
    }
    const accepts = s.collection.accepts;
    const only = `This collection accepts only ${accepts.join(", ")}.`;
    for (const item of local) {
      if (item.placeholder) return { operation: "forbidden", intent, reason: "A placeholder cannot be dragged." };
      if (!this.matches(accepts, item)) return { operation: "forbidden", intent, reason: only };
    }
    for (const types of foreignTypes) if (!acceptsTypes(accepts, types)) return { operation: "forbidden", intent, reason: only };
    return { operation: copying ? "copy" : "move", intent };
  }
}
