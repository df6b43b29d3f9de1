// A card's content drawn in its element (its details are card-face.js's): the item's best
// representation (a card's title and summary, an image, a link, text), a placeholder's spinner,
// and a group's cards inside as small cards of their own. A card is drawn again only when what it
// shows changed.

import { el } from "../ui/dom.js";
import { CARD_TYPE, representation as rep, parseCard, itemLabel, hostOf } from "../model/card-content.js";
import { typeInWords } from "../model/words.js";
import { appendDetails, faceKey } from "./card-face.js";

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
export function sameContent(a, b) {
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
export function fillCard(node, item, ownerColor, face) {
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
