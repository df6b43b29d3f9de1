// Changes the room will never take (the link stopped working, the board is gone, editing is no
// longer allowed), written out as text a person can copy and redo by hand: one line per change,
// with every title, text and comment the change carried in full.
import { CARD_TYPE, TEXT_TYPE, URL_TYPE, parseCard, representation } from "./card-content.js";

/** The text carried by a list of representations: a card's title and summary, a note's text, a link. */
function contentText(representations = []) {
  const item = { representations };
  const card = representation(item, CARD_TYPE);
  if (card !== undefined) {
    const parsed = parseCard(card) || {};
    return [parsed.name, parsed.summary].filter(Boolean).map(String).join(": ");
  }
  return representation(item, TEXT_TYPE) ?? representation(item, URL_TYPE) ?? "";
}

const quoted = (text) => (text ? ` “${text}”` : "");

/** One line saying what a pending operation did, with the text it carried. */
export function changeInWords(envelope) {
  const op = envelope?.op || {};
  const what = envelope?.label ? ` “${envelope.label}”` : "";
  switch (op.kind) {
    case "insert":
      return `Added: ${(op.items || []).map((i) => contentText(i.representations)).filter(Boolean).join(" | ") || "a card"}`;
    case "insertPlaceholder":
    case "commitPlaceholder":
      return `Added: ${contentText(op.representations) || "dropped content"}`;
    case "updateItem":
      return `Edited${what}: ${contentText(op.representations)}`;
    case "updateCard":
      return `Changed the details of${what || " a card"}${op.description ? `; description: ${op.description.text}` : ""}`;
    case "addComment":
      return `Comment on${what || " a card"}: ${op.text}`;
    case "editComment":
      return `Edited a comment on${what || " a card"}: ${op.text}`;
    case "checklist":
      return `Checklist on${what || " a card"}: ${op.action} ${op.name ?? op.text ?? ""}`.trim();
    case "move":
    case "copy":
      return `${op.kind === "move" ? "Moved" : "Copied"}${what || ` ${(op.items || []).length} item(s)`} to ${op.destination?.collection ?? "another place"}`;
    case "delete":
      return `Deleted${what || ` ${(op.items || []).length} item(s)`}`;
    case "renameBoard":
    case "renameCollection":
    case "renameSection":
      return `Renamed${op.kind === "renameBoard" ? " the board" : what} to${quoted(op.title)}`;
    case "createCollection":
    case "createSection":
      return `Created${quoted(op.title)}`;
    default:
      return `${op.kind || "A change"}${what}`;
  }
}

/** Every refused change, one line each, for the "Changes not saved" dialog. */
export function unsavedInWords(envelopes) {
  return envelopes.map((e) => `- ${changeInWords(e)}`).join("\n");
}

/**
 * What the page says when the room refused our pending work for good: `code` 4003 (the link no
 * longer opens the board: its links were replaced, or the board was deleted) or 0 (the link now
 * opens it for viewing or commenting only: `reason` "read-only" or "forbidden"), `count` the
 * changes refused.
 */
export function refusedForGoodInWords(code, count, reason = "read-only") {
  const changes = `${count} change${count === 1 ? "" : "s"}`;
  if (code === 0) {
    const only = reason === "forbidden" ? "commenting" : "viewing";
    return `This link now opens the board for ${only} only, so ${changes} you made could not be saved. Copy them from “Changes not saved”, then ask the board's owner for an edit link.`;
  }
  const lost = count ? ` ${changes} you made could not be saved: copy them from “Changes not saved” and make them again with the new link.` : "";
  if (code === 1008) return `This link no longer works: the board's links were changed (rotated). Ask the board's owner or an admin for the new link.${lost}`;
  return `This link no longer works: the board's links were changed (rotated), or the board was deleted. Ask the board's owner or an admin for the new link.${lost}`;
}
