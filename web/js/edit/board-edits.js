// Edits people make on the board, turned into operations (built by protocol.js) and submitted
// through the session: each is applied here at once and sequenced by the room, and carries a label
// ("Old Mill Wheel", "3 cards") for the sentence shown if the room refuses it.
//
// Cards: add (insert with R3 anchors, so a card lands where it was added whatever others insert or
// move meanwhile), update, delete (several cards in one operation). Structure: collections and
// sections added, renamed, deleted, moved, and what a collection takes.
import { operation } from "../net/protocol.js";
import { derivedID } from "../model/model.js";
import { itemLabel, newCardRepresentations } from "../model/card-content.js";
import { labelTitle } from "../model/card-details.js";

const AT = "insertAtDestinationIndexPath";

/** A fresh id for a new collection or section: random, so two people adding at once never clash. */
export function freshId(kind) {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return `${kind}-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** "Old Mill Wheel" for one item, "3 cards" for several. */
export function itemsLabel(board, ids) {
  return ids.length === 1 ? itemLabel(board.item(ids[0])) : `${ids.length} cards`;
}

export class BoardEdits {
  /** @param {import("../net/session.js").BoardSession} session */
  constructor(session) {
    this.session = session;
  }

  get board() {
    return this.session.board;
  }

  #submit(op, label, options = {}) {
    return this.session.submit(op, { label, ...options });
  }

  // MARK: Cards

  /**
   * Adds a card at the end of a section, anchored after the card the person saw last there (R3).
   * Returns {opId, item} (the id the board gives it).
   */
  addCard(sectionId, { title, text }) {
    const entry = this.board.sections.get(sectionId);
    if (!entry) return null;
    const items = entry.section.items;
    const destination = { collection: entry.collection.id, section: sectionId, index: items.length, intent: AT };
    if (items.length) destination.after = items.at(-1).id;
    const op = operation.insert({ items: [{ representations: newCardRepresentations({ title, text }) }], destination });
    const opId = this.#submit(op, title);
    return { opId, item: derivedID(this.session.clientId, opId, 0) };
  }

  /**
   * Replaces an item's representations, made on `version` (from the edit lease): the room refuses
   * it `conflict` when the card changed since, and the editor keeps the text (R12).
   */
  update(itemId, representations, version) {
    const label = itemLabel(this.board.item(itemId));
    return this.#submit(operation.updateItem({ item: itemId, representations, version }), label);
  }

  /**
   * Changes a card's details (issue 41): `parts` as operation.updateCard takes them (description
   * {text, version}, dates {due, start, version}, done, assign, unassign, addLabels,
   * removeLabels). Returns the opId.
   */
  updateCard(itemId, parts) {
    return this.#submit(operation.updateCard({ item: itemId, ...parts }), itemLabel(this.board.item(itemId)));
  }

  // MARK: Labels and comments

  /** Creates a label of the board ({id, name, color}; a fresh id) or renames and recolours one. */
  setLabel(label) {
    return this.#submit(operation.setLabel({ label }), labelTitle(label));
  }

  /** Deletes one of the board's labels, taking it off every card that carries it. */
  deleteLabel(id) {
    return this.#submit(operation.deleteLabel({ label: id }), labelTitle(this.board.labels.find((l) => l.id === id)));
  }

  /** Appends a comment (markdown) to a card's thread; returns the opId. */
  addComment(itemId, text) {
    return this.#submit(operation.addComment({ item: itemId, text }), itemLabel(this.board.item(itemId)));
  }

  /** The author's new text for their comment, made on its `version`; returns the opId. */
  editComment(itemId, comment, text, version) {
    return this.#submit(operation.editComment({ item: itemId, comment, text, version }), itemLabel(this.board.item(itemId)));
  }

  /** The author deletes their comment. */
  deleteComment(itemId, comment) {
    return this.#submit(operation.deleteComment({ item: itemId, comment }), itemLabel(this.board.item(itemId)));
  }

  /**
   * One change to a card's checklists (issue 41): `parts` as operation.checklist takes them
   * ({action, checklist, entry?, name?, text?, done?, index?, from?}). Returns the opId.
   */
  checklist(itemId, parts) {
    return this.#submit(operation.checklist({ item: itemId, ...parts }), itemLabel(this.board.item(itemId)));
  }

  /** Deletes items, with their children, in one operation. */
  delete(ids) {
    return this.#submit(operation.delete({ items: ids }), itemsLabel(this.board, ids));
  }

  /** The operation deleting items, for a drag that ends in the Trash (it finishes the drag). */
  deleteOperation(ids) {
    return { op: operation.delete({ items: ids }), label: itemsLabel(this.board, ids) };
  }

  // MARK: Collections

  /**
   * Adds a collection with one section at the end of the board, in one operation (so one Undo
   * takes both away); returns {collection, section}.
   */
  createCollection({ title, layout, accepts }) {
    const collection = freshId("collection");
    const section = freshId("section");
    const index = this.board.collections.length;
    this.#submit(operation.createCollection({ id: collection, title, layout, accepts, index, sections: [{ id: section, title }] }), title);
    return { collection, section };
  }

  /** Shows a collection as a grid ("grid") or a list ("list"). */
  setLayout(id, layout) {
    return this.#submit(operation.setLayout({ collection: id, layout }), this.#collectionTitle(id));
  }

  /** Gives the board its own title. */
  renameBoard(title) {
    return this.#submit(operation.renameBoard({ title }), this.board.title || "the board");
  }

  renameCollection(id, title) {
    return this.#submit(operation.renameCollection({ collection: id, title }), this.#collectionTitle(id));
  }

  deleteCollection(id) {
    return this.#submit(operation.deleteCollection({ collection: id }), this.#collectionTitle(id));
  }

  moveCollection(id, index) {
    return this.#submit(operation.moveCollection({ collection: id, index }), this.#collectionTitle(id));
  }

  setAccepts(id, accepts) {
    return this.#submit(operation.setAccepts({ collection: id, accepts }), this.#collectionTitle(id));
  }

  // MARK: Sections

  /** Adds a section at the end of a collection; returns its id. */
  createSection(collectionId, title) {
    const collection = this.board.collectionById.get(collectionId);
    if (!collection) return null;
    const id = freshId("section");
    this.#submit(operation.createSection({ collection: collectionId, id, title, index: collection.sections.length }), title);
    return id;
  }

  renameSection(id, title) {
    return this.#submit(operation.renameSection({ section: id, title }), this.#sectionTitle(id));
  }

  deleteSection(id) {
    return this.#submit(operation.deleteSection({ section: id }), this.#sectionTitle(id));
  }

  moveSection(id, index) {
    return this.#submit(operation.moveSection({ section: id, index }), this.#sectionTitle(id));
  }

  #collectionTitle(id) {
    return this.board.collectionById.get(id)?.title || "Untitled";
  }

  #sectionTitle(id) {
    const entry = this.board.sections.get(id);
    return entry?.section.title || entry?.collection.title || "Untitled";
  }
}
