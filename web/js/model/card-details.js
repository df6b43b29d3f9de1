// A card's details (issue 41): its markdown description, due and start dates, done flag,
// assignees, labels (ids of the board's labels), comments, attached files and the cover, as the wire
// carries them on an item (docs/PROTOCOL.md, updateCard and addComment):
//   {description, descriptionVersion, due, start, datesVersion, done, assignees, labels, comments,
//    attachments, cover, checklists}
// each key left out at its default ("" · 0 · no date · 0 · false · []), and the whole object left
// out while every key is. Pure: no DOM and no clock (the caller passes `now`), so node tests load it.

/** The bounds of docs/PROTOCOL.md's card limits (a client keeps to them before the room refuses). */
export const CARD_LIMITS = Object.freeze({
  descriptionBytes: 65536,
  assigneeCharacters: 100,
  assignees: 20,
  namesPerList: 20,
  maxDate: 253402300799999,
  labels: 50,
  labelNameCharacters: 50,
  commentBytes: 16384,
  comments: 500,
  attachments: 20,
  attachmentNameCharacters: 255,
  attachmentTypeCharacters: 127,
  attachmentBytes: 2 ** 40,
});

/** The colours a label may have (docs/PROTOCOL.md, Label). */
export const LABEL_COLORS = Object.freeze(["green", "yellow", "orange", "red", "purple", "blue", "sky", "pink", "gray"]);

const graphemes = typeof Intl !== "undefined" && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;
/** Characters as people count them (grapheme clusters, as Swift's String.count). */
export const characterCount = (text) => (graphemes ? [...graphemes.segment(text)].length : [...text].length);

const utf8Length = (text) => new TextEncoder().encode(text).length;

function datesProblem(due, start) {
  for (const date of [due, start]) {
    if (date !== undefined && date !== null && !(Number.isInteger(date) && date >= 0 && date <= CARD_LIMITS.maxDate)) {
      return { field: "dates", message: `A date is whole milliseconds since 1970 from 0 to ${CARD_LIMITS.maxDate}; ${date} is outside that.` };
    }
  }
  if (due !== undefined && due !== null && start !== undefined && start !== null && start > due) {
    return { field: "dates", message: "The start date is after the due date; move one of them." };
  }
  return null;
}

function nameProblem(name, field) {
  if (typeof name !== "string" || !name.trim()) return { field, message: "A person's name cannot be blank; name who to assign." };
  if (characterCount(name) > CARD_LIMITS.assigneeCharacters) return { field, message: `A person's name has at most ${CARD_LIMITS.assigneeCharacters} characters.` };
  return null;
}

/**
 * What passes the bounds in an updateCard on its own, as {field, message}, or null (CorkboardModel's
 * UpdateCard.problem): no part at all, a description too long, dates out of range or in the wrong
 * order, too many or bad names, a name in both lists. The count after applying is the board's check.
 */
export function updateProblem(op) {
  const present = (k) => op[k] !== undefined && op[k] !== null;
  if (!["description", "dates", "done", "assign", "unassign", "addLabels", "removeLabels", "attach", "detach", "cover"].some(present)) {
    return { field: "item", message: "updateCard changes nothing; give at least one of description, dates, done, assign, unassign, addLabels, removeLabels, attach, detach, cover." };
  }
  if (present("description") && utf8Length(op.description.text) > CARD_LIMITS.descriptionBytes) {
    return { field: "description", message: `A description holds at most ${CARD_LIMITS.descriptionBytes} bytes of UTF-8.` };
  }
  const dates = present("dates") && datesProblem(op.dates.due, op.dates.start);
  if (dates) return dates;
  for (const field of ["assign", "unassign"]) {
    const names = op[field] || [];
    if (names.length > CARD_LIMITS.namesPerList) return { field, message: `Name at most ${CARD_LIMITS.namesPerList} people in one ${field}.` };
    for (const name of names) {
      const problem = nameProblem(name, field);
      if (problem) return problem;
    }
  }
  const both = (op.assign || []).find((name) => (op.unassign || []).includes(name));
  if (both !== undefined) return { field: "unassign", message: `${both} is both assigned and unassigned; name them in one list only.` };
  for (const field of ["addLabels", "removeLabels"]) {
    if ((op[field] || []).length > CARD_LIMITS.labels) return { field, message: `Name at most ${CARD_LIMITS.labels} labels in one ${field}.` };
  }
  const label = (op.addLabels || []).find((id) => (op.removeLabels || []).includes(id));
  if (label !== undefined) return { field: "removeLabels", message: `Label ${label} is both added and removed; name it in one list only.` };
  return attachProblem(op);
}

// `/files/<board>/<sha256>.<ext>`; a board id is 1 to 64 UTF-8 bytes of letters, digits, - or _
// (CorkboardModel's BoardIDRule: a letter may carry its combining marks).
const STORED_FILE = /^\/files\/([\p{L}\p{N}_-][\p{L}\p{M}\p{N}_-]*)\/[0-9a-f]{64}\.(png|jpg|gif|webp|bin)$/u;
const utf8Bytes = (text) => new TextEncoder().encode(text).length;
const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

/** Whether `url` is where the server serves a stored upload (`/files/<board>/<sha256>.<ext>`). */
export function isStoredFileUrl(url) {
  const match = typeof url === "string" ? STORED_FILE.exec(url) : null;
  return match !== null && utf8Bytes(match[1]) <= 64;
}

/** Whether an attached file is served as an image (and so can be a card's cover). */
export const isImageFile = (url) => isStoredFileUrl(url) && !url.endsWith(".bin");

/** What is wrong with one attachment ({field, message}) or null (CorkboardModel's Attachment.problem). */
export function attachmentProblem(file, field = "attach") {
  if (!isStoredFileUrl(file?.url)) {
    return { field, message: "An attachment's url is where the server stored the upload: /files/<board>/<sha256>.<ext>; upload the file first and attach the url it answers." };
  }
  if (typeof file.name !== "string" || !file.name.trim() || /\p{Cc}/u.test(file.name)) {
    return { field, message: "An attachment's name cannot be blank or hold control characters." };
  }
  if (characterCount(file.name) > CARD_LIMITS.attachmentNameCharacters) {
    return { field, message: `An attachment's name has at most ${CARD_LIMITS.attachmentNameCharacters} characters.` };
  }
  if (typeof file.type !== "string" || utf8Length(file.type) > CARD_LIMITS.attachmentTypeCharacters || !MEDIA_TYPE.test(file.type)) {
    return { field, message: `An attachment's type is a media type such as application/pdf (at most ${CARD_LIMITS.attachmentTypeCharacters} characters, lowercase).` };
  }
  if (!Number.isInteger(file.bytes) || file.bytes < 0 || file.bytes > CARD_LIMITS.attachmentBytes) {
    return { field, message: `An attachment's size is from 0 to ${CARD_LIMITS.attachmentBytes} bytes.` };
  }
  return null;
}

function attachProblem(op) {
  for (const field of ["attach", "detach"]) {
    if ((op[field] || []).length > CARD_LIMITS.attachments) return { field, message: `Name at most ${CARD_LIMITS.attachments} files in one ${field}.` };
  }
  for (const file of op.attach || []) {
    const problem = attachmentProblem(file);
    if (problem) return problem;
  }
  const bad = (op.detach || []).find((url) => !isStoredFileUrl(url));
  if (bad !== undefined) return { field: "detach", message: `${String(bad).slice(0, 80)} is not an attached file's url; name the url of a file on the card.` };
  const both = (op.attach || []).find((file) => (op.detach || []).includes(file.url));
  if (both) return { field: "detach", message: `${both.name} is both attached and detached; name it in one list only.` };
  if (typeof op.cover === "string" && op.cover !== "" && !isStoredFileUrl(op.cover)) {
    return { field: "cover", message: 'A cover is the url of an image attached to the card, or "" for none.' };
  }
  return null;
}

/** What is wrong with a card's files as a whole after a change, or null: too many, a cover not an attached image. */
export function attachmentsProblem(d) {
  if (d.attachments.length > CARD_LIMITS.attachments) {
    return { field: "attach", message: `A card holds at most ${CARD_LIMITS.attachments} files, each once; detach one first.` };
  }
  if (d.cover && !d.attachments.some((a) => a.url === d.cover && isImageFile(a.url))) {
    return { field: "cover", message: "A card's cover is one of the images attached to it; attach it first." };
  }
  return null;
}

/** "78 bytes", "1.5 KB", "3.2 MB": a file's size as people read it. */
export function fileSize(bytes) {
  if (bytes < 1000) return `${bytes} byte${bytes === 1 ? "" : "s"}`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value >= 10 ? Math.round(value) : Math.round(value * 10) / 10} ${units[unit]}`;
}

/** What is wrong with a comment's text ({field, message}), or null: blank, or over 16 KiB. */
export function commentTextProblem(text, field = "text") {
  if (typeof text !== "string" || !text.trim()) return { field, message: "A comment cannot be empty; write something or cancel." };
  if (utf8Length(text) > CARD_LIMITS.commentBytes) return { field, message: `A comment holds at most ${CARD_LIMITS.commentBytes} bytes of UTF-8; shorten it or split it in two.` };
  return null;
}

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
    labels: d.labels ?? [],
    comments: d.comments ?? [],
    attachments: d.attachments ?? [],
    cover: d.cover ?? null,
    checklists: d.checklists ?? [],
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
  if (d.labels?.length) out.labels = [...d.labels];
  if (d.comments?.length) out.comments = d.comments.map((c) => ({ ...c }));
  if (d.attachments?.length) out.attachments = d.attachments.map((a) => ({ ...a }));
  if (d.cover) out.cover = d.cover;
  if (d.checklists?.length) {
    out.checklists = d.checklists.map((l) => ({ id: l.id, name: l.name, ...(l.items?.length ? { items: l.items.map((e) => ({ ...e })) } : {}) }));
  }
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
 * The board's people, for "Assign": the names given (the members here now in join order, then the
 * others the room knows) and everyone assigned on any card of the board, each name once, the
 * given names first.
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

/** A label's colour as people name it ("Red" for "red"). */
export const colorName = (color) => (color ? color[0].toUpperCase() + color.slice(1) : "Gray");

/** What a label is called where people read it: its name, or "Red label" while it has none. */
export function labelTitle(label) {
  return label?.name?.trim() ? label.name : `${colorName(label?.color)} label`;
}

/** The board's labels a card carries, in the board's order (ids the board lacks are left out). */
export function cardLabels(labels, details) {
  const carried = new Set(details?.labels || []);
  return (labels || []).filter((label) => carried.has(label.id));
}

/** How many cards of the board carry the label `id` (children of groups too). */
export function labelUsage(board, id) {
  let count = 0;
  for (const { item } of board.items.values()) if (item.details?.labels?.includes(id)) count += 1;
  return count;
}

/** "1 comment", "3 comments". */
export const commentsInWords = (count) => `${count} comment${count === 1 ? "" : "s"}`;
