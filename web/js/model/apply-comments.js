// Comments (CorkboardModel's Board+ApplyComments): appended to a card's thread, or put back by an
// undo; edited on their version (R12) and deleted, by their author only.

import { CARD_LIMITS, commentTextProblem, detailsOf } from "./card-details.js";
import { Rejection, clamp, staleVersion } from "./board-basics.js";
import { cardNamed, setDetails } from "./apply-card.js";

/**
 * A comment appended to a card's thread (id `<clientId>:<opId>`; the room writes `name` and `at`),
 * or, in an undo, a deleted one put back where it was (`restore`, `index`).
 */
export function applyAddComment(board, op, clientId, opId) {
  const loc = cardNamed(board, op.item);
  const d = detailsOf(loc.item);
  if (d.comments.length >= CARD_LIMITS.comments) {
    throw new Rejection("invalid", `A card holds at most ${CARD_LIMITS.comments} comments; delete some before adding more.`, op.item, "item");
  }
  let comment;
  if (op.restore) {
    if (op.restore.author !== clientId) throw new Rejection("not-owner", "Only a comment's author brings it back.", op.item, "restore");
    comment = structuredClone(op.restore);
    if (!comment.version) delete comment.version;
  } else {
    const problem = commentTextProblem(op.text);
    if (problem) throw new Rejection("invalid", problem.message, op.item, problem.field);
    comment = { id: `${clientId}:${opId}`, author: clientId, name: op.name ?? "", at: op.at ?? 0, text: op.text };
  }
  if (d.comments.some((c) => c.id === comment.id)) throw new Rejection("duplicate-id", `The card already has comment ${comment.id}.`, op.item, "restore");
  d.comments = [...d.comments];
  d.comments.splice(clamp(op.index ?? d.comments.length, d.comments.length), 0, comment);
  return setDetails(board, loc, d);
}

/** The author's new text for their comment, made on its version (R12). */
export function applyEditComment(board, op, clientId) {
  const { loc, d, index } = ownComment(board, op, clientId, "edits");
  const problem = commentTextProblem(op.text);
  if (problem) throw new Rejection("invalid", problem.message, op.item, problem.field);
  const comment = { ...d.comments[index] };
  if (staleVersion(op.version, comment.version || 0)) {
    throw new Rejection("conflict", "Your comment changed since you began editing it, so this edit was not saved.", op.item, "version");
  }
  comment.text = op.text;
  comment.version = (comment.version || 0) + 1;
  d.comments = d.comments.map((c, n) => (n === index ? comment : c));
  return setDetails(board, loc, d);
}

/** The author takes their comment out of the thread. */
export function applyDeleteComment(board, op, clientId) {
  const { loc, d, index } = ownComment(board, op, clientId, "deletes");
  d.comments = d.comments.filter((_, n) => n !== index);
  return setDetails(board, loc, d);
}

/** A comment of a card, for its author: `not-found` without it, `not-owner` for anyone else. */
function ownComment(board, op, clientId, verb) {
  const loc = cardNamed(board, op.item);
  const d = detailsOf(loc.item);
  const index = d.comments.findIndex((c) => c.id === op.comment);
  if (index < 0) throw new Rejection("not-found", `The card has no comment ${op.comment}; it may have been deleted.`, op.item, "comment");
  if (d.comments[index].author !== clientId) throw new Rejection("not-owner", `Only a comment's author ${verb} it.`, op.item, "comment");
  return { loc, d, index };
}

