// What an item says, as people read it and as the card editor changes it. A card is a
// `corkboard.card` JSON value ({name, summary, …}) with a `public.plain-text` summary for other
// apps ("Name: summary"); a note is text; a link or an image may carry a text caption. Editing
// keeps every field and representation it does not change (a geocache's coordinates, a link's
// URL). Pure: no DOM, so node tests can check it.

export const CARD_TYPE = "corkboard.card";
export const TEXT_TYPE = "public.plain-text";
export const URL_TYPE = "public.url";
export const IMAGE_TYPE = "public.image";

/** Input lengths the page keeps to, well inside what the server takes. */
export const INPUT_LIMITS = Object.freeze({ cardTitle: 200, cardText: 5000, title: 100 });

/** The value of the first representation of `type` (or a subtype: `public.image.png`). */
export function representation(item, type) {
  return item?.representations?.find((r) => r.type === type || r.type.startsWith(type + "."))?.value;
}

/** Parses a corkboard.card JSON value, or returns null. */
export function parseCard(value) {
  try {
    const card = JSON.parse(value);
    return card && typeof card === "object" && !Array.isArray(card) ? card : null;
  } catch {
    return null;
  }
}

export function hostOf(url) {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

/** A short human label for an item, for announcements, menus and messages. */
export function itemLabel(item) {
  if (!item) return "the card";
  if (item.placeholder) return "Loading…";
  const card = representation(item, CARD_TYPE);
  if (card) {
    const parsed = parseCard(card);
    if (parsed?.name) return String(parsed.name);
  }
  const url = representation(item, URL_TYPE);
  const text = representation(item, TEXT_TYPE);
  if (text) return text.length > 48 ? text.slice(0, 47) + "…" : text;
  if (url) return hostOf(url) || url;
  if (representation(item, IMAGE_TYPE)) return "Image";
  if (item.children) return `Group of ${item.children.length}`;
  return "Untitled card";
}

/** The plain-text summary of a card, as the demo's cards carry it. */
export function summaryOf(title, text) {
  return text ? `${title}: ${text}` : title;
}

/**
 * What the editor shows of an item: {kind, title, text, editable}. `kind` is card, note, link,
 * image, group or other; notes, links and images have no title (their text is the caption).
 */
export function readContent(item) {
  if (!item || item.placeholder) return { kind: "other", title: "", text: "", editable: false };
  const card = representation(item, CARD_TYPE);
  if (card !== undefined) {
    const parsed = parseCard(card) || {};
    return { kind: "card", title: String(parsed.name ?? ""), text: String(parsed.summary ?? ""), editable: true };
  }
  const text = representation(item, TEXT_TYPE) ?? "";
  if (representation(item, IMAGE_TYPE) !== undefined) return { kind: "image", title: "", text, editable: true };
  if (representation(item, URL_TYPE) !== undefined) return { kind: "link", title: "", text, editable: true };
  if (representation(item, TEXT_TYPE) !== undefined) return { kind: "note", title: "", text, editable: true };
  if (item.children && item.representations.length === 0) return { kind: "group", title: "", text: "", editable: false };
  return { kind: "other", title: "", text: "", editable: false };
}

/** The representations of a new card: its JSON first, then the text other apps read. */
export function newCardRepresentations({ title, text = "" }) {
  const card = { name: title };
  if (text) card.summary = text;
  return [
    { type: CARD_TYPE, value: JSON.stringify(card) },
    { type: TEXT_TYPE, value: summaryOf(title, text) },
  ];
}

/**
 * The item's representations with `title` and `text` changed, everything else kept in place.
 * A card's JSON keeps its other fields and its text summary follows; other items get `text` as
 * their plain-text caption (removed when empty, unless it is all a note has).
 */
export function editedRepresentations(item, { title, text = "" }) {
  const kind = readContent(item).kind;
  const reps = item.representations.map((r) => ({ ...r }));
  const textAt = reps.findIndex((r) => r.type === TEXT_TYPE);
  if (kind === "card") {
    const cardAt = reps.findIndex((r) => r.type === CARD_TYPE || r.type.startsWith(CARD_TYPE + "."));
    const card = { ...(parseCard(reps[cardAt].value) || {}), name: title };
    if (text) card.summary = text;
    else delete card.summary;
    reps[cardAt] = { type: reps[cardAt].type, value: JSON.stringify(card) };
    const summary = { type: TEXT_TYPE, value: summaryOf(title, text) };
    if (textAt >= 0) reps[textAt] = summary;
    else reps.splice(cardAt + 1, 0, summary);
    return reps;
  }
  if (textAt >= 0) {
    if (text || kind === "note") reps[textAt] = { type: TEXT_TYPE, value: text };
    else reps.splice(textAt, 1);
  } else if (text) {
    reps.push({ type: TEXT_TYPE, value: text });
  }
  return reps;
}

/** Whether two representation lists say the same. */
export function sameRepresentations(a = [], b = []) {
  return a.length === b.length && a.every((r, n) => r.type === b[n].type && r.value === b[n].value);
}
