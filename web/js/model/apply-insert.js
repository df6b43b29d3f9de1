// Insert (CorkboardModel's Board+ApplyInsert): new items under ids derived from the opId (or the
// ids an undo or another board gave them), with the labels cards bring from another board, where
// the destination accepts them.

import { CARD_LIMITS, compactDetails, detailsOf } from "./card-details.js";
import { Rejection, acceptsTypes, derivedID } from "./board-basics.js";
import { link, resolve } from "./destinations.js";

export function applyInsert(board, op, clientId, opId) {
  if (!op.items || op.items.length === 0) throw new Rejection("invalid", "The insert names no items.");
  const resolved = resolve(board, op.destination);
  // Cards from another board bring the labels they carry: the ones this board lacks join it while it has room.
  for (const label of op.labels || []) {
    if (board.labels.length < CARD_LIMITS.labels && !board.labels.some((l) => l.id === label.id)) board.labels.push(structuredClone(label));
  }
  const known = new Set(board.labels.map((l) => l.id));
  let n = 0;
  const identify = (item) => {
    const result = { id: item.id ?? derivedID(clientId, opId, n), representations: structuredClone(item.representations || []) };
    n++;
    if (item.children) result.children = item.children.map(identify);
    if (item.version > 0) result.version = item.version;
    // Details come back with an item restored by undo or moved in from another board (without
    // labels this board does not have).
    const details = item.details && compactDetails({ ...detailsOf(item), labels: detailsOf(item).labels.filter((id) => known.has(id)) });
    if (details) result.details = details;
    return result;
  };
  const trees = op.items.map(identify);
  const matchesNew = (item) =>
    acceptsTypes(resolved.accepts, item.representations.map((r) => r.type)) ||
    (item.representations.length === 0 && (item.children || []).some(matchesNew));
  for (const tree of trees) {
    if (!matchesNew(tree)) throw new Rejection("forbidden", `The destination accepts only ${resolved.accepts.join(", ")}.`, tree.id);
  }
  return insertNew(board, trees, resolved, op.destination, []);
}

export function insertNew(board, trees, resolved, destination, skipped) {
  const seen = new Set();
  const check = (item) => {
    if (board.items.has(item.id) || seen.has(item.id)) throw new Rejection("duplicate-id", `Item id ${item.id} is already in use on this board.`, item.id);
    seen.add(item.id);
    (item.children || []).forEach(check);
  };
  trees.forEach(check);
  const positions = link(board, trees, resolved, destination, new Set());
  return { changes: trees.map((t, k) => ({ item: t.id, to: positions[k] })), skipped };
}

