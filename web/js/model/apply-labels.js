// The board's labels (CorkboardModel's Board+ApplyLabels): created while the board has room,
// renamed and recoloured in place, deleted from the board and every card that carried one.

import { CARD_LIMITS, characterCount, detailsOf } from "./card-details.js";
import { Rejection, clamp } from "./board-basics.js";
import { giveDetails } from "./apply-card.js";

/** A label of the board created (at its index, while the board has room) or renamed and recoloured in place. */
export function applySetLabel(board, op) {
  const label = op.label;
  if (characterCount(label.name) > CARD_LIMITS.labelNameCharacters) {
    throw new Rejection("invalid", `A label's name has at most ${CARD_LIMITS.labelNameCharacters} characters; shorten it.`, undefined, "label.name");
  }
  const value = { id: label.id, name: label.name, color: label.color };
  const at = board.labels.findIndex((l) => l.id === label.id);
  if (at >= 0) {
    board.labels[at] = value;
    return {};
  }
  if (board.labels.length >= CARD_LIMITS.labels) {
    throw new Rejection("invalid", `A board has at most ${CARD_LIMITS.labels} labels; delete one before adding another.`, undefined, "label");
  }
  board.labels.splice(clamp(op.index ?? board.labels.length, board.labels.length), 0, value);
  return {};
}

/** A label leaves the board and every card that carried it. */
export function applyDeleteLabel(board, op) {
  const at = board.labels.findIndex((l) => l.id === op.label);
  if (at < 0) throw new Rejection("not-found", `The board has no label ${op.label}; it may have been deleted already.`, undefined, "label");
  board.labels.splice(at, 1);
  for (const { item } of board.items.values()) {
    if (!item.details?.labels?.includes(op.label)) continue;
    giveDetails(item, { ...detailsOf(item), labels: item.details.labels.filter((id) => id !== op.label) });
  }
  return {};
}

