// The board model in the browser: a port of CorkboardModel's Board.apply (Apply.swift) and
// Board.proposal (Proposal.swift), so the client can apply the committed stream in seq order and
// show its own pending operations optimistically. Boards are small plain-JSON trees:
//   {title?, labels?, collections:[{id,title,layout,accepts,sections:[{id,title,items:[{id,representations,children?,placeholder?,version?,details?}]}]}]}
// (`title` once the board was renamed; an item's `version` once its content changed, R12; a card's
// `details` once it has a description, dates, done, assignees or labels: card-details.js; the
// board's `labels` [{id, name, color}] while it has some).
// Every method that changes the board either succeeds or throws a Rejection and changes nothing
// (operations run on a copy that replaces the board only when they succeed).
// Structural sharing: that copy shares every section's items with the board it came from until the
// operation changes them (copy on write, #own), and nothing ever changes a shared item or list in
// place. So an operation replaces the `items` of only the sections it touched, and a section whose
// `items` is the array drawn last is the same (board-view.js draws only the sections that changed).

import { runsOf, trashID, withoutPlaceholders } from "./trash.js";
import { applyChecklistChange, checklistChangeProblem } from "./checklists.js";
import { CARD_LIMITS, attachmentsProblem, characterCount, commentTextProblem, compactDetails, detailsOf, updateProblem } from "./card-details.js";

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

const clamp = (i, n) => Math.max(0, Math.min(i, n));

/** The changes of a deleted section: each of its items (with their children) leaves the board. */
const removals = (section, collection) =>
  section.items.map((item, index) => ({ item: item.id, from: { collection: collection.id, section: section.id, index } }));

/**
 * A deep copy of a JSON tree (objects, arrays, strings, numbers, booleans, null), sharing its
 * strings: an operation copies the items of each section it changes (apply is all or nothing), and
 * structuredClone, which copies every string too, cost several times more.
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
  /** While an operation applies to this copy: the sections whose items it copied (null: it owns all). */
  #owned = null;
  #labelsOwned = false;

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

  /**
   * A copy that shares this board's items (its collections and sections are its own): as every
   * board, change it only through apply, which never changes a shared item or list in place.
   */
  clone() {
    return new Board({
      ...this.toJSON(),
      labels: this.labels,
      collections: this.collections.map((c) => ({ ...c, sections: c.sections.map((s) => ({ ...s })) })),
      trash: [...this.trash],
    });
  }

  /** Makes a section's items this board's own before an operation changes them (copy on write). */
  #own(section) {
    if (!this.#owned || this.#owned.has(section)) return;
    this.#owned.add(section);
    section.items = copyTree(section.items);
    this.#index(section.items, null, section, this.sections.get(section.id).collection);
  }

  /** The board's labels made its own before an operation changes them. */
  #ownLabels() {
    if (!this.#owned || this.#labelsOwned) return;
    this.#labelsOwned = true;
    this.labels = this.labels.map((l) => ({ ...l }));
  }

  /** Where an item stands, its section made this board's own: for an operation that changes it. */
  #loc(id) {
    const loc = this.items.get(id);
    if (!loc) return undefined;
    this.#own(loc.section);
    return this.items.get(id);
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
        this.#index(section.items, null, section, collection);
      }
    }
  }

  #index(list, parent, section, collection) {
    for (const item of list) {
      item.representations = item.representations || [];
      this.items.set(item.id, { item, list, parent, section, collection });
      if (item.children) this.#index(item.children, item, section, collection);
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
    next.#owned = new Set();
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

  /** Puts what a delete removed in the Trash (R15), as the server's model does. */
  #putInTrash(content, op, clientId, opId) {
    this.trash.push({ id: trashID(this.trash, clientId, opId), name: op.name ?? "Someone", clientId, at: op.at ?? 0, ...content });
  }

  #apply(op, clientId, opId) {
    switch (op.kind) {
      case "move": return this.#move(op);
      case "copy": return this.#copy(op, clientId, opId);
      case "insert": return this.#insert(op, clientId, opId);
      case "insertPlaceholder": return this.#insertPlaceholder(op, clientId, opId);
      case "commitPlaceholder": return this.#commitPlaceholder(op, clientId);
      case "deletePlaceholder": return this.#deletePlaceholder(op, clientId);
      case "delete":
      case "moveOut": return this.#delete(op, clientId, opId);
      case "updateItem": return this.#update(op);
      case "updateCard": return this.#updateCard(op);
      case "setLabel": return this.#setLabel(op);
      case "addComment": return this.#addComment(op, clientId, opId);
      case "editComment": return this.#editComment(op, clientId);
      case "deleteComment": return this.#deleteComment(op, clientId);
      case "checklist": return this.#checklist(op);
      case "deleteLabel": return this.#deleteLabel(op);
      case "createCollection": {
        if (this.collectionById.has(op.id)) throw new Rejection("duplicate-id", `Collection id ${op.id} is already in use.`);
        const seen = new Set();
        for (const s of op.sections || []) {
          if (this.sections.has(s.id) || seen.has(s.id)) throw new Rejection("duplicate-id", `Section id ${s.id} is already in use.`);
          seen.add(s.id);
        }
        const sections = (op.sections || []).map((s) => ({ id: s.id, title: s.title || "", items: [] }));
        const c = { id: op.id, title: op.title || "", layout: op.layout || "grid", accepts: op.accepts || [], sections };
        this.collections.splice(clamp(op.index ?? this.collections.length, this.collections.length), 0, c);
        return {};
      }
      case "renameCollection": this.#collection(op.collection).title = op.title; return {};
      case "deleteCollection": {
        const c = this.#collection(op.collection);
        const index = this.collections.indexOf(c);
        this.collections.splice(index, 1);
        const kept = { ...structuredClone(c), sections: c.sections.map((s) => ({ ...structuredClone(s), items: withoutPlaceholders(s.items) })) };
        this.#putInTrash({ collection: { index, collection: kept } }, op, clientId, opId);
        return { changes: c.sections.flatMap((section) => removals(section, c)) };
      }
      case "moveCollection": {
        const c = this.#collection(op.collection);
        this.collections.splice(this.collections.indexOf(c), 1);
        this.collections.splice(clamp(op.index, this.collections.length), 0, c);
        return {};
      }
      case "setAccepts": this.#collection(op.collection).accepts = op.accepts || []; return {};
      case "setLayout": this.#collection(op.collection).layout = op.layout; return {};
      case "renameBoard": this.title = op.title; return {};
      case "batch": return this.#batch(op, clientId, opId);
      case "createSection": {
        const c = this.#collection(op.collection);
        if (this.sections.has(op.id)) throw new Rejection("duplicate-id", `Section id ${op.id} is already in use.`);
        c.sections.splice(clamp(op.index ?? c.sections.length, c.sections.length), 0, { id: op.id, title: op.title || "", items: [] });
        return {};
      }
      case "renameSection": this.#section(op.section).section.title = op.title; return {};
      case "deleteSection": {
        const { section, collection } = this.#section(op.section);
        const index = collection.sections.indexOf(section);
        collection.sections.splice(index, 1);
        const kept = { id: section.id, title: section.title, items: withoutPlaceholders(section.items) };
        this.#putInTrash({ section: { collection: collection.id, index, section: kept } }, op, clientId, opId);
        return { changes: removals(section, collection) };
      }
      case "restore": return this.#restore(op, clientId, opId);
      case "emptyTrash": {
        const evicted = this.trash.map((e) => e.id);
        this.trash = [];
        return evicted.length ? { evicted } : {};
      }
      case "moveSection": {
        const { section, collection } = this.#section(op.section);
        collection.sections.splice(collection.sections.indexOf(section), 1);
        collection.sections.splice(clamp(op.index, collection.sections.length), 0, section);
        return {};
      }
      default:
        throw new Rejection("invalid", `Unknown operation kind ${op.kind}.`);
    }
  }

  #collection(id) {
    const c = this.collectionById.get(id);
    if (!c) throw new Rejection("not-found", `Collection ${id} does not exist.`);
    return c;
  }

  #section(id) {
    const s = this.sections.get(id);
    if (!s) throw new Rejection("not-found", `Section ${id} does not exist.`);
    return s;
  }

  /** R4/R7: resolves a destination to {into: item} or {section, collection} plus its accepts. */
  #resolve(d) {
    if (d.intent === "insertIntoDestinationIndexPath") {
      if (!d.target) throw new Rejection("invalid", "A drop into an item must name the target item.");
      const loc = this.#loc(d.target);
      if (!loc) throw new Rejection("destination-gone", `The item you dropped into (${d.target}) was deleted; nothing moved.`);
      if (loc.item.placeholder) throw new Rejection("forbidden", `${d.target} is a placeholder, which cannot receive a drop.`);
      return { into: loc.item, accepts: loc.collection.accepts };
    }
    const s = this.sections.get(d.section);
    if (!s || s.collection.id !== d.collection) {
      if (!this.collectionById.has(d.collection)) throw new Rejection("destination-gone", `Collection ${d.collection} was deleted before the drop arrived; nothing moved.`);
      if (!s) throw new Rejection("destination-gone", `Section ${d.section} was deleted before the drop arrived; nothing moved.`);
      throw new Rejection("invalid", `Section ${d.section} is not in collection ${d.collection}.`);
    }
    this.#own(s.section);
    return { section: s.section, collection: s.collection, accepts: s.collection.accepts };
  }

  /** R3: where a drop lands in a section already emptied of the moving items. */
  #anchoredIndex(d, section, moving) {
    const usable = (anchor) => {
      if (!anchor || moving.has(anchor)) return -1;
      return section.items.findIndex((i) => i.id === anchor);
    };
    const after = usable(d.after);
    if (after >= 0) return after + 1;
    const before = usable(d.before);
    if (before >= 0) return before;
    return clamp(d.index, section.items.length);
  }

  #link(items, resolved, d, moving) {
    if (resolved.into) {
      const target = resolved.into;
      if (!target.children) target.children = [];
      const start = target.children.length;
      target.children.push(...items);
      const loc = this.items.get(target.id);
      return items.map((_, k) => ({ collection: loc.collection.id, section: loc.section.id, group: target.id, index: start + k }));
    }
    const index = this.#anchoredIndex(d, resolved.section, moving);
    resolved.section.items.splice(index, 0, ...items);
    return items.map((_, k) => ({ collection: resolved.collection.id, section: resolved.section.id, index: index + k }));
  }

  #live(ids, verb) {
    if (!ids || ids.length === 0) throw new Rejection("invalid", `The ${verb} names no items.`);
    if (new Set(ids).size !== ids.length) throw new Rejection("invalid", `The ${verb} names an item twice.`);
    const live = [];
    const skipped = [];
    for (const id of ids) (this.items.has(id) ? live : skipped).push(id);
    if (live.length === 0) throw new Rejection("gone", `Every item in the ${verb} was deleted before it arrived; nothing changed.`, ids[0]);
    return { live, skipped };
  }

  /** Unlinks an item from its list; a group left without children dissolves into a plain item. */
  #detach(id) {
    const loc = this.#loc(id);
    loc.list.splice(loc.list.indexOf(loc.item), 1);
    if (loc.parent && loc.parent.children.length === 0) delete loc.parent.children;
    return loc.item;
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

  /** Refuses a move or copy of a placeholder, or of an item the destination does not accept. */
  #checkCarried(live, resolved, verb) {
    for (const id of live) {
      const item = this.item(id);
      if (item.placeholder) throw new Rejection("forbidden", `${id} is a placeholder and cannot be ${verb}.`, id);
      if (!this.matches(resolved.accepts, item)) throw new Rejection("forbidden", `The destination accepts only ${resolved.accepts.join(", ")}.`, id);
    }
  }

  #move(op) {
    const { live, skipped } = this.#live(op.items, "move");
    const resolved = this.#resolve(op.destination);
    this.#checkCarried(live, resolved, "dragged");
    if (resolved.into) {
      for (const id of live) {
        if (this.isAncestorOrSelf(id, resolved.into.id)) throw new Rejection("cycle", `Dropping ${id} into ${resolved.into.id} would put it inside itself.`, id);
      }
    }
    const changes = live.map((id) => ({ item: id, from: this.position(id) }));
    const items = live.map((id) => this.#detach(id));
    const positions = this.#link(items, resolved, op.destination, new Set(live));
    changes.forEach((c, k) => (c.to = positions[k]));
    return { changes, skipped };
  }

  #copy(op, clientId, opId) {
    const { live, skipped } = this.#live(op.items, "copy");
    const resolved = this.#resolve(op.destination);
    this.#checkCarried(live, resolved, "copied");
    let n = 0;
    const clone = (item) => {
      const copy = { id: derivedID(clientId, opId, n++), representations: structuredClone(item.representations) };
      if (item.children) copy.children = item.children.map(clone);
      // A copy takes the card's details with it.
      if (item.details) copy.details = structuredClone(item.details);
      return copy;
    };
    return this.#insertNew(live.map((id) => clone(this.item(id))), resolved, op.destination, skipped);
  }

  #insert(op, clientId, opId) {
    if (!op.items || op.items.length === 0) throw new Rejection("invalid", "The insert names no items.");
    const resolved = this.#resolve(op.destination);
    // Cards from another board bring the labels they carry: the ones this board lacks join it while it has room.
    if (op.labels?.length) this.#ownLabels();
    for (const label of op.labels || []) {
      if (this.labels.length < CARD_LIMITS.labels && !this.labels.some((l) => l.id === label.id)) this.labels.push(structuredClone(label));
    }
    const known = new Set(this.labels.map((l) => l.id));
    let n = 0;
    const identify = (item) => {
      const result = { id: item.id ?? derivedID(clientId, opId, n), representations: structuredClone(item.representations || []) };
      n++;
      if (item.children) result.children = item.children.map(identify);
      if (item.version > 0) result.version = item.version;
      // Details come back with an item restored by undo or moved in from another board (without
      // labels this board does not have).
      const details = item.details && compactDetails({ ...detailsOf(item), labels: detailsOf(item).labels.filter((id) => known.has(id)) });
      if (details) result.details = details;
      return result;
    };
    const trees = op.items.map(identify);
    const matchesNew = (item) =>
      acceptsTypes(resolved.accepts, item.representations.map((r) => r.type)) ||
      (item.representations.length === 0 && (item.children || []).some(matchesNew));
    for (const tree of trees) {
      if (!matchesNew(tree)) throw new Rejection("forbidden", `The destination accepts only ${resolved.accepts.join(", ")}.`, tree.id);
    }
    return this.#insertNew(trees, resolved, op.destination, []);
  }

  #insertNew(trees, resolved, destination, skipped) {
    const seen = new Set();
    const check = (item) => {
      if (this.items.has(item.id) || seen.has(item.id)) throw new Rejection("duplicate-id", `Item id ${item.id} is already in use on this board.`, item.id);
      seen.add(item.id);
      (item.children || []).forEach(check);
    };
    trees.forEach(check);
    const positions = this.#link(trees, resolved, destination, new Set());
    return { changes: trees.map((t, k) => ({ item: t.id, to: positions[k] })), skipped };
  }

  #insertPlaceholder(op, clientId, opId) {
    if (op.destination.intent === "insertIntoDestinationIndexPath") throw new Rejection("invalid", "A placeholder stands at an index path, not inside an item.");
    const resolved = this.#resolve(op.destination);
    const id = derivedID(clientId, opId, 0);
    if (this.items.has(id)) throw new Rejection("duplicate-id", `Item id ${id} is already in use.`, id);
    const item = { id, representations: structuredClone(op.representations || []), placeholder: { owner: clientId, createdAt: op.createdAt || 0 } };
    const positions = this.#link([item], resolved, op.destination, new Set());
    return { changes: [{ item: id, to: positions[0] }] };
  }

  #placeholder(id, verb) {
    const loc = this.#loc(id);
    if (!loc) throw new Rejection("gone", `Placeholder ${id} no longer exists.`, id);
    if (!loc.item.placeholder) throw new Rejection("invalid", `${id} is not a placeholder, so it cannot be ${verb}.`, id);
    return loc;
  }

  #commitPlaceholder(op, clientId) {
    const loc = this.#placeholder(op.item, "committed");
    if (loc.item.placeholder.owner !== clientId) throw new Rejection("not-owner", `Placeholder ${op.item} belongs to ${loc.item.placeholder.owner}.`, op.item);
    if (!acceptsTypes(loc.collection.accepts, op.representations.map((r) => r.type))) {
      throw new Rejection("forbidden", `The collection accepts only ${loc.collection.accepts.join(", ")}.`, op.item);
    }
    loc.item.representations = structuredClone(op.representations);
    delete loc.item.placeholder;
    loc.item.version = (loc.item.version || 0) + 1;
    const p = this.position(op.item);
    return { changes: [{ item: op.item, from: p, to: p }] };
  }

  #deletePlaceholder(op, clientId) {
    const loc = this.#placeholder(op.item, "deleted as a placeholder");
    if (loc.item.placeholder.owner !== clientId && clientId !== SYSTEM_CLIENT) throw new Rejection("not-owner", `Placeholder ${op.item} belongs to ${loc.item.placeholder.owner}.`, op.item);
    const from = this.position(op.item);
    this.#detach(op.item);
    return { changes: [{ item: op.item, from }] };
  }

  #delete(op, clientId, opId) {
    const { live, skipped } = this.#live(op.items, op.kind === "moveOut" ? "move out" : "delete");
    for (const id of live) {
      const p = this.item(id).placeholder;
      if (p && p.owner !== clientId && clientId !== SYSTEM_CLIENT) throw new Rejection("not-owner", `${id} is a placeholder owned by ${p.owner}.`, id);
    }
    const changes = live.map((id) => ({ item: id, from: this.position(id) }));
    const roots = live.filter((id) => !live.some((other) => other !== id && this.isAncestorOrSelf(other, id)));
    const removed = roots.map((id) => structuredClone(this.item(id)));
    const trashed = op.kind === "delete"
      ? runsOf(roots, (id) => this.items.get(id))
          .map((run) => ({ origin: run.origin, elements: withoutPlaceholders(run.elements) }))
          .filter((run) => run.elements.length > 0)
      : [];
    roots.forEach((id) => this.#detach(id));
    if (trashed.length) this.#putInTrash({ cards: trashed }, op, clientId, opId);
    return { changes, skipped, removed };
  }

  /** R15: puts a Trash entry back where it was (its anchors, else its collection's end), once. */
  #restore(op, clientId, opId) {
    const index = this.trash.findIndex((e) => e.id === op.entry);
    if (index < 0) throw new Rejection("gone", `That Trash entry (${op.entry}) was already restored, emptied or fell out of the Trash; nothing changed.`);
    const entry = this.trash[index];
    const changes = [];
    const known = new Set(this.labels.map((l) => l.id));
    const keepLabels = (item) => {
      const copy = structuredClone(item);
      if (copy.details?.labels) {
        copy.details.labels = copy.details.labels.filter((id) => known.has(id));
        copy.details = compactDetails(copy.details);
        if (!copy.details) delete copy.details;
      }
      if (copy.children) copy.children = copy.children.map(keepLabels);
      return copy;
    };
    const putBack = (items, sectionId, collectionId) => {
      const { section } = this.#section(sectionId);
      this.#own(section);
      for (const item of items) {
        if (this.items.has(item.id)) continue;
        section.items.push(keepLabels(item));
        changes.push({ item: item.id, to: { collection: collectionId, section: sectionId, index: section.items.length - 1 } });
      }
      this.reindex();
    };
    if (entry.cards) {
      for (const run of entry.cards) {
        const trees = run.elements.filter((t) => !this.items.has(t.id));
        if (trees.length === 0) continue;
        const e = this.#insert({ items: trees, destination: this.#restoreDestination(run.origin) }, clientId, opId);
        changes.push(...e.changes);
        this.reindex();
      }
    } else if (entry.section) {
      const { collection, index: at, section } = entry.section;
      if (!this.collectionById.has(collection)) throw new Rejection("gone", "The section's collection was deleted since; restore the collection from the Trash first.");
      this.#apply({ kind: "createSection", collection, id: section.id, title: section.title, index: at }, clientId, opId);
      this.reindex();
      putBack(section.items, section.id, collection);
    } else {
      const { collection, index: at } = entry.collection;
      const { sections, ...rest } = collection;
      this.#apply({ kind: "createCollection", ...rest, index: at, sections: sections.map((s) => ({ id: s.id, title: s.title })) }, clientId, opId);
      this.reindex();
      for (const s of sections) putBack(s.items, s.id, collection.id);
    }
    this.trash.splice(this.trash.indexOf(entry), 1);
    return { changes };
  }

  /** Where a run of restored cards goes: its group or R3 anchors, else its collection's last section's end. */
  #restoreDestination(origin) {
    if (origin.group) {
      const loc = this.items.get(origin.group);
      if (loc && !loc.item.placeholder) return { collection: loc.collection.id, section: loc.section.id, index: 0, intent: "insertIntoDestinationIndexPath", target: origin.group };
    } else {
      const s = this.sections.get(origin.section);
      if (s && s.collection.id === origin.collection) return { ...origin, intent: "insertAtDestinationIndexPath" };
    }
    const c = this.collectionById.get(origin.collection);
    const last = c?.sections[c.sections.length - 1];
    if (!last) throw new Rejection("gone", "The cards' collection was deleted since; restore the collection from the Trash first, then the cards.");
    return { collection: c.id, section: last.id, index: last.items.length, intent: "insertAtDestinationIndexPath" };
  }

  #update(op) {
    const loc = this.#loc(op.item);
    if (!loc) throw new Rejection("gone", `${op.item} was deleted before the update arrived.`, op.item);
    if (loc.item.placeholder) throw new Rejection("invalid", `${op.item} is a placeholder; give it content with commitPlaceholder.`, op.item);
    // R12: an update made on an older version is refused; nobody's text is silently replaced.
    if (op.version !== undefined && op.version !== null && op.version !== (loc.item.version || 0)) {
      throw new Rejection("conflict", `${op.item} changed while you were editing it.`, op.item);
    }
    const old = loc.item.representations;
    loc.item.representations = structuredClone(op.representations);
    if (!this.matches(loc.collection.accepts, loc.item)) {
      loc.item.representations = old;
      throw new Rejection("forbidden", `The collection accepts only ${loc.collection.accepts.join(", ")}.`, op.item);
    }
    loc.item.version = (loc.item.version || 0) + 1;
    const p = this.position(op.item);
    return { changes: [{ item: op.item, from: p, to: p }] };
  }

  /**
   * A card's details changed (issue 41, Board+ApplyCard.swift), all parts or none: its bounds
   * checked (`invalid`), the description and the dates each named on the version they were made on
   * (`conflict` when the card moved past it), then done and the assignees (removed, then added at
   * the end; a name already there is not added twice).
   */
  /** The card a change of its details names: `gone` without it, `invalid` for a placeholder. */
  #card(id) {
    const loc = this.#loc(id);
    if (!loc) throw new Rejection("gone", `${id} was deleted before the change arrived; nothing changed.`, id, "item");
    if (loc.item.placeholder) throw new Rejection("invalid", `${id} is a placeholder; wait for its owner to commit it.`, id, "item");
    return loc;
  }

  /** Gives a card its details (none when all are defaults); the effect of a card that stays in place. */
  #setDetails(loc, d) {
    const details = compactDetails(d);
    if (details) loc.item.details = details;
    else delete loc.item.details;
    const p = this.position(loc.item.id);
    return { changes: [{ item: loc.item.id, from: p, to: p }] };
  }

  #updateCard(op) {
    const loc = this.#card(op.item);
    const problem = updateProblem(op);
    if (problem) throw new Rejection("invalid", problem.message, op.item, problem.field);
    const d = detailsOf(loc.item);
    const stale = (part, current) => part && part.version !== undefined && part.version !== null && part.version !== current;
    if (stale(op.description, d.descriptionVersion)) {
      throw new Rejection("conflict", `The description of ${op.item} changed while you were editing it.`, op.item, "description");
    }
    if (stale(op.dates, d.datesVersion)) throw new Rejection("conflict", `The dates of ${op.item} changed while you were editing them.`, op.item, "dates");
    const missing = (op.addLabels || []).find((id) => !this.labels.some((l) => l.id === id));
    if (missing !== undefined) throw new Rejection("not-found", `The board has no label ${missing}; it may have been deleted.`, op.item, "addLabels");
    if (op.description) {
      d.description = op.description.text;
      d.descriptionVersion += 1;
    }
    if (op.dates) {
      d.due = op.dates.due ?? null;
      d.start = op.dates.start ?? null;
      d.datesVersion += 1;
    }
    if (op.done !== undefined && op.done !== null) d.done = !!op.done;
    const removed = new Set(op.unassign || []);
    d.assignees = d.assignees.filter((name) => !removed.has(name));
    for (const name of op.assign || []) if (!d.assignees.includes(name)) d.assignees.push(name);
    const taken = new Set(op.removeLabels || []);
    d.labels = d.labels.filter((id) => !taken.has(id));
    for (const id of op.addLabels || []) if (!d.labels.includes(id)) d.labels.push(id);
    if (d.assignees.length > CARD_LIMITS.assignees) {
      throw new Rejection("invalid", `A card has at most ${CARD_LIMITS.assignees} people assigned; unassign someone first.`, op.item, "assign");
    }
    const files = op.attach !== undefined || op.detach !== undefined || (op.cover !== undefined && op.cover !== null);
    if (op.detach) {
      d.attachments = d.attachments.filter((a) => !op.detach.includes(a.url));
      if (d.cover && op.detach.includes(d.cover)) d.cover = null;
    }
    for (const file of op.attach || []) if (!d.attachments.some((a) => a.url === file.url)) d.attachments.push({ ...file });
    if (typeof op.cover === "string") d.cover = op.cover || null;
    const fileProblem = files && attachmentsProblem(d);
    if (fileProblem) throw new Rejection("invalid", fileProblem.message, op.item, fileProblem.field);
    return this.#setDetails(loc, d);
  }

  /**
   * A comment appended to a card's thread (id `<clientId>:<opId>`; the room writes `name` and `at`),
   * or, in an undo, a deleted one put back where it was (`restore`, `index`).
   */
  #addComment(op, clientId, opId) {
    const loc = this.#card(op.item);
    const d = detailsOf(loc.item);
    if (d.comments.length >= CARD_LIMITS.comments) {
      throw new Rejection("invalid", `A card holds at most ${CARD_LIMITS.comments} comments; delete some before adding more.`, op.item, "item");
    }
    let comment;
    if (op.restore) {
      if (op.restore.author !== clientId) throw new Rejection("not-owner", "Only a comment's author brings it back.", op.item, "restore");
      comment = structuredClone(op.restore);
      if (!comment.version) delete comment.version;
    } else {
      const problem = commentTextProblem(op.text);
      if (problem) throw new Rejection("invalid", problem.message, op.item, problem.field);
      comment = { id: `${clientId}:${opId}`, author: clientId, name: op.name ?? "", at: op.at ?? 0, text: op.text };
    }
    if (d.comments.some((c) => c.id === comment.id)) throw new Rejection("duplicate-id", `The card already has comment ${comment.id}.`, op.item, "restore");
    d.comments = [...d.comments];
    d.comments.splice(clamp(op.index ?? d.comments.length, d.comments.length), 0, comment);
    return this.#setDetails(loc, d);
  }

  /** The author's new text for their comment, made on its version (R12). */
  #editComment(op, clientId) {
    const { loc, d, index } = this.#ownComment(op, clientId, "edits");
    const problem = commentTextProblem(op.text);
    if (problem) throw new Rejection("invalid", problem.message, op.item, problem.field);
    const comment = { ...d.comments[index] };
    if (op.version !== undefined && op.version !== null && op.version !== (comment.version || 0)) {
      throw new Rejection("conflict", "Your comment changed since you began editing it, so this edit was not saved.", op.item, "version");
    }
    comment.text = op.text;
    comment.version = (comment.version || 0) + 1;
    d.comments = d.comments.map((c, n) => (n === index ? comment : c));
    return this.#setDetails(loc, d);
  }

  /** The author takes their comment out of the thread. */
  #deleteComment(op, clientId) {
    const { loc, d, index } = this.#ownComment(op, clientId, "deletes");
    d.comments = d.comments.filter((_, n) => n !== index);
    return this.#setDetails(loc, d);
  }

  /** A comment of a card, for its author: `not-found` without it, `not-owner` for anyone else. */
  #ownComment(op, clientId, verb) {
    const loc = this.#card(op.item);
    const d = detailsOf(loc.item);
    const index = d.comments.findIndex((c) => c.id === op.comment);
    if (index < 0) throw new Rejection("not-found", `The card has no comment ${op.comment}; it may have been deleted.`, op.item, "comment");
    if (d.comments[index].author !== clientId) throw new Rejection("not-owner", `Only a comment's author ${verb} it.`, op.item, "comment");
    return { loc, d, index };
  }

  /** One change to a card's checklists, by id (checklists.js). */
  #checklist(op) {
    const loc = this.#card(op.item);
    const problem = checklistChangeProblem(op);
    if (problem) throw new Rejection("invalid", problem.message, op.item, problem.field);
    const d = detailsOf(loc.item);
    const lists = applyChecklistChange(d.checklists, op);
    if (lists.refused) throw new Rejection(lists.refused.code, lists.refused.message, op.item, lists.refused.field);
    d.checklists = lists;
    return this.#setDetails(loc, d);
  }

  /** A label of the board created (at its index, while the board has room) or renamed and recoloured in place. */
  #setLabel(op) {
    const label = op.label;
    if (characterCount(label.name) > CARD_LIMITS.labelNameCharacters) {
      throw new Rejection("invalid", `A label's name has at most ${CARD_LIMITS.labelNameCharacters} characters; shorten it.`, undefined, "label.name");
    }
    const value = { id: label.id, name: label.name, color: label.color };
    this.#ownLabels();
    const at = this.labels.findIndex((l) => l.id === label.id);
    if (at >= 0) {
      this.labels[at] = value;
      return {};
    }
    if (this.labels.length >= CARD_LIMITS.labels) {
      throw new Rejection("invalid", `A board has at most ${CARD_LIMITS.labels} labels; delete one before adding another.`, undefined, "label");
    }
    this.labels.splice(clamp(op.index ?? this.labels.length, this.labels.length), 0, value);
    return {};
  }

  /** A label leaves the board and every card that carried it. */
  #deleteLabel(op) {
    const at = this.labels.findIndex((l) => l.id === op.label);
    if (at < 0) throw new Rejection("not-found", `The board has no label ${op.label}; it may have been deleted already.`, undefined, "label");
    this.#ownLabels();
    this.labels.splice(at, 1);
    const carrying = [...this.items.values()].filter(({ item }) => item.details?.labels?.includes(op.label)).map(({ item }) => item.id);
    for (const id of carrying) {
      const { item } = this.#loc(id);
      const details = compactDetails({ ...detailsOf(item), labels: item.details.labels.filter((id) => id !== op.label) });
      if (details) item.details = details;
      else delete item.details;
    }
    return {};
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
