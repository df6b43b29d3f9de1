// Renders a board into the page and keeps it in step: keyed DOM reuse (a card is one element
// for its whole life, even when it moves between collections), FLIP animations for every card
// whose place changed, the gaps of the local drag and of peers' drags (each opens where its cards
// would land, so everyone sees the same gap), and hit testing from a point to a drop target.
// Editing controls are not its business: decorators (hooks.decorate) add them to the collection,
// section and card elements it keeps, and a card being edited is left to its editor.
import { el } from "../ui/dom.js";
import { CARD_TYPE, representation as rep, parseCard, itemLabel, hostOf } from "../model/card-content.js";
import { acceptsInWords, typeInWords } from "../model/words.js";
import { appendDetails, detailsInWords, faceKey } from "./card-face.js";
import { isShown } from "./search.js";

export { itemLabel, hostOf };

function safeHref(url) {
  try {
    const u = new URL(url, location.href);
    return ["http:", "https:", "mailto:"].includes(u.protocol) ? u.href : null;
  } catch {
    return null;
  }
}

function safeImage(url) {
  if (typeof url !== "string") return null;
  if (/^data:image\/(png|jpeg|gif|webp);base64,/i.test(url)) return url;
  try {
    const u = new URL(url, location.href);
    return ["http:", "https:"].includes(u.protocol) ? u.href : null;
  } catch {
    return null;
  }
}

/** Text as a card shows it: a card has room for a few lines, and laying out a huge text (a board
 * may hold items of hundreds of kilobytes, R14) would stall the page. */
const CARD_TEXT_LIMIT = 600;
function shown(text) {
  return text.length > CARD_TEXT_LIMIT ? text.slice(0, CARD_TEXT_LIMIT - 1) + "…" : text;
}

/** What a card's content depends on, cheap to compare even for huge representations. */
function contentKey(representations) {
  return representations.map((r) => {
    const value = String(r.value);
    return value.length > 4 * CARD_TEXT_LIMIT ? [r.type, value.length, value.slice(0, 2 * CARD_TEXT_LIMIT), value.slice(-64)] : [r.type, value];
  });
}

/** How many cards inside a group its card shows. */
const GROUP_SHOWN = 6;

/**
 * Whether two versions of an item show the same content (details aside: faceKey compares them).
 * The board's items are replaced, never changed in place, when an operation applies, and the
 * replacement of an untouched card is a copy: comparing is far cheaper than serialising it.
 */
function sameContent(a, b) {
  if (a === b) return true;
  if (!a || !b || a.id !== b.id || !!a.placeholder !== !!b.placeholder) return false;
  if (a.placeholder && JSON.stringify(a.placeholder) !== JSON.stringify(b.placeholder)) return false;
  const ra = a.representations;
  const rb = b.representations;
  if (ra.length !== rb.length) return false;
  for (let k = 0; k < ra.length; k++) if (ra[k].type !== rb[k].type || ra[k].value !== rb[k].value) return false;
  if (!a.children !== !b.children) return false;
  if (a.children && (a.children.length !== b.children.length || a.children.some((c, k) => c.id !== b.children[k].id || itemLabel(c) !== itemLabel(b.children[k])))) return false;
  return true;
}

/** Fills a card element with the item's best representation. */
function fillCard(node, item, ownerColor, face) {
  // A render that only moves a gap (a hover), or an operation on other cards, reads no card's
  // content again: the same item (or an unchanged copy) with the same colour and details shows
  // the same face.
  const faceNow = item.details ? faceKey(item, face) : "";
  if (node._ownerColor === ownerColor && node._faceNow === faceNow && sameContent(node._item, item)) {
    node._item = item;
    return;
  }
  node._item = item;
  node._ownerColor = ownerColor;
  node._faceNow = faceNow;
  const key = JSON.stringify([contentKey(item.representations), item.placeholder ? 1 : 0, item.children?.map((c) => [c.id, itemLabel(c)]), ownerColor, faceNow]);
  if (node._contentKey === key) return;
  node._contentKey = key;
  node.replaceChildren();
  node.classList.toggle("placeholder", !!item.placeholder);
  const children = item.children || [];
  node.classList.toggle("group", children.length > 0);
  if (item.placeholder) {
    node.style.setProperty("--owner-color", ownerColor || "#868e96");
    const body = el("div", "card-body");
    body.append(el("span", "spinner"), el("span", "card-text", "Loading…"));
    node.append(body);
    return;
  }
  node.style.removeProperty("--owner-color");
  const body = el("div", "card-body");
  const first = item.representations[0]?.type || "";
  const card = rep(item, CARD_TYPE);
  const url = rep(item, "public.url");
  const text = rep(item, "public.plain-text");
  const image = rep(item, "public.image");
  if (card && (first === CARD_TYPE || !image)) {
    const parsed = parseCard(card) || {};
    body.append(el("strong", "card-title", String(parsed.name ?? "Card")));
    if (parsed.summary) body.append(el("span", "card-summary", String(parsed.summary)));
    if (typeof parsed.latitude === "number" && typeof parsed.longitude === "number") {
      body.append(el("span", "card-meta", `${parsed.latitude.toFixed(3)}, ${parsed.longitude.toFixed(3)}`));
    }
  } else if (image && safeImage(image)) {
    const img = el("img", "card-image");
    img.alt = text || "Image";
    img.src = safeImage(image);
    img.draggable = false;
    img.decoding = "async";
    body.append(img);
    if (text) body.append(el("span", "card-summary", shown(text)));
  } else if (url) {
    const href = safeHref(url);
    const link = el(href ? "a" : "span", "card-link", shown(text && text !== url ? text : url));
    if (href) {
      link.href = href;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      link.draggable = false;
    }
    body.append(link, el("span", "card-meta", hostOf(url) || shown(url)));
  } else if (text) {
    body.append(el("span", "card-text", shown(text)));
  } else if (item.children) {
    body.append(el("strong", "card-title", "Group"));
  } else {
    body.append(el("span", "card-meta", first ? `Holds ${typeInWords(first)}` : "Empty card"));
  }
  appendDetails(body, item, face);
  if (children.length) {
    // The cards inside, each its own small card: it can be dragged (or lifted with Space) out again.
    const list = el("ul", { className: "group-children", attrs: { role: "list", "aria-label": "Inside" } });
    for (const child of children.slice(0, GROUP_SHOWN)) {
      const chip = el("li", { className: "card child-card", text: itemLabel(child), data: { item: child.id }, attrs: { role: "listitem", "aria-describedby": "card-help", "aria-label": `${itemLabel(child)}, inside ${itemLabel(item)}` } });
      chip.tabIndex = -1;
      list.append(chip);
    }
    if (children.length > GROUP_SHOWN) list.append(el("li", "group-more", `+${children.length - GROUP_SHOWN} more`));
    body.append(list);
    const badge = el("span", "group-count", String(children.length));
    badge.title = `${children.length} cards inside`;
    body.append(badge);
  }
  const grip = el("span", "drag-out", "⇱");
  grip.draggable = true;
  grip.title = "Drag out to another app or board";
  grip.setAttribute("aria-hidden", "true");
  node.append(body, grip);
}

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
    this.remoteGaps = new Map(); // peer drag key → its gap element
    this.remoteGapSizes = new Map(); // peer drag key → {id, size}: measured once per carried card
    this.flagged = new Set(); // ids of the cards the last render marked (lifted, a peer's, selected)
    // Live: the cards inside groups, without searching the board for them at every render.
    this.chips = root.getElementsByClassName("child-card");
    this.gap = el("li", "gap");
    this.gap.setAttribute("aria-hidden", "true");
    this.gap.tabIndex = -1;
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
    const before = new Map();
    if (this.animate) for (const [id, rect] of this.#onScreen()) before.set(id, rect);
    const gapSizes = new Map(remoteGaps.map((g) => [g.key, this.#remoteGapSize(g)]));
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
        const gaps = this.#localGap(section, drag);
        for (const g of remoteGaps) {
          if (g.section !== section.id) continue;
          gaps.push({ node: this.#remoteGapNode(g, gapSizes.get(g.key)), index: g.index, moving: new Set(g.items), local: false, key: g.key });
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
    for (const [id, node] of this.cards) {
      if (!seen.has(id)) {
        node.remove();
        this.cards.delete(id);
      }
    }
    for (const [key, node] of this.remoteGaps) {
      if (!usedGaps.has(key)) {
        node.remove();
        this.remoteGaps.delete(key);
        this.remoteGapSizes.delete(key);
      }
    }
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
    if (this.animate) this.#flip(before);
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

  /** The local drag's gap in this section, as a gap to place (or none). */
  #localGap(section, drag) {
    const target = drag?.target;
    this.gap.classList.toggle("keyboard", !!drag?.keyboard);
    if (!target || target.section !== section.id || !drag.showGap) return [];
    // Dropping into a card keeps the gap's room (unseen), so the cards stay where they are.
    this.gap.classList.toggle("into", target.intent === "insertIntoDestinationIndexPath");
    const op = drag.proposal?.operation;
    this.gap.classList.toggle("forbidden", op === "forbidden" || op === "cancel");
    this.gap.classList.toggle("copy", op === "copy");
    this.gap.style.setProperty("--gap-width", `${drag.gapSize?.width || 0}px`);
    this.gap.style.setProperty("--gap-height", `${drag.gapSize?.height || 0}px`);
    setText(this.gap, drag.gapLabel || "");
    return [{ node: this.gap, index: target.index, moving: new Set(drag.items), local: true }];
  }

  /** A peer's gap: the size of the cards it carries, in the peer's colour, with the peer's name. */
  #remoteGapNode(g, size) {
    let node = this.remoteGaps.get(g.key);
    if (!node) {
      node = el("li", { className: "remote-gap", attrs: { "aria-hidden": "true" } }, el("span", "remote-gap-name"));
      this.remoteGaps.set(g.key, node);
    }
    const forbidden = g.operation === "forbidden" || g.operation === "cancel";
    node.dataset.session = g.key;
    node.dataset.member = g.member;
    node.style.setProperty("--peer-color", g.color);
    node.style.setProperty("--gap-height", `${size}px`);
    node.classList.toggle("forbidden", forbidden);
    node.classList.toggle("copy", g.operation === "copy");
    setText(node.firstChild, `${g.name}${forbidden ? " ⊘" : g.operation === "copy" ? " +" : ""}`);
    return node;
  }

  /** The height of the first carried card as this page shows it, else of the section's first card. */
  /**
   * A peer's gap's size, measured when its drag first shows it (and again when it carries another
   * card): measuring at every render laid out, each time, the list of a collection off screen
   * (content-visibility), 400 cards on a big board.
   */
  #remoteGapSize(g) {
    const known = this.remoteGapSizes.get(g.key);
    if (known && known.id === g.items?.[0]) return known.size;
    const size = this.#sizeOf(g.items, g.section);
    this.remoteGapSizes.set(g.key, { id: g.items?.[0], size });
    return size;
  }

  #sizeOf(items, sectionId) {
    for (const id of [items?.[0], ...(this.sectionNodes.get(sectionId) ? [...this.sectionNodes.get(sectionId).list.children].map((n) => n.dataset.item) : [])]) {
      const node = id && this.cards.get(id);
      if (node?.isConnected && !node.hidden && node.offsetHeight) return node.offsetHeight;
    }
    return 52;
  }

  /**
   * The cards in view (with a margin) and where they are: only these are animated, so a render
   * measures what the screen shows, not what the board holds. (Not an IntersectionObserver, nor
   * content-visibility: tracking thousands of cards made every frame that moved one cost more.)
   */
  #onScreen() {
    const found = [];
    const margin = 200;
    const bottom = innerHeight + margin;
    const right = innerWidth + margin;
    const away = (r) => r.bottom < -margin || r.top > bottom || r.right < -margin || r.left > right;
    // A collection off screen first: its contents are not laid out (content-visibility), and
    // measuring a list inside would lay it out.
    const far = new Set();
    for (const { node } of this.collectionNodes.values()) if (away(node.getBoundingClientRect())) far.add(node);
    for (const entry of this.sectionNodes.values()) {
      if (far.has(entry.node.parentNode?.parentNode)) continue;
      const r = entry.list.getBoundingClientRect();
      if (away(r)) continue;
      for (let node = entry.list.firstElementChild; node; node = node.nextElementSibling) {
        if (!node.dataset.item || !isShown(node)) continue;
        const rect = node.getBoundingClientRect();
        if (rect.bottom < -margin) continue;
        if (rect.top > bottom) break; // the rest of the list is further down
        found.push([node.dataset.item, rect]);
      }
    }
    return found;
  }

  #prune(board) {
    const collectionIds = new Set(board.collections.map((c) => c.id));
    for (const [id, entry] of this.collectionNodes) if (!collectionIds.has(id)) { entry.node.remove(); this.collectionNodes.delete(id); }
    const sectionIds = new Set(board.collections.flatMap((c) => c.sections.map((s) => s.id)));
    for (const [id, entry] of this.sectionNodes) if (!sectionIds.has(id)) { entry.node.remove(); this.sectionNodes.delete(id); }
  }

  #flip(before) {
    for (const [id, old] of before) {
      const node = this.cards.get(id);
      if (!node || !isShown(node) || !node.isConnected) continue;
      const now = node.getBoundingClientRect();
      const dx = old.left - now.left;
      const dy = old.top - now.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
      node.animate(
        [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0, 0)" }],
        { duration: 220, easing: "cubic-bezier(.2,.8,.2,1)" },
      );
    }
  }

  /**
   * The collection element at a client point (in the board's visible box), or null. Found from the
   * collections' boxes rather than by a hit test: during a drag the page changes every frame, and
   * on a board of thousands of cards each hit test (document.elementFromPoint, twice through the
   * drag's shield) made the browser bring its whole rendering up to date first, 8–13 ms a call.
   */
  collectionAt(x, y) {
    const inside = (r) => x >= r.left && x < r.right && y >= r.top && y < r.bottom;
    if (!inside(this.root.getBoundingClientRect())) return null;
    for (const { node } of this.collectionNodes.values()) {
      if (node.isConnected && inside(node.getBoundingClientRect())) return node;
    }
    return null;
  }

  /**
   * The drop target under a client point for a drag of `items`:
   * {collection, section, index (in the section without the dragged items), fullIndex, intent,
   * targetItem?, after?, before?} or null when the point is over no collection.
   * `intoCandidate` is set when the point is over the middle of a card (for drop-into).
   */
  targetAt(x, y, items, board) {
    const collectionNode = this.collectionAt(x, y);
    if (!collectionNode) return null;
    // The section under the point, else (over a collection's header or padding) the nearest by
    // vertical distance.
    let list = null;
    let best = null;
    for (const section of collectionNode.querySelectorAll(":scope > .sections > .section")) {
      const candidate = section.querySelector(":scope > .items");
      if (!candidate) continue;
      const s = section.getBoundingClientRect();
      if (y >= s.top && y < s.bottom && x >= s.left && x < s.right) {
        list = candidate;
        break;
      }
      const r = candidate.getBoundingClientRect();
      const d = y < r.top ? r.top - y : y > r.bottom ? y - r.bottom : 0;
      if (!best || d < best.d) best = { d, list: candidate };
    }
    list ||= best?.list;
    if (!list) return null;
    const sectionId = list.dataset.section;
    const collectionId = list.dataset.collection;
    const ids = board.itemIDs(sectionId) || [];
    const moving = new Set(items);
    const remaining = ids.filter((id) => !moving.has(id));
    const grid = list.dataset.layout === "grid";
    // The cards in view (a lifted or filtered-out card is skipped: k stays the board's own index),
    // in reading order, so the first one the point is before is found by halving: a hover on a
    // long list measures a handful of cards, not all of them.
    const shown = [];
    for (let k = 0; k < remaining.length; k++) if (isShown(this.cards.get(remaining[k]))) shown.push(k);
    const rectOf = (j) => this.cards.get(remaining[shown[j]]).getBoundingClientRect();
    const isBefore = (r) => (grid ? y < r.top || (y <= r.bottom && x < r.left + r.width / 2) : y < r.top + r.height / 2);
    let low = 0;
    let high = shown.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (isBefore(rectOf(mid))) high = mid;
      else low = mid + 1;
    }
    const index = low < shown.length ? shown[low] : remaining.length;
    // Only the card the point is before, or the one just above it, can be under the point.
    let intoCandidate = null;
    for (const j of [low - 1, low]) {
      if (j < 0 || j >= shown.length) continue;
      const r = rectOf(j);
      if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) {
        const cx = (x - r.left) / r.width;
        const cy = (y - r.top) / r.height;
        if (cx > 0.3 && cx < 0.7 && cy > 0.3 && cy < 0.7) intoCandidate = remaining[shown[j]];
      }
    }
    return {
      collection: collectionId,
      section: sectionId,
      index,
      intent: "insertAtDestinationIndexPath",
      after: index > 0 ? remaining[index - 1] : undefined,
      before: index < remaining.length ? remaining[index] : undefined,
      intoCandidate,
    };
  }
}

// Writes only what changes: a write, even of the same value, makes the browser lay the board out
// again, and these run for every collection at every render.
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function setData(node, key, value) {
  if (node.dataset[key] !== value) node.dataset[key] = value;
}

function cssId(id) {
  return String(id).replace(/[^a-zA-Z0-9_-]/g, "_");
}

/**
 * Puts gaps among a section's cards: each at its `index` counted without the cards its drag moves
 * (as a drag target counts). The local gap comes first where several open at one place.
 */
function placeGaps(children, gaps) {
  const placed = gaps.map((gap) => {
    let seen = 0;
    let at = children.length;
    for (let k = 0; k < children.length; k++) {
      if (gap.moving.has(children[k].dataset.item)) continue;
      if (seen === gap.index) {
        at = k;
        break;
      }
      seen++;
    }
    return { ...gap, at };
  });
  placed.sort((a, b) => b.at - a.at || (a.local ? 1 : 0) - (b.local ? 1 : 0));
  for (const gap of placed) children.splice(gap.at, 0, gap.node);
}

/** Makes `parent`'s managed children exactly `children`, in order, moving as few nodes as possible. */
function syncChildren(parent, children, managed = () => true) {
  const wanted = new Set(children);
  for (const node of [...parent.children]) if (managed(node) && !wanted.has(node)) node.remove();
  let cursor = firstManaged(parent.firstElementChild, managed);
  for (const child of children) {
    if (child === cursor) {
      cursor = firstManaged(cursor.nextElementSibling, managed);
    } else {
      parent.insertBefore(child, cursor);
    }
  }
}

function firstManaged(node, managed) {
  while (node && !managed(node)) node = node.nextElementSibling;
  return node;
}
