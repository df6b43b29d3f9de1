// Renders a board into the page and keeps it in step: keyed DOM reuse (a card is one element
// for its whole life, even when it moves between collections), FLIP animations for every card
// whose place changed, the local drag's gap, and hit testing from a point to a drop target.
import { el } from "./dom.js";

const CARD_TYPE = "corkboard.card";

/** Parses a corkboard.card JSON value, or returns null. */
function parseCard(value) {
  try {
    const card = JSON.parse(value);
    return card && typeof card === "object" ? card : null;
  } catch {
    return null;
  }
}

function rep(item, type) {
  return item.representations.find((r) => r.type === type || r.type.startsWith(type + "."))?.value;
}

/** A short human label for an item, for announcements and badges. */
export function itemLabel(item) {
  if (!item) return "item";
  if (item.placeholder) return "Loading…";
  const card = rep(item, CARD_TYPE);
  if (card) {
    const parsed = parseCard(card);
    if (parsed?.name) return String(parsed.name);
  }
  const url = rep(item, "public.url");
  const text = rep(item, "public.plain-text");
  if (text) return text.length > 48 ? text.slice(0, 47) + "…" : text;
  if (url) return hostOf(url) || url;
  if (rep(item, "public.image")) return "Image";
  if (item.children) return `Group of ${item.children.length}`;
  return item.id;
}

export function hostOf(url) {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

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

/** Fills a card element with the item's best representation. */
function fillCard(node, item, ownerColor) {
  const key = JSON.stringify([contentKey(item.representations), item.placeholder ? 1 : 0, item.children?.map((c) => c.id), ownerColor]);
  if (node._contentKey === key) return;
  node._contentKey = key;
  node.replaceChildren();
  node.classList.toggle("placeholder", !!item.placeholder);
  node.classList.toggle("group", !!item.children);
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
    body.append(el("span", "card-meta", first || "empty item"));
  }
  if (item.children) {
    const list = el("ul", "group-children");
    for (const child of item.children.slice(0, 6)) list.append(el("li", "", itemLabel(child)));
    if (item.children.length > 6) list.append(el("li", "", `+${item.children.length - 6} more`));
    body.append(list);
    const badge = el("span", "group-count", String(item.children.length));
    badge.title = `${item.children.length} items inside`;
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
   * @param {object} hooks {ownerColor(clientId), isSelected(id), cardLabel(item, position)}
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.cards = new Map(); // item id → element
    this.collectionNodes = new Map();
    this.sectionNodes = new Map();
    this.gap = el("li", "gap");
    this.gap.setAttribute("aria-hidden", "true");
    this.gap.tabIndex = -1;
    this.animate = !matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  cardElement(id) {
    return this.cards.get(id);
  }

  sectionList(sectionId) {
    return this.sectionNodes.get(sectionId)?.list;
  }

  /**
   * Renders `board` with the local drag `drag` ({items, target, proposal, keyboard}) and the
   * remote drags (a map of session → {items, member}), animating cards that moved.
   */
  render(board, drag, remoteLifted) {
    const before = new Map();
    if (this.animate) {
      for (const [id, node] of this.cards) if (node.isConnected && !node.hidden) before.set(id, node.getBoundingClientRect());
    }
    const focusedId = document.activeElement?.dataset?.item;
    const seen = new Set();
    const collections = [];
    for (const collection of board.collections) {
      const cnode = this.#collectionNode(collection);
      collections.push(cnode.node);
      const sections = [];
      for (const section of collection.sections) {
        const snode = this.#sectionNode(section, collection);
        sections.push(snode.node);
        const children = [];
        section.items.forEach((item, index) => {
          const card = this.#card(item, section.items.length, index, collection, section);
          seen.add(item.id);
          children.push(card);
        });
        this.#placeGap(children, section, drag);
        syncChildren(snode.list, children);
        snode.list.classList.toggle("empty", section.items.length === 0);
      }
      syncChildren(cnode.sections, sections);
    }
    syncChildren(this.root, collections, (n) => n.classList?.contains("collection"));
    for (const [id, node] of this.cards) {
      if (!seen.has(id)) {
        node.remove();
        this.cards.delete(id);
      }
    }
    this.#prune(board);
    // Classes for lifted cards (local and remote) and selection.
    const local = new Set(drag?.items || []);
    for (const [id, node] of this.cards) {
      node.classList.toggle("lifted", local.has(id));
      node.hidden = local.has(id) && !!drag?.hideSources;
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
    if (focusedId && document.activeElement?.dataset?.item !== focusedId && !drag?.keyboard) {
      this.cards.get(focusedId)?.focus({ preventScroll: true });
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
      header.append(title, accepts);
      const sections = el("div", "sections");
      node.append(header, sections);
      entry = { node, title, accepts, sections };
      this.collectionNodes.set(collection.id, entry);
    }
    entry.node.dataset.layout = collection.layout;
    entry.title.textContent = collection.title || "Untitled";
    entry.accepts.textContent = collection.accepts.length ? `Takes ${collection.accepts.map(shortType).join(", ")}` : "";
    entry.node._collection = collection;
    return entry;
  }

  #sectionNode(section, collection) {
    let entry = this.sectionNodes.get(section.id);
    if (!entry) {
      const node = el("div", "section");
      node.dataset.section = section.id;
      const title = el("h3", "section-title");
      const list = el("ul", "items");
      list.setAttribute("role", "list");
      list.dataset.section = section.id;
      node.append(title, list);
      entry = { node, title, list };
      this.sectionNodes.set(section.id, entry);
    }
    entry.node.dataset.collection = collection.id;
    entry.list.dataset.collection = collection.id;
    entry.list.dataset.layout = collection.layout;
    entry.title.textContent = section.title;
    entry.title.hidden = !section.title || (collection.sections.length === 1 && section.title === collection.title);
    entry.list.setAttribute("aria-label", section.title || collection.title || "Items");
    return entry;
  }

  #card(item, count, index, collection, section) {
    let node = this.cards.get(item.id);
    if (!node) {
      node = el("li", "card");
      node.dataset.item = item.id;
      node.tabIndex = 0;
      node.setAttribute("role", "listitem");
      node.setAttribute("aria-roledescription", "draggable card");
      this.cards.set(item.id, node);
    }
    fillCard(node, item, item.placeholder ? this.hooks.ownerColor(item.placeholder.owner) : null);
    node._label = `${itemLabel(item)}, ${index + 1} of ${count} in ${section.title || collection.title}`;
    node.setAttribute("aria-disabled", item.placeholder ? "true" : "false");
    return node;
  }

  #placeGap(children, section, drag) {
    const target = drag?.target;
    this.gap.classList.toggle("keyboard", !!drag?.keyboard);
    if (!target || target.section !== section.id || target.intent === "insertIntoDestinationIndexPath" || !drag.showGap) return;
    const moving = new Set(drag.items);
    let seen = 0;
    let at = children.length;
    for (let k = 0; k < children.length; k++) {
      if (moving.has(children[k].dataset.item)) continue;
      if (seen === target.index) {
        at = k;
        break;
      }
      seen++;
    }
    const op = drag.proposal?.operation;
    this.gap.classList.toggle("forbidden", op === "forbidden" || op === "cancel");
    this.gap.classList.toggle("copy", op === "copy");
    this.gap.style.setProperty("--gap-width", `${drag.gapSize?.width || 0}px`);
    this.gap.style.setProperty("--gap-height", `${drag.gapSize?.height || 0}px`);
    this.gap.textContent = drag.gapLabel || "";
    children.splice(at, 0, this.gap);
  }

  #prune(board) {
    const collectionIds = new Set(board.collections.map((c) => c.id));
    for (const [id, entry] of this.collectionNodes) if (!collectionIds.has(id)) { entry.node.remove(); this.collectionNodes.delete(id); }
    const sectionIds = new Set(board.collections.flatMap((c) => c.sections.map((s) => s.id)));
    for (const [id, entry] of this.sectionNodes) if (!sectionIds.has(id)) { entry.node.remove(); this.sectionNodes.delete(id); }
  }

  #flip(before) {
    for (const [id, node] of this.cards) {
      const old = before.get(id);
      if (!old || node.hidden || !node.isConnected) continue;
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
   * The drop target under a client point for a drag of `items`:
   * {collection, section, index (in the section without the dragged items), fullIndex, intent,
   * targetItem?, after?, before?} or null when the point is over no collection.
   * `intoCandidate` is set when the point is over the middle of a card (for drop-into).
   */
  targetAt(x, y, items, board) {
    const hit = document.elementFromPoint(x, y);
    if (!hit) return null;
    const collectionNode = hit.closest(".collection");
    if (!collectionNode || !this.root.contains(collectionNode)) return null;
    let list = hit.closest(".section")?.querySelector(".items");
    if (!list) {
      // Over a collection's header or padding: the nearest section by vertical distance.
      let best = null;
      for (const candidate of collectionNode.querySelectorAll(".items")) {
        const r = candidate.getBoundingClientRect();
        const d = y < r.top ? r.top - y : y > r.bottom ? y - r.bottom : 0;
        if (!best || d < best.d) best = { d, list: candidate };
      }
      list = best?.list;
    }
    if (!list) return null;
    const sectionId = list.dataset.section;
    const collectionId = list.dataset.collection;
    const ids = board.itemIDs(sectionId) || [];
    const moving = new Set(items);
    const remaining = ids.filter((id) => !moving.has(id));
    const grid = list.dataset.layout === "grid";
    let index = remaining.length;
    let intoCandidate = null;
    for (let k = 0; k < remaining.length; k++) {
      const node = this.cards.get(remaining[k]);
      if (!node || node.hidden) continue;
      const r = node.getBoundingClientRect();
      if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) {
        const cx = (x - r.left) / r.width;
        const cy = (y - r.top) / r.height;
        if (cx > 0.3 && cx < 0.7 && cy > 0.3 && cy < 0.7) intoCandidate = remaining[k];
      }
      const before = grid ? y < r.top || (y <= r.bottom && x < r.left + r.width / 2) : y < r.top + r.height / 2;
      if (before) {
        index = k;
        break;
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

function shortType(type) {
  return { "corkboard.card": "cards", "public.plain-text": "text", "public.url": "links", "public.image": "images" }[type] || type;
}

function cssId(id) {
  return String(id).replace(/[^a-zA-Z0-9_-]/g, "_");
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
