// The values messages carry, each with its check: the client's limits of MessageValidation
// (tokens, opIds, indices, names, coordinates), a card's details with the bounds of
// docs/PROTOCOL.md's card table (MessageValidation+Content), and the board's items, sections,
// collections and destinations as they travel.

import { CARD_LIMITS, LABEL_COLORS, characterCount, commentTextProblem } from "../model/card-details.js";
import { INTENTS, LAYOUTS, LIMITS } from "./protocol-limits.js";
import {
  arrayOf, boolean, boundedArrayOf, count, fail, integer, integerIn, join, lazy, number, object, oneOf, opt, string,
} from "./field-checks.js";

// MARK: Limits of client messages (MessageValidation)

const utf8Length = (text) => new TextEncoder().encode(text).length;

export function token(value, path) {
  string(value, path);
  if (value.length === 0 || utf8Length(value) > LIMITS.maxTokenBytes) fail(path, `1 to ${LIMITS.maxTokenBytes} bytes long`, value);
}

export function opId(value, path) {
  token(value, path);
  if (value.includes(LIMITS.reservedOpIdCharacter)) fail(path, `free of "${LIMITS.reservedOpIdCharacter}" (reserved for drops across boards)`, value);
}

export function index(value, path) {
  if (!Number.isInteger(value) || value < 0 || value > LIMITS.maxIndex) fail(path, `an integer between 0 and ${LIMITS.maxIndex}`, value);
}

export const itemList = boundedArrayOf(token, LIMITS.maxItemsPerDrag, "items");

export function name(value, path) {
  string(value, path);
  const trimmed = value.trim();
  if (trimmed.length === 0 || characterCount(trimmed) > LIMITS.maxNameCharacters) fail(path, `1 to ${LIMITS.maxNameCharacters} characters after trimming`, value);
}

/** hello.color: a lowercase #rrggbb (the server gives it when it is a free palette colour). */
export function memberColor(value, path) {
  string(value, path);
  if (!/^#[0-9a-f]{6}$/.test(value)) fail(path, "a lowercase #rrggbb colour", value);
}

export function coordinate(value, path) {
  number(value, path);
  if (Math.abs(value) > LIMITS.maxCoordinate) fail(path, `within ±${LIMITS.maxCoordinate}`, value);
}

// MARK: Card details (issue 41): the limits of docs/PROTOCOL.md's card table

/** A date: whole milliseconds since 1970 UTC, 0 … 253402300799999. */
export const date = integerIn(0, CARD_LIMITS.maxDate);

function assignee(value, path) {
  string(value, path);
  if (value.trim().length === 0 || characterCount(value) > CARD_LIMITS.assigneeCharacters) {
    fail(path, `a name of 1 to ${CARD_LIMITS.assigneeCharacters} characters, not blank`, value);
  }
}

/** A description as a card's details hold it: its text and the version it was made on. */
export const descriptionValue = object({ text: string, version: opt(count) });

/** A description as a client may send it: at most CARD_LIMITS.descriptionBytes of text. */
export function description(value, path) {
  descriptionValue(value, path);
  if (utf8Length(value.text) > CARD_LIMITS.descriptionBytes) fail(join(path, "text"), `at most ${CARD_LIMITS.descriptionBytes} UTF-8 bytes`, `${utf8Length(value.text)} bytes`);
}

export const names = boundedArrayOf(assignee, CARD_LIMITS.namesPerList, "names");

function labelName(value, path) {
  string(value, path);
  if (characterCount(value) > CARD_LIMITS.labelNameCharacters) fail(path, `at most ${CARD_LIMITS.labelNameCharacters} characters`, value);
}

/** A label of the board (Label): its id, name (may be empty) and colour. */
export const labelOf = (client) => object({ id: client ? token : string, name: client ? labelName : string, color: oneOf(LABEL_COLORS) });
export const labelIds = boundedArrayOf(token, CARD_LIMITS.labels, "label ids");

/** A comment's text as a client may send it: 1 to 16,384 UTF-8 bytes, not blank. */
export function commentText(value, path) {
  string(value, path);
  const problem = commentTextProblem(value);
  if (problem) fail(path, `not blank and at most ${CARD_LIMITS.commentBytes} UTF-8 bytes`, value.length > 60 ? `${utf8Length(value)} bytes` : value);
}

/** A file attached to a card (Attachment): where it is served, its name, media type and size. */
export const attachment = object({ url: string, name: string, type: string, bytes: count });
export const attachmentList = boundedArrayOf(attachment, CARD_LIMITS.attachments, "attachments");
export const fileUrls = boundedArrayOf(string, CARD_LIMITS.attachments, "file urls");

/** A comment in a card's thread (Comment). */
export const comment = object({ id: string, author: string, name: string, at: integer, text: string, version: opt(count) });

/** An item of a checklist (Checklist.Entry). */
export const checklistEntry = object({ id: string, text: string, done: opt(boolean) });

/** The checklist item a cursor drags in an open card, and where it would land (ChecklistDrag). */
export const checklistDrag = object({ item: string, checklist: string, entry: string, index: opt(count) });

// MARK: The board's values

export const representation = object({ type: string, value: string });
const details = object({
  description: opt(string),
  descriptionVersion: opt(count),
  due: opt(integer),
  start: opt(integer),
  datesVersion: opt(count),
  done: opt(boolean),
  assignees: opt(arrayOf(string)),
  labels: opt(arrayOf(string)),
  comments: opt(arrayOf(comment)),
  attachments: opt(arrayOf(attachment)),
  cover: opt(string),
});
export const item = object({
  id: string,
  representations: arrayOf(representation),
  children: opt(lazy(() => arrayOf(item))),
  placeholder: opt(object({ owner: string, createdAt: number })),
  version: opt(count),
  details: opt(details),
});
export const section = object({ id: string, title: string, items: arrayOf(item) });
export const collection = object({ id: string, title: string, layout: oneOf(LAYOUTS), accepts: arrayOf(string), sections: arrayOf(section) });
export const position = object({ collection: string, section: string, group: opt(string), index: count });

/** Destination and DragTarget, with the index checked against the limits in client messages. */
export const destinationOf = (indexCheck, idCheck) =>
  object({
    collection: string,
    section: string,
    index: indexCheck,
    after: opt(idCheck),
    before: opt(idCheck),
    intent: oneOf(INTENTS),
    target: opt(idCheck),
  });
export const dragTargetOf = (indexCheck, boardCheck) =>
  object({ board: opt(boardCheck), collection: string, section: string, index: indexCheck, intent: oneOf(INTENTS) });

export const newItem = object({ id: opt(string), representations: arrayOf(representation), children: opt(lazy(() => arrayOf(newItem))), version: opt(count), details: opt(details) });
export const newSection = object({ id: string, title: opt(string) });
