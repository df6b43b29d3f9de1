// Search and filter (issue 43), as plain values: what a card says in one folded text (title, text,
// description, label names, assignees, checklist names and items, comment texts), the filter people
// set ({q, label, assignee, due, unchecked}) and whether a card passes it. A query is words, each found as a substring of the card's
// text, case and accents ignored ("cafe" finds "Café"). Pure: no DOM and no clock (the caller
// passes `now`), so node tests load it.

import { CARD_TYPE, IMAGE_TYPE, parseCard } from "./card-content.js";
import { detailsOf } from "./card-details.js";
import { checklistProgress } from "./checklists.js";

/** How much of one part of a card (a representation, a description, a comment) a search reads. */
export const SEARCH_PART_LIMIT = 20000;
/** How far ahead "Due this week" looks: the next seven days from now. */
export const WEEK_MS = 7 * 24 * 60 * 60 * 1000;
/** The due filter's values. */
export const DUE_FILTERS = Object.freeze(["overdue", "week", "none"]);

const MARKS = /\p{M}+/gu;

/** Text as a search compares it: lower case, accents (combining marks) taken off. */
export function foldText(text) {
  const lower = String(text).toLowerCase();
  // Pure ASCII has no accents to take off: skip the normalisation, the common case.
  return /^[\x00-\x7f]*$/.test(lower) ? lower : lower.normalize("NFD").replace(MARKS, "").normalize("NFC");
}

/** The words of a query, folded; every one must be found in a card. */
export function queryWords(query) {
  return foldText(query ?? "").split(/\s+/).filter(Boolean);
}

/**
 * The raw parts of an item a search reads, unfolded (cheap: references to its strings): its
 * representations (a card's JSON read for its name and summary; images left out), its description,
 * assignees, label names, checklist names and item texts, comment texts, and a group's cards' parts. `labelName(id)` names a label.
 */
export function searchParts(item, labelName = () => "") {
  const parts = [];
  const add = (value) => {
    if (typeof value === "string" && value) parts.push(value.length > SEARCH_PART_LIMIT ? value.slice(0, SEARCH_PART_LIMIT) : value);
  };
  const visit = (node, depth) => {
    for (const r of node.representations || []) {
      if (r.type === IMAGE_TYPE || r.type.startsWith(IMAGE_TYPE + ".")) continue;
      // A card's JSON is kept raw here (compared, not parsed); searchText reads its name and summary.
      add(r.type === CARD_TYPE || r.type.startsWith(CARD_TYPE + ".") ? `\u0000card\u0000${r.value}` : r.value);
    }
    const d = node.details;
    if (d) {
      add(d.description);
      for (const name of d.assignees || []) add(name);
      for (const id of d.labels || []) add(labelName(id));
      for (const list of d.checklists || []) {
        add(list.name);
        for (const entry of list.items || []) add(entry.text);
      }
      for (const c of d.comments || []) add(c.text);
    }
    if (depth < 8) for (const child of node.children || []) visit(child, depth + 1);
  };
  visit(item, 0);
  return parts;
}

/** One folded text of a card's parts, each on its own line (a word never spans two parts). */
export function searchText(parts) {
  return parts
    .map((part) => {
      if (!part.startsWith("\u0000card\u0000")) return foldText(part);
      const card = parseCard(part.slice(6)) || {};
      return foldText([card.name, card.summary].filter((v) => typeof v === "string").join("\n"));
    })
    .join("\n");
}

const sameParts = (a, b) => a.length === b.length && a.every((part, n) => part === b[n]);

/**
 * Each card's folded search text, made when first asked for and made again only when the card's
 * parts changed (the board replaces its item objects on every change, so the parts themselves are
 * compared). Holds at most the cards asked for since the last `prune`.
 */
export class SearchTexts {
  #texts = new Map(); // item id → {parts, text}

  /**
   * The folded text of `item` (see searchParts for `labelName`). `version` is any value that says
   * the board is unchanged (the same value only while it is): a text already read at the same
   * version is given without comparing the card's parts again.
   */
  textOf(item, labelName, version = undefined) {
    const known = this.#texts.get(item.id);
    if (known && version !== undefined && known.version === version) return known.text;
    const parts = searchParts(item, labelName);
    if (known && sameParts(known.parts, parts)) {
      known.version = version;
      return known.text;
    }
    const text = searchText(parts);
    this.#texts.set(item.id, { parts, text, version });
    return text;
  }

  /** Forgets the texts of items not in `ids` (cards that left the board). */
  prune(ids) {
    for (const id of this.#texts.keys()) if (!ids.has(id)) this.#texts.delete(id);
  }

  get size() {
    return this.#texts.size;
  }
}

/**
 * A filter with every part in its canonical form: {q (as typed), label, assignee, due, unchecked}
 * ("" = any; `unchecked` is "1" for "has unchecked items", from `true` or "1").
 */
export function normalFilter(filter = {}) {
  const text = (v) => (typeof v === "string" ? v : "");
  return {
    q: text(filter.q),
    label: text(filter.label),
    assignee: text(filter.assignee),
    due: DUE_FILTERS.includes(filter.due) ? filter.due : "",
    unchecked: filter.unchecked === true || filter.unchecked === "1" ? "1" : "",
  };
}

/** Whether a filter hides anything at all. */
export function isActive(filter) {
  return queryWords(filter.q).length > 0 || !!filter.label || !!filter.assignee || !!filter.due || !!filter.unchecked;
}

/**
 * Whether a card's due date passes the due filter at `now` (ms): "overdue" (due passed, not done),
 * "week" (due in the next seven days, not done), "none" (no due date); "" passes every card.
 */
export function dueMatches(details, due, now) {
  if (!due) return true;
  if (due === "none") return details.due === null;
  if (details.due === null || details.done) return false;
  if (due === "overdue") return details.due < now;
  return details.due >= now && details.due < now + WEEK_MS;
}

/** Whether a card has a checklist item not yet checked ("Has unchecked items"). */
export function hasUncheckedItems(details) {
  const { done, total } = checklistProgress(details);
  return done < total;
}

/**
 * A predicate for a filter: `(item, text) → boolean`, where `text()` gives the item's folded
 * search text (asked for only when the query has words, and after the cheaper checks).
 */
export function cardPredicate(filter, now) {
  const words = queryWords(filter.q);
  return (item, text) => {
    const d = detailsOf(item);
    if (filter.label && !d.labels.includes(filter.label)) return false;
    if (filter.assignee && !d.assignees.includes(filter.assignee)) return false;
    if (!dueMatches(d, filter.due, now)) return false;
    if (filter.unchecked && !hasUncheckedItems(d)) return false;
    if (words.length === 0) return true;
    const haystack = text();
    return words.every((word) => haystack.includes(word));
  };
}
