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

/**
 * A board a session follows as it arrives in parts: while it does, every other message waits for
 * it, in order. `emit(name, ...args)` tells the session's owner (`log`, and `loading` with
 * `null | {assembler, begun}`).
 */
export class PartsTransfer {
  constructor(emit) {
    this.emit = emit;
    this.current = null; // {assembler, announcement, waiting} while a board arrives
  }

  /** Whether `message` has to wait for the board arriving: then it is kept, to be handled after it. */
  holds(message) {
    if (!this.current || message.type === "snapshotPart" || message.snapshotParts) return false;
    this.current.waiting.push(message);
    return true;
  }

  /** Whether `message` (a welcome or synced) announces its board in parts: then it is followed. */
  begins(message) {
    if ((message.type !== "welcome" && message.type !== "synced") || !message.snapshotParts || message.snapshot) return false;
    const descriptor = message.snapshotParts;
    this.current = {
      assembler: new SnapshotAssembler(descriptor),
      announcement: message,
      // A synced replacing a transfer in progress keeps what was waiting for it.
      waiting: this.current?.waiting || [],
    };
    this.emit("log", { event: "snapshot-parts", seq: descriptor.seq, parts: descriptor.parts, bytes: descriptor.bytes });
    this.emit("loading", { assembler: this.current.assembler, begun: true });
    return true;
  }

  /** Stops following the board (a new socket, or a socket gone). */
  stop() {
    this.current = null;
    this.emit("loading", null);
  }

  /**
   * Adds a part (`bytes` long on the wire). Returns null while parts are to come (or when it is part
   * of a transfer no longer followed); `{failed}` when it does not fit (the board must be asked for
   * again); else, the board complete, `{announcement, snapshot, waiting}`. Either end stops following.
   */
  add(part, bytes) {
    if (!this.current) return null;
    const a = this.current.assembler;
    try {
      a.add(part, bytes);
    } catch (error) {
      this.stop();
      return { failed: error };
    }
    this.emit("log", { event: "snapshot-part", part: part.part, parts: a.descriptor.parts, fraction: a.fraction });
    this.emit("loading", { assembler: a, begun: false });
    if (!a.complete) return null;
    const { announcement, waiting } = this.current;
    this.stop();
    return { announcement, waiting, snapshot: { version: 1, seq: a.descriptor.seq, board: a.board() } };
  }
}
