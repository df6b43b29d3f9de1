// R14: a board too large for one message arrives as `snapshotPart` messages after a `welcome` or
// `synced` that announces `snapshotParts {seq, parts, bytes}`. Each part appends lists of elements
// to parents that earlier parts created: collections to the board, sections to a collection
// (`collection`), items to a section (`section`) or children to a group item (`group`).
// Mirrors CorkboardProtocol's SnapshotAssembler.

export class SnapshotAssembler {
  constructor(descriptor) {
    this.descriptor = descriptor;
    this.partsReceived = 0;
    this.bytesReceived = 0;
    this.collections = [];
    this.collectionById = new Map();
    this.sectionById = new Map();
    this.groupById = new Map();
  }

  get complete() {
    return this.partsReceived >= this.descriptor.parts;
  }

  /** The share received, from 0 to 1. */
  get fraction() {
    const { bytes, parts } = this.descriptor;
    if (bytes > 0 && this.bytesReceived > 0) return Math.min(1, this.bytesReceived / bytes);
    return parts ? this.partsReceived / parts : 1;
  }

  /** Adds the next part; throws when it does not fit (the caller then asks for the board again). */
  add(part, bytes = 0) {
    if (part.seq !== this.descriptor.seq || part.part !== this.partsReceived || this.complete) {
      throw new Error(`snapshot part ${part.part} of seq ${part.seq} arrived, expected part ${this.partsReceived} of seq ${this.descriptor.seq}`);
    }
    for (const entry of part.append) {
      if (entry.collections) {
        this.#append(this.collections, entry.collections, (collection) => this.#collection(collection));
      } else if (entry.collection !== undefined) {
        const collection = this.#parent(this.collectionById, entry.collection, "collection");
        this.#append(collection.sections, entry.sections, (section) => this.#section(section));
      } else if (entry.section !== undefined) {
        const section = this.#parent(this.sectionById, entry.section, "section");
        this.#append(section.items, entry.items, (item) => this.#item(item));
      } else if (entry.group !== undefined) {
        const group = this.#parent(this.groupById, entry.group, "group");
        this.#append(group.children, entry.items, (item) => this.#item(item));
      } else {
        throw new Error("a snapshot part entry names no parent");
      }
    }
    this.partsReceived += 1;
    this.bytesReceived += bytes;
  }

  /** The board JSON ({collections}) once complete. */
  board() {
    return { collections: this.collections };
  }

  /** Appends a part's elements to the list they continue, indexing each (and what it holds). */
  #append(list, elements, index) {
    for (const element of elements) {
      list.push(element);
      index(element);
    }
  }

  #parent(map, id, kind) {
    const parent = map.get(id);
    if (!parent) throw new Error(`a snapshot part appends to ${kind} ${id}, which no earlier part created`);
    return parent;
  }

  #collection(collection) {
    this.collectionById.set(collection.id, collection);
    for (const section of collection.sections) this.#section(section);
  }

  #section(section) {
    this.sectionById.set(section.id, section);
    for (const item of section.items) this.#item(item);
  }

  #item(item) {
    if (!item.children) return;
    this.groupById.set(item.id, item);
    for (const child of item.children) this.#item(child);
  }
}
