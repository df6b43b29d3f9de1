// Move and copy (CorkboardModel's Board+ApplyMove): the live items carried to a destination that
// accepts them, moved (never into themselves) or copied under derived ids with their details.

import { Rejection, derivedID } from "./board-basics.js";
import { detach, link, liveItems, resolve } from "./destinations.js";
import { insertNew } from "./apply-insert.js";

/** Refuses a move or copy of a placeholder, or of an item the destination does not accept. */
function checkCarried(board, live, resolved, verb) {
  for (const id of live) {
    const item = board.item(id);
    if (item.placeholder) throw new Rejection("forbidden", `${id} is a placeholder and cannot be ${verb}.`, id);
    if (!board.matches(resolved.accepts, item)) throw new Rejection("forbidden", `The destination accepts only ${resolved.accepts.join(", ")}.`, id);
  }
}

export function applyMove(board, op) {
  const { live, skipped } = liveItems(board, op.items, "move");
  const resolved = resolve(board, op.destination);
  checkCarried(board, live, resolved, "dragged");
  if (resolved.into) {
    for (const id of live) {
      if (board.isAncestorOrSelf(id, resolved.into.id)) throw new Rejection("cycle", `Dropping ${id} into ${resolved.into.id} would put it inside itself.`, id);
    }
  }
  const changes = live.map((id) => ({ item: id, from: board.position(id) }));
  const items = live.map((id) => detach(board, id));
  const positions = link(board, items, resolved, op.destination, new Set(live));
  changes.forEach((c, k) => (c.to = positions[k]));
  return { changes, skipped };
}

export function applyCopy(board, op, clientId, opId) {
  const { live, skipped } = liveItems(board, op.items, "copy");
  const resolved = resolve(board, op.destination);
  checkCarried(board, live, resolved, "copied");
  let n = 0;
  const clone = (item) => {
    const copy = { id: derivedID(clientId, opId, n++), representations: structuredClone(item.representations) };
    if (item.children) copy.children = item.children.map(clone);
    // A copy takes the card's details with it.
    if (item.details) copy.details = structuredClone(item.details);
    return copy;
  };
  return insertNew(board, live.map((id) => clone(board.item(id))), resolved, op.destination, skipped);
}
