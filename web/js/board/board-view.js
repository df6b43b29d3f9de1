// Renders a board into the page and keeps it in step: keyed DOM reuse (a card is one element
// for its whole life, even when it moves between collections), FLIP animations for every card
// whose place changed (flip.js), the gaps of the local drag and of peers' drags (gaps.js), and hit
// testing from a point to a drop target (drop-target.js). A card's content is card-body.js's, its
// details card-face.js's.
// Editing controls are not its business: decorators (hooks.decorate) add them to the collection,
// section and card elements it keeps, and a card being edited is left to its editor.
import { el } from "../ui/dom.js";
import { itemLabel } from "../model/card-content.js";
import { acceptsInWords } from "../model/words.js";
import { detailsInWords } from "./card-face.js";
import { fillCard, sameContent } from "./card-body.js";
import { cssId, removeUnkept, setData, setText, syncChildren } from "./dom-sync.js";
import { Gaps, placeGaps } from "./gaps.js";
import { cardsOnScreen, flip } from "./flip.js";
import { dropTargetAt } from "./drop-target.js";

export class BoardView {
  /**
   * @param {HTMLElement} root the board container
   * @param {object} hooks {ownerColor(clientId), isSelected(id), selectedIds?(), isEditing(id),
   *   decorationKey?() (a string that changes whenever anything the decorators or the hooks read
   *   for a card changes, other than the card itself), decorate?: {collection(entry, collection),
   *   section(entry, section, collection), card(node, item), end(node)}}
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.cards = new Map(); // item id → element
    this.collectionNodes = new Map();
    this.sectionNodes = new Map();
    this.flagged = new Set(); // ids of the cards the last render marked (lifted, a peer's, selected)
    // Live: the cards inside groups, without searching the board for them at every render.
    this.chips = root.getElementsByClassName("child-card");
    this.gaps = new Gaps();
    /** The local drag's gap (focused during a keyboard drag). */
    this.gap = this.gaps.local;
    /** The board's last column, after every collection (for controls such as "Add collection"). */
    this.end = el("div", "board-end");
    this.animate = !matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  /** The element of a card, or of a card inside a group. */
  cardElement(id) {
    return this.cards.get(id) || (id ? this.root.querySelector(`.child-card[data-item="${CSS.escape(id)}"]`) : null);
  }

  sectionList(sectionId) {
    return this.sectionNodes.get(sectionId)?.list;
  }

  sectionEntry(sectionId) {
    return this.sectionNodes.get(sectionId);
  }

  collectionEntry(collectionId) {
    return this.collectionNodes.get(collectionId);
  }

  /**
   * Renders `board` with the local drag `drag` ({items, target, proposal, keyboard, showGap,
   * hideSources, gapSize, gapLabel}), the cards peers lift (`remoteLifted`: id → {color, name}) and
   * the gaps of peers' drags (`remoteGaps`: [{key, section, index, items, color, name, operation}]),
   * animating cards that moved.
   */
  render(board, drag, remoteLifted, remoteGaps = []) {
    const before = new Map(this.animate ? cardsOnScreen([...this.sectionNodes.values()].map((entry) => entry.list)) : []);
    const gapSizes = new Map(remoteGaps.map((g) => [g.key, this.#sizeOf(g.items, g.section)]));
    const focusedId = document.activeElement?.dataset?.item;
    const face = { now: Date.now(), labels: board.labels }; // a card's date badge and label chips depend on them
    // What every card's face and decorations depend on besides the card: while it holds, a section
    // whose items, gaps and title are the ones last drawn is left as it is (a hover moves one gap;
    // an operation replaces the items of the sections it touches).
    const epoch = `${Math.floor(face.now / 60000)}|${this.hooks.decorationKey?.() ?? Math.random()}`;
    const touched = []; // the cards of the sections drawn again
    const seen = new Set();
    const usedGaps = new Set();
    const collections = [];
    const decorate = this.hooks.decorate || {};
    for (const collection of board.collections) {
      const cnode = this.#collectionNode(collection);
      collections.push(cnode.node);
      const sections = [];
      for (const section of collection.sections) {
        const snode = this.#sectionNode(section, collection);
        sections.push(snode.node);
        const gaps = this.gaps.localIn(section, drag);
        for (const g of remoteGaps) {
          if (g.section !== section.id) continue;
          gaps.push(this.gaps.remoteIn(g, gapSizes.get(g.key)));
          usedGaps.add(g.key);
        }
        const drawn = { items: section.items, where: section.title || collection.title, labels: board.labels, epoch, gaps: gaps.map((g) => `${g.key ?? ""}@${g.index}:${[...g.moving].join(",")}`).join(" ") };
        const last = snode.drawn;
        const same = !!last && last.items === drawn.items && last.where === drawn.where && last.labels === drawn.labels && last.epoch === drawn.epoch;
        if (same && last.gaps === drawn.gaps) {
          for (const item of section.items) seen.add(item.id);
        } else if (same) {
          // Only a gap moved (a hover): the cards stay as they are, the gaps go to their places.
          snode.drawn = drawn;
          const children = section.items.map((item) => {
            seen.add(item.id);
            return this.cards.get(item.id);
          });
          placeGaps(children, gaps);
          syncChildren(snode.list, children);
        } else {
          snode.drawn = drawn;
          const children = [];
          section.items.forEach((item, index) => {
            const card = this.#card(item, section.items.length, index, collection, section, face);
            seen.add(item.id);
            children.push(card);
            touched.push(card);
          });
          placeGaps(children, gaps);
          syncChildren(snode.list, children);
        }
        snode.list.classList.toggle("empty", section.items.length === 0 && gaps.length === 0);
        decorate.section?.(snode, section, collection);
      }
      syncChildren(cnode.sections, sections);
      decorate.collection?.(cnode, collection);
    }
    decorate.end?.(this.end);
    syncChildren(this.root, [...collections, this.end], (n) => n.classList?.contains("collection") || n === this.end);
    removeUnkept(this.cards, seen);
    this.gaps.keepOnly(usedGaps);
    this.#prune(board);
    // Classes for lifted cards (local and remote) and selection: on the cards drawn again and the
    // cards marked now or at the last render (all of them when the selection cannot be listed).
    const local = new Set(drag?.items || []);
    const selectedIds = this.hooks.selectedIds?.();
    let marking = this.cards;
    if (selectedIds) {
      const flagged = new Set([...local, ...remoteLifted.keys(), ...selectedIds]);
      marking = new Map();
      for (const node of touched) marking.set(node.dataset.item, node);
      for (const id of [...this.flagged, ...flagged]) {
        const node = this.cards.get(id);
        if (node) marking.set(id, node);
      }
      this.flagged = flagged;
    }
    for (const [id, node] of marking) {
      node.classList.toggle("lifted", local.has(id));
      const hidden = local.has(id) && !!drag?.hideSources;
      if (node.hidden !== hidden) node.hidden = hidden;
      const remote = remoteLifted.get(id);
      node.classList.toggle("remote-lifted", !!remote);
      if (remote) {
        node.style.setProperty("--peer-color", remote.color);
        node.dataset.peer = remote.name;
      } else {
        delete node.dataset.peer;
      }
      const selected = this.hooks.isSelected(id);
      node.classList.toggle("selected", selected);
      const label = `${node._label}${selected ? ", selected" : ""}${remote ? `, being moved by ${remote.name}` : ""}`;
      if (node.getAttribute("aria-label") !== label) node.setAttribute("aria-label", label);
    }
    for (const chip of [...this.chips]) {
      const id = chip.dataset.item;
      chip.hidden = local.has(id) && !!drag?.hideSources;
      chip.classList.toggle("selected", this.hooks.isSelected(id));
      const remote = remoteLifted.get(id);
      chip.classList.toggle("remote-lifted", !!remote);
      if (remote) chip.style.setProperty("--peer-color", remote.color);
    }
    if (focusedId && document.activeElement?.dataset?.item !== focusedId && !drag?.keyboard) {
      this.cardElement(focusedId)?.focus({ preventScroll: true });
    }
    // A keyboard drag keeps focus on its gap, even when a remote change moved the gap's element.
    if (drag?.keyboard && this.gap.isConnected && document.activeElement !== this.gap) this.gap.focus({ preventScroll: true });
    if (this.animate) flip(this.cards, before);
  }

  #collectionNode(collection) {
    let entry = this.collectionNodes.get(collection.id);
    if (!entry) {
      const node = el("section", "collection");
      node.dataset.collection = collection.id;
      const header = el("header", "collection-header");
      const title = el("h2", "collection-title");
      title.id = `title-${cssId(collection.id)}`;
      node.setAttribute("aria-labelledby", title.id);
      const accepts = el("span", "collection-accepts");
      const heading = el("div", "collection-heading", title, accepts);
      header.append(heading);
      const sections = el("div", "sections");
      node.append(header, sections);
      entry = { node, header, title, accepts, sections };
      this.collectionNodes.set(collection.id, entry);
    }
    setData(entry.node, "layout", collection.layout);
    setText(entry.title, collection.title || "Untitled");
    setText(entry.accepts, acceptsInWords(collection.accepts));
    entry.node._collection = collection;
    return entry;
  }

  #sectionNode(section, collection) {
    let entry = this.sectionNodes.get(section.id);
    if (!entry) {
      const node = el("div", "section");
      node.dataset.section = section.id;
      const title = el("h3", "section-title");
      const header = el("div", "section-header", title);
      const list = el("ul", "items");
      list.setAttribute("role", "list");
      list.dataset.section = section.id;
      const footer = el("div", "section-footer");
      node.append(header, list, footer);
      entry = { node, header, title, list, footer };
      this.sectionNodes.set(section.id, entry);
    }
    setData(entry.node, "collection", collection.id);
    setData(entry.list, "collection", collection.id);
    setData(entry.list, "layout", collection.layout);
    setText(entry.title, section.title || "Untitled section");
    const hidden = !section.title || (collection.sections.length === 1 && section.title === collection.title);
    if (entry.header.hidden !== hidden) entry.header.hidden = hidden;
    const label = section.title || collection.title || "Cards";
    if (entry.list.getAttribute("aria-label") !== label) entry.list.setAttribute("aria-label", label);
    return entry;
  }

  #card(item, count, index, collection, section, face) {
    let node = this.cards.get(item.id);
    if (!node) {
      node = el("li", "card");
      node.dataset.item = item.id;
      node.tabIndex = 0;
      node.setAttribute("role", "listitem");
      node.setAttribute("aria-describedby", "card-help");
      this.cards.set(item.id, node);
    }
    // A card being edited belongs to its editor until it closes.
    const editing = !!this.hooks.isEditing?.(item.id);
    node.classList.toggle("editing", editing);
    if (!editing) {
      fillCard(node, item, item.placeholder ? this.hooks.ownerColor(item.placeholder.owner) : null, face);
      this.hooks.decorate?.card?.(node, item);
    }
    const where = section.title || collection.title;
    // The label is built again only when what it says may have changed (details: the clock too).
    const said = node._said;
    if (item.details || !said || said.index !== index || said.count !== count || said.where !== where || !sameContent(said.item, item)) {
      const details = detailsInWords(item, face);
      node._label = `${itemLabel(item)}, ${index + 1} of ${count} in ${where}${details ? `, ${details}` : ""}`;
      node._said = { item, index, count, where };
    }
    const disabled = item.placeholder ? "true" : "false";
    if (node.getAttribute("aria-disabled") !== disabled) node.setAttribute("aria-disabled", disabled);
    return node;
  }

  /** The height of the first carried card as this page shows it, else of the section's first card. */
  #sizeOf(items, sectionId) {
    for (const id of [items?.[0], ...(this.sectionNodes.get(sectionId) ? [...this.sectionNodes.get(sectionId).list.children].map((n) => n.dataset.item) : [])]) {
      const node = id && this.cards.get(id);
      if (node?.isConnected && !node.hidden && node.offsetHeight) return node.offsetHeight;
    }
    return 52;
  }

  /** Removes the elements of collections and sections the board no longer has. */
  #prune(board) {
    removeUnkept(this.collectionNodes, new Set(board.collections.map((c) => c.id)), (entry) => entry.node);
    removeUnkept(this.sectionNodes, new Set(board.collections.flatMap((c) => c.sections.map((s) => s.id))), (entry) => entry.node);
  }

  /** The drop target under a client point for a drag of `items`, or null (drop-target.js). */
  targetAt(x, y, items, board) {
    return dropTargetAt(this.root, this.cards, x, y, items, board);
  }
}
