// Delete and update (CorkboardModel's Board+ApplyDelete): items taken off the board with their
// children (a delete keeps them in the Trash, R15; a moveOut, to another board, does not), and an
// item's content replaced on the version it was made on (R12).

import { Rejection, SYSTEM_CLIENT, staleVersion } from "./board-basics.js";
import { detach, liveItems, unmoved } from "./destinations.js";
import { putInTrash, runsOf, withoutPlaceholders } from "./trash.js";

export function applyDelete(board, op, clientId, opId) {
  const { live, skipped } = liveItems(board, op.items, op.kind === "moveOut" ? "move out" : "delete");
  for (const id of live) {
    const p = board.item(id).placeholder;
    if (p && p.owner !== clientId && clientId !== SYSTEM_CLIENT) throw new Rejection("not-owner", `${id} is a placeholder owned by ${p.owner}.`, id);
  }
  const changes = live.map((id) => ({ item: id, from: board.position(id) }));
  const roots = live.filter((id) => !live.some((other) => other !== id && board.isAncestorOrSelf(other, id)));
  const removed = roots.map((id) => structuredClone(board.item(id)));
  const trashed = op.kind === "delete"
    ? runsOf(roots, (id) => board.items.get(id))
        .map((run) => ({ origin: run.origin, elements: withoutPlaceholders(run.elements) }))
        .filter((run) => run.elements.length > 0)
    : [];
  roots.forEach((id) => detach(board, id));
  if (trashed.length) putInTrash(board, { cards: trashed }, op, clientId, opId);
  return { changes, skipped, removed };
}

export function applyUpdate(board, op) {
  const loc = board.items.get(op.item);
  if (!loc) throw new Rejection("gone", `${op.item} was deleted before the update arrived.`, op.item);
  if (loc.item.placeholder) throw new Rejection("invalid", `${op.item} is a placeholder; give it content with commitPlaceholder.`, op.item);
  // R12: an update made on an older version is refused; nobody's text is silently replaced.
  if (staleVersion(op.version, loc.item.version || 0)) {
    throw new Rejection("conflict", `${op.item} changed while you were editing it.`, op.item);
  }
  const old = loc.item.representations;
  loc.item.representations = structuredClone(op.representations);
  if (!board.matches(loc.collection.accepts, loc.item)) {
    loc.item.representations = old;
    throw new Rejection("forbidden", `The collection accepts only ${loc.collection.accepts.join(", ")}.`, op.item);
  }
  loc.item.version = (loc.item.version || 0) + 1;
  return unmoved(board, op.item);
}

