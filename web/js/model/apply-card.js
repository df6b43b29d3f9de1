// A card's details (issue 41, CorkboardModel's Board+ApplyCard and Board+ApplyChecklist): all parts
// or none, their bounds checked (`invalid`), the description and the dates each named on the
// version they were made on (`conflict` when the card moved past it), then done, the assignees and
// labels (removed, then added at the end; one already there is not added twice) and the files; and
// one change to a card's checklists (checklists.js).

import { applyChecklistChange, checklistChangeProblem } from "./checklists.js";
import { CARD_LIMITS, attachmentsProblem, compactDetails, detailsOf, updateProblem } from "./card-details.js";
import { Rejection, staleVersion } from "./board-basics.js";
import { unmoved } from "./destinations.js";

/** The card a change of its details names: `gone` without it, `invalid` for a placeholder. */
export function cardNamed(board, id) {
  const loc = board.items.get(id);
  if (!loc) throw new Rejection("gone", `${id} was deleted before the change arrived; nothing changed.`, id, "item");
  if (loc.item.placeholder) throw new Rejection("invalid", `${id} is a placeholder; wait for its owner to commit it.`, id, "item");
  return loc;
}

/** Gives an item its details, compacted: none when all are defaults. */
export function giveDetails(item, d) {
  const details = compactDetails(d);
  if (details) item.details = details;
  else delete item.details;
}

/** Gives a card its details; the effect of a card that stays in place. */
export function setDetails(board, loc, d) {
  giveDetails(loc.item, d);
  return unmoved(board, loc.item.id);
}

export function applyUpdateCard(board, op) {
  const loc = cardNamed(board, op.item);
  const problem = updateProblem(op);
  if (problem) throw new Rejection("invalid", problem.message, op.item, problem.field);
  const d = detailsOf(loc.item);
  if (op.description && staleVersion(op.description.version, d.descriptionVersion)) {
    throw new Rejection("conflict", `The description of ${op.item} changed while you were editing it.`, op.item, "description");
  }
  if (op.dates && staleVersion(op.dates.version, d.datesVersion)) throw new Rejection("conflict", `The dates of ${op.item} changed while you were editing them.`, op.item, "dates");
  const missing = (op.addLabels || []).find((id) => !board.labels.some((l) => l.id === id));
  if (missing !== undefined) throw new Rejection("not-found", `The board has no label ${missing}; it may have been deleted.`, op.item, "addLabels");
  if (op.description) {
    d.description = op.description.text;
    d.descriptionVersion += 1;
  }
  if (op.dates) {
    d.due = op.dates.due ?? null;
    d.start = op.dates.start ?? null;
    d.datesVersion += 1;
  }
  if (op.done !== undefined && op.done !== null) d.done = !!op.done;
  const removed = new Set(op.unassign || []);
  d.assignees = d.assignees.filter((name) => !removed.has(name));
  for (const name of op.assign || []) if (!d.assignees.includes(name)) d.assignees.push(name);
  const taken = new Set(op.removeLabels || []);
  d.labels = d.labels.filter((id) => !taken.has(id));
  for (const id of op.addLabels || []) if (!d.labels.includes(id)) d.labels.push(id);
  if (d.assignees.length > CARD_LIMITS.assignees) {
    throw new Rejection("invalid", `A card has at most ${CARD_LIMITS.assignees} people assigned; unassign someone first.`, op.item, "assign");
  }
  const files = op.attach !== undefined || op.detach !== undefined || (op.cover !== undefined && op.cover !== null);
  if (op.detach) {
    d.attachments = d.attachments.filter((a) => !op.detach.includes(a.url));
    if (d.cover && op.detach.includes(d.cover)) d.cover = null;
  }
  for (const file of op.attach || []) if (!d.attachments.some((a) => a.url === file.url)) d.attachments.push({ ...file });
  if (typeof op.cover === "string") d.cover = op.cover || null;
  const fileProblem = files && attachmentsProblem(d);
  if (fileProblem) throw new Rejection("invalid", fileProblem.message, op.item, fileProblem.field);
  return setDetails(board, loc, d);
}

/** One change to a card's checklists, by id (checklists.js). */
export function applyChecklist(board, op) {
  const loc = cardNamed(board, op.item);
  const problem = checklistChangeProblem(op);
  if (problem) throw new Rejection("invalid", problem.message, op.item, problem.field);
  const d = detailsOf(loc.item);
  const lists = applyChecklistChange(d.checklists, op);
  if (lists.refused) throw new Rejection(lists.refused.code, lists.refused.message, op.item, lists.refused.field);
  d.checklists = lists;
  return setDetails(board, loc, d);
}

