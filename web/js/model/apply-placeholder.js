// Placeholders (CorkboardModel's Board+ApplyPlaceholder): an item that stands where content is on
// its way, given its content (committed) or taken away by its owner (or the server).

import { Rejection, SYSTEM_CLIENT, acceptsTypes, derivedID } from "./board-basics.js";
import { detach, link, resolve, unmoved } from "./destinations.js";

export function applyInsertPlaceholder(board, op, clientId, opId) {
  if (op.destination.intent === "insertIntoDestinationIndexPath") throw new Rejection("invalid", "A placeholder stands at an index path, not inside an item.");
  const resolved = resolve(board, op.destination);
  const id = derivedID(clientId, opId, 0);
  if (board.items.has(id)) throw new Rejection("duplicate-id", `Item id ${id} is already in use.`, id);
  const item = { id, representations: structuredClone(op.representations || []), placeholder: { owner: clientId, createdAt: op.createdAt || 0 } };
  const positions = link(board, [item], resolved, op.destination, new Set());
  return { changes: [{ item: id, to: positions[0] }] };
}

function placeholderNamed(board, id, verb) {
  const loc = board.items.get(id);
  if (!loc) throw new Rejection("gone", `Placeholder ${id} no longer exists.`, id);
  if (!loc.item.placeholder) throw new Rejection("invalid", `${id} is not a placeholder, so it cannot be ${verb}.`, id);
  return loc;
}

export function applyCommitPlaceholder(board, op, clientId) {
  const loc = placeholderNamed(board, op.item, "committed");
  if (loc.item.placeholder.owner !== clientId) throw new Rejection("not-owner", `Placeholder ${op.item} belongs to ${loc.item.placeholder.owner}.`, op.item);
  if (!acceptsTypes(loc.collection.accepts, op.representations.map((r) => r.type))) {
    throw new Rejection("forbidden", `The collection accepts only ${loc.collection.accepts.join(", ")}.`, op.item);
  }
  loc.item.representations = structuredClone(op.representations);
  delete loc.item.placeholder;
  loc.item.version = (loc.item.version || 0) + 1;
  return unmoved(board, op.item);
}

export function applyDeletePlaceholder(board, op, clientId) {
  const loc = placeholderNamed(board, op.item, "deleted as a placeholder");
  if (loc.item.placeholder.owner !== clientId && clientId !== SYSTEM_CLIENT) throw new Rejection("not-owner", `Placeholder ${op.item} belongs to ${loc.item.placeholder.owner}.`, op.item);
  const from = board.position(op.item);
  detach(board, op.item);
  return { changes: [{ item: op.item, from }] };
}

