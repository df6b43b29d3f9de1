// A card's details (issue 41): its markdown description, due and start dates, done flag and
// assignees, as the wire carries them on an item (docs/PROTOCOL.md, "Card details"):
//   {description, descriptionVersion, due, start, datesVersion, done, assignees}
// each key left out at its default ("" · 0 · no date · 0 · false · []), and the whole object left
// out while every key is. Pure: no DOM and no clock (the caller passes `now`), so node tests load it.

/** The bounds of docs/PROTOCOL.md's card limits (a client keeps to them before the room refuses). */
export const CARD_LIMITS = Object.freeze({
  descriptionBytes: 65536,
  assigneeCharacters: 100,
  assignees: 20,
  namesPerList: 20,
  maxDate: 253402300799999,
});

/** How long before its due date a card shows as due soon. */
export const DUE_SOON_MS = 24 * 60 * 60 * 1000;

/** An item's details with every default filled in (for reading; never stored like this). */
export function detailsOf(item) {
  const d = item?.details || {};
  return {
    description: d.description ?? "",
    descriptionVersion: d.descriptionVersion ?? 0,
    due: d.due ?? null,
    start: d.start ?? null,
    datesVersion: d.datesVersion ?? 0,
    done: d.done ?? false,
    assignees: d.assignees ?? [],
  };
}

/** Details as the wire carries them: defaults left out; undefined when all are defaults. */
export function compactDetails(d) {
  const out = {};
  if (d.description) out.description = d.description;
  if (d.descriptionVersion) out.descriptionVersion = d.descriptionVersion;
  if (d.due !== null && d.due !== undefined) out.due = d.due;
  if (d.start !== null && d.start !== undefined) out.start = d.start;
  if (d.datesVersion) out.datesVersion = d.datesVersion;
  if (d.done) out.done = true;
  if (d.assignees?.length) out.assignees = [...d.assignees];
  return Object.keys(out).length ? out : undefined;
}

/** Whether a card has anything worth showing on its face. */
export function hasDetails(item) {
  return !!item?.details;
}

/**
 * What the date badge says of a card at `now` (ms): "done" (done, with or without a date),
 * "overdue" (due passed), "soon" (due within 24 h), "later", or null (no due date, not done).
 */
export function dueState(details, now) {
  if (details.done) return "done";
  if (details.due === null || details.due === undefined) return null;
  if (details.due < now) return "overdue";
  if (details.due - now <= DUE_SOON_MS) return "soon";
  return "later";
}

/**
 * The board's people, for "Assign": the names of the members here now (in join order) and
 * everyone assigned on any card of the board, each name once, members first.
 */
export function boardPeople(board, memberNames = []) {
  const names = [];
  const seen = new Set();
  const add = (name) => {
    if (typeof name !== "string" || !name.trim() || seen.has(name)) return;
    seen.add(name);
    names.push(name);
  };
  memberNames.forEach(add);
  const assigned = [];
  for (const { item } of board.items.values()) for (const name of item.details?.assignees || []) assigned.push(name);
  [...new Set(assigned)].sort((a, b) => a.localeCompare(b)).forEach(add);
  return names;
}

/** A person's initials for a card's face: "Ada Lovelace" → "AL", "bob" → "B". */
export function initials(name) {
  const words = String(name).trim().split(/\s+/).filter(Boolean);
  const letter = (w) => [...w][0]?.toUpperCase() || "";
  if (words.length === 0) return "?";
  if (words.length === 1) return letter(words[0]);
  return letter(words[0]) + letter(words.at(-1));
}
